#!/usr/bin/env bash
# test_attention_kernel.sh PLANEVAL SOURCE_DIR WORKDIR — framework.attention_kernel
# (docs/model.md §12 F30): the torchtitan presets run FlashAttention-2, and
# on an H100 F22 takes that kernel's measured e_att and s_half (explain's
# F30 line names the kernel and the keys, F22 substitutes them); on a GPU
# without the kernel's numbers (the A100) explain says so and the GPU's own
# e_att stays; a stack naming no kernel prints no F30 line and keeps the
# GPU's e_att; the kernel numbers are the data's (tests/derive_presets.py
# fails on a preset number that differs from attention.csv's fit).
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
explain() { # explain FILE -> $work/NAME.txt (the plan is named as the file)
    local name
    name=$(basename "$1" .yaml)
    "$planeval" explain "$1" --plan "$name" >"$work/$name.txt" 2>&1
}
tt=torchtitan-2412-t2-llama3-8b-8gpu-cp1-32k
explain "$pub/$tt.yaml"; rc=$?
check "explain $tt exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "F30 names FlashAttention-2 measured on the H100 with its numbers" \
    'grep -q "^       = flash-attention-2 measured on this GPU: e_att 0.2969 (attention_fa2_efficiency), s_half 233 (attention_fa2_half_seq)" "$work/$tt.txt"'
check "F22 substitutes the kernel's e_att and s_half (causal, s' 32768)" \
    'grep -q "^       = 0.2969·1·16384/(16384 + 233)·32768/(32768 + 128)" "$work/$tt.txt"'

a100=torchtitan-2404-llama2-13b-64gpu-a100-sac-op
explain "$pub/$a100.yaml"
check "on the A100 (no FlashAttention-2 numbers) F30 says so and keeps the GPU's e_att" \
    'grep -q "^       = flash-attention-2 not measured on this GPU (no attention_fa2_efficiency): the GPU.s own e_att" "$work/$a100.txt"'

nemo=nemo-2403-llama2-7b-h100-1024k-1024gpu
explain "$pub/$nemo.yaml"
check "a stack naming no kernel prints no F30 line" '! grep -q "^F30 " "$work/$nemo.txt"'
check "and F22 keeps the GPU's e_att 0.53 and s_half 370" \
    'grep -q "^       = 0.53·1·[0-9]*/([0-9]* + 370)" "$work/$nemo.txt"'

# the kernel numbers against the data: a changed preset number fails
mkdir -p "$work/src/scenarios"
cp -r "$src/scenarios/measurements" "$src/scenarios/catalog" "$src/scenarios/calibration" \
    "$work/src/scenarios/"
mkdir -p "$work/src/src/model" && cp "$src/src/model/compute.c" "$work/src/src/model/"
python3 "$src/tests/derive_presets.py" "$work/src" >"$work/derive.out" 2>&1; rc=$?
check "derive_presets: every F30 kernel number is the data's (rc $rc)" \
    '[ $rc -eq 0 ] && grep -q "^ok   h100-sxm.attention_fa2_efficiency " "$work/derive.out"'
sed -i 's/^    attention_fa2_efficiency: 0.2969$/    attention_fa2_efficiency: 0.35/' \
    "$work/src/scenarios/catalog/gpus.yaml"
python3 "$src/tests/derive_presets.py" "$work/src" >"$work/derive2.out" 2>&1; rc=$?
check "derive_presets fails when a kernel number differs from the data (rc $rc)" \
    '[ $rc -ne 0 ] && grep -q "^FAIL h100-sxm.attention_fa2_efficiency " "$work/derive2.out"'
finish
