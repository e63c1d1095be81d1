#!/usr/bin/env python3
"""Build a timing home from real transcripts: every file under SRC/projects copied
COPIES times into OUT/projects, each copy under a fresh session id (the file and
lane-folder names are the ids, PATH-012), so a small real corpus becomes a home
large enough to time. The bytes are the ones Claude Code wrote; only names change.
Real copies, not links: each copy has its own page-cache pages, as distinct
sessions would.

    bench/replicate.py SRC OUT COPIES
"""
import os
import re
import shutil
import sys

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def renamed(part, k):
    """A path component with every session uuid in it given copy k's id: the
    last four hex digits of the uuid replaced by k (copy 0 keeps the name)."""
    if k == 0:
        return part
    return UUID.sub(lambda m: m.group(0)[:-4] + f"{k:04x}", part)


def main(src, out, copies):
    root = os.path.join(src, "projects")
    if not os.path.isdir(root):
        sys.exit(f"replicate: {root} is not a directory")
    n = total = 0
    for k in range(copies):
        for dirpath, _, files in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            parts = [] if rel == "." else rel.split(os.sep)
            # The project folder (an encoded cwd) keeps its name; session folders change.
            dest = os.path.join(out, "projects", *[p if i == 0 else renamed(p, k) for i, p in enumerate(parts)])
            os.makedirs(dest, exist_ok=True)
            for f in files:
                shutil.copyfile(os.path.join(dirpath, f), os.path.join(dest, renamed(f, k)))
                if f.endswith(".jsonl"):
                    n += 1
                    total += os.path.getsize(os.path.join(dirpath, f))
    print(f"replicate: {n} transcripts, {total / 1e6:.0f} MB in {out}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
