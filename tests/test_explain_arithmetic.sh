#!/usr/bin/env bash
# test_explain_arithmetic.sh PLANEVAL SOURCE_DIR WORKDIR — explain's printed
# formula, its numbers and its value agree: the A11 line of an MoE plan, in
# bf16 and in FP8, is a formula whose substitution evaluates to the bytes
# printed below it (the formula once said etp·2h + (gelu ? 4 : 6)·f_e while
# FP8 took β_in = 1 and c_e = 5 — DeepSeek-V3's line gave 8.72e8 by its own
# text against 5.70e8 printed).
. "$(dirname "$0")/testlib.sh"

# a11 SCENARIO PLAN: the formula line, the substitution line, the value line
a11() { "$planeval" explain "$1" --plan "$2" | grep -A2 '^A11 '; }
# evaluate "1·4096·8·1/1·(1·1·7168 + 5·2048)" in integers (every factor of
# these two plans is whole, and the one division is by t = 1)
evaluate() { local e=${1//·/*}; echo $((e)); }
# the printed value "5.70425e+08 bytes" as an integer of its six digits
printed() { awk '{ printf "%d\n", $2 }' <<<"$1"; }

for c in "scenarios/published/deepseek-v3-h800-2048gpu.yaml deepseek-v3-h800-2048gpu fp8" \
         "scenarios/drills/04-moe-236b.yaml ep32-flat bf16"; do
    set -- $c
    out=$(cd "$src" && a11 "$1" "$2")
    formula=$(sed -n 1p <<<"$out") subst=$(sed -n 2p <<<"$out") value=$(sed -n 3p <<<"$out")
    check "$3: A11's formula names β_in and c_e ($formula)" \
        '[[ "$formula" == *"(etp·β_in·h + c_e·f_e)" ]]'
    expr=$(sed -E 's/^ *= //; s/  \(β_in.*//' <<<"$subst")
    got=$(evaluate "$expr" 2>/dev/null)
    want=$(printed "$value")
    # the value is printed to six significant digits
    check "$3: the substitution $expr = $got is the printed value ($value)" \
        '[ -n "$got" ] && awk -v a="$got" -v b="$want" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 5e-6 * a) }"'
done
# DeepSeek-V3 with FP8 by hand, under A13 (the file without its framework
# line): b = 1, s' = 4096, k = 8, ρ = 1, t = 1, etp = 1, β_in = 1, h = 7168,
# c_e = 6 − 1 = 5, f_e = 2048: 32768·(7168 + 10240) = 570,425,344 bytes
grep -v '^framework:' "$src/scenarios/published/deepseek-v3-h800-2048gpu.yaml" >"$work/ds-a13.yaml"
check "DeepSeek-V3's substitution under A13 is the hand-worked one" \
    '[ "$(a11 "$work/ds-a13.yaml" deepseek-v3-h800-2048gpu | sed -n 2p)" = "       = 1·4096·8·1/1·(1·1·7168 + 5·2048)  (β_in = 1, c_e = 5: FP8, A13)" ]'
# and as the file has it, under A19 (docs/model.md §12): β_in = β_c = 1,
# c_e = 2·β_c = 2 (the SwiGLU input in FP8, its output recomputed):
# 32768·(7168 + 4096) = 369,098,752 bytes
check "DeepSeek-V3's substitution under A19 is the hand-worked one" \
    '[ "$(cd "$src" && a11 scenarios/published/deepseek-v3-h800-2048gpu.yaml deepseek-v3-h800-2048gpu | sed -n 2p)" = "       = 1·4096·8·1/1·(1·1·7168 + 2·2048)  (β_in = 1, c_e = 2: A19)" ] &&
     [ "$(cd "$src" && a11 scenarios/published/deepseek-v3-h800-2048gpu.yaml deepseek-v3-h800-2048gpu | sed -n 3p | awk "{ print \$2 }")" = 3.69099e+08 ]'
finish
