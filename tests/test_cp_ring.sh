#!/usr/bin/env bash
# test_cp_ring.sh — the CP ring step by step (framework cp_ring_per_step,
# docs/model.md §12 X23; Transformer Engine's AttnFuncWithCPAndKVP2P): the
# nemo and megatron presets set it; explain prints X23's step comparison in
# place of X2's ring-wide one (Mixtral 8x22B on DGX B200: the CP ring crosses
# InfiniBand and each 16.8 MB K/V transfer, 0.356 ms, is shorter than one
# ring step's attention, 0.479 ms: hidden); and a ring whose transfers are
# longer than a step (Llama 3 8B at 8K tokens, cp 16 over two DGX B200s)
# exposes more with the key on than X2 did with it off.
#
#   bash tests/test_cp_ring.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
f=$pub/nemo-2502-mixtral-8x22b-b200-256gpu.yaml
"$planeval" explain "$f" --plan nemo-2502-mixtral-8x22b-b200-256gpu >"$work/explain.out" 2>&1
check "explain prints X23's forward and backward lines, not X2's" \
    'grep -q "^X23  χ_cp,f" "$work/explain.out" && grep -q "^X23  χ_cp,b" "$work/explain.out" &&
     ! grep -q "^X2   χ_cp,f" "$work/explain.out"'
# S_kv = 2·1·8192·2·8·128/2 = 16,777,216 bytes; T_p2p = 5e-6 + S/47.75e9 =
# 3.56355e-4 s; τ_att = 8192·1.61061e9/2/(2250e12·0.7645) = 3.83523e-3 s,
# τ_att/c = 3.83523e-3/8 = 4.79403e-4 s: hidden
check "explain compares one transfer with one ring step's attention (0.000356355 against 0.000479403 s: hidden)" \
    'grep -q "T_p2p = 0.000356355 s against one step.s attention overlap.cp·τ_att/c = 1·0.00383523/8 = 0.000479403 s .*: hidden" "$work/explain.out"'

cat >"$work/ring.yaml" <<'YAML'
schema: planeval/v1
name: ring-on
fidelity: refined
model: { preset: llama3-8b, seq_len: 8192 }
precision: { compute: fp8 }
cluster: { preset: b200-node, nodes: 2 }
framework: { preset: nemo, overlap: { tp: 0 } }
training: { global_batch: 16 }
plans:
  - { name: cp16, dp: 1, tp: 1, pp: 1, cp: 16, zero: 1, micro_batch: 1 }
YAML
sed -e 's/^name: ring-on/name: ring-off/' \
    -e 's/preset: nemo, overlap/preset: nemo, cp_ring_per_step: false, overlap/' "$work/ring.yaml" >"$work/ring-off.yaml"
run_both "both runs run" "$work/ring.yaml" "$work/ring-off.yaml"
on=$(csv_column "$work/out/ring-on.csv" cp_comm_s)
off=$(csv_column "$work/out/ring-off.csv" cp_comm_s)
check "transfers longer than a step: X23 exposes more than X2 ($off -> $on s)" \
    'above "$off" 0 && above "$on" "$off"'
s_on=$(csv_column "$work/out/ring-on.csv" step_time_s)
s_off=$(csv_column "$work/out/ring-off.csv" step_time_s)
check "and the step is longer ($s_off -> $s_on s)" 'above "$s_on" "$s_off"'

finish
