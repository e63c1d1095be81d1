#!/usr/bin/env python3
"""The baseline csift's census and audit are measured against: stdlib Python,
one json.loads per line, applying the eaten-text rule the way the bug report's
survey does (group type=="assistant" records by (isSidechain, message.id); a group
with >=2 thinking-bearing records and no text-bearing record is eaten), and
counting record types and tokens per message.id on the same pass.

Usage: baseline.py eaten|stats ROOT
"""
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def scan(root):
    for path in sorted(Path(root).rglob("*.jsonl")):
        try:
            fh = open(path, encoding="utf-8", errors="replace")
        except OSError:
            continue
        with fh:
            yield path, fh


def eaten(root):
    main = side = 0
    for path, fh in scan(root):
        groups = defaultdict(lambda: [0, 0])
        for line in fh:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict) or rec.get("type") != "assistant":
                continue
            msg = rec.get("message") or {}
            blocks = msg.get("content")
            if not msg.get("id") or not isinstance(blocks, list):
                continue
            kinds = {b.get("type") for b in blocks if isinstance(b, dict)}
            g = groups[(bool(rec.get("isSidechain")), msg["id"])]
            g[0] += "thinking" in kinds
            g[1] += "text" in kinds
        for (sidechain, _), (think, text) in groups.items():
            if think >= 2 and text == 0:
                if sidechain:
                    side += 1
                else:
                    main += 1
    print(f"eaten main={main} sidechain={side}")


def stats(root):
    types = Counter()
    tokens = defaultdict(dict)
    lines = 0
    for path, fh in scan(root):
        for line in fh:
            lines += 1
            try:
                rec = json.loads(line)
            except ValueError:
                types["<malformed>"] += 1
                continue
            if not isinstance(rec, dict):
                continue
            types[rec.get("type")] += 1
            msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
            usage = msg.get("usage")
            if rec.get("type") == "assistant" and isinstance(usage, dict) and msg.get("id"):
                seen = tokens[msg.get("model")].setdefault(msg["id"], {})
                for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
                    v = usage.get(k) or 0
                    if isinstance(v, int) and v > seen.get(k, 0):
                        seen[k] = v
    out = {m: sum(sum(v.values()) for v in ids.values()) for m, ids in tokens.items()}
    print(f"lines={lines} types={dict(types)} tokens={out}")


if __name__ == "__main__":
    {"eaten": eaten, "stats": stats}[sys.argv[1]](sys.argv[2])
