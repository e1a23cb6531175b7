#!/usr/bin/env bash
# test_dp_chunk.sh — X4 under Megatron-Core's interleaved schedule
# (framework dp_chunk_sync, docs/model.md §12 X30; on in the nemo and
# megatron-core-perf presets, whose overlap_grad_reduce/overlap_param_gather
# hand the schedule one grad sync and one param sync per model chunk):
# Nemotron-4 340B on 16 DGX B200s (tp 8, pp 4, v 12, dp 4 at stride 8: one
# GPU a node in each dp group) reduces and gathers 21.9 GB at C9's
# 0.344059 s each; X4 hides one micro-batch's backward and forward of
# each, X30 each chunk's share behind the chunks still to run.
#
#   bash tests/test_dp_chunk.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

f=$src/scenarios/published/nemo-2502-nemotron-340b-b200-128gpu.yaml
plan=nemo-2502-nemotron-340b-b200-128gpu
# the file with the key switched off, and with two other Megatron presets
strip() { grep -v '^expect:\|^  - plan:\|^    step_time_s'; }
copy() { # copy NAME FRAMEWORK_LINE
    sed -e "s/^framework: nemo .*/framework: $2/" -e "s/^name: .*/name: $1/" "$f" | strip >"$work/$1.yaml"
}
copy unchunked '{ preset: nemo, dp_chunk_sync: false }'
copy perf 'megatron-core-perf'
copy defaults 'megatron-core'
run_both "the published file and its dp_chunk_sync: false copy run" "$f" "$work/unchunked.yaml"
x30=$(csv_column "$work/out/$plan.csv" dp_comm_s)
x4=$(csv_column "$work/out/unchunked.csv" dp_comm_s)
# X30: max(0, 0.228517/12, 0.344059 − 45·0.115542/12) + max(0, 0.286288/12,
# 0.344059 − 45·0.0577708/12) = 0.019043 + 0.127419 = 0.146462 s (above
# X15's floor 0.158957·0.688119 = 0.109382)
check "the file as published (preset nemo) times X30's per-chunk windows ($x30 s = 0.146462)" 'within "$x30" 0.146462 1e-5'
# X4: max(0, 0.344059 − 0.115542) + max(0, 0.344059 − 0.0577708) = 0.514806 s
check "dp_chunk_sync: false over the preset keeps X4 ($x4 s = 0.514806)" 'within "$x4" 0.514806 1e-5'
"$planeval" explain "$f" --plan "$plan" >"$work/explain.out" 2>&1
check "explain prints X30 with its numbers in place of X4's line" \
    'grep -q "^X30  χ_dp" "$work/explain.out" && grep -q "(v = 12, p = 4)" "$work/explain.out" &&
     ! grep -q "^X4   χ_dp" "$work/explain.out"'
"$planeval" explain "$work/perf.yaml" --plan "$plan" >"$work/perf.out" 2>&1
check "megatron-core-perf (--overlap-grad-reduce --overlap-param-gather) carries X30" \
    'grep -q "^X30  χ_dp" "$work/perf.out" && ! grep -q "^X4   χ_dp" "$work/perf.out"'
"$planeval" explain "$work/defaults.yaml" --plan "$plan" >"$work/defaults.out" 2>&1
check "megatron-core (Megatron's defaults, overlaps off) keeps X4" \
    'grep -q "^X4   χ_dp" "$work/defaults.out" && ! grep -q "^X30  χ_dp" "$work/defaults.out"'

finish
