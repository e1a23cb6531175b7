#!/usr/bin/env bash
# test_cp_net_channels.sh — X33 (framework cp_ring_net_channels,
# docs/model.md §12): a CP ring whose group spans nodes runs on NCCL's
# network channels, 2 per peer (one SM each), so the compute beside its
# hidden transfers loses c/S of the GPU, not X15's collective average.
# NeMo 24.03's Llama 2 7B at 512K on 512 H100s (tp 8, cp 16 at stride 8:
# one GPU a node in each cp group): T_p2p = 0.00147992 s per ring step,
# hidden behind 0.00430501 s (backward 0.00861001 s) of attention; 32
# layers, c − 1 = 15 steps, m = 2 micro-batches:
#   X33: c/S = 2/132 = 0.0151515
#   χ_cp,f = 32·15·0.00147992·2/132 = 0.0107631 s
#   χ_cp,b = 32·(2 + 14·2)·0.00147992·2/132 = 0.0215261 s   (2·T in the 14 middle steps)
#   cp_comm_s = 2·(0.0107631 + 0.0215261) = 0.0645783 s
# X15 instead (cp_ring_net_channels: 0): 0.158957·(that count) = 0.677502 s.
# A ring inside one node (NeMo 24.07 Llama 3 8B, cp 2 on 8 GPUs) keeps X15;
# a GPU without sm_count (b200) keeps X15.
#
#   bash tests/test_cp_net_channels.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

f=$src/scenarios/published/nemo-2403-llama2-7b-h100-512k-512gpu.yaml
plan=nemo-2403-llama2-7b-h100-512k-512gpu
strip() { grep -v '^expect:\|^  - plan:\|^    step_time_s'; }
sed -e 's/^framework: nemo .*/framework: { preset: nemo, cp_ring_net_channels: 0 }/' \
    -e 's/^name: .*/name: x15ring/' "$f" | strip >"$work/x15ring.yaml"
run_both "the published file and its cp_ring_net_channels: 0 copy run" "$f" "$work/x15ring.yaml"
x33=$(csv_column "$work/out/$plan.csv" cp_comm_s)
x15=$(csv_column "$work/out/x15ring.csv" cp_comm_s)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }'; }
check "the file as published (preset nemo) charges X33's 2/132 on the ring ($x33 s = 0.0645783)" \
    'near "$x33" 0.0645783'
check "cp_ring_net_channels: 0 over the preset keeps X15's 0.158957 ($x15 s = 0.677502)" \
    'near "$x15" 0.677502'
explain_file "$f" "$plan" explain
check "explain prints X33 with c, S and c/S" \
    'grep -q "^X33  the CP ring" "$work/explain.txt" && grep -q "= 2/132 " "$work/explain.txt" &&
     grep -q "= 0.0151515 " "$work/explain.txt"'
check "explain's X23 forward count is the hand number (0.0107631 s)" \
    'grep -A2 "^X23  χ_cp,f" "$work/explain.txt" | grep -q "= 0.0107631 s"'
# a ring inside one node: X15 stays (the same as with the key off)
g=$src/scenarios/published/nemo-2407-llama3-8b-8gpu.yaml
gplan=nemo-2407-llama3-8b-8gpu
sed -e 's/^framework: nemo.*/framework: { preset: nemo, cp_ring_net_channels: 0 }/' \
    -e 's/^name: .*/name: intra/' "$g" | strip >"$work/intra.yaml"
"$planeval" run "$g" "$work/intra.yaml" -o "$work/out2" --quiet >"$work/run2.out" 2>&1
a=$(csv_column "$work/out2/$gplan.csv" cp_comm_s)
b=$(csv_column "$work/out2/intra.csv" cp_comm_s)
check "a cp group inside one node keeps X15 ($a s = $b s, nonzero)" \
    '[ -n "$a" ] && [ "$a" = "$b" ] && awk -v a="$a" "BEGIN { exit !(a > 0) }"'
explain_file "$g" "$gplan" intra
check "explain says the ring inside one node keeps X15" \
    'grep -q "X33 the cp group is inside one node" "$work/intra.txt"'
# B200 (no sm_count in its preset): X15, unchanged
h=$src/scenarios/published/nemo-2504-llama3-8b-b200-512k-128gpu.yaml
explain_file "$h" nemo-2504-llama3-8b-b200-512k-128gpu b200
check "a GPU without sm_count (b200) keeps X15: no X33 line" \
    '! grep -q "X33" "$work/b200.txt" && grep -q "^X23  χ_cp,f" "$work/b200.txt"'

finish
