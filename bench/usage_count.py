#!/usr/bin/env python3
"""Independent token counts of a Claude home, per UTC day and model, under a
counting rule, to compare `csift usage` and `ccusage daily` and to explain each
difference by the rule step that makes it.

    bench/usage_count.py HOME > counts.json     # {rule: [rows]} for every rule

RULE is one of (each step changes one thing from the one before):
  ccusage   ccusage 20.0.24's, as measured: each assistant copy with usage
            (top-level or nested in an agent_progress record), deduplicated by
            "message.id:requestId", a missing requestId keyed as "undefined"
            (so a message with copies both with and without one counts twice),
            the copies of a key merged by per-field MAX, placed by the first
            copy's time (files in path order)
  key       the same, deduplicated by (model, message.id)
  csift     the same, placed by the earliest copy's time: csift's rule
Counts: input, output, cache_read, cache_write (flat if > 0 else 5m + 1h),
zeroed copies read from usage.iterations (QT-041); `<synthetic>` left out.
"""
import json
import os
import sys
from datetime import datetime, timezone

K4 = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def num(v):
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else 0


def vals(u, iterations=True):
    f = [num(u.get(k)) for k in K4]
    cc = u.get("cache_creation") if isinstance(u.get("cache_creation"), dict) else {}
    split = num(cc.get("ephemeral_5m_input_tokens")) + num(cc.get("ephemeral_1h_input_tokens"))
    v = [f[0], f[1], f[2], f[3] if f[3] > 0 else split]
    if iterations and f == [0, 0, 0, 0] and isinstance(u.get("iterations"), list):
        s = [sum(num(i.get(k)) for i in u["iterations"] if isinstance(i, dict)) for k in K4]
        if s != [0, 0, 0, 0]:
            v = s
    return v


def objects(line):
    dec, i, out, s = json.JSONDecoder(), 0, [], line.strip()
    while i < len(s) and s[i] == "{":
        try:
            o, i = dec.raw_decode(s, i)
        except ValueError:
            break
        out.append(o)
        while i < len(s) and s[i] in " \t\r":
            i += 1
    return out


def when(s):
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(timezone.utc)
    except (AttributeError, ValueError):
        return None


def copies(home):
    """Every usage copy: (model, id, requestId, usage, time), files in path order."""
    paths = []
    for d, _, fs in os.walk(os.path.join(home, "projects")):
        paths += [os.path.join(d, f) for f in fs if f.endswith(".jsonl")]
    for p in sorted(paths):
        with open(p, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                for r in objects(line):
                    m, dat = r.get("message"), r.get("data")
                    if r.get("type") == "assistant" and isinstance(m, dict):
                        yield m.get("model"), m.get("id"), r.get("requestId"), m.get("usage"), when(r.get("timestamp"))
                    if r.get("type") == "progress" and isinstance(dat, dict) and dat.get("type") == "agent_progress":
                        n = dat.get("message")
                        if isinstance(n, dict) and n.get("type") == "assistant" and isinstance(n.get("message"), dict):
                            nm = n["message"]
                            t = when(n.get("timestamp")) or when(r.get("timestamp"))
                            yield nm.get("model"), nm.get("id"), n.get("requestId"), nm.get("usage"), t


RULES = ("ccusage", "key", "csift")


def count(home):
    """Rows per rule, from one pass over the home."""
    msgs = {r: {} for r in RULES}  # key -> [model, vals, time]
    for model, mid, req, usage, t in copies(home):
        if not isinstance(usage, dict):
            continue
        model = model if isinstance(model, str) else "(unknown)"
        v = vals(usage)
        has_id = isinstance(mid, str) and mid
        has_req = isinstance(req, str) and req
        keys = {
            # A copy without a requestId keys as "<id>:undefined" (one such
            # copy per id counts, beside the copies that have one).
            "ccusage": f"{mid}:{req if has_req else 'undefined'}" if has_id else None,
            "key": (model, mid) if has_id else None,
            "csift": (model, mid) if has_id else None,
        }
        for rule, key in keys.items():
            if key is None:
                if rule == "ccusage" or not has_id:
                    msgs[rule].setdefault(("anon", len(msgs[rule])), [model, v, t])
                continue
            if key not in msgs[rule]:
                msgs[rule][key] = [model, v, t]
                continue
            m = msgs[rule][key]
            m[1] = [max(a, b) for a, b in zip(m[1], v)]
            if rule == "csift" and t and (m[2] is None or t < m[2]):
                m[2] = t
    out = {}
    for rule in RULES:
        rows = {}
        for model, v, t in msgs[rule].values():
            if model == "<synthetic>":
                continue
            k = (t.strftime("%Y-%m-%d") if t else None, model)
            r = rows.setdefault(k, [0] * 5)
            r[0] += 1
            r[1:5] = [a + b for a, b in zip(r[1:5], v)]
        out[rule] = [
            {"day": d, "model": m, "messages": r[0], "input": r[1], "output": r[2], "cache_read": r[3], "cache_write": r[4]}
            for (d, m), r in sorted(rows.items(), key=lambda kv: (kv[0][0] or "~", kv[0][1]))
        ]
    return out


if __name__ == "__main__":
    json.dump(count(sys.argv[1]), sys.stdout)
