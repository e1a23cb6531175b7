#!/usr/bin/env bash
# test_eager.sh PLANEVAL SOURCE_DIR WORKDIR — framework eager_elementwise
# (docs/model.md §12 F28, torchtitan without torch.compile): false changes
# nothing; true slows the step by the eager element-wise bytes, and
# fused_rmsnorm slows it less; fidelity: textbook ignores both; explain
# prints the F28 line with torchtitan's byte counts; and the published
# eager/compiled pairs of torchtitan's Tables 1 and 3 no longer predict the
# same time (the eager row slower, as published).
. "$(dirname "$0")/testlib.sh"

scenario() { # scenario FILE FIDELITY FRAMEWORK_KEYS
    cat >"$1" <<YAML
schema: planeval/v1
name: eager
fidelity: $2
model: { preset: llama3-8b, seq_len: 8192 }
cluster: { preset: h100-node, nodes: 1 }
framework: { preset: torchtitan$3 }
training: { global_batch: 16 }
plans:
  - { name: fsdp, dp: 8, micro_batch: 2, zero: 3, recompute: selective }
  - { name: tp2, dp: 4, tp: 2, micro_batch: 2, sequence_parallel: true, zero: 3 }
YAML
}
step() { csv_column "$work/$1/eager.csv" step_time_s | sed -n "${2}p"; }
run_scenario compiled refined ""
run_scenario off refined ", eager_elementwise: false"
run_scenario eager refined ", eager_elementwise: true"
check "run with eager_elementwise: true exits 0" '[ $? -eq 0 ] && [ -s "$work/eager/eager.csv" ]'
run_scenario fused refined ", eager_elementwise: true, fused_rmsnorm: true"
run_scenario fused_only refined ", fused_rmsnorm: true"
check "eager_elementwise: false is byte-identical to the key absent" \
    'cmp -s "$work/off/eager.csv" "$work/compiled/eager.csv"'
check "fused_rmsnorm without eager_elementwise changes nothing" \
    'cmp -s "$work/fused_only/eager.csv" "$work/compiled/eager.csv"'
for row in 1 2; do
    check "plan $row: eager is slower than compiled" 'gt "$(step eager "$row")" "$(step compiled "$row")"'
    check "plan $row: eager with fused_rmsnorm between the two" \
        'gt "$(step eager "$row")" "$(step fused "$row")" && gt "$(step fused "$row")" "$(step compiled "$row")"'
done

# fidelity: textbook ignores F28
run_scenario tb-eager textbook ", eager_elementwise: true"
run_scenario tb-compiled textbook ""
check "fidelity: textbook with eager_elementwise: true is byte-identical to without it" \
    'cmp -s "$work/tb-eager/eager.csv" "$work/tb-compiled/eager.csv"'

# explain: the F28 line with the byte counts (Llama 3 8B: 2·36·4096 +
# 2·6·4096 = 344064; 10·14336 + 20·5120 + 4·5120 = 266240)
explain_plan eager fsdp
check "explain eager: F28 line, rep 344064 and par 266240 bytes per token" \
    'grep -q "^F28 " "$work/eager.txt" &&
     grep -q "rep = 2·36·4096 + 2·6·4096 = 344064, par = 266240" "$work/eager.txt"'
check "explain eager: F10 takes F28's bytes" \
    'grep -A1 "^F10 " "$work/eager.txt" | grep -q "(344064/1 + 266240/1 + 0/1)"'
explain_plan fused fsdp
check "explain fused_rmsnorm: rep = 2·4·4096 + 2·6·4096 = 81920" \
    'grep -q "fused_rmsnorm: rep = 2·4·4096 + 2·6·4096 = 81920, par = 266240" "$work/fused.txt"'
explain_plan compiled fsdp
check "explain compiled: no F28 line" '! grep -q "^F28 " "$work/compiled.txt"'

# a non-boolean value is bad input
scenario "$work/bad.yaml" refined ", eager_elementwise: 3"
"$planeval" run --quiet -o "$work/bad" "$work/bad.yaml" 2>"$work/bad.err"
check "eager_elementwise: 3 exits 2 with a message naming the key, no report" \
    '[ $? -eq 2 ] && grep -q "eager_elementwise" "$work/bad.err" && [ ! -e "$work/bad/eager.csv" ]'

# the published pairs: each eager (*-fsdp) row predicted slower than its
# compiled twin, as published (2.843 vs 2.457 s; 2.923 vs 2.515 s)
pub=$src/scenarios/published
for t in t1-llama3-8b-8gpu t3-llama3-8b-128gpu; do
    e=torchtitan-2412-$t-fsdp c=torchtitan-2412-$t-compile
    check "$e says eager_elementwise: true, $c does not" \
        'grep -q "^framework: { preset: torchtitan, eager_elementwise: true }" "$pub/$e.yaml" &&
         ! grep -q "eager_elementwise" "$pub/$c.yaml"'
    "$planeval" check --table "$pub/$e.yaml" "$pub/$c.yaml" >"$work/$t.table" 2>&1
    pe=$(awk -F'|' -v n="$e" '$2 ~ "^ "n" $" { print $6 + 0 }' "$work/$t.table")
    pc=$(awk -F'|' -v n="$c" '$2 ~ "^ "n" $" { print $6 + 0 }' "$work/$t.table")
    check "$t: eager predicted at least 8% slower than compiled ($pe vs $pc s)" \
        '[ -n "$pe" ] && [ -n "$pc" ] && awk -v a="$pe" -v b="$pc" "BEGIN { exit !(a > 1.08 * b) }"'
done
finish
