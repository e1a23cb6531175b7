#!/usr/bin/env bash
# test_fp8_kernel_rate.sh PLANEVAL SOURCE_DIR WORKDIR — F42 (docs/model.md
# §12): the framework key fp8_kernel_rate takes the GPU's measured
# tensorwise FP8 kernel rate (fp8_kernel_gemm_efficiency) in place of the
# NeMo-fitted fp8_gemm_efficiency; the GPU key fp8_rowwise_gemm_efficiency
# (h100-grandteton: the 500 W rowwise kernel) replaces F24's r for rowwise.
# Both neutral by default and under fidelity: textbook; explain prints F42
# with the numbers taken; the torchtitan presets set fp8_kernel_rate.
. "$(dirname "$0")/testlib.sh"

scenario() { # scenario FILE FIDELITY GPU RECIPE FRAMEWORK_KEYS
    cat >"$1" <<YAML
schema: planeval/v1
name: fp8-kernel-rate
fidelity: $2
model: { preset: llama3-8b, seq_len: 8192 }
precision: { compute: fp8, fp8_recipe: $4 }
cluster: { preset: h100-node, nodes: 8, gpu: { $3 } }
framework: { preset: torchtitan$5 }
training: { global_batch: 64 }
plans:
  - { name: fsdp, dp: 64, micro_batch: 1, zero: 3, recompute: selective }
YAML
}
step() { csv_column "$work/$1/fp8-kernel-rate.csv" step_time_s | sed -n 1p; }
sxm="preset: h100-sxm"
run_scenario on refined "$sxm" tensorwise ", fp8_kernel_rate: true"; rc_on=$?
run_scenario off refined "$sxm" tensorwise ", fp8_kernel_rate: false"; rc_off=$?
run_scenario unmeasured refined "$sxm, fp8_kernel_gemm_efficiency: 0" tensorwise ", fp8_kernel_rate: true"
check "runs with fp8_kernel_rate true and false exit 0" '[ $rc_on -eq 0 ] && [ $rc_off -eq 0 ]'
check "fp8_kernel_rate: the measured kernel (0.7088) is faster than the fitted 0.4859 ($(step on) < $(step off))" \
    'shorter "$(step on)" "$(step off)"'
check "a GPU without fp8_kernel_gemm_efficiency keeps fp8_gemm_efficiency ($(step unmeasured) = $(step off))" \
    '[ -n "$(step off)" ] && [ "$(step unmeasured)" = "$(step off)" ]'
explain_plan on fsdp
check "explain prints F42 with e_k8 0.7088 in place of fp8_gemm_efficiency 0.4859" \
    'grep -q "^       = framework torchtitan counts its casts apart: e_max8 = e_k8 = 0.7088 (measured: fp8_kernel_gemm_efficiency, fp8_gemm.csv), not fp8_gemm_efficiency 0.4859" "$work/on.txt" &&
     grep -q "^F18 .*(e_max8 = 0.7088)" "$work/on.txt"'
explain_plan off fsdp
check "without fp8_kernel_rate explain prints no F42" '! grep -q "^F42" "$work/off.txt"'

grandteton="preset: h100-grandteton"
run_scenario row refined "$grandteton" rowwise ""; rc_row=$?
run_scenario row_r refined "$grandteton, fp8_rowwise_gemm_efficiency: 0" rowwise ""
run_scenario tw refined "$grandteton" tensorwise ""
check "h100-grandteton rowwise runs (exit $rc_row)" '[ $rc_row -eq 0 ]'
check "F42: the measured 500 W rowwise kernel, not F24's r on top ($(step row) < $(step row_r))" \
    'shorter "$(step row)" "$(step row_r)"'
explain_plan row fsdp
check "explain prints F42: r = e_row/e_max8 = 0.5642/0.5642 = 1 in place of F24's 0.7961" \
    'grep -q "r = e_row/e_max8 = 0.5642/0.5642 = 1, in place of F24.s 0.7961" "$work/row.txt"'
explain_plan tw fsdp
check "tensorwise on h100-grandteton: no F42 rowwise line" \
    '! grep -q "e_row/e_max8" "$work/tw.txt"'

run_scenario tb_on textbook "$sxm, fp8_rowwise_gemm_efficiency: 0.3" rowwise ", fp8_kernel_rate: true"
run_scenario tb_off textbook "$sxm" rowwise ", fp8_kernel_rate: false"
check "fidelity: textbook is byte-identical with and without the F42 keys" \
    'cmp -s "$work/tb_on/fp8-kernel-rate.csv" "$work/tb_off/fp8-kernel-rate.csv"'
check "both torchtitan presets set fp8_kernel_rate: true" \
    '[ "$(grep -c "^    fp8_kernel_rate: true" "$src/scenarios/catalog/frameworks.yaml")" -eq 2 ]'
# explain's basis line says which kind each GEMM number is: h100-grandteton's
# rates are F42 measurements (gemm_measured), h100-sxm's bf16 rate a fit, and
# its FP8 rate the measured kernel row where fp8_kernel_rate takes it
run_scenario gt refined "$grandteton" tensorwise ""
explain_plan gt fsdp
check "explain: h100-grandteton's e_max and e_max8 are named measured" \
    'grep "basis:" "$work/gt.txt" | grep -q "e_max 0.575: measured (F42: gemm.csv)" &&
     grep "basis:" "$work/gt.txt" | grep -q "e_max8 [0-9.]*: measured (F42"'
check "explain: h100-sxm's e_max is a fit; its e_max8 is the measured kernel with fp8_kernel_rate, a fit without" \
    'grep "basis:" "$work/on.txt" | grep -q "e_max 0.6606: fitted" &&
     grep "basis:" "$work/on.txt" | grep -q "e_max8 [0-9.]*: measured (F42: the tensorwise kernel row" &&
     grep "basis:" "$work/off.txt" | grep -q "e_max8 [0-9.]*: fitted"'
finish
