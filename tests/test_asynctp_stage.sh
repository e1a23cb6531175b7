#!/usr/bin/env bash
# test_asynctp_stage.sh PLANEVAL SOURCE_DIR WORKDIR — X32 (docs/model.md
# §12) on the published async-TP runs, and the 2412 70B pair's float8
# recipe. X32: torch's _pipelined_multi_all_gather_and_consume copies the
# rank's shard into its symmetric buffer before the first chunk, exposed:
# Llama 3 8B at b 12, t 8 on 2.4 TB/s, 2·(805306368/8)/2.4e12 = 8.38861e-05 s
# a fused all-gather, six a layer under op-level SAC (QKV, MLP in; out, MLP
# out backward; X21's two re-run ones), 32·6·8.388608e-5 = 0.0161 s a step;
# plain TP has none. The 2412 Table 4 70B runs (torchtitan 9dec370: float8
# dynamic scaling, tensorwise, with Float8ColwiseParallel TP) are the same
# plan, stack and recipe as the 2506 tensorwise plain-TP run, so planeval
# predicts the same step for both.
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
x8=torchtitan-2506atp-llama3-8b-64gpu-bf16
explain_file "$pub/$x8-asynctp.yaml" "$x8-asynctp" async
explain_file "$pub/$x8-tp.yaml" "$x8-tp" tp
check "8B bf16 async TP: explain prints X32's copy, 2·(805306368/8)/2.4e+12" \
    'grep -q "^X32 " "$work/async.txt" && grep -q "= 2·(8.05306e+08/8)/2.4e+12 (S = S_tp)" "$work/async.txt"'
check "8B bf16 async TP: X32 is 8.38861e-05 s a fused all-gather" \
    'grep -A3 "^X32 " "$work/async.txt" | grep -q "= 8.38861e-05 s"'
check "8B bf16 async TP: six fused all-gathers a layer, 0.0161 s a step (forward 2, backward 2 + X21 2)" \
    'grep -q "32·0.000167772 = 0.00536871 s forward (QKV, MLP in), 32·(0 + 0.000335544) = 0.0107374 s backward" "$work/async.txt"'
check "8B bf16 plain TP: no X32 (nothing fused)" '! grep -q "^X32 " "$work/tp.txt"'

t4=torchtitan-2412-t4-llama3-70b-256gpu-tp
tw=torchtitan-2506atp-llama3-70b-256gpu-float8-tensorwise-tp
check "2412 Table 4 70B TP names fp8_recipe tensorwise (torchtitan 9dec370's dynamic scaling)" \
    'grep -q "^precision: { compute: fp8, fp8_recipe: tensorwise }" "$pub/$t4.yaml"'
"$planeval" check --table "$pub" >"$work/table.out" 2>&1
a=$(awk -F'|' -v n="$t4" '$2 ~ " "n" " {gsub(/ /, "", $6); print $6}' "$work/table.out")
b=$(awk -F'|' -v n="$tw" '$2 ~ " "n" " {gsub(/ /, "", $6); print $6}' "$work/table.out")
check "2412 70B TP predicts the 2506 tensorwise TP run's step (got '$a' and '$b')" \
    '[ -n "$a" ] && [ "$a" = "$b" ]'
finish
