#!/usr/bin/env python3
"""A Claude home whose one transcript holds many pasted images, for timing
`csift image` against `csift search` over the same bytes (BENCHMARKS.md).

    bench/gen_images.py OUT_HOME [--mb 300] [--images 1000] [--seed 1]

Shapes copied from real transcripts (IMG-001/002/005/008/013): prompts carrying
`[Image #N]` markers and image blocks, image Reads (a nested block plus the
echo), a re-sent copy now and then, and ordinary text turns between them to
reach the size asked for. Payloads are random bytes behind a PNG signature:
incompressible, like real screenshots, so the base64 is as long as theirs.
"""
import argparse
import base64
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("home")
p.add_argument("--mb", type=int, default=300)
p.add_argument("--images", type=int, default=1000)
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()
rng = random.Random(a.seed)

SID = "5e55a0e0-0000-4000-8000-000000000001"
proj = os.path.join(a.home, "projects", "-bench-images")
os.makedirs(proj, exist_ok=True)
target = a.mb * 1024 * 1024
# Images take about 80% of the bytes (a Read stores its payload twice, IMG-013,
# and some are re-sent); text turns fill the rest.
per_image = int(target * 0.8 / 1.5 / a.images * 3 / 4)

n = 0


def env(rec):
    global n
    n += 1
    rec.update({"parentUuid": None, "isSidechain": False, "userType": "external",
                "cwd": "/bench/images", "sessionId": SID, "version": "2.1.258",
                "uuid": "%08x-0000-4000-8000-%012x" % (n, n),
                "timestamp": "2026-09-01T%02d:%02d:%02d.000Z" % (n // 3600 % 24, n // 60 % 60, n % 60)})
    return rec


def payload():
    body = b"\x89PNG\r\n\x1a\n" + rng.randbytes(per_image)
    return base64.b64encode(body).decode()


def img(data, mt="image/png"):
    return {"type": "image", "source": {"type": "base64", "media_type": mt, "data": data}}


def words(k):
    return " ".join(rng.choice(["alpha", "beta", "gamma", "delta", "render", "crate", "panic"]) for _ in range(k))


size = 0
made = 0
sent = []
with open(os.path.join(proj, SID + ".jsonl"), "w") as f:
    def put(rec):
        global size
        line = json.dumps(env(rec), separators=(",", ":")) + "\n"
        f.write(line)
        size += len(line)

    while made < a.images or size < target:
        if made < a.images:
            kind = rng.random()
            if kind < 0.6:
                k = min(rng.choice([1, 1, 2, 3]), a.images - made)
                datas = [payload() for _ in range(k)]
                if sent and rng.random() < 0.2:
                    datas.append(rng.choice(sent))  # a re-sent copy (IMG-008)
                marks = " ".join("[Image #%d]" % (i + 1) for i in range(len(datas)))
                put({"type": "user", "message": {"role": "user", "content":
                     [{"type": "text", "text": marks + " " + words(12)}] + [img(d) for d in datas]}})
                sent.extend(datas)
                made += k
            else:
                d = payload()
                tid = "toolu_%06d" % n
                put({"type": "assistant", "message": {"id": "msg_%d" % n, "role": "assistant", "model": "claude-x",
                     "content": [{"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": "/bench/s.png"}}]}})
                put({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                     "content": [img(d)]}]},
                     "toolUseResult": {"type": "image", "file": {"base64": d, "type": "image/png", "originalSize": per_image}}})
                made += 1
        put({"type": "assistant", "message": {"id": "msg_%d" % n, "role": "assistant", "model": "claude-x",
             "content": [{"type": "text", "text": words(rng.randint(20, 400))}]}})
        if made >= a.images and size < target:
            put({"type": "user", "message": {"role": "user", "content": words(30)}})
print("%s: %.0f MB, %d image blocks written" % (SID, size / 1e6, made))
