#!/usr/bin/env python3
"""Summarises an enforcement run (results.jsonl and clocks-*.csv in DIR) against issue 6's goals."""
import json
import os
import sys

out = sys.argv[1]
rows = [json.loads(line) for line in open(os.path.join(out, "results.jsonl")) if line.strip()]
mem = [r for r in rows if r.get("mode") == "memory"]
mm = {r["name"]: r for r in rows if r.get("mode") == "matmul"}


def clocks(phase):
    path = os.path.join(out, f"clocks-{phase}.csv")
    vals = []
    if os.path.exists(path):
        for line in open(path):
            parts = [p.strip() for p in line.split(",")]
            try:
                vals.append((float(parts[0]), float(parts[1]), float(parts[2])))
            except (ValueError, IndexError):
                pass
    if not vals:
        return None
    n = len(vals)
    return tuple(sum(v[i] for v in vals) / n for i in range(3))


ok_all = True
print("== Memory caps (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT) ==")
for r in mem:
    print(f"{r['name']}: cap {r['cap_mib']} MiB, env {r['env']}, SMs seen {r['sms']}")
    for t in r["trials"]:
        want = not t["above_cap"]
        good = t["accepted"] == want
        ok_all &= good
        verdict = "accepted" if t["accepted"] else "refused"
        print(f"  {t['mib']:>6} MiB ({'above' if t['above_cap'] else 'below'} cap): {verdict}"
              f" {'OK' if good else 'UNEXPECTED'}{'  (' + t['error'] + ')' if t['error'] else ''}")
    print(f"  512 MiB blocks until refused: {r['incremental_max_mib']} MiB held")

print()
first = next(iter(mm.values())) if mm else {}
print("== Matmul throughput (%s, n=%s) ==" % (first.get("dtype", "bf16"), first.get("n", "?")))
whole = mm.get("whole/w")
if whole is None:
    print("no whole-GPU baseline")
    sys.exit(1)
wclk = clocks("whole")
total_sms = whole["sms"]
print(f"{'client':<20}{'SMs':>5}{'SM frac':>9}{'TFLOPS':>9}{'of whole':>10}{'SM MHz':>8}{'W':>6}{'per-clock':>11}")


def line(name, phase, r):
    clk = clocks(phase)
    frac = r["tflops"] / whole["tflops"]
    per_clock = None
    if clk and wclk:
        per_clock = (r["tflops"] / clk[0]) / (whole["tflops"] / wclk[0])
    print(f"{name:<20}{r['sms']:>5}{r['sms'] / total_sms:>9.3f}{r['tflops']:>9.1f}{frac:>10.3f}"
          f"{(clk[0] if clk else float('nan')):>8.0f}{(clk[1] if clk else float('nan')):>6.0f}"
          f"{(per_clock if per_clock is not None else float('nan')):>11.3f}")
    return frac, per_clock


line("whole (100%)", "whole", whole)
solo = {}
solo_per_clock = {}
for label, phase, key, limit in (("alone 0.25", "alone-0.25", "alone-0.25/a", 0.25),
                                 ("alone 0.5", "alone-0.5", "alone-0.5/b", 0.5)):
    r = mm[key]
    solo[limit] = r["tflops"]
    frac, per_clock = line(label, phase, r)
    solo_per_clock[limit] = per_clock
    good = 0.9 * limit <= frac <= 1.2 * limit
    ok_all &= good
    print(f"  goal 0.9L..1.2L = {0.9 * limit:.3f}..{1.2 * limit:.3f}: {frac:.3f} {'OK' if good else 'MISSED'}"
          + (f"; clock-normalised {per_clock:.3f} {'OK' if 0.9 * limit <= per_clock <= 1.2 * limit else 'MISSED'}"
             if per_clock is not None else ""))
for label, key, limit in (("together 0.25", "together/a", 0.25), ("together 0.5", "together/b", 0.5)):
    r = mm[key]
    _, per_clock = line(label, "together", r)
    keep = r["tflops"] / solo[limit]
    good = keep >= 0.85
    ok_all &= good
    print(f"  keeps {keep:.3f} of its solo throughput (goal >= 0.85): {'OK' if good else 'MISSED'}"
          + (f"; clock-normalised {per_clock / solo_per_clock[limit]:.3f}"
             if per_clock is not None and solo_per_clock[limit] else ""))
ta, tb = mm["together/a"], mm["together/b"]
overlap = min(ta["start"] + ta["seconds"], tb["start"] + tb["seconds"]) - max(ta["start"], tb["start"])
print(f"together: windows overlapped {overlap:.2f} s of {ta['seconds']:.2f}/{tb['seconds']:.2f} s")
print()
print("per-clock = (TFLOPS / mean SM clock) relative to the whole GPU's: a clock-independent share")
print("ALL GOALS MET" if ok_all else "SOME GOALS MISSED (see above)")
