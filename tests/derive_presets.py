#!/usr/bin/env python3
"""derive_presets.py SRC — every GPU and cluster preset number that a public
measurement stands on, recomputed from scenarios/measurements/*.csv by the
rule stated beside it, against the value in scenarios/catalog/*.yaml.

Prints one line a number:  VERDICT  preset.key  preset=V  derived=D  rule
VERDICT is ok or FAIL. tests/test_measurements.sh runs it and fails on any
FAIL line; docs/validation.md "Presets from measurements" lists the rules.

Kinds of rule:
  equal    the preset is the measurement (within the stated tolerance)
  ceiling  the preset is a fit to published runs (calibrate) that the runs
           constrain; a whole run cannot be faster than its fastest kernel,
           so the fit must sit at or under the measured kernel ceiling
"""
import csv
import math
import os
import re
import statistics
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else "."
MEAS = os.path.join(SRC, "scenarios", "measurements")
GIB = 2 ** 30


def rows(name):
    with open(os.path.join(MEAS, name), newline="") as f:
        return list(csv.DictReader(f))


def catalog_entries(name, section):
    """{entry: {key: value}} of a catalog file: block keys (gpus.yaml) and
    the flow mappings of clusters.yaml ({ a: 1, b: 2 }) flattened as
    sub.key (intra_node.bus_efficiency)."""
    entries, cur, comments, pending = {}, None, {}, []
    with open(os.path.join(SRC, "scenarios", "catalog", name)) as f:
        for line in f:
            if line.strip().startswith("#"):
                pending.append(line.strip())
                continue
            m = re.match(r"^  ([a-z0-9-]+):\s*$", line)
            if m:
                cur = m.group(1)
                entries[cur] = {}
                comments[cur] = list(pending)
                pending = []
                continue
            m = re.match(r"^    ([a-z0-9_]+):\s*(.*?)\s*(#.*)?$", line)
            if cur and m:
                key, val = m.group(1), m.group(2)
                if m.group(3):
                    comments[cur].append(m.group(3))
                flow = re.match(r"^\{(.*)\}$", val)
                if flow:
                    for part in flow.group(1).split(","):
                        k, _, v = part.partition(":")
                        entries[cur][key + "." + k.strip()] = v.strip()
                else:
                    entries[cur][key] = val
                comments[cur].extend(pending)
                pending = []
            elif line.strip() == "" or not line.startswith(" "):
                pending = [] if not line.strip() == "" else pending
    return entries, comments


gpus, gpu_comments = catalog_entries("gpus.yaml", "gpus")
clusters, _ = catalog_entries("clusters.yaml", "clusters")
fails = 0


def report(ok, name, preset, derived, rule):
    global fails
    fails += 0 if ok else 1
    print("%-4s %-40s preset=%-8s derived=%-8.4g %s" % ("ok" if ok else "FAIL", name, preset,
                                                       derived, rule))


# ---------------------------------------------------------------- C8 bus_efficiency
# Rule (equal, ±0.01): the plateau busbw — the largest busbw of the system's
# rows of messages of at least 1 GiB (or a quoted plateau, no size), NVLS
# (NVLink SHARP) rows excluded because Megatron's collectives are rings —
# over the row's nominal bandwidth (per-direction NVLink for intra-node; the
# node's NICs for inter-node, the reading of a ring: docs/model.md §12 C8).
coll = rows("collectives.csv")
# which measured system stands for which preset (same board, links and NICs)
SYSTEM_OF = {"a100-node": "a100-node", "a100-40gb-node": "a100-node", "selene": "a100-node",
             "h100-node": ("h100-node", "h200-node"), "h200-node": ("h100-node", "h200-node"),
             "b200-node": "b200-node", "mi300x-node": "mi300x-node",
             "mi325x-node": "mi300x-node"}


def plateau(systems, tier):
    systems = (systems,) if isinstance(systems, str) else systems
    best = None
    for r in coll:
        if r["system"] not in systems or r["tier"] != tier or r["algorithm"] == "nvls":
            continue
        if r["message_bytes"] and int(r["message_bytes"]) < GIB:
            continue
        eff = float(r["busbw_gb_s"]) / float(r["nominal_gb_s"])
        best = eff if best is None or eff > best else best
    return best


for name, c in clusters.items():
    for tier, key in (("intra", "intra_node.bus_efficiency"), ("inter", "inter_node.bus_efficiency")):
        if key not in c:
            continue
        derived = plateau(SYSTEM_OF.get(name, name), tier)
        if derived is None:
            report(False, name + "." + key, c[key], float("nan"), "no measurement row")
            continue
        report(abs(float(c[key]) - derived) <= 0.01, name + "." + key, c[key], derived,
               "equal ±0.01: max non-NVLS busbw (≥ 1 GiB) / nominal, collectives.csv")

# ---------------------------------------------------------------- F8/F18 GEMM ceilings
gemm = rows("gemm.csv")
fp8 = rows("fp8_gemm.csv")
CHIP = {"a100-40gb": "a100-80gb", "a100-80gb": "a100-80gb", "h100-sxm": "h100-sxm",
        "h100-grandteton": "h100-sxm",
        "h200": "h100-sxm", "h800": "h100-sxm", "b200": "b200", "gb200": "gb200",
        "mi300x": "mi300x", "mi325x": "mi325x"}


def ceiling(table, gpu, col_peak, recipe=None):
    vals = [float(r["tflops"]) / float(r[col_peak]) for r in table
            if r["gpu"] == gpu and (recipe is None or r["recipe"] == recipe)
            and r.get("includes_scaling", "no") == "no"]
    return max(vals) if vals else None


for name, g in gpus.items():
    chip = CHIP.get(name, name)
    if "gemm_efficiency" in g:
        c = ceiling(gemm, chip, "peak_tflops")
        if c is not None:
            report(float(g["gemm_efficiency"]) <= c, name + ".gemm_efficiency",
                   g["gemm_efficiency"], c,
                   "ceiling: fitted e_max ≤ best measured bf16 GEMM / peak, gemm.csv")
    if "fp8_gemm_efficiency" in g:
        fp8_gpu = name if any(r["gpu"] == name for r in fp8) else chip
        c = ceiling(fp8, fp8_gpu, "peak_fp8_tflops", "tensorwise")
        if c is not None:
            report(float(g["fp8_gemm_efficiency"]) <= c, name + ".fp8_gemm_efficiency",
                   g["fp8_gemm_efficiency"], c,
                   "ceiling: fitted e_max8 ≤ best measured tensorwise fp8 GEMM / fp8 peak, "
                   "fp8_gemm.csv")

# ---------------------------------------------------------------- F8/F18/F42 the 500 W H100
# Rule (equal, ±0.0005): h100-grandteton (Meta's Grand Teton H100 at its
# 500 W power limit, torchtitan's benchmark GPU) takes its GEMM rates from
# the rows measured on a 500 W H100 (software column "H100 500 W":
# pytorch/FBGEMM#2546), each the mean of those rows' TFLOP/s over the
# preset's datasheet peak: gemm_efficiency the bf16 rows (gemm.csv), and both
# fp8_rowwise_gemm_efficiency (F42) and fp8_gemm_efficiency (no tensorwise
# row at 500 W: the rowwise one, a lower bound) the rowwise "gemm only"
# rows (fp8_gemm.csv, includes_scaling no).
W500 = "H100 500 W"
if "h100-grandteton" in gpus:
    g = gpus["h100-grandteton"]
    bf = [float(r["tflops"]) / float(g["peak_tflops"]) for r in gemm if W500 in r["software"]]
    rw = [float(r["tflops"]) / float(g["peak_fp8_tflops"]) for r in fp8
          if W500 in r["software"] and r["recipe"] == "rowwise" and r["includes_scaling"] == "no"]
    for key, vals, what in (("gemm_efficiency", bf, "bf16 rows, gemm.csv"),
                            ("fp8_rowwise_gemm_efficiency", rw, "rowwise gemm-only rows"),
                            ("fp8_gemm_efficiency", rw, "rowwise gemm-only rows (no tensorwise "
                             "row at 500 W)")):
        d = statistics.mean(vals) if vals else float("nan")
        report(key in g and len(vals) == 3 and abs(float(g[key]) - d) <= 0.0005,
               "h100-grandteton." + key, g.get(key, "missing"), d,
               "equal ±0.0005: mean of the 3 H100 500 W " + what + " / the preset's peak")

# Rule (equal, ±0.0005): F42's fp8_kernel_gemm_efficiency (the tensorwise
# FP8 kernel without casts, taken by a framework with fp8_kernel_rate) is
# the GPU's best tensorwise gemm-only row of fp8_gemm.csv (its own rows, or
# its chip's) over the preset's FP8 peak.
for name, g in gpus.items():
    if "fp8_kernel_gemm_efficiency" not in g:
        continue
    fp8_gpu = name if any(r["gpu"] == name for r in fp8) else CHIP.get(name, name)
    vals = [float(r["tflops"]) for r in fp8 if r["gpu"] == fp8_gpu
            and r["recipe"] == "tensorwise" and r["includes_scaling"] == "no"]
    d = max(vals) / float(g["peak_fp8_tflops"]) if vals else float("nan")
    report(bool(vals) and abs(float(g["fp8_kernel_gemm_efficiency"]) - d) <= 0.0005,
           name + ".fp8_kernel_gemm_efficiency", g["fp8_kernel_gemm_efficiency"], d,
           "equal ±0.0005: best tensorwise gemm-only FP8 row / the preset's FP8 peak, "
           "fp8_gemm.csv")

# Rule (present): a datasheet-only GPU preset (no fit to published runs)
# whose own tensorwise FP8 rows are in fp8_gemm.csv carries F42's
# fp8_kernel_gemm_efficiency, so the measurement is used (its value is the
# rule above): the B300's MAMF row.
for name in ("b300",):
    if name in gpus:
        own = any(r["gpu"] == name and r["recipe"] == "tensorwise" for r in fp8)
        report(own and "fp8_kernel_gemm_efficiency" in gpus[name],
               name + ".fp8_kernel_gemm_efficiency", gpus[name].get(
                   "fp8_kernel_gemm_efficiency", "missing"), float("nan"),
               "present: the GPU's own tensorwise FP8 rows in fp8_gemm.csv")

# Rule (absent): the datasheet-only GPU presets have no public kernel
# measurement and no published-run fit, so they carry no F8-F11 or F18
# number (the textbook's neutral value applies; another GPU's fitted
# numbers are not copied) and no prediction interval.
FITTED_KEYS = ("gemm_efficiency", "elementwise_efficiency", "gemm_half_gflop",
               "attention_efficiency", "fp8_gemm_efficiency", "microbatch_overhead_us",
               "step_time_below", "step_time_above")
for name in ("b300", "gb300", "h100-pcie", "h100-nvl", "l40s", "l4", "a6000",
             "rtx-6000-ada", "rtx-4090", "rtx-3090", "v100-16gb", "v100-32gb"):
    if name in gpus:
        have = [k for k in FITTED_KEYS if k in gpus[name]]
        report(not have, name + ".fitted keys", ",".join(have) or "none", float("nan"),
               "absent: NOT MEASURED, no fit (docs/catalog.md)")

# ---------------------------------------------------------------- F10 element-wise
for r in rows("hbm.csv"):
    g = gpus.get(r["gpu"])
    if g and "elementwise_efficiency" in g:
        c = float(r["bytes_moved_gb_s"]) / (1000 * float(r["peak_tb_s"]))
        report(float(g["elementwise_efficiency"]) <= c, r["gpu"] + ".elementwise_efficiency",
               g["elementwise_efficiency"], c,
               "ceiling: fitted η_W ≤ measured copy bandwidth / datasheet, hbm.csv")

# ---------------------------------------------------------------- F9 attention core
# Rule (equal, ±0.05): F9 counts the attention core with κ = 1 (the whole
# QKᵀ and AV, model.causal_flops false), while a causal kernel does and
# reports (FlashAttention's convention) only the lower half; the e_att that
# times a causal kernel under κ = 1 is 2·R_causal/peak, capped at 1 (the
# key's range). R_causal: the median of the GPU's causal forward rows.
att = rows("attention.csv")


def f22_fit(chip, kernel="flash-attention-3"):
    """F22 (docs/model.md §12 "Attention by shape"): the kernel's forward +
    backward rate at head dim 128 without a mask, from FlashAttention-3's
    Fig. 5 and 6 rows (arXiv:2407.08608), the backward counted as 2.5x the
    forward FLOPs as the paper does: R(s) = 3/(1/fwd + 2.5/bwd); least
    squares on ln R of e_att·peak·s/(s + s_half), s_half by grid, e_att in
    closed form. Returns (e_att, s_half) or None."""
    sel = [r for r in att if r["gpu"] == chip and r["kernel"] == kernel
           and r["head_dim"] == "128" and r["causal"] == "no"
           and r["source"].startswith("arXiv:2407.08608")]
    fwd = {int(r["seq_kv"]): float(r["tflops"]) for r in sel if r["direction"] == "fwd"}
    bwd = {int(r["seq_kv"]): float(r["tflops"]) for r in sel if r["direction"] == "bwd"}
    seqs = sorted(set(fwd) & set(bwd))
    if len(seqs) < 3:
        return None
    peak = float(sel[0]["peak_tflops"])
    pts = [(s, 3 / (1 / fwd[s] + 2.5 / bwd[s])) for s in seqs]
    best = None
    for s_half in range(0, 4001):
        d = [math.log(r) - math.log(peak * s / (s + s_half)) for s, r in pts]
        mean = sum(d) / len(d)
        err = sum((x - mean) ** 2 for x in d)
        if best is None or err < best[0]:
            best = (err, s_half, math.exp(mean))
    return best[2], best[1]


def causal_training_rates(chip):
    """F41 (docs/model.md §12 "Attention by shape"): the e_att that times a
    causal kernel's training call under F9's κ = 1, from rows that have
    both directions of one source, kernel and length (the backward counted
    as 2.5x the forward FLOPs, as F22 does): min(1, 2·R/peak), R = 3/(1/fwd
    + 2.5/bwd) on the causal half the kernel computes. One value a pair."""
    pairs = {}
    for r in att:
        if r["gpu"] == chip and r["causal"] == "yes":
            key = (r["source"].split(" ")[0], r["kernel"], r["seq_kv"], r["peak_tflops"])
            pairs.setdefault(key, {})[r["direction"]] = float(r["tflops"])
    return [min(1.0, 2 * 3 / (1 / d["fwd"] + 2.5 / d["bwd"]) / float(k[3]))
            for k, d in sorted(pairs.items()) if "fwd" in d and "bwd" in d]


for name, g in gpus.items():
    if "attention_efficiency" not in g:
        continue
    if "attention_half_seq" in g:
        # Rule (equal, e_att ±0.05, s_half ±25%): a GPU timing attention by
        # shape (F22) carries the kernel's asymptote and half-length. The
        # data leaves out the 512-token forward cell (its two transcriptions
        # disagree), which the preset's fit used, so s_half is loosely pinned.
        fit = f22_fit(CHIP.get(name, name))
        if fit is None:
            continue
        report(abs(float(g["attention_efficiency"]) - fit[0]) <= 0.05,
               name + ".attention_efficiency", g["attention_efficiency"], round(fit[0], 4),
               "equal ±0.05: F22 asymptote of FA3 fwd+bwd, attention.csv")
        report(abs(float(g["attention_half_seq"]) - fit[1]) <= 0.25 * fit[1],
               name + ".attention_half_seq", g["attention_half_seq"], fit[1],
               "equal ±25%: F22 half-length of FA3 fwd+bwd, attention.csv")
        continue
    training = causal_training_rates(CHIP.get(name, name))
    if training:
        # Rule F41 (equal, ±0.0005): a GPU with causal forward and backward
        # rows (one source, kernel and length each) and attention_measured
        # carries the rows' median; without the flag its e_att is a fit to
        # runs, which must sit at or under the fastest row (a ceiling)
        if g.get("attention_measured") == "true":
            derived = round(statistics.median(training), 4)
            report(abs(float(g["attention_efficiency"]) - derived) <= 0.0005,
                   name + ".attention_efficiency", g["attention_efficiency"], derived,
                   "equal ±0.0005: F41, median of min(1, 2·3/(1/fwd + 2.5/bwd)/peak), "
                   "attention.csv")
        else:
            report(float(g["attention_efficiency"]) <= max(training) + 0.0005,
                   name + ".attention_efficiency", g["attention_efficiency"], max(training),
                   "ceiling: F41, fitted e_att ≤ the fastest causal training pair, attention.csv")
        continue
    causal = [float(r["tflops"]) / float(r["peak_tflops"]) for r in att
              if r["gpu"] == CHIP.get(name, name) and r["causal"] == "yes"
              and r["direction"] == "fwd"]
    if not causal:
        continue
    derived = min(1.0, 2 * statistics.median(causal))
    report(abs(float(g["attention_efficiency"]) - derived) <= 0.05,
           name + ".attention_efficiency", g["attention_efficiency"], derived,
           "equal ±0.05: min(1, 2·median causal fwd rate / peak), attention.csv")

# ---------------------------------------------------------------- F30 attention kernels
# Rule (equal, e_att ±0.0005, s_half ±1 token): a GPU's numbers of one
# attention kernel (attention_fa2_*, _fa3_*, _cudnn_*; docs/model.md §12
# F30) are F22's fit of that kernel's own forward and backward rows, as
# f22_fit does for the GPU's e_att, over the lengths where both are in the
# data; a kernel key without rows behind it fails.
F30_KERNELS = (("fa2", "flash-attention-2"), ("fa3", "flash-attention-3"), ("cudnn", "cudnn"))
for name, g in gpus.items():
    for short, kernel in F30_KERNELS:
        key = "attention_%s_efficiency" % short
        if key not in g:
            continue
        fit = f22_fit(CHIP.get(name, name), kernel)
        if fit is None:
            report(False, name + "." + key, g[key], float("nan"), "no %s rows" % kernel)
            continue
        half = "attention_%s_half_seq" % short
        report(abs(float(g[key]) - fit[0]) <= 0.0005, name + "." + key, g[key], round(fit[0], 4),
               "equal ±0.0005: F30, F22 asymptote of %s fwd+bwd, attention.csv" % kernel)
        report(abs(float(g.get(half, "nan")) - fit[1]) <= 1, name + "." + half,
               g.get(half, "missing"), fit[1],
               "equal ±1: F30, F22 half-length of %s fwd+bwd, attention.csv" % kernel)

# ---------------------------------------------------------------- F24 FP8 recipes
# Rule (equal, ±0.0005): a recipe's GEMM rate ratio r in src/model/compute.c
# (FP8_RECIPES) is the mean of its H100 "gemm only" rows of fp8_gemm.csv
# (includes_scaling = no; pytorch/FBGEMM#2546) over the best H100 tensorwise
# row. A recipe without such rows must keep r = 1 and say why in its basis
# text: "not measured", or tensorwise's own GEMM (tensorwise, delayed).
def fp8_recipes():
    path = os.path.join(SRC, "src", "model", "compute.c")
    if not os.path.exists(path):
        return None
    text = open(path).read()
    table = re.search(r"FP8_RECIPES\[\] = \{(.*?)\n\};", text, re.S)
    return re.findall(r'\{"([a-z0-9]+)", ([0-9.]+), ([0-9.]+),\s*"([^"]*)"', table.group(1)) \
        if table else []


recipes = fp8_recipes()
if not recipes:
    report(False, "F24 FP8_RECIPES", "missing", float("nan"), "src/model/compute.c has the table")
tensorwise = max([float(r["tflops"]) for r in fp8
                  if r["gpu"] == "h100-sxm" and r["recipe"] == "tensorwise"] or [float("nan")])
for name, ratio, _, basis in recipes or []:
    if name == "none":
        continue
    vals = [float(r["tflops"]) for r in fp8 if r["gpu"] == "h100-sxm" and r["recipe"] == name
            and r["includes_scaling"] == "no"]
    if vals and name != "tensorwise":
        derived = statistics.mean(vals) / tensorwise
        report(abs(float(ratio) - derived) <= 0.0005, "F24 fp8_recipe %s rate ratio" % name,
               ratio, derived, "equal ±0.0005: mean gemm-only H100 rows / tensorwise, fp8_gemm.csv")
    else:
        named = re.search(r"not measured|tensorwise", basis) is not None
        report(float(ratio) == 1.0 and named, "F24 fp8_recipe %s rate ratio" % name, ratio, 1.0,
               "no rows of its own: r = 1, its basis says not measured / tensorwise's GEMM")

# ---------------------------------------------------------------- F38 grouped GEMMs
# Rule (equal, ±1 row): a GPU's grouped_gemm_half_rows M_half (docs/model.md
# §12 F38) is the mean over the (n, k) shapes of grouped_gemm.csv's rows of
# that GPU of each shape's Hockney half-length in rows: least squares of
# 1/TFLOPS on 1/m_per_group (1/T = 1/T_max + (M_half/T_max)/M), both
# layouts together; a GPU with the key and no rows fails.
def grouped_half_rows(chip):
    sel = [r for r in rows("grouped_gemm.csv") if r["gpu"] == chip]
    halves = []
    for shape in sorted({(r["n"], r["k"]) for r in sel}):
        pts = [(1 / float(r["m_per_group"]), 1 / float(r["tflops"])) for r in sel
               if (r["n"], r["k"]) == shape]
        if len(pts) < 3:
            continue
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
        halves.append(slope / (my - slope * mx))
    return statistics.mean(halves) if halves else None


for name, g in gpus.items():
    if "grouped_gemm_half_rows" not in g:
        continue
    derived = grouped_half_rows(name)  # the rows name the GPU measured, H800 itself
    report(derived is not None and abs(float(g["grouped_gemm_half_rows"]) - derived) <= 1,
           name + ".grouped_gemm_half_rows", g["grouped_gemm_half_rows"],
           float("nan") if derived is None else round(derived, 1),
           "equal ±1: F38 mean per-shape half-length of 1/TFLOPS on 1/M, grouped_gemm.csv")

# ---------------------------------------------------------------- F8 F_half
# Rule (equal, ±0.01 GFLOP): a GPU flagged gemm_half_measured carries the
# F_half of F8's e(F) = e_max·F/(F + F_half) (docs/model.md §12) fitted to
# gemm_shapes.csv's rows of its silicon, F = 2·batch·m·n·k FLOP, the rate
# tflops/peak_tflops: least squares on ln e, F_half by grid (0.01 GFLOP),
# e_max in closed form, as f22_fit does; the fit's e_max and rms are
# printed beside it (the kernel asymptote, not the preset's e_max, which
# calibrate fits to whole runs with F_half held). A GPU with the flag and
# no rows fails.
SHAPES_OF = {"h100-sxm": "h100-sxm", "h200": "h100-sxm", "h800": "h100-sxm",  # same GH100 die
             "b200": "b200",
             "mi300x": "mi300x", "mi325x": "mi300x"}  # same gfx942 silicon


def f8_half_fit(chip):
    sel = [r for r in rows("gemm_shapes.csv") if r["gpu"] == chip and r["dtype"] == "bf16"]
    if len(sel) < 3:
        return None
    pts = [(2.0 * int(r["batch"]) * int(r["m"]) * int(r["n"]) * int(r["k"]),
            float(r["tflops"]) / float(r["peak_tflops"])) for r in sel]
    best = None
    for i in range(0, 10001):
        f_half = i * 0.01e9
        d = [math.log(e) - math.log(f / (f + f_half)) for f, e in pts]
        mean = sum(d) / len(d)
        err = sum((x - mean) ** 2 for x in d)
        if best is None or err < best[0]:
            best = (err, i * 0.01, math.exp(mean))
    return best[1], best[2], math.sqrt(best[0] / len(pts)), len(pts)


for name, g in gpus.items():
    if g.get("gemm_half_measured") != "true":
        continue
    fit = f8_half_fit(SHAPES_OF.get(name, name))
    half = float("nan") if fit is None else fit[0]
    report(fit is not None and abs(float(g.get("gemm_half_gflop", "0")) - half) <= 0.01 + 1e-9,
           name + ".gemm_half_gflop", g.get("gemm_half_gflop", "unset"), half,
           "equal ±0.01: F8 F_half, ln-rate least squares on %s rows of gemm_shapes.csv%s"
           % ("no" if fit is None else fit[3],
              "" if fit is None else " (e_max %.4f, rms %.1f%%)" % (fit[1], 100 * fit[2])))

# ---------------------------------------------------------------- unmeasured numbers
# Every refinement number of a GPU preset that no rule above derives must be
# named in its entry's comments as fitted or not measured.
DERIVED_KINDS = {"gemm_efficiency", "fp8_gemm_efficiency", "attention_efficiency",
                 "elementwise_efficiency"}
REFINEMENT = ("gemm_efficiency", "elementwise_efficiency", "gemm_half_gflop",
              "attention_efficiency", "fp8_gemm_efficiency", "microbatch_overhead_us")
for name, g in gpus.items():
    text = " ".join(gpu_comments.get(name, []))
    for key in REFINEMENT:
        if key in g:
            named = re.search(r"fitted|not measured|not fitted", text) is not None
            report(named, name + "." + key + " (basis named)", g[key], 1.0 if named else 0.0,
                   "the entry's comment says fitted / not measured")

# ---------------------------------------------------------------- calibration priors
# scenarios/calibration/priors/<gpu>.csv (calibrate --priors; docs/model.md
# §12 "With priors"): each prior's value and width recomputed from the
# measurements. Rules: value = the median of the GPU's rows (gemm: bf16
# tflops/peak; fp8: every recipe's tflops/fp8 peak, scaling included where
# measured; attention: min(1, 2·causal forward rate/peak), F9's κ = 1; hbm:
# copy bandwidth/datasheet); width = half the rows' range, at least 0.05
# (one row, or rows closer than that, still leave a kernel-to-run spread).
def spread(vals):
    return round(statistics.median(vals), 3), round(max(0.05, (max(vals) - min(vals)) / 2), 3)


def prior_rows(chip, fp8_gpu, hbm_gpu):
    out = {}
    v = [float(r["tflops"]) / float(r["peak_tflops"]) for r in gemm if r["gpu"] == chip]
    if v:
        out["gemm_efficiency"] = spread(v)
    v = [float(r["tflops"]) / float(r["peak_fp8_tflops"]) for r in fp8 if r["gpu"] == fp8_gpu]
    if v:
        out["fp8_gemm_efficiency"] = spread(v)
    v = causal_training_rates(chip) or [
        min(1.0, 2 * float(r["tflops"]) / float(r["peak_tflops"])) for r in att
        if r["gpu"] == chip and r["causal"] == "yes" and r["direction"] == "fwd"]
    if v:
        out["attention_efficiency"] = spread(v)
    v = [float(r["bytes_moved_gb_s"]) / (1000 * float(r["peak_tb_s"])) for r in rows("hbm.csv")
         if r["gpu"] == hbm_gpu]
    if v:
        out["elementwise_efficiency"] = spread(v)
    return out


# ---------------------------------------------------------------- X15 overlap_slowdown
# Rule (equal, ±0.0005): every framework preset that sets overlap_slowdown
# carries the mean compute slowdown under overlapped collectives of
# overlap.csv (the "mean" rows; one source today), docs/model.md §12 X15.
have_fw = os.path.exists(os.path.join(SRC, "scenarios", "catalog", "frameworks.yaml"))
frameworks = catalog_entries("frameworks.yaml", "frameworks")[0] if have_fw else {}
slow = [float(r["compute_slowdown"]) for r in rows("overlap.csv") if r["statistic"] == "mean"]
for fw in sorted(frameworks):
    if "overlap_slowdown" in frameworks[fw] and slow:
        have = float(frameworks[fw]["overlap_slowdown"])
        want = statistics.mean(slow)
        report(abs(have - want) <= 0.0005, "%s.overlap_slowdown" % fw, "%g" % have, want,
               "equal ±0.0005: mean compute slowdown of the mean rows, overlap.csv")


PRIOR_FILES = {"a100": ("a100-80gb", None, "a100-40gb"), "h100": ("h100-sxm", "h100-sxm", None),
               "b200": ("b200", "b200", None), "gb200": ("gb200", "gb200", None)}
if "--write-priors" in sys.argv:
    for name, (chip, fp8_gpu, hbm_gpu) in PRIOR_FILES.items():
        print("# %s" % name)
        for k, (v, w) in prior_rows(chip, fp8_gpu, hbm_gpu).items():
            print("%s,%g,%g" % (k, v, w))
    sys.exit(0)
for name, (chip, fp8_gpu, hbm_gpu) in PRIOR_FILES.items():
    want = prior_rows(chip, fp8_gpu, hbm_gpu)
    path = os.path.join(SRC, "scenarios", "calibration", "priors", name + ".csv")
    if not os.path.exists(path):
        report(False, "priors/%s.csv" % name, "missing", float("nan"), "the priors file exists")
        continue
    with open(path, newline="") as f:
        have = {r["number"]: (float(r["value"]), float(r["width"])) for r in csv.DictReader(f)}
    for k in sorted(set(want) | set(have)):
        ok = k in want and k in have and abs(want[k][0] - have[k][0]) <= 0.0005 \
            and abs(want[k][1] - have[k][1]) <= 0.0005
        report(ok, "priors/%s.%s" % (name, k), "%g±%g" % have.get(k, (0, 0)),
               want.get(k, (float("nan"),))[0], "median ± half range (≥ 0.05) of the rows")

sys.exit(1 if fails else 0)
