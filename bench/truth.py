#!/usr/bin/env python3
"""Check csift against the generator's truth file at bench scale.

    python3 bench/truth.py CSIFT HOME TRUTH NAME

Every planted needle must come back from `csift search NEEDLE_ -t LABEL` under
its label at its file and line, with no other needle hit under that label, and
every planted eaten-text group must be an `audit -k eaten-text` finding, with no
other finding. Prints one Markdown bullet for the home NAME; exits 1 when
anything differs, when a csift run fails, or when the truth file plants no
needle or no eaten-text group (nothing checked is no pass).
"""
import json
import os
import subprocess
import sys
from collections import defaultdict


def rows(text):
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def real(p):
    return os.path.realpath(p)


def main():
    csift, home, truth, name = sys.argv[1:5]
    want = defaultdict(set)
    eaten = set()
    for r in rows(open(truth).read()):
        if r["kind"] == "needle":
            want[r["label"]].add((real(r["file"]), r["line"]))
        elif r["kind"] == "eaten_text":
            eaten.add((real(r["file"]), r["message_id"]))
    needles = sum(len(v) for v in want.values())
    if not needles or not eaten:
        # An empty or foreign truth file checks nothing: "0/0, no missing" is no pass.
        print(f"truth.py: {truth} plants {needles} needles and {len(eaten)} eaten-text "
              "groups: nothing to check", file=sys.stderr)
        return 1
    bad = []
    found = 0
    for label, exp in sorted(want.items()):
        out = subprocess.run(
            [csift, "search", "NEEDLE_", "-t", label, "--format", "json", "--claude-home", home],
            capture_output=True, text=True,
        )
        if out.returncode not in (0, 1):
            bad.append(f"`{label}`: csift exited {out.returncode}: {out.stderr.strip()[:300]}")
        got = {(real(m["file"]), m["line"]) for m in rows(out.stdout) if m.get("type") == "match"}
        found += len(exp & got)
        if got != exp:
            bad.append(f"`{label}`: missing {sorted(exp - got)}, extra {sorted(got - exp)}")
    out = subprocess.run(
        [csift, "audit", "-k", "eaten-text", "--format", "json", "--claude-home", home],
        capture_output=True, text=True,
    )
    if out.returncode not in (0, 1):
        bad.append(f"audit exited {out.returncode}: {out.stderr.strip()[:300]}")
    got = {(real(f["file"]), f["message_id"]) for f in rows(out.stdout) if f.get("type") == "finding"}
    if got != eaten:
        bad.append(f"eaten-text: missing {sorted(eaten - got)}, extra {sorted(got - eaten)}")
    verdict = "no missing and no extra hit" if not bad else "**differences below**"
    print(
        f"- {name} home: {found}/{needles} planted needles found under their "
        f"{len(want)} labels; {len(eaten & got)}/{len(eaten)} planted eaten-text groups "
        f"found by `audit -k eaten-text`; {verdict}."
    )
    for b in bad:
        print(f"  - {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
