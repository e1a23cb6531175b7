#!/bin/bash
# test_recompute_by_layer.sh — F27, A18's step part (docs/model.md §12
# "Recompute by layer"): under recompute: full with recompute_method block
# or every, the backward recomputes the checkpointed layers only, in the
# step time, compute_s and hfu; explain prints F27 with its numbers; uniform
# 1 (and the keys without recompute: full, and fidelity: textbook) time the
# step as before. The F5 path without gemm_efficiency: tests/unit/test_memory_megatron.c.
. "$(dirname "$0")/testlib.sh"
col() { csv_column "$1" "$2" | head -1; }
. "$(dirname "$0")/recompute_scenario.sh"
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# the recomputed forward per layer: (compute_s(full) − compute_s(none))/16
# layers a stage (llama2-7b's 32 layers on 2 stages); block 4 adds 4 of
# them, every 2 (torchtitan's selective_ac_option 2) ⌊16/2⌋ = 8
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * b) }'; }
for fid in refined; do
    rc_scen "none-$fid" megatron-core none "$fid"
    rc_scen "full-$fid" megatron-core full "$fid"
    rc_scen "uni1-$fid" "{ preset: megatron-core, recompute_method: uniform, recompute_num_layers: 1 }" full "$fid"
    rc_scen "blk4-$fid" "{ preset: megatron-core, recompute_method: block, recompute_num_layers: 4 }" full "$fid"
    rc_scen "blk8-$fid" "{ preset: megatron-core, recompute_method: block, recompute_num_layers: 8 }" full "$fid"
    rc_scen "blk4n-$fid" "{ preset: megatron-core, recompute_method: block, recompute_num_layers: 4 }" none "$fid"
    rc_scen "ev2-$fid" "{ preset: megatron-core, recompute_method: every, recompute_num_layers: 2 }" full "$fid"
    for v in none full uni1 blk4 blk8 blk4n ev2; do
        eval "t_$v=\$(col \"\$work/rc/$v-$fid.csv\" step_time_s)"
        eval "c_$v=\$(col \"\$work/rc/$v-$fid.csv\" compute_s)"
        eval "h_$v=\$(col \"\$work/rc/$v-$fid.csv\" hfu)"
    done
    check "$fid: uniform 1 is recompute: full ($t_uni1 = $t_full)" '[ -n "$t_full" ] && [ "$t_uni1" = "$t_full" ] && [ "$h_uni1" = "$h_full" ]'
    check "$fid: the keys change no time without recompute: full" '[ -n "$t_none" ] && [ "$t_blk4n" = "$t_none" ]'
    check "$fid: block 4 times between none and full ($t_none < $t_blk4 < $t_full)" \
        'lt "$t_none" "$t_blk4" && lt "$t_blk4" "$t_full"'
    check "$fid: block 8 (more layers recomputed) slower than block 4 ($t_blk4 < $t_blk8)" 'lt "$t_blk4" "$t_blk8"'
    per=$(awk -v f="$c_full" -v n="$c_none" 'BEGIN { printf "%.17g", (f - n) / 16 }')
    check "$fid: compute_s of block 4 = none + 4 recomputed layers ($c_blk4)" \
        'near "$c_blk4" "$(awk -v n="$c_none" -v p="$per" "BEGIN { printf \"%.17g\", n + 4 * p }")"'
    check "$fid: compute_s of every 2 = none + 8 recomputed layers ($c_ev2)" \
        'near "$c_ev2" "$(awk -v n="$c_none" -v p="$per" "BEGIN { printf \"%.17g\", n + 8 * p }")"'
    check "$fid: hfu counts the recomputed layers only (block 4 ≠ full)" '[ -n "$h_blk4" ] && [ "$h_blk4" != "$h_full" ]'
done
# fidelity: textbook puts every refinement back to neutral: the keys time nothing
rc_scen full-textbook megatron-core full textbook
rc_scen blk4-textbook "{ preset: megatron-core, recompute_method: block, recompute_num_layers: 4 }" full textbook
check "fidelity: textbook: block 4 is timed as recompute: full" \
    '[ -n "$(col "$work/rc/full-textbook.csv" step_time_s)" ] && [ "$(col "$work/rc/blk4-textbook.csv" step_time_s)" = "$(col "$work/rc/full-textbook.csv" step_time_s)" ]'
"$planeval" explain "$work/blk4-refined.yaml" --plan p >"$work/blk4.explain" 2>&1
check "explain prints F27 with the recomputed-layer count and FLOPs" \
    'grep -q "^F27 " "$work/blk4.explain" && grep -q "= 4 of 16 layers recomputed: .* FLOP per micro-batch" "$work/blk4.explain"'
check "explain prints hfu's F_hw from F27" 'grep -q "F_hw = .* (F27: " "$work/blk4.explain"'
"$planeval" explain "$work/full-refined.yaml" --plan p >"$work/full.explain" 2>&1
check "no F27 line without recompute_method" '! grep -q "F27" "$work/full.explain"'
finish
