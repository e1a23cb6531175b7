#!/usr/bin/env python3
"""derive_memory_interval.py PLANEVAL SRC — M23's memory-peak interval of
each framework preset that has memory runs in the library's fit group
(docs/model.md §12 "Prediction intervals of the memory peak"), recomputed
from `planeval check --table SRC/scenarios/memory/*.yaml` and compared with
the preset's mem_peak_below, mem_peak_above and mem_peak_interval_runs in
SRC/scenarios/catalog/frameworks.yaml.

The residuals: u = ln(published/predicted) of every memory assertion of a
`# group: fit` file whose framework is in the family. Where a memory number
of the family was fitted on some of those files (torchtitan's
allocator_fragmentation f, least squares of ln(published/predicted) with
reserved = peak·(1 + f): ln(1 + f) is the mean of u₀ = u + ln(1 + f)), the
residual of such a file is leave-one-out: u₀ᵢ minus the mean of the other
fitted files' u₀ (the prediction its own fit never saw); the family's other
fit files (not used by the fit) give plain u. The numbers then follow S6's
rule exactly as calibrate/interval.c computes it: the 10% and 90% type-7
quantiles q−, q+, widened by w = t(0.90, n − 1)/z(0.90)·√(1 + 1/n), a 2%
floor either side, δ− = 1 − e^min(w·q−, ln 0.98), δ+ = e^max(w·q+, ln 1.02) − 1.

Also checks that the fitted number still is the fit (the catalog's f within
5·10⁻⁴ of exp(mean u₀) − 1 on today's model) and prints each family's
coverage of its predict-group files (information, not a gate).

Prints one line a number: VERDICT preset.key catalog=V derived=D; exit 1 on
any FAIL. Run by tests/test_intervals.sh.
"""
import math
import os
import re
import subprocess
import sys

PLANEVAL, SRC = sys.argv[1], sys.argv[2]
MEM = os.path.join(SRC, "scenarios", "memory")

# The families: the framework presets whose memory numbers one set of fit
# files stands on, and the memory number fitted on some of them (the
# catalog key, and the file-name prefix of the files it was fitted on:
# frameworks.yaml's comment on allocator_fragmentation names them).
FAMILIES = [
    {"presets": ["torchtitan", "torchtitan-2506"],
     "fitted": ("torchtitan", "allocator_fragmentation", "torchtitan-2412-")},
    {"presets": ["megatron-core"], "fitted": None},
]

T90 = [3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372,
       1.363, 1.356, 1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325,
       1.323, 1.321, 1.319, 1.318, 1.316, 1.315, 1.314, 1.313, 1.311, 1.310]
Z90 = 1.2816


def quantile(xs, p):
    h = (len(xs) - 1) * p
    k = math.floor(h)
    if k + 1 >= len(xs):
        return xs[-1]
    return xs[k] + (h - k) * (xs[k + 1] - xs[k])


def interval(u):
    u = sorted(u)
    n = len(u)
    w = (T90[n - 2] / Z90 if 1 <= n - 1 <= 30 else 1.0) * math.sqrt(1 + 1 / n)
    q_lo, q_hi = quantile(u, 0.1), quantile(u, 0.9)
    lo = min(w * q_lo, math.log(0.98))
    hi = max(w * q_hi, math.log(1.02))
    return n, q_lo, q_hi, w, -math.expm1(lo), math.expm1(hi)


def catalog_framework(name):
    """{key: value text} of one preset in frameworks.yaml (block keys)."""
    keys, inside = {}, False
    with open(os.path.join(SRC, "scenarios", "catalog", "frameworks.yaml")) as f:
        for line in f:
            m = re.match(r"^  ([a-z0-9.-]+):\s*$", line)
            if m:
                inside = m.group(1) == name
                continue
            m = re.match(r"^    ([a-z_0-9]+):\s*([^#\s][^#]*?)\s*(#.*)?$", line)
            if inside and m:
                keys[m.group(1)] = m.group(2)
    return keys


def file_facts(path):
    text = open(path).read()
    group = re.search(r"^# group: (\w+)", text, re.M)
    fw = re.search(r"^framework:\s*(?:\{\s*preset:\s*)?([a-z0-9.-]+)", text, re.M)
    return (group.group(1) if group else None), (fw.group(1) if fw else None)


files = sorted(os.path.join(MEM, f) for f in os.listdir(MEM) if f.endswith(".yaml"))
out = subprocess.run([PLANEVAL, "check", "--table", *files], capture_output=True, text=True)
rows = []  # (scenario, column, published, predicted)
for line in out.stdout.splitlines():
    c = [x.strip() for x in line.split("|")]
    if len(c) == 9 and c[3].startswith("mem_") and re.match(r"^[+-]\d", c[6]):
        rows.append((c[1], c[3], float(c[4]), float(c[5])))
facts = {os.path.basename(p)[:-5]: file_facts(p) for p in files}

fails = 0
for fam in FAMILIES:
    members = [r for r in rows if facts[r[0]][1] in fam["presets"]]
    fit_rows = [r for r in members if facts[r[0]][0] == "fit"]
    u = {r[0] + ":" + r[1]: math.log(r[2] / r[3]) for r in fit_rows}
    resid = dict(u)
    if fam["fitted"]:
        preset, key, prefix = fam["fitted"]
        f = float(catalog_framework(preset)[key])
        fitted = [k for k in u if k.startswith(prefix)]
        u0 = {k: u[k] + math.log1p(f) for k in fitted}
        refit = math.expm1(sum(u0.values()) / len(u0))
        ok = abs(refit - f) <= 5e-4
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {preset}.{key} catalog={f:g} "
              f"refit={refit:.4f} (mean ln ratio of the {len(u0)} {prefix}* fit files)")
        for k in fitted:
            others = [u0[j] for j in fitted if j != k]
            resid[k] = u0[k] - sum(others) / len(others)
    n, q_lo, q_hi, w, below, above = interval(list(resid.values()))
    print(f"     {'/'.join(fam['presets'])}: {n} residuals, q- {q_lo:+.4f}, q+ {q_hi:+.4f}, "
          f"w {w:.4f}, delta- {below:.4f}, delta+ {above:.4f}")
    predict = [r for r in members if facts[r[0]][0] == "predict"]
    inside = sum(1 - below <= r[2] / r[3] <= 1 + above for r in predict)
    print(f"     predict files inside the interval: {inside} of {len(predict)}")
    for preset in fam["presets"]:
        cat = catalog_framework(preset)
        for key, want, tol in (("mem_peak_below", below, 5e-5), ("mem_peak_above", above, 5e-5),
                               ("mem_peak_interval_runs", n, 0)):
            have = cat.get(key)
            ok = have is not None and abs(float(have) - want) <= tol
            fails += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {preset}.{key} catalog={have} derived={want:.4f}"
                  if key != "mem_peak_interval_runs" else
                  f"{'ok  ' if ok else 'FAIL'} {preset}.{key} catalog={have} derived={want}")
sys.exit(1 if fails else 0)
