#!/usr/bin/env bash
# test_dp_chunk.sh — X4 under Megatron-Core's interleaved schedule
# (framework dp_chunk_sync, docs/model.md §12 X30; no preset sets it):
# Nemotron-4 340B on 16 DGX B200s (tp 8, pp 4, v 12, dp 4 at stride 8: one
# GPU a node in each dp group) reduces and gathers 21.9 GB at C9's
# 0.344059 s each; X4 hides one micro-batch's backward and forward of
# each, X30 each chunk's share behind the chunks still to run.
#
#   bash tests/test_dp_chunk.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

f=$src/scenarios/published/nemo-2502-nemotron-340b-b200-128gpu.yaml
plan=nemo-2502-nemotron-340b-b200-128gpu
sed -e 's/^framework: nemo .*/framework: { preset: nemo, dp_chunk_sync: true }/' \
    -e 's/^name: .*/name: chunked/' "$f" | grep -v '^expect:\|^  - plan:\|^    step_time_s' >"$work/chunked.yaml"
run_both "the published file and its dp_chunk_sync copy run" "$f" "$work/chunked.yaml"
x4=$(csv_column "$work/out/$plan.csv" dp_comm_s)
x30=$(csv_column "$work/out/chunked.csv" dp_comm_s)
# X4: max(0, 0.344059 − 0.111751) + max(0, 0.344059 − 0.0558755) = 0.520492 s
check "the file as published keeps X4 ($x4 s = 0.520492)" 'within "$x4" 0.520492 1e-5'
# X30: max(0, 0.232308/12, 0.344059 − 45·0.111751/12) + max(0, 0.288184/12,
# 0.344059 − 45·0.0558755/12) = 0.019359 + 0.134526 = 0.153885 s (above
# X15's floor 0.158957·0.688119 = 0.109382)
check "dp_chunk_sync: X30's per-chunk windows ($x30 s = 0.153885)" 'within "$x30" 0.153885 1e-5'
"$planeval" explain "$work/chunked.yaml" --plan "$plan" >"$work/explain.out" 2>&1
check "explain prints X30 with its numbers in place of X4's line" \
    'grep -q "^X30  χ_dp" "$work/explain.out" && grep -q "(v = 12, p = 4)" "$work/explain.out" &&
     ! grep -q "^X4   χ_dp" "$work/explain.out"'

finish
