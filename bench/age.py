#!/usr/bin/env python3
"""Give a generated home the file times a real one has: each transcript's
mtime set to its newest record's timestamp (the generator writes every file
"now", so every session would look active today), then the main transcripts
of the first N sessions (sorted by path) touched to now - N sessions active
today, the case `csift status` with no target is built for.

    bench/age.py HOME N
"""
import os
import re
import sys
import time
from datetime import datetime
from pathlib import Path

home, active = Path(sys.argv[1]), int(sys.argv[2])
TS = re.compile(rb'"timestamp"\s*:\s*"([^"]+)"')
files = sorted(home.joinpath("projects").rglob("*.jsonl"))
for p in files:
    with open(p, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - 65536))
        found = TS.findall(fh.read())
    if found:
        t = datetime.fromisoformat(found[-1].decode().replace("Z", "+00:00")).timestamp()
        os.utime(p, (t, t))
now = time.time()
mains = [p for p in files if p.parent.parent == home / "projects"][:active]
for p in mains:
    os.utime(p, (now, now))
print(f"aged {len(files)} transcripts; {len(mains)} sessions active now", file=sys.stderr)
