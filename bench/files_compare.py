#!/usr/bin/env python3
"""Compare `csift recover --all` with claude-file-recovery's extract-files.

usage: files_compare.py CSIFT_JSONL CFR_OUT_DIR HOME

CSIFT_JSONL is `csift recover --all --format json` output (one "recovered" row per
touched path); CFR_OUT_DIR is the directory claude-file-recovery extracted into
(absolute paths with the leading "/" stripped). Prints Markdown: what each reached,
what csift rebuilt that claude-file-recovery could not, and how the texts of files
both wrote compare (csift complete and equal; csift complete and different; csift
with marked gaps).
"""
import json
import os
import sys

GAP = "<<csift gap:"


def cfr_files(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            with open(p, "rb") as fh:
                out["/" + rel] = fh.read()
    return out


def classify(rows, cfr, differ):
    """Name what differs, per file (the first rule that fits)."""
    import re
    kinds = {}
    for p in differ:
        a = open(rows[p]["out"], "rb").read().decode("utf-8", "replace")
        b = cfr[p].decode("utf-8", "replace")
        if "<system-reminder>" in b and "<system-reminder>" not in a:
            why = "keeps a <system-reminder> from the rendered Read"
        elif a.rstrip("\n") == b.rstrip("\n"):
            why = "final newline lost or added (it reads the rendered Read, trimmed)"
        elif re.search(r"^ *\d+\t", b, re.M) and not re.search(r"^ *\d+\t", a, re.M):
            why = "keeps the Read's TAB line-number gutter"
        elif len(b) < len(a) and b.count("\n\n\n") > a.count("\n\n\n"):
            why = "blank lines where no evidence is (a partial read padded)"
        else:
            why = "other: edits in agent_progress records it skips, or Claude Code's replacement rule"
        kinds[why] = kinds.get(why, 0) + 1
    return kinds


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    rows = {r["path"]: r for r in rows if r.get("type") == "recovered"}
    cfr = cfr_files(sys.argv[2])
    home = sys.argv[3]
    reached = set(rows)
    written = {p for p, r in rows.items() if r.get("out")}
    complete = {p for p, r in rows.items() if r.get("complete")}
    missing = sorted(set(cfr) - reached)
    only_csift = sorted(written - set(cfr))
    both = sorted(written & set(cfr))
    same, differ, gapped = [], [], []
    for p in both:
        mine = open(rows[p]["out"], "rb").read()
        if p in complete:
            (same if mine == cfr[p] else differ).append(p)
        else:
            gapped.append(p)
    print()
    print(f"### {os.path.basename(home.rstrip('/'))}: csift recover --all vs claude-file-recovery extract-files")
    print()
    print("| | files |")
    print("|---|---:|")
    print(f"| claude-file-recovery extracted | {len(cfr)} |")
    print(f"| csift touched paths (rows) | {len(reached)} |")
    print(f"| csift wrote | {len(written)} ({len(complete)} complete, {len(written) - len(complete)} with marked gaps) |")
    print(f"| extracted by claude-file-recovery, not reached by csift | **{len(missing)}** |")
    print(f"| written by csift, not by claude-file-recovery | {len(only_csift)} |")
    print(f"| both, csift complete, same bytes | {len(same)} |")
    print(f"| both, csift complete, different bytes | {len(differ)} |")
    print(f"| both, csift with marked gaps (claude-file-recovery wrote a whole file) | {len(gapped)} |")
    if differ:
        print()
        print("Where csift is complete and the bytes differ, claude-file-recovery's text:")
        print()
        for why, n in sorted(classify(rows, cfr, differ).items(), key=lambda x: -x[1]):
            print(f"- {why}: {n}")
    for title, items in (
        ("not reached by csift", missing),
        ("written by csift only", only_csift),
        ("complete in csift, different in claude-file-recovery", differ),
    ):
        if items:
            print()
            print(f"{title} (first 15 of {len(items)}):")
            for p in items[:15]:
                print(f"- `{p}`")
    # A line count of claude-file-recovery's text where csift left gaps: the
    # lines it printed that no evidence covered are made up (blank padding).
    padded = 0
    for p in gapped:
        mine = open(rows[p]["out"], "rb").read().decode("utf-8", "replace")
        if GAP in mine and cfr[p].count(b"\n") > 0:
            padded += 1
    if gapped:
        print()
        print(f"Of the {len(gapped)} files csift left with marked gaps, claude-file-recovery wrote {padded} as if whole.")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
