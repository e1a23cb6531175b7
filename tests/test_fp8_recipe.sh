#!/usr/bin/env bash
# test_fp8_recipe.sh PLANEVAL SOURCE_DIR WORKDIR — precision.fp8_recipe
# (docs/model.md §12 F24): absent or none changes nothing; each recipe's
# casts slow the FP8 step and a measured rate ratio below 1 slows it more;
# fidelity: textbook ignores the key; explain prints the F24 line with the
# recipe's numbers and basis; the key without compute: fp8 is refused.
. "$(dirname "$0")/testlib.sh"

# one scenario per recipe, the same name so reports compare byte for byte
scenario() { # scenario FILE FIDELITY COMPUTE [RECIPE]
    local key=""
    [ -n "${4:-}" ] && key=", fp8_recipe: $4"
    cat >"$1" <<YAML
schema: planeval/v1
name: fp8-recipe
fidelity: $2
model: { preset: llama3-8b, seq_len: 8192 }
precision: { compute: $3$key }
cluster: { preset: h100-node, nodes: 1 }
training: { global_batch: 32 }
plans:
  - { name: fsdp, dp: 8, micro_batch: 1, zero: 3 }
  - { name: tp2, dp: 4, tp: 2, micro_batch: 1, sequence_parallel: true, zero: 1 }
YAML
}
step() { csv_column "$work/$1/fp8-recipe.csv" step_time_s | sed -n "${2}p"; }
for r in tensorwise rowwise delayed blockwise mxfp8 none; do
    run_scenario "$r" refined fp8 "$r"
    check "run with fp8_recipe: $r exits 0" '[ $? -eq 0 ] && [ -s "$work/$r/fp8-recipe.csv" ]'
done
run_scenario absent refined fp8
run_scenario bf16 refined bf16
check "fp8_recipe: none is byte-identical to no fp8_recipe (F18 alone)" \
    'cmp -s "$work/none/fp8-recipe.csv" "$work/absent/fp8-recipe.csv"'
for row in 1 2; do
    for r in tensorwise rowwise delayed blockwise mxfp8; do
        check "plan $row: $r's casts make the step slower than F18 alone" \
            'gt "$(step "$r" "$row")" "$(step none "$row")"'
    done
    check "plan $row: delayed (3 bytes, amax fused) is faster than tensorwise (5 bytes)" \
        'gt "$(step tensorwise "$row")" "$(step delayed "$row")"'
    check "plan $row: rowwise (r 0.7961) is slower than tensorwise, blockwise (r 0.6006) slower still" \
        'gt "$(step rowwise "$row")" "$(step tensorwise "$row")" &&
         gt "$(step blockwise "$row")" "$(step rowwise "$row")"'
done
check "every report holds the same plans" \
    '[ "$(csv_column "$work/rowwise/fp8-recipe.csv" plan | sort)" = "$(csv_column "$work/none/fp8-recipe.csv" plan | sort)" ]'

# fidelity: textbook ignores the recipe (F24 is a refinement)
run_scenario tb-rowwise textbook fp8 rowwise
run_scenario tb-absent textbook fp8
check "fidelity: textbook with fp8_recipe: rowwise is byte-identical to without it" \
    'cmp -s "$work/tb-rowwise/fp8-recipe.csv" "$work/tb-absent/fp8-recipe.csv"'

# explain: the F24 line with its numbers and basis; none prints none
plan=fsdp
"$planeval" explain "$work/rowwise.yaml" --plan "$plan" >"$work/rowwise.txt" 2>&1
check "explain rowwise: F24 line with r = 0.7961, its measured basis and c = 5" \
    'grep -q "^F24 " "$work/rowwise.txt" &&
     grep -q "fp8_recipe rowwise: r = 0.7961 (measured: pytorch/FBGEMM#2546 .*c = 5 bytes/element" "$work/rowwise.txt"'
check "explain rowwise: 5·(4096 + 4096) bytes/token replicated, 5·(4096 + 14336) sharded" \
    'grep -q "40960 bytes/token replicated, 92160 sharded" "$work/rowwise.txt"'
"$planeval" explain "$work/mxfp8.yaml" --plan "$plan" >"$work/mxfp8.txt" 2>&1
check "explain mxfp8: its GEMM rate named not measured" \
    'grep -q "fp8_recipe mxfp8: r = 1 (not measured" "$work/mxfp8.txt"'
"$planeval" explain "$work/absent.yaml" --plan "$plan" >"$work/absent.txt" 2>&1
check "explain without fp8_recipe: no F24 line" '! grep -q "^F24 " "$work/absent.txt"'

# the key without FP8 GEMMs is bad input
scenario "$work/bad.yaml" refined bf16 rowwise
"$planeval" run --quiet -o "$work/bad" "$work/bad.yaml" 2>"$work/bad.err"
check "fp8_recipe with compute: bf16 exits 2 with a message, no report" \
    '[ $? -eq 2 ] && grep -q "precision.fp8_recipe needs compute: fp8" "$work/bad.err" &&
     [ ! -e "$work/bad/fp8-recipe.csv" ]'
finish
