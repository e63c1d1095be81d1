#!/usr/bin/env python3
"""Compare `csift usage --by day --breakdown --format json` with
`ccusage daily --json` on one home, and explain every difference with the
counting rules of bench/usage_count.py (its JSON, one pass over the home).

    bench/usage_compare.py NAME CSIFT.json CCUSAGE.json RULES.json TIMES.json

Prints markdown: a totals row per tool, then the differences by cause. Every
difference is explained when (a) the simulated ccusage rule reproduces
ccusage's output cell for cell and (b) the csift rule reproduces csift's; the
steps between the two rules then name what each cell's difference comes from.
"""
import json
import sys

name, csift_path, cc_path, rules_path, times_path = sys.argv[1:6]
FIELDS = ("input", "output", "cache_read", "cache_write")


def cells_csift():
    out, cost = {}, {}
    for line in open(csift_path):
        r = json.loads(line)
        if r["type"] == "total":
            total = r
        if r["type"] != "row":
            continue
        for m, t in r["per_model"].items():
            out[(r["key"], m)] = tuple(t[f] for f in FIELDS)
            cost[(r["key"], m)] = t["cost_usd"]
    return out, cost, total


def cells_ccusage():
    d = json.load(open(cc_path))
    out, cost = {}, {}
    for day in d.get("daily", []):
        for m in day.get("modelBreakdowns", []):
            k = (day["period"], m["modelName"])
            out[k] = (m["inputTokens"], m["outputTokens"], m["cacheReadTokens"], m["cacheCreationTokens"])
            cost[k] = m.get("cost")
    return out, cost, d.get("totals", {})


def cells_rule(rows):
    return {(r["day"], r["model"]): tuple(r[f] for f in FIELDS) for r in rows}


def diff(a, b):
    return sorted(k for k in set(a) | set(b) if a.get(k, (0,) * 4) != b.get(k, (0,) * 4))


def sums(cells):
    s = [0, 0, 0, 0]
    for v in cells.values():
        s = [x + y for x, y in zip(s, v)]
    return s


cs, cs_cost, cs_total = cells_csift()
cc, cc_cost, cc_total = cells_ccusage()
rules = json.load(open(rules_path))
sim = {k: cells_rule(v) for k, v in rules.items()}
times = json.load(open(times_path))

out = []
fmt = lambda n: f"{n:,}"
for tool, cells, cost_total, t in (
    ("csift usage", cs, cs_total.get("cost_usd"), times.get("csift")),
    ("csift usage --no-cache", None, None, times.get("csift_cold")),
    ("ccusage daily", cc, cc_total.get("totalCost"), times.get("ccusage")),
):
    if cells is None:
        out.append(f"| {name} | {tool} | | | | | | | {t:.3f} |" if t else f"| {name} | {tool} | | | | | | | - |")
        continue
    s = sums(cells)
    cost = f"${cost_total:,.2f}" if isinstance(cost_total, (int, float)) else "null"
    tm = f"{t:.3f}" if t else "-"
    out.append(f"| {name} | {tool} | {fmt(s[0])} | {fmt(s[1])} | {fmt(s[2])} | {fmt(s[3])} | {fmt(sum(s))} | {cost} | {tm} |")

notes = []
cc_reproduced = not diff(sim["ccusage"], cc)
cs_reproduced = not diff(sim["csift"], cs)
notes.append(f"- ccusage's rule (bench/usage_count.py `ccusage`) reproduces its output: "
             f"{'every' if cc_reproduced else 'NOT every'} day and model cell"
             + ("" if cc_reproduced else f" ({len(diff(sim['ccusage'], cc))} cells differ: unexplained)") + ".")
notes.append(f"- csift's rule (`csift`, the Python count) reproduces csift's output: "
             f"{'every' if cs_reproduced else 'NOT every'} cell"
             + ("" if cs_reproduced else f" ({len(diff(sim['csift'], cs))} cells differ)") + ".")
step1 = diff(sim["ccusage"], sim["key"])
d1 = [x - y for x, y in zip(sums(sim["ccusage"]), sums(sim["key"]))]
if step1:
    notes.append(f"- Deduplication key: ccusage keys a copy by `message.id:requestId`, a missing `requestId` "
                 f"as `undefined`, so a message written both with and without a `requestId` counts twice; "
                 f"csift keys by (model, message.id). Cells: {len(step1)}; ccusage counts "
                 f"{fmt(d1[0])} input, {fmt(d1[1])} output, {fmt(d1[2])} cache-read, {fmt(d1[3])} cache-write tokens more.")
else:
    notes.append("- Deduplication key (`message.id:requestId` against (model, message.id)): no difference here.")
step2 = diff(sim["key"], sim["csift"])
if step2:
    notes.append(f"- Placement: ccusage places a message by its first copy's time, csift by its earliest copy's; "
                 f"{len(step2)} day/model cells differ, the totals do not.")
else:
    notes.append("- Placement (first copy's time against the earliest copy's): no difference here.")
same_tokens = [k for k in cs if cc.get(k) == cs[k] and isinstance(cs_cost.get(k), (int, float)) and isinstance(cc_cost.get(k), (int, float))]
cost_gap = round(sum(cs_cost[k] - cc_cost[k] for k in same_tokens), 6) + 0.0
notes.append(f"- Prices: on the {len(same_tokens)} cells with the same tokens, csift's cost minus ccusage's is "
             f"${cost_gap:,.4f}.")
unpriced = cs_total.get("unpriced") or []
if unpriced:
    notes.append(f"- Models without a price in csift's table (cost null, tokens counted): {', '.join(unpriced)}.")
print(json.dumps({"rows": out, "notes": notes}))
