#!/usr/bin/env bash
# test_deepspeed_memory.sh PLANEVAL SOURCE_DIR WORKDIR — DeepSpeed's ZeRO
# buffers through the loader and the presets (docs/model.md §12 A28, A29,
# M18): Llama 2 7B on 8 GPUs (tests/deepspeed/llama2-7b-zero.yaml,
# N = 6,738,415,616 parameters) under the `deepspeed` preset (DeepSpeed's
# defaults) and `deepspeed-hf` (Hugging Face's "auto" values), the peaks
# against hand arithmetic, explain's lines with their numbers, and the
# sweep of both presets. Columns are found by name.
. "$(dirname "$0")/testlib.sh"

f=$src/tests/deepspeed/llama2-7b-zero.yaml
sed 's/^framework: deepspeed$/framework: deepspeed-hf/; s/^name: llama2-7b-zero$/name: llama2-7b-zero-hf/' \
    "$f" >"$work/hf.yaml"
check "the -hf copy names deepspeed-hf" 'grep -q "^framework: deepspeed-hf$" "$work/hf.yaml"'
"$planeval" run -o "$work/out" "$f" "$work/hf.yaml" >"$work/run.out" 2>&1
ds=$work/out/llama2-7b-zero.csv hf=$work/out/llama2-7b-zero-hf.csv
check "both reports written" '[ -f "$ds" ] && [ -f "$hf" ]'
# cell FILE PLAN COLUMN: the column of the named plan's row
cell() { paste -d'|' <(csv_column "$1" plan) <(csv_column "$1" "$3") | awk -F'|' -v p="$2" '$1 == p { print $2 }'; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b; exit !(d < 1e-9 && d > -1e-9) }'; }
GiB=1073741824
# ZeRO-2: S = 2N + 2N/8 + 12N/8, M18 (4 + 2)·N/8 in the step: 4.5·N = 30,322,870,272 bytes
check "zero 2: peak in the optimizer phase ($(cell "$ds" z2 mem_peak_phase))" '[ "$(cell "$ds" z2 mem_peak_phase)" = optimizer ]'
check "zero 2: mem_peak_gib 4.5·N = 30,322,870,272 bytes ($(cell "$ds" z2 mem_peak_gib))" \
    'near "$(cell "$ds" z2 mem_peak_gib)" "$(awk -v g=$GiB "BEGIN { printf \"%.12g\", 30322870272 / g }")"'
# ZeRO-3: 16N/8 + A28 1e9 + A29' 465,920 + M18 6N/8 = 19,531,108,864 bytes;
# -hf: the bucket h² = 16,777,216 elements, 33,554,432 bytes: 18,564,663,296
check "zero 3, deepspeed: mem_peak_gib 19,531,108,864 bytes ($(cell "$ds" z3 mem_peak_gib))" \
    'near "$(cell "$ds" z3 mem_peak_gib)" "$(awk -v g=$GiB "BEGIN { printf \"%.12g\", 19531108864 / g }")"'
check "zero 3, deepspeed-hf: mem_peak_gib 18,564,663,296 bytes ($(cell "$hf" z3 mem_peak_gib))" \
    'near "$(cell "$hf" z3 mem_peak_gib)" "$(awk -v g=$GiB "BEGIN { printf \"%.12g\", 18564663296 / g }")"'
check "zero 1, 2: the presets agree (the step's peak has no bucket) " \
    '[ "$(cell "$ds" z2 mem_peak_gib)" = "$(cell "$hf" z2 mem_peak_gib)" ] && [ "$(cell "$ds" z1 mem_peak_gib)" = "$(cell "$hf" z1 mem_peak_gib)" ]'
check "step time does not move with the memory keys" \
    '[ "$(cell "$ds" z3 step_time_s)" = "$(cell "$hf" z3 step_time_s)" ]'
"$planeval" explain "$f" --plan z3 >"$work/z3.out" 2>&1
"$planeval" explain "$work/hf.yaml" --plan z3 >"$work/z3hf.out" 2>&1
"$planeval" explain "$f" --plan z2 >"$work/z2.out" 2>&1
check "explain z3: A28 with DeepSpeed's 5e8" 'grep -q "\[contiguous_gradients true\]·5e+08·2·1 (zero 3: every phase)" "$work/z3.out"'
check "explain z3 -hf: A28 with h² resolved" 'grep -q "\[contiguous_gradients true\]·1.67772e+07·2·1" "$work/z3hf.out"'
check "explain z3: A29's G and K" 'grep -q "G = 1.81072e+08; R 1e+09: K = min(R/2, N_gpu 6.73842e+09) = 5e+08 elements" "$work/z3.out"'
check "explain z3 -hf: A29's prefetch 0.9·h²" 'grep -q "P 1.50995e+07" "$work/z3hf.out"'
check "explain z3: A29' persistent parameters" 'grep -q "^A29'"'"' " "$work/z3.out" && grep -q "= 465920 bytes" "$work/z3.out"'
check "explain z2: M18 6·N/8" 'grep -q "^M18 " "$work/z2.out" && grep -q "= 5.05381e+09 bytes" "$work/z2.out"'
check "explain z2: no A29 below zero 3" '! grep -q "^A29 " "$work/z2.out"'
# the presets in a sweep: one design per preset, both through the loader
cat >"$work/sweep.yaml" <<'YAML'
schema: planeval/v1
name: ds-sweep
fidelity: refined
model: { preset: llama2-7b }
cluster: { preset: a100-node, nodes: 1 }
training: { global_batch: 64 }
sweep: { framework: [deepspeed, deepspeed-hf], dp: 8, zero: [3], recompute: [full] }
YAML
"$planeval" run -o "$work/sw" "$work/sweep.yaml" >"$work/sw.out" 2>&1
check "a sweep over both presets runs ($(tail -1 "$work/sw.out"))" '[ -f "$work/sw/ds-sweep.csv" ]'
# QLoRA (nf4) under ZeRO-3: DeepSpeed gathers the quantised storage (PEFT's
# QLoRA + ZeRO3 recipe: bnb_4bit_quant_storage = the model dtype), whose
# elements it counts, a packed weight 2113/8192 of one: with R = 1e11 the
# kept K is the stage's N_s = 6,738,415,616 − (6079/8192)·6,476,005,376 =
# 1,932,795,904 storage elements, not N_gpu; backward 2·(G + K) =
# 2·(181,072,000 + 1,932,795,904) = 4,227,735,808 bytes (was 1.3839e+10)
cat >"$work/qlora-z3.yaml" <<'YAML'
schema: planeval/v1
name: llama2-7b-qlora-zero3
fidelity: refined
model: { preset: llama2-7b }
cluster: { preset: a100-node, nodes: 1 }
training: { global_batch: 64, finetune: lora, lora_rank: 64, base_quant: nf4 }
framework: { preset: deepspeed, stage3_max_reuse_distance: 1e11 }
plans:
  - { name: z3, dp: 8, zero: 3, micro_batch: 1, recompute: full }
YAML
"$planeval" explain "$work/qlora-z3.yaml" --plan z3 >"$work/qz3.out" 2>&1
check "explain QLoRA z3: A29's K over the quantised storage elements" \
    'grep -q "K = min(R/2, N_s = 6.73842e+09 − (1 − 0.515869/2)·6.47601e+09 = 1.9328e+09) = 1.9328e+09 storage elements" "$work/qz3.out"'
check "explain QLoRA z3: X4 all-gathers the storage, 2·N_s = 3,865,591,808 bytes" \
    'grep -A2 "^X4   S_g" "$work/qz3.out" | grep -q "= 2·1.59908e+08, 2·1.9328e+09  (lora" && grep -A2 "^X4   S_g" "$work/qz3.out" | grep -q "= 3.19816e+08 bytes, 3.86559e+09 bytes"'
check "explain QLoRA z3: A29's backward 2·(G + K) = 4,227,735,808 bytes" \
    'grep -q "forward 3.62144e+08, backward 4.22774e+09, loss 4.22774e+09 bytes" "$work/qz3.out"'
# ZeRO-Offload (M20, M21): the same plans with offload_optimizer on a GPU with a
# host link. zero 2: S = 2N (M2, M3 on the host), backward + A28 2e9 + the
# staging buffer 2·V·h = 262,144,000 + the fp32 slice 4·V·h = 524,288,000;
# the host per GPU (12 + 4)·N/8 + 2·V·h + 2·N/8 (m 8 > 1) = 15,423,579,136
# bytes, a node 8 of them = 114.915 GiB
sed 's/^name: llama2-7b-zero$/name: llama2-7b-zero-offload/; s/recompute: full }/recompute: full, offload_optimizer: true }/' \
    "$f" >"$work/off.yaml"
"$planeval" run -o "$work/offout" "$work/off.yaml" >"$work/off.out" 2>&1
off=$work/offout/llama2-7b-zero-offload.csv
check "offload: report written" '[ -f "$off" ]'
check "offload zero 2: no gradient or optimizer state on the GPU" \
    '[ "$(cell "$off" z2 mem_grads_gib)" = 0 ] && [ "$(cell "$off" z2 mem_optimizer_gib)" = 0 ]'
check "offload never raises the peak (zero 1, 2, 3)" \
    'for z in z1 z2 z3; do awk -v a="$(cell "$off" $z mem_peak_gib)" -v b="$(cell "$ds" $z mem_peak_gib)" "BEGIN { exit !(a <= b) }" || exit 1; done'
"$planeval" explain "$work/off.yaml" --plan z2 >"$work/offz2.out" 2>&1
"$planeval" explain "$work/off.yaml" --plan z3 >"$work/offz3.out" 2>&1
check "explain offload z2: M20's staging buffer and fp32 slice" \
    'grep -q "^M20 " "$work/offz2.out" && grep -q "every phase 2·n_max = 2.62144e+08, backward + 4·min(n_max, N_t/D) = 5.24288e+08" "$work/offz2.out"'
check "explain offload z2: M18 0 (the host's fp32 gradient)" \
    'grep -A1 "^M18 " "$work/offz2.out" | grep -q "0 (offload_optimizer"'
check "explain offload z2: M21 15,423,579,136 bytes a GPU, 114.915 GiB a node" \
    'grep -A2 "^M21 " "$work/offz2.out" | grep -q "= 1.54236e+10 bytes" && grep -q "M8 host memory per node = 114.915 GiB" "$work/offz2.out"'
check "explain offload z3: M20's backward (2·5e8 + 4·V·h)/8 = 190,536,000" \
    'grep -A2 "^M20 " "$work/offz3.out" | grep -q "= 1.90536e+08 bytes"'
finish
