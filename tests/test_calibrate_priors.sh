#!/usr/bin/env bash
# test_calibrate_priors.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval calibrate
# RUNS.csv --priors FILE` (docs/model.md §12 "With priors"): the fit is
# regularised toward the measured values of scenarios/calibration/priors/*.csv;
# a number the runs constrain moves off its prior, one they do not is left
# at exactly its measured value (printed, and in the lines to paste); the
# output without --priors is unchanged; bad priors files exit 2 with a
# FILE:LINE:COL message and print nothing on stdout.
. "$(dirname "$0")/testlib.sh"

cal=$src/scenarios/calibration
"$planeval" calibrate "$cal/a100.csv" --priors "$cal/priors/a100.csv" >"$work/a100.out" 2>"$work/a100.err"; rc=$?
check "a100 with priors: exits 0 (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$work/a100.err" ]'
check "a100: the runs constrain gemm_efficiency (moved off 0.869)" \
    'grep -q "^  gemm_efficiency: prior 0.869 ± 0.05 .* -> 0.6[0-9]*; runs. χ² rise [0-9.]*: constrained" "$work/a100.out"'
check "a100: attention_efficiency is not constrained and stays at its measured value 1" \
    'grep -q "^  attention_efficiency: prior 1 ± 0.05 .* -> 1; runs. χ² rise .*: not constrained by the runs, left at its measured value" "$work/a100.out" &&
     grep -q "^    attention_efficiency: 1 # not constrained by the runs: the measured value (prior)" "$work/a100.out"'
check "a100: elementwise_efficiency likewise at exactly 0.871" \
    'grep -q "^  elementwise_efficiency: prior 0.871 ± 0.05 .* -> 0.871; runs. χ² rise 0.[0-9]*: not constrained" "$work/a100.out" &&
     grep -q "^    elementwise_efficiency: 0.871 # not constrained" "$work/a100.out"'
check "a100: the table and the in-sample and leave-one-out lines are still there" \
    'grep -q "^fit: 9 runs, in-sample mean |error| [0-9.]*% (max [0-9.]*%), leave-one-out mean |error| [0-9.]*%" "$work/a100.out"'
# the pasted lines give the step times printed: a catalog with them
"$planeval" calibrate "$cal/h100.csv" --priors "$cal/priors/h100.csv" >"$work/h100.out" 2>&1; rc=$?
check "h100 with priors: exits 0, fp8_gemm_efficiency and attention_efficiency constrained" \
    '[ $rc -eq 0 ] && grep -q "^  fp8_gemm_efficiency: prior 0.443 .*: constrained" "$work/h100.out" &&
     grep -q "^  attention_efficiency: prior 0.842 .*: constrained" "$work/h100.out"'
# without --priors: exactly the output of before (no priors block)
"$planeval" calibrate "$cal/a100.csv" >"$work/plain.out" 2>&1
check "without --priors no priors block" '! grep -q "^priors" "$work/plain.out"'

# refusals: exit 2, a FILE:LINE:COL message, nothing on stdout
refuse() { # NAME CONTENT EXPECTED-MESSAGE-PART [RUNS]
    name=$1 want=$3
    printf '%b' "$2" >"$work/$name.csv"
    "$planeval" calibrate "${4:-$cal/a100.csv}" --priors "$work/$name.csv" >"$work/$name.out" 2>"$work/$name.err"; rc=$?
    check "$name: exit 2 (got $rc), nothing on stdout, the message" \
        '[ $rc -eq 2 ] && [ ! -s "$work/$name.out" ] && grep -qF -- "$want" "$work/$name.err"'
}
refuse header 'number,value\ngemm_efficiency,0.8\n' "$work/header.csv:1:1: error: a priors file starts with the header number,value,width,basis"
refuse name 'number,value,width,basis\nflops_efficiency,0.5,0.1,x\n' "$work/name.csv:2:1: error: number must be one of"
refuse range 'number,value,width,basis\ngemm_efficiency,1.2,0.1,x\n' "$work/range.csv:2:2: error: gemm_efficiency's value must be in [0.05, 1], got 1.2"
refuse width 'number,value,width,basis\ngemm_efficiency,0.8,-1,x\n' "$work/width.csv:2:3: error: width must be > 0, got -1"
refuse basis 'number,value,width,basis\ngemm_efficiency,0.8,0.1,\n' "$work/basis.csv:2:4: error: basis must say where the value and width come from"
refuse twice 'number,value,width,basis\ngemm_efficiency,0.8,0.1,x\ngemm_efficiency,0.7,0.1,y\n' "$work/twice.csv:3:1: error: gemm_efficiency has a prior already (line 2)"
refuse nofp8 'number,value,width,basis\nfp8_gemm_efficiency,0.5,0.1,x\n' "the priors file names fp8_gemm_efficiency but no fit row runs compute: fp8"
"$planeval" calibrate "$src/scenarios/published/korthikanti-r2-175b-t5-selective.yaml" \
    --plan korthikanti-r2-175b-t5-selective --step-time 13.75 --priors "$cal/priors/a100.csv" \
    >"$work/one.out" 2>"$work/one.err"; rc=$?
check "--priors with one scenario: refused (exit 2)" \
    '[ $rc -eq 2 ] && [ ! -s "$work/one.out" ] && grep -q "priors applies to a runs file" "$work/one.err"'
finish
