#!/usr/bin/env python3
"""Build the status-line timing home: a copy of a generated home whose files
were last written days ago, with today's activity appended to N of them (the
largest transcript, the session the payload names, and N-1 spread over the
rest). Prints the status-line payload for that session.

    bench/status_home.py SRC OUT [N]      # N defaults to 20
    bench/status_home.py --append FILE    # append one more message to FILE (now)
"""
import json
import os
import shutil
import sys
import time
import uuid

DAY = 86400


def record(session, mid, ts):
    return json.dumps({
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/bench",
        "sessionId": session, "version": "2.1.258", "gitBranch": "main", "type": "assistant",
        "uuid": str(uuid.uuid4()), "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ts)),
        "requestId": "req_" + mid[4:],
        "message": {"model": "claude-opus-4-6", "id": mid, "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": "Done: the tests pass."}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 6, "output_tokens": 412, "cache_read_input_tokens": 81234,
                              "cache_creation_input_tokens": 1530,
                              "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1530}}},
    }, separators=(",", ":")) + "\n"


def append(path, n, now, spread):
    session = os.path.basename(path)[:-len(".jsonl")]
    with open(path, "a") as f:
        for i in range(n):
            ts = now - spread + spread * (i + 1) / n
            f.write(record(session, "msg_" + uuid.uuid4().hex[:24], ts))


def main():
    if sys.argv[1] == "--append":
        append(sys.argv[2], 1, time.time(), 1)
        return
    src, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(src, out)
    files = []
    for d, _, fs in os.walk(os.path.join(out, "projects")):
        files += [os.path.join(d, f) for f in fs if f.endswith(".jsonl")]
    files.sort()
    old = time.time() - 3 * DAY
    for p in files:
        os.utime(p, (old, old))
    mains = [p for p in files if "/subagents/" not in p and not os.path.basename(p).startswith("agent-")]
    biggest = max(mains, key=os.path.getsize)
    rest = [p for p in mains if p != biggest]
    step = max(1, len(rest) // (n - 1))
    chosen = [biggest] + rest[::step][: n - 1]
    now = time.time()
    # Two hours of work spread over the files, the last message a minute ago.
    for p in chosen:
        append(p, 30, now - 60, 2 * 3600)
    session = os.path.basename(biggest)[:-len(".jsonl")]
    print(json.dumps({"session_id": session, "transcript_path": biggest, "cwd": "/bench",
                      "model": {"id": "claude-opus-4-6", "display_name": "Opus 4.6"},
                      "workspace": {"current_dir": "/bench", "project_dir": "/bench"},
                      "cost": {"total_cost_usd": 1.0}}))


if __name__ == "__main__":
    main()
