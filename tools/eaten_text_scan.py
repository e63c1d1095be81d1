#!/usr/bin/env python3
# The eaten-text survey script of the bug report (shared/seeds/eaten-text-bug-report.md,
# attachment "eaten_text_scan.py"), shipped so that tests/audit.rs can cross-check
# `csift audit -k eaten-text` against it on every run. Only the ROOT line differs.
"""Fleet survey of the Claude Code eaten-text persistence bug.

The bug (identified 2026-08-09, PHAROTH; see
~/.claude/scratch/eaten-text-bug-report.md and the guard_eaten_text.py Stop
hook): a streamed response shaped [thinking][text][thinking][tool_use...]
never persists its TEXT block to the session JSONL.

Signature: group assistant records by message.id; a response persisting >= 2
thinking-bearing records and ZERO text-bearing records is a loss. Text
presence is checked across ALL blocks of each record (multi-block records
exist). Sidechain (subagent) hits are counted separately — they are real
losses but not user-facing.

Run on any machine: python3 ~/.claude/tools/eaten_text_scan.py
Re-run after every Claude Code update to see whether upstream fixed it.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

# csift: the projects folder may be given as the first argument (tests/audit.rs
# runs this on a generated home); everything else is the report's script verbatim.
ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.home() / ".claude" / "projects"

per_month = defaultdict(int)
main_hits = 0
side_hits = 0
multiblock = 0
sessions = set()
earliest = None
version_hits = defaultdict(int)
top = defaultdict(int)

for jl in ROOT.rglob("*.jsonl"):
    groups = {}  # (sidechain, mid) -> [n_think, n_text, ts, version]
    try:
        f = open(jl, encoding="utf-8")
    except OSError:
        continue
    with f:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("type") != "assistant":
                continue
            msg = r.get("message") or {}
            mid = msg.get("id")
            blocks = msg.get("content")
            if not mid or not isinstance(blocks, list):
                continue
            real = [b for b in blocks if isinstance(b, dict)]
            if len(real) > 1:
                multiblock += 1
            kinds = {b.get("type") for b in real}
            key = (bool(r.get("isSidechain")), mid)
            g = groups.setdefault(
                key, [0, 0, r.get("timestamp", ""), r.get("version", "")])
            if "thinking" in kinds:
                g[0] += 1
            if "text" in kinds:
                g[1] += 1
    for (side, mid), (t, x, ts, ver) in groups.items():
        if t >= 2 and x == 0:
            if side:
                side_hits += 1
                continue
            main_hits += 1
            sessions.add(jl.name)
            per_month[ts[:7]] += 1
            top[str(jl.relative_to(ROOT))[:70]] += 1
            if ver:
                version_hits[ver] += 1
            if ts and (earliest is None or ts < earliest):
                earliest = ts

print(f"MAIN-context eaten responses: {main_hits} in {len(sessions)} transcripts")
print(f"SIDECHAIN (subagent) eaten responses: {side_hits}")
print(f"multi-block assistant records seen: {multiblock}")
print(f"earliest main hit: {earliest}")
print("\nmain hits by month:")
for m in sorted(per_month):
    print(f"  {m}: {per_month[m]}")
print("\nmain hits by CC version:")
for v in sorted(version_hits):
    print(f"  {v}: {version_hits[v]}")
print("\ntop affected transcripts:")
for name, n in sorted(top.items(), key=lambda kv: -kv[1])[:10]:
    print(f"  {n:5d}  {name}")
