#!/usr/bin/env python3
"""How each home-wide command grows with the home (issue 37: memory and time
must grow linearly or better). Runs every command that reads a whole home on
each HOME given, one after the other, and prints one Markdown table: peak
anonymous memory (RssAnon polled, as bench/peakrss.py), user and system CPU time (the
kernel's rusage of the child: steadier than wall time on a loaded machine; the
growth column uses user time, since system time also counts page faults that
read a home the page cache could not hold) and wall time, then each command's
growth from the first home to the last beside the growth of the homes' bytes.

Usage: scale.py CSIFT HOME [HOME ...]   (the homes smallest first)
Each command runs RUNS times (env, default 3); the table keeps the median CPU
and wall and the highest peak. csift's state goes to a temporary directory;
the cache-backed commands run with --no-cache (a census, not a cache read).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = [
    "list",
    "search NEEDLE_user_message_1000",
    "search -t agent.tool.use NEEDLE_agent_tool_use_[0-9]+",
    "stats --no-cache",
    "audit --no-cache",
    "usage --no-cache",
    "agents",
    "status",
    "tasks",
    "files",
    "plan",
    "image",
    "recover --all --out {out}",
]


def anon_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_once(argv, env):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, anon_kb(proc.pid))
        time.sleep(0.002)
    wall = time.monotonic() - start
    return peak, usage.ru_utime, usage.ru_stime, wall, os.waitstatus_to_exitcode(status)


def home_bytes(home):
    total = 0
    for root, _, files in os.walk(os.path.join(home, "projects")):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files if f.endswith(".jsonl"))
    return total


def measure(csift, home, runs, env):
    rows = {}
    for c in COMMANDS:
        out = tempfile.mkdtemp(prefix="csift-scale-")
        argv = [csift] + c.format(out=out).split() + ["--claude-home", home]
        got = []
        for _ in range(runs):
            got.append(run_once(argv, env))
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out, exist_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        rows[c] = (
            max(g[0] for g in got) / 1024,
            statistics.median(g[1] for g in got),
            statistics.median(g[2] for g in got),
            statistics.median(g[3] for g in got),
            got[0][4],
        )
        print(f"{home}: {c}: {rows[c]}", file=sys.stderr)
    return rows


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    csift, homes = argv[1], argv[2:]
    runs = int(os.environ.get("RUNS", "3"))
    env = dict(os.environ, XDG_STATE_HOME=tempfile.mkdtemp(prefix="csift-scale-state-"))
    sizes = [home_bytes(h) for h in homes]
    results = [measure(csift, h, runs, env) for h in homes]
    gb = [s / 1e9 for s in sizes]
    head = " | ".join(f"{g:.1f} GB: anon MB / user s / sys s / wall s" for g in gb)
    print(f"| command | {head} | growth: anon / user (bytes {sizes[-1] / sizes[0]:.2f}x) |")
    print("|---|" + "---:|" * len(homes) + "---:|")
    for c in COMMANDS:
        cells = " | ".join(
            f"{r[c][0]:.1f} / {r[c][1]:.2f} / {r[c][2]:.2f} / {r[c][3]:.2f}" for r in results
        )
        first, last = results[0][c], results[-1][c]
        growth = f"{last[0] / max(first[0], 0.1):.2f}x / {last[1] / max(first[1], 0.001):.2f}x"
        label = c.replace("{out}", "DIR")
        exits = {r[c][4] for r in results}
        note = "" if exits <= {0, 1} else f" (exit {sorted(exits)})"
        print(f"| `{label}`{note} | {cells} | {growth} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
