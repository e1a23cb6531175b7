#!/usr/bin/env bash
# test_te_saved_tensors.sh PLANEVAL SOURCE_DIR WORKDIR — Transformer Engine's
# saved tensors beyond A1–A3 through the loader (docs/model.md §12 A30, A31):
# framework te_saved_tensors adds the norms' fp32 statistics (A30) and the
# fused attention's softmax statistics and, under FP8, its bf16 output
# (A31) to NeMo's GPT-3 175B FP8 run, by the hand figures below; explain
# shows both; selective recompute drops A31; no preset sets the key; and
# the loader refuses it beside megatron_legacy_model (A17).
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
col() { csv_column "$1" "$2" | head -1; }
f=$pub/nemo-2407-gpt3-175b-128gpu.yaml
plan=nemo-2407-gpt3-175b-128gpu
sed 's/^framework: nemo .*/framework: { preset: nemo, te_saved_tensors: true }/' "$f" >"$work/on.yaml"
check "the copy names te_saved_tensors" 'grep -q "te_saved_tensors: true" "$work/on.yaml"'
explain_file "$work/on.yaml" "$plan" on
explain_file "$f" "$plan" off
# A30 LayerNorm: 2·(mu 4 + rsigma 4) = 16; A31 fused fp8: 4·96 + 2·12,288 = 24,960
check "explain: A30 is 2 norms·8 = 16 bytes a token" \
    'grep -A2 "^A30 " "$work/on.txt" | grep -q "= 16 bytes/token"'
check "explain: A31 is 4·96 + 2·12288 = 24960 bytes a token" \
    'grep -A2 "^A31 " "$work/on.txt" | grep -q "= 24960 bytes/token"'
# A4 on tp 4 with sp: 2048·[(98,320 + 233,472)/4 + 24,960/4] = 2048·89,188 = 182,657,024
check "explain: A4 carries A30 in rep and A31 in att" \
    'grep -q "2048·1·\[(98320 + 233472)/4 + 24960/4\]" "$work/on.txt" && grep -q "= 1.82657e+08 bytes" "$work/on.txt"'
check "the nemo preset leaves it off (no A30 line, A4 as before)" \
    '! grep -q "^A30 " "$work/off.txt" && grep -q "2048·1·\[(98304 + 233472)/4 + 0/4\]" "$work/off.txt"'
# the peak: stage 0 holds 12 layers for 8 + 7/6 micro-batches (interleaved, v 6):
# (182,657,024 − 169,869,312)·12·55/6 = 1,406,648,320 bytes = 1.310037 GiB more
"$planeval" run -o "$work/off" "$f" >/dev/null 2>&1
"$planeval" run -o "$work/onrun" "$work/on.yaml" >/dev/null 2>&1
off=$work/off/$(basename "$f" .yaml).csv
on=$(ls "$work"/onrun/*.csv 2>/dev/null | grep -v summary | head -1)
check "mem_peak_gib rises by 1.310 GiB ($(col "$off" mem_peak_gib) -> $(col "${on:-/dev/null}" mem_peak_gib))" \
    'awk -v a="$(col "$off" mem_peak_gib)" -v b="$(col "$on" mem_peak_gib)" "BEGIN { d = b - a - 1.310037; exit !(a > 0 && d < 1e-3 && d > -1e-3) }"'
# selective recompute: Megatron rebuilds core attention in backward, A31 is 0
sed 's/micro_batch: 1,/micro_batch: 1, recompute: selective,/' "$work/on.yaml" >"$work/sel.yaml"
explain_file "$work/sel.yaml" "$plan" sel
check "selective: A31 is 0 (core attention rebuilt), A30 stays 16" \
    'grep -A2 "^A31 " "$work/sel.txt" | grep -q "= 0 bytes/token" && grep -A2 "^A30 " "$work/sel.txt" | grep -q "= 16 bytes/token"'
# RMSNorm (Llama 2 7B, NeMo 24.03): rsigma only, 2·4 = 8
l=$pub/nemo-2403-llama2-7b-h100-8k-8gpu.yaml
lp=$(grep -o 'name: [A-Za-z0-9_.-]*' "$l" | sed -n 2p | cut -d' ' -f2)
sed 's/^framework: nemo /framework: { preset: nemo, te_saved_tensors: true } /' "$l" >"$work/llama.yaml"
explain_file "$work/llama.yaml" "$lp" llama
check "RMSNorm: A30 is 2 norms·4 = 8 bytes a token" \
    'grep -A2 "^A30 " "$work/llama.txt" | grep -q "= 8 bytes/token"'
# not beside the legacy model: Megatron-LM#482's runs did not run TE's layers
m=$src/scenarios/memory/megatron-pr482-llama2-7b-dp1-tp8-pp1-mbs4.yaml
sed 's/megatron_legacy_model: true/megatron_legacy_model: true, te_saved_tensors: true/' "$m" >"$work/legacy.yaml"
"$planeval" run -o "$work/legacy" "$work/legacy.yaml" >"$work/legacy.out" 2>&1; rc=$?
check "te_saved_tensors with megatron_legacy_model is refused (rc $rc)" \
    '[ $rc -ne 0 ] && grep -q "te_saved_tensors: true and megatron_legacy_model: true cannot both hold" "$work/legacy.out"'
finish
