#!/usr/bin/env bash
# test_deepseek_memory.sh PLANEVAL SOURCE_DIR WORKDIR — DeepSeek-V3 trained
# its plan on 80 GB H800s, so its two published files must come out ok or
# over_time, never over_memory, under the memory its report describes
# (arXiv:2412.19437 §3.2.3, §3.3.3: docs/model.md §12 A19, FP32 gradients,
# BF16 Adam moments); explain shows A19 with its numbers; the same files
# under fidelity: textbook keep the textbook sum (over_memory), the
# framework keys ignored.
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
col() { csv_column "$1" "$2" | head -1; }

for n in deepseek-v3-h800-2048gpu deepseek-v3-h800-pretrain-14.8t; do
    "$planeval" run -o "$work/pub" "$pub/$n.yaml" >/dev/null 2>&1
    r=$work/pub/$n.csv
    s=$(col "$r" status)
    check "$n trained: ok or over_time (got '$s')" '[ "$s" = ok ] || [ "$s" = over_time ]'
    # 60.8 GiB by A19's hand count (docs/model.md §12; the file's comment)
    check "$n: mem_total_gib 60.82 (got $(col "$r" mem_total_gib))" \
        'awk -v m="$(col "$r" mem_total_gib)" "BEGIN { exit !(m > 60.81 && m < 60.83) }"'
    # fidelity: textbook ignores the framework (A19): the textbook sum with
    # the report's precisions (FP32 gradients, BF16 moments), as without it
    sed 's/^fidelity: refined.*/fidelity: textbook/' "$pub/$n.yaml" >"$work/$n-textbook.yaml"
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
