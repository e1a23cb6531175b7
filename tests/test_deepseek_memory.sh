#!/usr/bin/env bash
# test_deepseek_memory.sh PLANEVAL SOURCE_DIR WORKDIR — DeepSeek-V3 trained
# its plan on 80 GB H800s, so its two published files must come out ok or
# over_time, never over_memory, under the memory its report describes
# (arXiv:2412.19437 §3.2.1 DualPipe: docs/model.md §12 B6, A21, M14;
# §3.2.3, §3.3.3: A19, FP32 gradients, BF16 Adam moments; held by phase,
# the unmeasured overheads at 0); explain shows A19 with its numbers; the
# same files under fidelity: textbook (which has no DualPipe: its 1F1B
# plan) keep the textbook sum (over_memory), the framework keys ignored.
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
col() { csv_column "$1" "$2" | head -1; }

for n in deepseek-v3-h800-2048gpu deepseek-v3-h800-pretrain-14.8t; do
    "$planeval" run -o "$work/pub" "$pub/$n.yaml" >/dev/null 2>&1
    r=$work/pub/$n.csv
    s=$(col "$r" status)
    check "$n trained: ok or over_time (got '$s')" '[ "$s" = ok ] || [ "$s" = over_time ]'
    # 70.4 GiB: A19's 60.8 GiB hand count under 1F1B less the flat 10 GiB
    # reserve (memory_by_phase, overheads not measured), plus DualPipe's
    # second stage (M14, +14.86 GiB) and 17 micro-batches for 15 (A21, +4.71)
    check "$n: mem_total_gib 70.38 under DualPipe (got $(col "$r" mem_total_gib))" \
        'awk -v m="$(col "$r" mem_total_gib)" "BEGIN { exit !(m > 70.37 && m < 70.39) }" &&
         [ "$(col "$r" schedule)" = dualpipe ] && [ "$(col "$r" mem_peak_phase)" = forward ]'
    # fidelity: textbook ignores the framework (A19): the textbook sum with
    # the report's precisions (FP32 gradients, BF16 moments), as without it;
    # it has no DualPipe, so the plan is the 1F1B one
    sed 's/^fidelity: refined.*/fidelity: textbook/; s/, schedule: dualpipe//' "$pub/$n.yaml" >"$work/$n-textbook.yaml"
    awk '/^framework:/ { skip = 1; next } skip && /^  / { next } { skip = 0; print }' \
        "$work/$n-textbook.yaml" >"$work/$n-nofw.yaml"
    "$planeval" run -o "$work/tb" "$work/$n-textbook.yaml" >/dev/null 2>&1
    "$planeval" run -o "$work/nofw" "$work/$n-nofw.yaml" >/dev/null 2>&1
    t=$work/tb/$n.csv
    check "$n textbook: over_memory, as without the framework keys (got $(col "$t" mem_total_gib))" \
        '[ "$(col "$t" status)" = over_memory ] && ! grep -q "^framework:" "$work/$n-nofw.yaml" &&
         [ "$(col "$t" mem_total_gib)" = "$(col "$work/nofw/$n.csv" mem_total_gib)" ]'
done

"$planeval" explain "$pub/deepseek-v3-h800-2048gpu.yaml" --plan deepseek-v3-h800-2048gpu \
    >"$work/explain.txt" 2>&1
check "explain prints A19 with its numbers" \
    'grep -q "^A19 " "$work/explain.txt" &&
     grep -q "rep 4·7168 + 2·1536 + 2·(512 + 64) = 32896" "$work/explain.txt" &&
     grep -q "β_c = 1 cached_input_bytes, β_ao = 1.5 attention_output_bytes" "$work/explain.txt"'
check "explain: A4 takes A19's counts" \
    'grep -q "= 4096·1·\[32896 + 117248/1 + 0/1\]" "$work/explain.txt"'
check "explain: A11 takes A19's β_in and c_e" \
    'grep -q "(β_in = 1, c_e = 2: A19)" "$work/explain.txt"'

finish
