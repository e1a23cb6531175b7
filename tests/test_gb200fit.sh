#!/usr/bin/env bash
# test_gb200fit.sh PLANEVAL SOURCE_DIR WORKDIR — the gb200 preset's fitted
# numbers (docs/model.md §13, "GB200"): what the catalog carries is exactly
# what `planeval calibrate scenarios/calibration/gb200.csv --fit
# fp8_gemm_efficiency` prints (so a change of the model or of the runs that
# leaves the preset stale fails here); the runs file lists every published
# GB200 file once, its fit rows exactly the files marked `# group: fit`, at
# most half of them; with the priors derived from the measurements the runs
# constrain the FP8 rate and not the bf16 one; a published GB200 file runs
# F18 at the fitted rate (explain), and the attention core, which the runs
# do not constrain, stands on F41's measurement.
. "$(dirname "$0")/testlib.sh"

cal=$src/scenarios/calibration
gpus=$src/scenarios/catalog/gpus.yaml
preset_value() { # preset_value GPU KEY — KEY's value in the catalog's GPU preset
    awk -v name="  $1:" -v key="$2" '$0 == name { on = 1; next }
        on && /^  [a-z0-9]/ { on = 0 } on && $1 == key ":" { print $2; exit }' "$gpus"
}

"$planeval" calibrate "$cal/gb200.csv" --fit fp8_gemm_efficiency \
    >"$work/fit.out" 2>"$work/fit.err"; rc=$?
check "calibrate gb200.csv: exits 0, nothing on stderr (got $rc)" \
    '[ $rc -eq 0 ] && [ ! -s "$work/fit.err" ]'
check "three runs fitted, four predicted" \
    'grep -q "^fit: 3 runs, in-sample" "$work/fit.out" && grep -q "^predict: 4 runs" "$work/fit.out"'
for key in fp8_gemm_efficiency step_time_below step_time_above step_time_interval_runs; do
    got=$(awk -v k="$key:" '$1 == k { print $2 }' "$work/fit.out")
    want=$(preset_value gb200 "$key")
    check "gb200: $key in the catalog ($want) is calibrate's ($got)" '[ -n "$got" ] && [ "$got" = "$want" ]'
done
# gemm_efficiency is the textbook flops_efficiency the fit held (calibrate
# prints it only for a GPU that has none): its presence turns F7-F11 on
check "gb200: gemm_efficiency is the held textbook 0.5 ($(preset_value gb200 gemm_efficiency))" \
    '[ "$(preset_value gb200 gemm_efficiency)" = 0.5 ]'
# the attention core, which the runs do not constrain, stands on F41's
# measurement (the median of the GB200's cuDNN causal training rows,
# tests/derive_presets.py), held by calibrate (attention_measured)
python3 "$src/tests/derive_presets.py" "$src" >"$work/derive-f41.out" 2>&1
check "gb200: attention_efficiency is F41's measured $(preset_value gb200 attention_efficiency), held" \
    'grep -q "^ok   gb200.attention_efficiency  *preset=$(preset_value gb200 attention_efficiency) .*equal ±0.0005: F41" "$work/derive-f41.out" &&
     [ "$(preset_value gb200 attention_measured)" = true ] && ! grep -q "attention_efficiency" "$work/fit.out"'
check "gb200: no elementwise_efficiency (no HBM measurement for it)" \
    '[ -z "$(preset_value gb200 elementwise_efficiency)" ]'

# the runs file: every published GB200 file once; its fit rows are the
# files of group fit, at most half (the 2nd, 4th and 6th of the six first
# read, in byte order; a file added later is a prediction: docs/validation.md)
(cd "$src/scenarios/published" && ls nemo-*-gb200-*.yaml | LC_ALL=C sort) >"$work/all-files"
tail -n +2 "$cal/gb200.csv" | cut -d, -f1 | sed 's|^\.\./published/||' | LC_ALL=C sort >"$work/runs-files"
check "gb200.csv lists every published GB200 file once ($(wc -l <"$work/all-files"))" \
    '[ -s "$work/all-files" ] && cmp -s "$work/all-files" "$work/runs-files"'
(cd "$src/scenarios/published" && grep -l '^# group: fit' nemo-*-gb200-*.yaml | LC_ALL=C sort) >"$work/fit-files"
grep ',fit$' "$cal/gb200.csv" | cut -d, -f1 | sed 's|^\.\./published/||' | LC_ALL=C sort >"$work/fit-rows"
check "its fit rows are exactly the GB200 files of group fit" \
    '[ -s "$work/fit-files" ] && cmp -s "$work/fit-files" "$work/fit-rows"'
nfit=$(wc -l <"$work/fit-rows") nall=$(wc -l <"$work/all-files")
check "at most half of the GB200 runs are fitted ($nfit of $nall)" '[ $((2 * nfit)) -le "$nall" ]'
while IFS=, read -r scen plan col value group; do
    published=$(sed -n 's/^    step_time_s: { value: \([0-9.]*\),.*/\1/p' "$cal/$scen")
    check "gb200.csv's $plan is its file's published step time ($value)" '[ "$published" = "$value" ]'
done < <(tail -n +2 "$cal/gb200.csv")

# with the priors of the measurements: the runs pin the FP8 rate down, not
# the bf16 one (the runs are FP8 throughout)
"$planeval" calibrate "$cal/gb200.csv" --priors "$cal/priors/gb200.csv" >"$work/priors.out" 2>&1
check "priors: fp8_gemm_efficiency constrained by the runs" \
    'grep -q "^  fp8_gemm_efficiency: prior 0.723 ± 0.05 .*: constrained" "$work/priors.out"'
check "priors: gemm_efficiency not constrained, left at its measured value" \
    'grep -q "^  gemm_efficiency: prior 0.729 ± 0.05 .*not constrained by the runs" "$work/priors.out"'

# the two Blackwell priors files are what tests/derive_presets.py derives
# from the measurements (value and width of each number)
python3 "$src/tests/derive_presets.py" "$src" >"$work/derive.out" 2>&1
check "priors/b200.csv and priors/gb200.csv are derived from the measurements (6 numbers)" \
    '[ "$(grep -c "^ok   priors/g\?b200\." "$work/derive.out")" -eq 6 ] && ! grep -q "^FAIL   *priors/g\?b200" "$work/derive.out"'

# a published GB200 file runs the FP8 GEMMs at the fitted rate, by shape
fitted=$(preset_value gb200 fp8_gemm_efficiency)
"$planeval" explain "$src/scenarios/published/nemo-2504-nemotron-15b-gb200-64gpu.yaml" \
    --plan nemo-2504-nemotron-15b-gb200-64gpu >"$work/explain.out" 2>&1
check "explain: F18 on a GB200 run with e_max8 = $fitted" \
    'grep "^F18 " "$work/explain.out" | grep -q "$fitted"'
check "explain: the attention core at F41's measured e_att" \
    'grep -q "e_att $(preset_value gb200 attention_efficiency): measured (F41" "$work/explain.out"'
check "explain: compute by shape (F7-F8, F9), not F6" \
    'grep -q "^F7-8 MLP in GEMM" "$work/explain.out" && grep -q "^F9 " "$work/explain.out" && ! grep -q "^F6 " "$work/explain.out"'
finish
