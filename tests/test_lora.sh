#!/usr/bin/env bash
# test_lora.sh PLANEVAL SOURCE_DIR WORKDIR — training.finetune: lora
# (docs/model.md §3 M15–M17, A27): the hand-worked scenarios of tests/lora/
# pass `planeval check` (Llama 2 7B QLoRA on one A100, LLaMA 65B QLoRA under
# 48 GiB, the 7B full fine-tune over 80 GiB); `planeval memory` takes the
# fine-tune keys and gives the scenario's numbers; explain prints M15–M17
# and A27 with their numbers, A27's substitution evaluating to its value;
# a LoRA run moves DP gradient traffic to the adapters alone; and the LoRA
# keys without finetune: lora are refused.
. "$(dirname "$0")/testlib.sh"

for f in "$src"/tests/lora/*.yaml; do
    check "$(basename "$f"): planeval check passes" '"$planeval" check "$f" >"$work/check.out" 2>&1'
done

# the calculator and the scenario agree on the 7B QLoRA plan
"$planeval" run --quiet --html -o "$work/q7" "$src/tests/lora/llama2-7b-qlora-a100.yaml"
check "the summary and the page name the fine-tune" \
    'grep -q "^fact: finetune,\"lora: rank 64 on all-linear, dropout 0.1, base weights nf4\"" "$work/q7/llama2-7b-qlora-a100.summary.csv" && grep -q "base weights nf4" "$work/q7/llama2-7b-qlora-a100.html"'
"$planeval" run --quiet -o "$work/full" "$src/tests/lora/llama2-7b-full-a100.yaml"
check "a full fine-tune's summary has no finetune fact" '! grep -q "^fact: finetune" "$work/full/llama2-7b-full-a100.summary.csv"'
scenario_total=$(csv_column "$work/q7/llama2-7b-qlora-a100.csv" mem_total_gib)
calc=$("$planeval" memory --model llama2-7b --seq-len 512 --cluster a100-node --gpus-per-node 1 \
    --finetune lora --lora-rank 64 --lora-targets all-linear --lora-dropout 0.1 \
    --base-quant nf4 --optimizer-bytes 8 --global-batch 16 --micro-batch 1)
calc_total=$(awk '$1 == "total" { print $2 }' <<<"$calc")
check "planeval memory --finetune lora gives the scenario's total ($calc_total vs $scenario_total)" \
    'awk -v a="$calc_total" -v b="$scenario_total" "BEGIN { d = a - b; exit !(d < 0.0005 && d > -0.0005) }"'
full_calc=$("$planeval" memory --model llama2-7b --seq-len 512 --cluster a100-node \
    --gpus-per-node 1 --global-batch 16 --micro-batch 1 | awk '$1 == "total" { print $2 }')
check "the calculator's full fine-tune ($full_calc GiB) is over 80 GiB and above LoRA's" \
    'awk -v f="$full_calc" -v l="$calc_total" "BEGIN { exit !(f > 80 && f > l) }"'

# explain: the four lines with their numbers
ex=$("$planeval" explain "$src/tests/lora/llama2-7b-qlora-a100.yaml" --plan qlora)
for id in M15 M16 M17 A27; do
    check "explain prints $id" 'grep -q "^$id " <<<"$ex"'
done
check "explain's M15 takes β_q = 0.515869140625 (NF4 + double quantisation)" \
    'grep -A1 "^M15 " <<<"$ex" | grep -q "0.515869140625·6.47601e+09"'
check "explain's M16 is 64·(28672 + 49408/1) = 4.99712e+06" \
    'grep -A2 "^M16 " <<<"$ex" | grep -q "4.99712e+06 parameters"'
a27=$(grep -A2 "^A27 " <<<"$ex")
expr=$(sed -n 2p <<<"$a27" | sed -E 's/^ *= //; s/  \(.*//; s/·/*/g')
value=$(sed -n 3p <<<"$a27" | awk '{ print $2 }')
check "A27's substitution $expr = $((expr)) is its printed value $value" '[ "$((expr))" = "$value" ]'
check "explain prints F37 with the adapters' 5.11705e+09 FLOP and nf4's 5.09149e+08 dequantised bytes" \
    'grep -A4 "^F37 " <<<"$ex" | grep -q "= 5.11705e+09 FLOP a layer" && grep -A4 "^F37 " <<<"$ex" | grep -q "dequantisation 5.09149e+08 B"'

# DP gradients of the adapters alone: 8-way DP of the 7B LoRA exposes less
# gradient communication than the full fine-tune of the same plan
cat >"$work/dp.yaml" <<YAML
schema: planeval/v1
name: dp
model: { preset: llama2-7b, seq_len: 4096 }
cluster: { preset: a100-node, nodes: 1 }
training: { global_batch: 64 FINETUNE }
plans:
  - { name: dp8, dp: 8, micro_batch: 1, zero: 1, overlap: { dp: 0 } }
YAML
sed 's/ FINETUNE/, finetune: lora, lora_rank: 16/' "$work/dp.yaml" >"$work/dp-lora.yaml"
sed 's/ FINETUNE//' "$work/dp.yaml" >"$work/dp-full.yaml"
"$planeval" run --quiet -o "$work/dl" "$work/dp-lora.yaml"
"$planeval" run --quiet -o "$work/df" "$work/dp-full.yaml"
dl=$(csv_column "$work/dl/dp.csv" dp_comm_s) df=$(csv_column "$work/df/dp.csv" dp_comm_s)
check "LoRA's DP communication ($dl s) is below the full fine-tune's ($df s)" \
    'awk -v l="$dl" -v f="$df" "BEGIN { exit !(l != \"\" && f > 0 && l < f / 10) }"'
# F37: the same plan's compute without the frozen base's weight gradients
cl=$(csv_column "$work/dl/dp.csv" compute_s) cf=$(csv_column "$work/df/dp.csv" compute_s)
check "LoRA's compute ($cl s) is below the full fine-tune's ($cf s) (F37)" \
    'awk -v l="$cl" -v f="$cf" "BEGIN { exit !(l != \"\" && f > 0 && l < f * 0.8) }"'

# refused: an adapter key without finetune: lora
sed 's/ FINETUNE/, lora_rank: 16/' "$work/dp.yaml" >"$work/bad.yaml"
check "lora_rank without finetune: lora is refused (exit 2)" \
    '"$planeval" validate "$work/bad.yaml" 2>"$work/bad.err"; [ $? -eq 2 ] && grep -q "training.lora_rank needs training.finetune: lora" "$work/bad.err"'

# A32: LoRA under torchtitan's op-level SAC saves the adapters' mm outputs:
# Llama 3 8B r 8 all-linear, s 8192, b 1, t 1, compiled: 38,912 split +
# 48 whole bytes a token, A15's layer 8192·94,384 = 773,193,728 bytes
cat >"$work/sac.yaml" <<YAML
schema: planeval/v1
name: sac
fidelity: refined
model: { preset: llama3-8b, seq_len: 8192 }
precision: { grad_bytes: 4 }
cluster: { preset: h100-node, nodes: 1 }
framework: torchtitan
training: { global_batch: 64, finetune: lora, lora_rank: 8, lora_targets: all-linear }
plans:
  - { name: op, dp: 8, zero: 3, micro_batch: 1, recompute: selective }
YAML
"$planeval" explain "$work/sac.yaml" --plan op >"$work/sac.out" 2>&1
check "explain: A32 with its whole and split bytes" \
    'grep -A1 "^A32 " "$work/sac.out" | grep -q "whole 48 + split 38912/1" && grep -A2 "^A32 " "$work/sac.out" | grep -q "= 38960 bytes/token"'
check "explain: A15's layer with A32, 773,193,728 bytes" \
    'grep -A2 "^A15 " "$work/sac.out" | grep -q "8192·1·\[8192 + 48 + 86144/1\]" && grep -A2 "^A15 " "$work/sac.out" | grep -q "= 7.73194e+08 bytes"'

finish
