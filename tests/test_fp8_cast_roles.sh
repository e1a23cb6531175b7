#!/usr/bin/env bash
# test_fp8_cast_roles.sh PLANEVAL SOURCE_DIR WORKDIR — framework
# fp8_cast_by_role (docs/model.md §12 F35, F36): torchao's casts GEMM role
# by role slow a float8 TP step against F24's backward = 2 × forward, rowwise
# more than tensorwise; explain prints F35 and F36 with the numbers the
# evaluator took (its arithmetic redone here); fidelity: textbook ignores
# the key; the torchtitan presets set it.
. "$(dirname "$0")/testlib.sh"

scenario() { # scenario FILE FIDELITY RECIPE BY_ROLE
    cat >"$1" <<YAML
schema: planeval/v1
name: fp8-cast-roles
fidelity: $2
model: { preset: llama3-8b, seq_len: 8192 }
precision: { compute: fp8, fp8_recipe: $3 }
cluster: { preset: h100-node, nodes: 8 }
framework: { preset: torchtitan, fp8_cast_by_role: $4 }
training: { global_batch: 64 }
plans:
  - { name: tp8, dp: 8, tp: 8, micro_batch: 8, sequence_parallel: true, zero: 3, recompute: selective }
  - { name: fsdp, dp: 64, micro_batch: 1, zero: 3, recompute: selective }
YAML
}
step() { csv_column "$work/$1/fp8-cast-roles.csv" step_time_s | sed -n "${2}p"; }
for r in tensorwise rowwise; do
    for k in true false; do
        run_scenario "$r-$k" refined "$r" "$k"
        check "run $r, fp8_cast_by_role $k exits 0" '[ $? -eq 0 ] && [ -s "$work/$r-$k/fp8-cast-roles.csv" ]'
    done
    for i in 1 2; do
        check "$r plan $i: the casts role by role take longer ($(step "$r-true" $i) > $(step "$r-false" $i))" \
            'gt "$(step "$r-true" $i)" "$(step "$r-false" $i)"'
    done
done
check "TP 8: rowwise's casts cost more than tensorwise's (F35's 2c + 2, F36's gathered inputs)" \
    'gt "$(awk -v a="$(step rowwise-true 1)" -v b="$(step rowwise-false 1)" "BEGIN { print a - b }")" \
        "$(awk -v a="$(step tensorwise-true 1)" -v b="$(step tensorwise-false 1)" "BEGIN { print a - b }")"'

run_scenario tb-true textbook rowwise true
run_scenario tb-false textbook rowwise false
check "fidelity: textbook with fp8_cast_by_role is byte-identical to without it" \
    'cmp -s "$work/tb-true/fp8-cast-roles.csv" "$work/tb-false/fp8-cast-roles.csv"'

explain_plan rowwise-true tp8 rowwise
check "explain rowwise: F35 with G at 12 bytes/element and the four sums" \
    'grep -q "^F35 " "$work/rowwise.txt" &&
     grep -q "G: 12 bytes/element (2c + 2.*forward 40960 gathered + 92160 sharded, backward 155648 gathered + 546816 sharded bytes/token" "$work/rowwise.txt"'
check "explain rowwise: F36 casts the gathered inputs whole (share 1)" \
    'grep -q "^F36 " "$work/rowwise.txt" && grep -q "gathered share 1 (bf16 all-gather" "$work/rowwise.txt"'
# redo F35's backward and F36's forward: M·(g·share + s/t)/W against the result line
redo() { # redo FILE ID: the substitution's numbers, then the result that follows it
    awk -v id="$1" '$1 == id { on = 1; next }
        on && /per layer/ { line = $0; sub(/.*per layer /, "", line); gsub(/ \+ /, " ", line); gsub(/[·(\/)]/, " ", line)
                            split(line, v, " "); want = v[1] * (v[2] * v[3] + v[4] / v[5]) / v[6]; next }
        on && /^ *= [0-9.e+-]+ s/ { printf "%.6g %.6g\n", want, $2; exit }' "$2"
}
check "explain rowwise: F35's backward per layer is its arithmetic ($(redo F35 "$work/rowwise.txt"))" \
    'redo F35 "$work/rowwise.txt" | awk "{ d = \$1 - \$2; exit !(\$2 > 0 && (d < 0 ? -d : d) <= 1e-5 * \$2) }"'
check "explain rowwise: F36's forward per layer is its arithmetic ($(redo F36 "$work/rowwise.txt"))" \
    'redo F36 "$work/rowwise.txt" | awk "{ d = \$1 - \$2; exit !(\$2 > 0 && (d < 0 ? -d : d) <= 1e-5 * \$2) }"'
explain_plan tensorwise-true tp8 tensorwise
check "explain tensorwise under X22: the gathered inputs cast on the shard (share 0.125)" \
    'grep -q "gathered share 0.125 (X22: cast before the all-gather)" "$work/tensorwise.txt"'
explain_plan rowwise-false tp8 off
check "explain with the key off: F24's line, no F35" \
    'grep -q "^F24 " "$work/off.txt" && ! grep -q "^F35 " "$work/off.txt"'

check "both torchtitan presets set fp8_cast_by_role: true" \
    '[ "$(grep -c "^    fp8_cast_by_role: true" "$src/scenarios/catalog/frameworks.yaml")" -eq 2 ]'
finish
