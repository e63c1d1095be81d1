#!/usr/bin/env python3
"""Turn bench/run's hyperfine JSON and memory samples into BENCHMARKS.md."""
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

jsondir, memfile, bigh, smallh, bigfile, lit, regex = sys.argv[1:8]
notes = sys.argv[8] if len(sys.argv) > 8 else None


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def size(home):
    total = n = 0
    for p in Path(home).rglob("*.jsonl"):
        total += p.stat().st_size
        n += 1
    return total, n


def max_size(home):
    return max((p.stat().st_size for p in Path(home).rglob("*.jsonl")), default=0)


def load(name):
    with open(os.path.join(jsondir, f"{name}.json")) as fh:
        return json.load(fh)["results"]


# case: (target text, max ratio to rg or None, min speed-up over the other tool or None).
# The first round's list_small (≤ 0.2x rg), stats (≤ 3x rg) and audit (≤ 2x rg)
# sat below the floors of passes every exact implementation makes (## Floors):
# issue 37 withdrew them and set stats, audit and list_small against those
# floors instead (FLOOR_TARGETS).
TARGETS = {
    "search_literal": ("≤ 1.2x rg", 1.2, None),
    "search_label": ("≤ 1.2x rg", 1.2, None),
    "list_big": ("≤ 0.1x rg", 0.1, None),
    "list_small": ("≤ 1.5x its read floor, pass `edges` (## Floors)", None, None),
    "list_full": ("(none: --full reads every line)", None, None),
    "status_small": ("≤ 0.3x csift list", None, None),
    "stats": ("≤ 1.6x the serde floor (## Floors)", None, None),
    "audit": ("≤ 1.3x the serde floor (## Floors)", None, None),
    "audit_eaten": ("≤ 2x rg; ≥ 20x faster than Python", 2.0, 20.0),
    "jq": ("≥ 20x faster than jq", None, 20.0),
}

# floors case: {csift command: (the pass it is held to, max ratio to it)}
FLOOR_TARGETS = {
    # The read floor is walk + open + a 4 KB head and tail (`edges`);
    # until 2026-12-03 the pass named `read` was list's own reader, which
    # reads files up to 256 KB whole, so it held list to what list reads.
    "floors_small": {"list": ("edges", 1.5)},
    "floors_big": {"stats": ("serde", 1.6), "audit": ("serde", 1.3)},
    "floors_real": {"stats": ("serde", 1.6), "audit": ("serde", 1.3)},
    "floors_dense": {"stats": ("serde", 1.6), "audit": ("serde", 1.3)},
}


# case: (the csift command the target is set against, max ratio to it)
VERSUS = {"status_small": ("list", 0.3)}


def verdict(ok):
    return "met" if ok else "**missed**"


out = []
cpu = sh("lscpu | sed -n 's/^Model name:[ ]*//p'") or platform.processor()
bb, bn = size(bigh)
sb, sn = size(smallh)
out.append("# Benchmarks\n")
out.append("Measured by `bench/run` (corpus from `examples/gen_corpus`, page cache warm, medians of hyperfine runs). "
           "Re-run it after any change to a hot path.\n")
mem_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
out.append(f"- Machine: {cpu}, {os.cpu_count()} cores, {mem_gb} GiB RAM, {platform.system()} {platform.release()}")
out.append(f"- csift {sh('target/release/csift --version')}, {sh('rg --version | head -1')}, {sh('jq --version')}, Python {platform.python_version()}, {sh('hyperfine --version')}")
out.append(f"- Big home: {bn} transcripts, {bb / 1e9:.2f} GB, largest {os.path.getsize(bigfile) / 1e6:.0f} MB; small home: {sn} transcripts, {sb / 1e6:.0f} MB (generator seed {os.environ.get('BENCH_SEED', '1')})")
out.append(f"- Rare literal `{lit}`, label regex `{regex}`\n")
def table(names, homes):
    """The rows of the cases in `names` (case -> TARGETS key), paths shortened by `homes`."""
    rows = ["| case | command | median s | ratio to rg | target | verdict |", "|---|---|---:|---:|---|---|"]
    for name, key in names:
        target, limit, speedup = TARGETS[key]
        try:
            res = load(name)
        except OSError:
            continue
        base = next((r for r in res if r["command"].startswith("rg ")), None)
        first = res[0]["median"]
        for r in res:
            cmd = r["command"]
            for path, short in homes:
                cmd = cmd.replace(path, short)
            cmd = cmd.replace(os.path.abspath("target/release/csift"), "csift")
            if len(cmd) > 90:
                cmd = cmd[:87] + "…"
            med = r["median"]
            ratio = f"{med / base['median']:.2f}x" if base else "-"
            v = ""
            if r is res[0] and base and limit is not None:
                v = verdict(med / base["median"] <= limit)
            rows.append(f"| {name} | `{cmd}` | {med:.3f} | {ratio} | {target if r is res[0] else ''} | {v} |")
        # A target set against another csift command: the ratio to it.
        vs = VERSUS.get(key)
        other = next((r for r in res[1:] if vs and f" {vs[0]} " in r["command"]), None)
        if other:
            x = first / other["median"]
            rows.append(f"| {name} | `csift {res[0]['command'].split()[1]}` over `csift {vs[0]}` | | {x:.2f}x | {target} | {verdict(x <= vs[1])} |")
        for r in res[1:]:
            if r is other:
                continue
            if not r["command"].startswith("rg "):
                x = r["median"] / first
                v = verdict(x >= speedup) if speedup else ""
                rows.append(f"| {name} | csift speed-up over `{r['command'].split()[0]}` | | {x:.1f}x faster | | {v} |")
    return rows


out.extend(table([(k, k) for k in TARGETS], [(bigh, "$BIG"), (smallh, "$SMALL")]))

realh = os.environ.get("BENCH_REAL_HOME")
if realh and os.path.isdir(realh):
    rb, rn = size(realh)
    src = os.environ.get("BENCH_REAL_SRC", "")
    copies = os.environ.get("BENCH_REAL_COPIES", "?")
    out.append("\n## Real transcripts\n")
    per_copy = rn // int(copies) if copies.isdigit() and int(copies) > 0 else rn
    shown = os.path.relpath(os.path.abspath(src)) if src else "?"
    out.append(f"The same cases on bytes Claude Code wrote: the {per_copy} transcripts under `{shown}`, "
               f"each copied {copies} times under fresh session ids by `bench/replicate.py`: "
               f"{rn} transcripts, {rb / 1e9:.2f} GB, largest {max_size(realh) / 1e6:.1f} MB. "
               "No generator choice is in these bytes.\n")
    real = [("real_search_literal", "search_literal"), ("real_search_label", "search_label"),
            ("real_search_dense", "search_label"), ("real_list", "list_small"),
            ("real_stats", "stats"), ("real_audit", "audit"), ("real_audit_eaten", "audit_eaten"), ("real_jq", "jq")]
    out.extend(table(real, [(realh, "$REAL")]))

FLOORS = {
    "stat": "list every directory and stat every transcript, keeping nothing: what `status` with no target does at least (it keeps only the files of the window)",
    "walk": "discovery: the tree walk, one stat per file and a transcript built for each (every command that reads the whole home)",
    "open": "+ open and close each transcript",
    "edges": "+ a 4 KB head and a 4 KB tail read: the least any `list` that opens its files reads, and what a hit of its cache reads",
    "read": "+ what `list --no-cache` reads, by list's own reader: files up to 256 KB whole (exact turn counts), larger ones as a 4 KB head and tail",
    "lines": "map each file and find every newline: the floor of any pass over every line",
    "utf8": "+ a UTF-8 check of each line",
    "skim": "newlines + a structural skim of each line (no UTF-8 check): audit's per-line work without malformed-line",
    "serde": "newlines + UTF-8 + serde_json validating each line, keeping nothing: the full audit's per-line floor (malformed-line judges every line's grammar)",
    "parse": "newlines + the census's own record parse of each line, before any counting",
}
def named(words):
    """A csift command by its subcommand and flags (`list --no-cache`: the
    list rows time the cache warm and off)."""
    flags = [w for w in words[2:] if w.startswith("--") and w != "--claude-home"]
    warm = " (its cache warm)" if words[1] == "list" and "--no-cache" not in flags else ""
    return " ".join([words[1]] + flags) + warm


floor_rows = []
floor_verdicts = []
for name, home in (("floors_small", "$SMALL"), ("floors_big", "$BIG"), ("floors_real", "$REAL"), ("floors_dense", "$DENSE")):
    try:
        res = load(name)
    except OSError:
        continue
    base = next((r for r in res if r["command"].startswith("rg ")), None)
    passes = {r["command"].split()[1]: r["median"] for r in res if r["command"].split()[0].endswith("/floors")}
    for r in res:
        words = r["command"].split()
        want = FLOOR_TARGETS.get(name, {}).get(words[1]) if not words[0].endswith("/floors") and words[0] != "rg" else None
        if want and want[0] in passes:
            x = r["median"] / passes[want[0]]
            floor_verdicts.append(f"| {home} | `csift {named(words)}` | pass `{want[0]}` | {x:.2f}x | ≤ {want[1]}x | {verdict(x <= want[1])} |")
    for r in res:
        words = r["command"].split()
        if words[0].endswith("/floors"):
            what, label = FLOORS.get(words[1], ""), f"pass `{words[1]}`"
        elif words[0] == "rg":
            what, label = "the reference: `rg -c` of a rare literal", "`rg`"
        else:
            what, label = "the command itself", f"`csift {named(words)}`"
        ratio = f"{r['median'] / base['median']:.2f}x" if base else "-"
        floor_rows.append(f"| {home} | {label} | {what} | {r['median']:.3f} | {ratio} |")
if floor_rows:
    out.append("\n## Floors\n")
    out.append("Each pass a command is built from, run alone over the same home the way the commands run "
               "(files in parallel, largest first; `examples/floors.rs`), in one hyperfine run with `rg` and the command. "
               "A pass's ratio is a floor for every command that must do it: no design that does the pass can be faster. "
               "$DENSE is a generated home whose tool results are large and escape-dense (5% of them 1,500-line source bodies, `gen_corpus --dense-results 5`).\n")
    out.append("| home | what ran | what it does | median s | ratio to rg |")
    out.append("|---|---|---|---:|---:|")
    out.extend(floor_rows)
    if floor_verdicts:
        out.append("\nThe targets set against these floors (issue 37): the command's median over its pass's median, from the same hyperfine run.\n")
        out.append("| home | command | held to | ratio | target | verdict |")
        out.append("|---|---|---|---:|---|---|")
        out.extend(floor_verdicts)
if os.path.exists(os.path.join(jsondir, "image_big.json")):
    rows = load("image_big")
    base = next((r for r in rows if " search -c media_type " in r["command"]), None)
    out.append("\n## Images\n")
    out.append("`csift image` over one 300 MB transcript holding 1,000 images (`bench/gen_images.py`), against searches "
               "that read the same lines. Target: no more than `search` over it.\n")
    out.append("| command | median s | user s | ratio to search -c media_type |")
    out.append("|---|---:|---:|---:|")
    for r in rows:
        ratio = f"{r['median'] / base['median']:.2f}x" if base else "-"
        words = [("$IMAGES" + w[w.rindex("/images") + 7:]) if "/images" in w else w
                 for w in r["command"].split()]
        cmd = " ".join([os.path.basename(words[0])] + words[1:])
        out.append(f"| `{cmd}` | {r['median']:.3f} | {r['user']:.3f} | {ratio} |")
out.append("\n## Peak memory on the largest transcript\n")
out.append("`anon` is the process's own memory (heap, stacks); `total` also counts page-cache pages of the memory-mapped transcript, which the kernel can drop at will. Target: anon under 100 MB for every command.\n")
out.append("| command | anon MB | total MB | seconds | verdict |")
out.append("|---|---:|---:|---:|---|")
for line in open(memfile):
    cmd, _, vals = line.rstrip("\n").partition("\t")
    kv = dict(x.split("=") for x in vals.split())
    anon = int(kv['anon_kb']) / 1024
    ok = verdict(anon < 100 and kv.get("exit", "0") in ("0", "1"))
    cmd = cmd.replace(os.path.join(os.path.dirname(memfile), "recovered"), "DIR")
    out.append(f"| `csift {cmd}` | {anon:.1f} | {int(kv['total_kb']) / 1024:.1f} | {kv['seconds']} | {ok} |")
truth = os.environ.get("BENCH_TRUTH")
if truth and os.path.exists(truth):
    out.append("")
    out.append(open(truth).read().rstrip())
usage_md = os.environ.get("BENCH_USAGE_MD")
if usage_md and os.path.exists(usage_md):
    out.append("")
    out.append(open(usage_md).read().rstrip())
# `bench/wait` measures a 60 s wait by hand (it takes minutes of wall time):
# its last table is kept in bench/wait.md.
wait_md = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wait.md")
if os.path.exists(wait_md):
    out.append("")
    out.append(open(wait_md).read().rstrip())
# Sections of the previous report this run does not write (measured by hand
# or by another script: export beside claude-code-log, the census cache) are
# kept, marked as such, rather than dropped by a regeneration.
previous = os.environ.get("BENCH_PREVIOUS")
notes_text = open(notes).read().rstrip() if notes and os.path.exists(notes) else ""
if previous and os.path.exists(previous):
    made = {l for l in "\n".join(out + [notes_text]).splitlines() if l.startswith("## ")}
    mark = "(Kept from the previous report: this run did not write this section; its figures are from an earlier measurement.)"
    kept, cur = [], None
    for line in open(previous).read().splitlines():
        if line.startswith("## "):
            cur = None if line in made else [line, "", mark]
            if cur is not None:
                kept.append(cur)
            continue
        # A section kept before already carries the mark: say it once.
        if cur is not None and line != mark and not (line == "" and cur[-1] == ""):
            cur.append(line)
    for sec in kept:
        out.append("")
        out.append("\n".join(sec).rstrip())
if notes_text:
    out.append("")
    out.append(notes_text)
print("\n".join(out))
