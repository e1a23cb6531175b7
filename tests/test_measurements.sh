#!/usr/bin/env bash
# test_measurements.sh PLANEVAL SOURCE_DIR WORKDIR — the public kernel and
# link measurements of scenarios/measurements/ (docs/validation.md
# "Presets from measurements") are well-formed, every row cited; every GPU
# and cluster preset number a measurement stands on is recomputed from them
# by tests/derive_presets.py's stated rule and tolerance; every preset
# number no measurement derives is named fitted / not measured in its
# catalog entry and in explain's "basis:" line.
. "$(dirname "$0")/testlib.sh"

meas=$src/scenarios/measurements
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }

# one file per kind, each with its citation columns, no row without them
for kind in gemm gemm_shapes attention hbm collectives fp8_gemm overlap grouped_gemm; do
    f=$meas/$kind.csv
    check "$kind.csv exists" '[ -s "$f" ]'
    check "$kind.csv: every row has as many cells as the header and a source, read and date" \
        'python3 - "$f" <<'"'"'PY'"'"'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1], newline="")))
need = ("source", "read", "date")
bad = [i for i, x in enumerate(r, 2) if None in x or any(not x.get(k) for k in need)]
sys.exit(1 if bad or not r else 0)
PY'
done
check "the measurement rows quote no number twice by accident (no duplicate rows)" \
    '[ -z "$(cat "$meas"/*.csv | sort | uniq -d)" ]'

# every derivation holds, and there are some of each kind
python3 "$src/tests/derive_presets.py" "$src" >"$work/derive.out" 2>&1; rc=$?
check "derive_presets.py: every preset number agrees with its measurement (rc $rc)" \
    '[ $rc -eq 0 ] && ! grep -q "^FAIL" "$work/derive.out"'
for what in "intra_node.bus_efficiency" "inter_node.bus_efficiency" ".gemm_efficiency " \
    ".fp8_gemm_efficiency " ".attention_efficiency " ".elementwise_efficiency " \
    ".overlap_slowdown "; do
    check "derive_presets.py derives$what for some preset" 'grep -q "^ok .*$what" "$work/derive.out"'
done
check "derive_presets.py derives F38's grouped_gemm_half_rows of h800 from grouped_gemm.csv" \
    'grep -q "^ok .*h800.grouped_gemm_half_rows " "$work/derive.out"'
check "derive_presets.py derives F8's gemm_half_gflop of the GH100 presets (h100-sxm, h200, h800) from gemm_shapes.csv" \
    '[ "$(grep -c "^ok   \(h100-sxm\|h200\|h800\)\.gemm_half_gflop .*gemm_shapes.csv" "$work/derive.out")" -eq 3 ]'
check "the calibration priors (scenarios/calibration/priors) are derived from the measurements" \
    '[ "$(grep -c "^ok   priors/\(a100\|h100\)\." "$work/derive.out")" -eq 6 ]'
n_bus=$(grep -o "bus_efficiency: [0-9.]*" "$src/scenarios/catalog/clusters.yaml" | wc -l)
check "every bus_efficiency of clusters.yaml is derived ($n_bus numbers)" \
    '[ "$(grep -c "_node.bus_efficiency " "$work/derive.out")" -eq "$n_bus" ] && [ "$n_bus" -ge 14 ]'

# a preset number moved away from its measurement is caught
mkdir -p "$work/src/scenarios/catalog"
cp -r "$meas" "$src/scenarios/calibration" "$work/src/scenarios/"
mkdir -p "$work/src/src/model" && cp "$src/src/model/compute.c" "$work/src/src/model/"
sed 's/bandwidth_gb_s: 450, latency_us: 2, bus_efficiency: 0.81/bandwidth_gb_s: 450, latency_us: 2, bus_efficiency: 0.9/' \
    "$src/scenarios/catalog/clusters.yaml" >"$work/src/scenarios/catalog/clusters.yaml"
cp "$src/scenarios/catalog/gpus.yaml" "$work/src/scenarios/catalog/"
check "a bus_efficiency moved off its measurement fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/moved.out" &&
     grep -q "^FAIL h100-node.intra_node.bus_efficiency" "$work/moved.out" &&
     ! grep -q Traceback "$work/moved.out"'
sed 's/gemm_efficiency: 0.7088/gemm_efficiency: 0.95/' "$src/scenarios/catalog/gpus.yaml" \
    >"$work/src/scenarios/catalog/gpus.yaml"
cp "$src/scenarios/catalog/clusters.yaml" "$work/src/scenarios/catalog/"
check "a fitted gemm_efficiency over the measured GEMM ceiling fails" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/over.out" 2>&1 &&
     grep -q "^FAIL a100-80gb.gemm_efficiency " "$work/over.out" && ! grep -q Traceback "$work/over.out"'

sed 's/gemm_half_gflop: 4.99/gemm_half_gflop: 6/' "$src/scenarios/catalog/gpus.yaml" \
    >"$work/src/scenarios/catalog/gpus.yaml"
check "an F8 gemm_half_gflop moved off gemm_shapes.csv fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/half.out" 2>&1 &&
     grep -q "^FAIL h100-sxm.gemm_half_gflop " "$work/half.out" && ! grep -q Traceback "$work/half.out"'

sed 's/grouped_gemm_half_rows: 123/grouped_gemm_half_rows: 200/' "$src/scenarios/catalog/gpus.yaml" \
    >"$work/src/scenarios/catalog/gpus.yaml"
check "an F38 grouped_gemm_half_rows moved off grouped_gemm.csv fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/grouped.out" 2>&1 &&
     grep -q "^FAIL h800.grouped_gemm_half_rows " "$work/grouped.out" &&
     ! grep -q Traceback "$work/grouped.out"'

check "F8, F18, F42: h100-grandteton's three GEMM rates are derived from the 500 W H100 rows" \
    '[ "$(grep -c "^ok   h100-grandteton\.\(gemm_efficiency\|fp8_gemm_efficiency\|fp8_rowwise_gemm_efficiency\) .*equal ±0.0005: mean of the 3 H100 500 W" "$work/derive.out")" -eq 3 ]'
check "F42: every fp8_kernel_gemm_efficiency (h100-sxm, h200) is derived from fp8_gemm.csv" \
    '[ "$(grep -c "^ok   \(h100-sxm\|h200\)\.fp8_kernel_gemm_efficiency .*equal ±0.0005: best tensorwise" "$work/derive.out")" -eq 2 ]'
sed 's/fp8_kernel_gemm_efficiency: 0.7344/fp8_kernel_gemm_efficiency: 0.8/' \
    "$src/scenarios/catalog/gpus.yaml" >"$work/src/scenarios/catalog/gpus.yaml"
check "an F42 fp8_kernel_gemm_efficiency moved off its MAMF row fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/k8.out" 2>&1 &&
     grep -q "^FAIL h200.fp8_kernel_gemm_efficiency " "$work/k8.out" && ! grep -q Traceback "$work/k8.out"'
sed 's/fp8_rowwise_gemm_efficiency: 0.5642/fp8_rowwise_gemm_efficiency: 0.45/' \
    "$src/scenarios/catalog/gpus.yaml" >"$work/src/scenarios/catalog/gpus.yaml"
check "an F42 fp8_rowwise_gemm_efficiency moved off the 500 W rows fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/row500.out" 2>&1 &&
     grep -q "^FAIL h100-grandteton.fp8_rowwise_gemm_efficiency " "$work/row500.out" &&
     ! grep -q Traceback "$work/row500.out"'
cp "$src/scenarios/catalog/gpus.yaml" "$work/src/scenarios/catalog/"
sed 's/{"rowwise", 0.7961,/{"rowwise", 0.9,/' "$src/src/model/compute.c" >"$work/src/src/model/compute.c"
check "an F24 recipe rate ratio moved off fp8_gemm.csv fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/recipe.out" 2>&1 &&
     grep -q "^FAIL F24 fp8_recipe rowwise rate ratio" "$work/recipe.out" &&
     ! grep -q Traceback "$work/recipe.out"'
sed 's/{"mxfp8", 1.0,/{"mxfp8", 1.2,/' "$src/src/model/compute.c" >"$work/src/src/model/compute.c"
check "an unmeasured recipe (mxfp8) given a rate ratio other than 1 fails" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/mx.out" 2>&1 &&
     grep -q "^FAIL F24 fp8_recipe mxfp8 rate ratio" "$work/mx.out"'
cp "$src/src/model/compute.c" "$work/src/src/model/"
sed 's/overlap_slowdown: 0.189/overlap_slowdown: 0.25/' "$src/scenarios/catalog/frameworks.yaml" \
    >"$work/src/scenarios/catalog/frameworks.yaml"
check "an X15 overlap_slowdown moved off overlap.csv fails the derivation" \
    '! python3 "$src/tests/derive_presets.py" "$work/src" >"$work/slow.out" 2>&1 &&
     grep -q "^FAIL torchtitan.overlap_slowdown" "$work/slow.out" && ! grep -q Traceback "$work/slow.out"'
rm "$work/src/scenarios/catalog/frameworks.yaml"
check "derive_presets.py derives both measured F24 recipe ratios (rowwise, blockwise)" \
    '[ "$(grep -c "^ok   F24 fp8_recipe \(rowwise\|blockwise\) rate ratio" "$work/derive.out")" -eq 2 ]'

# explain names the basis of each preset number (refined scenarios only)
"$planeval" explain "$src/scenarios/published/korthikanti-r2-175b-t5-selective.yaml" \
    --plan korthikanti-r2-175b-t5-selective >"$work/a100.txt" 2>&1
check "explain (A100, refined): the basis line tags C8 measured" \
    'grep -q "^     basis: .*C8 η_max 0.78/0.96: measured" "$work/a100.txt"'
check "explain (A100, refined): e_max, η_W fitted, F_half at its neutral 0, e_att = e_max; latency and datasheet numbers not measured" \
    'grep "^     basis: " "$work/a100.txt" | grep -q "e_max 0.7088: fitted; F_half 0: neutral; e_att 0.7088: = e_max; η_W 0.7348: fitted" &&
     grep "^     basis: " "$work/a100.txt" | grep -q "latency_us: not measured" &&
     grep "^     basis: " "$work/a100.txt" | grep -q "datasheet (not measured)"'
"$planeval" explain "$src/scenarios/published/nemo-2407-gpt3-175b-128gpu.yaml" \
    --plan "$(grep -m1 -o "name: [a-z0-9.-]*" "$src/scenarios/published/nemo-2407-gpt3-175b-128gpu.yaml" | sed -n 1p | cut -d" " -f2)" \
    >"$work/h100.txt" 2>&1 || true
check "explain (H100 fp8): e_max8 fitted, e_att measured (F22's kernel asymptote), F_half measured (F8)" \
    'grep "^     basis: " "$work/h100.txt" | grep -q "e_att 0.53: measured (F22)" &&
     grep "^     basis: " "$work/h100.txt" | grep -q "e_max8 0.4859: fitted" &&
     grep "^     basis: " "$work/h100.txt" | grep -q "F_half 4.99: measured (F8: gemm_shapes.csv)"'
"$planeval" explain "$src/scenarios/drills/01-fit-the-model.yaml" --plan "$(awk '/- name:/ {print $3; exit}' "$src/scenarios/drills/01-fit-the-model.yaml")" >"$work/textbook.txt" 2>&1 || true
check "explain (textbook): no basis line" '! grep -q "^     basis: " "$work/textbook.txt"'
finish
