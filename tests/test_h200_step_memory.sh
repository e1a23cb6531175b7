#!/usr/bin/env bash
# test_h200_step_memory.sh — torchtitan's H200 float8 step-time runs
# (scenarios/published/torchtitan-2506h200-*: benchmarks/
# llama3-8b_h200_202506_trainy-whitefiber.md, torchtitan e7c0cae) hold the
# memory of that version: the compiled loss and fused AdamW of the
# torchtitan-2506 preset (loss_bytes 4, optimizer_temp_bytes 0), not the
# 2024-12 preset's eager loss and foreach AdamW — the same mem_reserved_gib
# as the file under `framework: torchtitan-2506` — while the file stays in
# torchtitan's one source and F26 fit (its framework preset is torchtitan)
# and its step time is the same under either. The files describe their
# command line whole: its three float8 flags, and tensorwise as what
# torchtitan e7c0cae builds without a recipe_name.
#
#   bash tests/test_h200_step_memory.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

for n in 32 64; do
    stem=torchtitan-2506h200-llama3-8b-${n}gpu-float8
    step=$src/scenarios/published/$stem.yaml
    mkdir -p "$work/as2506"
    sed 's/^framework: .*/framework: torchtitan-2506/' "$step" >"$work/as2506/$stem.yaml"
    "$planeval" run "$step" -o "$work/step" --quiet >/dev/null 2>&1
    "$planeval" run "$work/as2506/$stem.yaml" -o "$work/p2506" --quiet >/dev/null 2>&1
    a=$(csv_column "$work/step/$stem.csv" mem_reserved_gib)
    b=$(csv_column "$work/p2506/$stem.csv" mem_reserved_gib)
    check "H200 ${n} GPUs: mem_reserved_gib as torchtitan @e7c0cae holds it ($a vs $b)" \
        '[ -n "$a" ] && [ "$a" = "$b" ]'
    ta=$(csv_column "$work/step/$stem.csv" step_time_s)
    tb=$(csv_column "$work/p2506/$stem.csv" step_time_s)
    check "H200 ${n} GPUs: the same step time under either preset ($ta vs $tb)" \
        '[ -n "$ta" ] && [ "$ta" = "$tb" ]'
    check "H200 ${n} GPUs: the file stays in torchtitan's source (framework preset torchtitan)" \
        'grep -q "^framework: { preset: torchtitan," "$step"'
    # the source's command line (cbccb3878) passes three float8 flags and no
    # recipe_name: torchtitan e7c0cae then builds Float8LinearConfig(), tensorwise
    for flag in enable_fsdp_float8_all_gather precompute_float8_dynamic_scale_for_fsdp \
        force_recompute_fp8_weight_in_bwd; do
        check "H200 ${n} GPUs: the file names --float8.$flag of its command line" \
            'grep -q -- "--float8.$flag" "$step"'
    done
    check "H200 ${n} GPUs: tensorwise is the code's consequence, not an assumption" \
        'grep -q "^precision: { compute: fp8, fp8_recipe: tensorwise } .*Float8LinearConfig(), tensorwise" "$step" &&
         ! grep -q "^precision: .*assumed" "$step"'
done
finish
