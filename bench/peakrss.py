#!/usr/bin/env python3
"""Run a command and report its peak memory, split the way the targets need it:
peak RssAnon (heap and stacks: what "bounded memory" means) and peak total RSS
(which also counts page-cache pages of memory-mapped transcripts).

Usage: peakrss.py CMD [ARGS...]   -> prints `anon_kb=N total_kb=M seconds=S`
"""
import subprocess
import sys
import time


def read_status(pid):
    vals = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                if key in ("RssAnon", "VmRSS"):
                    vals[key] = int(rest.split()[0])
    except OSError:
        pass
    return vals


def main(argv):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    anon = total = 0
    while proc.poll() is None:
        v = read_status(proc.pid)
        anon = max(anon, v.get("RssAnon", 0))
        total = max(total, v.get("VmRSS", 0))
        time.sleep(0.002)
    print(f"anon_kb={anon} total_kb={total} seconds={time.monotonic() - start:.2f} exit={proc.returncode}")


if __name__ == "__main__":
    main(sys.argv[1:])
