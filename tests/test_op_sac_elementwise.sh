#!/usr/bin/env bash
# test_op_sac_elementwise.sh PLANEVAL SOURCE_DIR WORKDIR — framework
# op_sac_recompute_elementwise (docs/model.md §12 F39): under torchtitan's
# op-level selective checkpointing the backward also re-runs the forward's
# element-wise ops and the FP8 input casts, so a selective plan is slower
# with the key than without, a plan with recompute none or full is not;
# explain prints F39 with the numbers the evaluator took (its arithmetic
# redone here); fidelity: textbook ignores the key; both torchtitan presets
# set it.
. "$(dirname "$0")/testlib.sh"

scenario() { # scenario FILE FIDELITY COMPUTE ", fp8_recipe: R"|"" KEY
    cat >"$1" <<YAML
schema: planeval/v1
name: op-sac-ew
fidelity: $2
model: { preset: llama3-8b, seq_len: 8192 }
precision: { compute: $3$4 }
cluster: { preset: h100-node, nodes: 8 }
framework: { preset: torchtitan, op_sac_recompute_elementwise: $5 }
training: { global_batch: 64 }
plans:
  - { name: tp8, dp: 8, tp: 8, micro_batch: 8, sequence_parallel: true, zero: 3, recompute: selective }
  - { name: fsdp, dp: 64, micro_batch: 1, zero: 3, recompute: selective }
  - { name: none, dp: 64, micro_batch: 1, zero: 3, recompute: none }
  - { name: full, dp: 64, micro_batch: 1, zero: 3, recompute: full }
YAML
}
step() { csv_column "$work/$1/op-sac-ew.csv" step_time_s | sed -n "${2}p"; }
plan_row() { csv_column "$work/$1/op-sac-ew.csv" plan | grep -n "^$2\$" | cut -d: -f1; }
step_of() { step "$1" "$(plan_row "$1" "$2")"; }
for c in bf16 fp8; do
    for k in true false; do
        run_scenario "$c-$k" refined "$c" "$([ $c = fp8 ] && echo ", fp8_recipe: tensorwise")" "$k"
        check "run $c, op_sac_recompute_elementwise $k exits 0" \
            '[ $? -eq 0 ] && [ -s "$work/$c-$k/op-sac-ew.csv" ]'
    done
    for p in tp8 fsdp; do
        check "$c $p (selective): slower with the key ($(step_of "$c-true" $p) > $(step_of "$c-false" $p))" \
            'gt "$(step_of "$c-true" $p)" "$(step_of "$c-false" $p)"'
    done
    for p in none full; do
        check "$c $p: the key changes nothing ($(step_of "$c-true" $p) = $(step_of "$c-false" $p))" \
            '[ -n "$(step_of "$c-true" $p)" ] && [ "$(step_of "$c-true" $p)" = "$(step_of "$c-false" $p)" ]'
    done
done

run_scenario tb-true textbook bf16 "" true
run_scenario tb-false textbook bf16 "" false
check "fidelity: textbook with op_sac_recompute_elementwise is byte-identical to without it" \
    'cmp -s "$work/tb-true/op-sac-ew.csv" "$work/tb-false/op-sac-ew.csv"'

"$planeval" explain "$work/fp8-true.yaml" --plan tp8 >"$work/fp8.txt" 2>&1
check "explain fp8 tensorwise: F39 with the amax read kept (5 − 2)/5" \
    'grep -q "^F39 " "$work/fp8.txt" && grep -A1 "^F39 " "$work/fp8.txt" | grep -q "·(5 − 2)/5"'
# redo F39: (e_f − e_att) + cast_f·(c − a)/c against the result line
redo() {
    awk '$1 == "F39" { on = 1; next }
        on && !have && /^ *= \(/ { line = $0; gsub(/[=()·\/+−]/, " ", line); split(line, v, " ")
                                   want = (v[1] - v[2]) + v[3] * (v[4] - v[5]) / v[6]; have = 1; next }
        on && have && /^ *= [0-9.e+-]+ s/ { printf "%.6g %.6g\n", want, $2; exit }' "$1"
}
check "explain fp8: F39's time per layer is its arithmetic ($(redo "$work/fp8.txt"))" \
    '[ -n "$(redo "$work/fp8.txt")" ] &&
     redo "$work/fp8.txt" | awk "{ d = \$1 - \$2; exit !(\$2 > 0 && (d < 0 ? -d : d) <= 1e-5 * \$2) }"'
"$planeval" explain "$work/bf16-false.yaml" --plan tp8 >"$work/off.txt" 2>&1
check "explain with the key off: F25's line, no F39" \
    'grep -q "^F25 " "$work/off.txt" && ! grep -q "^F39 " "$work/off.txt"'

check "both torchtitan presets set op_sac_recompute_elementwise: true" \
    '[ "$(grep -c "^    op_sac_recompute_elementwise: true" "$src/scenarios/catalog/frameworks.yaml")" -eq 2 ]'
finish
