#!/usr/bin/env bash
# test_memory_overhead_presets.sh PLANEVAL SOURCE_DIR WORKDIR — memory overheads
# through the loader (docs/model.md §3 A25, §12 A26): the megatron-core and
# nemo presets keep the unfused MoE dispatcher's saved indices and probs
# (A25, explain shows it); nccl_channels puts NCCL's buffers in
# mem_total_gib and not in mem_reserved_gib (A26, explain shows the sets),
# and the presets leave it at 0 (no library counter sees these buffers).
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
col() { csv_column "$1" "$2" | head -1; }

# A25 under the nemo preset: the explain of Mixtral 8x22B's plan has its line
f=$pub/nemo-2502-mixtral-8x22b-b200-256gpu.yaml
plan=$(grep -o 'name: [A-Za-z0-9_.-]*' "$f" | sed -n 2p | cut -d' ' -f2)
"$planeval" explain "$f" --plan "$plan" >"$work/a25.out" 2>&1
check "nemo Mixtral 8x22B: explain shows A25 (plan $plan)" 'grep -q "^A25 " "$work/a25.out"'
check "nemo Mixtral 8x22B: A25 is 20 bytes a token copy" 'grep -q "sorted_indices 8 + flat_sorted 8 + probs 4" "$work/a25.out"'

# A26 through the loader: Llama 3.1 70B on fsdp 32 x tp 8 (torchtitan), 32 channels
m=$src/scenarios/memory/torchtitan-2412-t4-70b-fsdp32-tp8.yaml
sed 's/^framework: torchtitan .*/framework: { preset: torchtitan, nccl_channels: 32 }/' "$m" >"$work/t4-nccl.yaml"
check "the A26 copy names nccl_channels" 'grep -q "nccl_channels: 32" "$work/t4-nccl.yaml"'
"$planeval" run -o "$work/off" "$m" >/dev/null 2>&1
"$planeval" run -o "$work/on" "$work/t4-nccl.yaml" >/dev/null 2>&1
off=$work/off/$(basename "$m" .yaml).csv
on=$work/on/t4-nccl.csv
[ -f "$on" ] || on=$(ls "$work"/on/*.csv | head -1)
check "A26: mem_reserved_gib unchanged ($(col "$off" mem_reserved_gib) / $(col "$on" mem_reserved_gib))" \
    '[ "$(col "$off" mem_reserved_gib)" = "$(col "$on" mem_reserved_gib)" ]'
check "A26: mem_total_gib + 32·10 MiB·(3 + 3) = 1.875 GiB ($(col "$off" mem_total_gib) -> $(col "$on" mem_total_gib))" \
    'awk -v a="$(col "$off" mem_total_gib)" -v b="$(col "$on" mem_total_gib)" "BEGIN { d = b - a - 1.875; exit !(d < 1e-9 && d > -1e-9) }"'
plan=$(grep -o 'name: [A-Za-z0-9_.-]*' "$m" | sed -n 2p | cut -d' ' -f2)
"$planeval" explain "$work/t4-nccl.yaml" --plan "$plan" >"$work/a26.out" 2>&1
check "A26: explain gives the channels and the sets" \
    'grep -q "32 channels·1.04858e+07·(sets(tp 8) 3 + sets(cp 1) 0 + sets(dp 32) 3" "$work/a26.out"'
"$planeval" explain "$m" --plan "$plan" >"$work/a26-off.out" 2>&1
check "A26: no preset sets nccl_channels (no A26 line without the key)" \
    '! grep -q "^A26 " "$work/a26-off.out" && grep -q "^M13 " "$work/a26-off.out"'
# M22: the fsdp preset's unsharded gradient in bf16 (unsharded_grad_bytes 2):
# Llama 3 8B, 8 GPUs, zero 3, t 1: X = V·h = 525,336,576, M4 = 8·X =
# 4,202,692,608, W_b = 6·X = 3,152,019,456; no M22 line at the neutral 0
cat >"$work/fsdp1.yaml" <<YAML
schema: planeval/v1
name: fsdp1
fidelity: refined
model: { preset: llama3-8b, seq_len: 2048 }
precision: { grad_bytes: 4 }
cluster: { preset: a100-node, nodes: 1 }
framework: fsdp
training: { global_batch: 16 }
plans:
  - { name: z3, dp: 8, zero: 3, micro_batch: 2, recompute: full }
YAML
"$planeval" explain "$work/fsdp1.yaml" --plan z3 >"$work/m22.out" 2>&1
check "M22: explain gives W_b with the bf16 unsharded gradient" \
    'grep -A1 "^M22 " "$work/m22.out" | grep -q "4.20269e+09·(2·2 + 2)/(2·2 + 4)" && grep -A2 "^M22 " "$work/m22.out" | grep -q "= 3.15202e+09 bytes"'
sed 's/^framework: fsdp$/framework: { preset: fsdp, unsharded_grad_bytes: 0 }/' "$work/fsdp1.yaml" >"$work/fsdp1-0.yaml"
"$planeval" explain "$work/fsdp1-0.yaml" --plan z3 >"$work/m22-0.out" 2>&1
check "M22: no line at unsharded_grad_bytes 0 (β_g)" \
    '! grep -q "^M22 " "$work/m22-0.out" && grep -q "backward W_b = 4.20269e+09 bytes" "$work/m22-0.out"'
finish
