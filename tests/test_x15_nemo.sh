#!/usr/bin/env bash
# test_x15_nemo.sh — X15's measured overlap slowdown (overlap_slowdown
# 0.189, arXiv:2507.03114; docs/model.md §12 X15) on the nemo and
# megatron-core presets, and only on what each overlaps: nemo hides its TP
# and DP collectives behind compute (overlap tp 1, dp 1), so a collective
# it hides now costs s/(1 + s) of itself; megatron-core overlaps only X13's
# input-gradient collectives (each under its own weight-gradient GEMM), so
# its TP backward grows by that share of the block a GEMM hid, and its DP
# collectives (overlap dp 0, exposed whole) do not move. Each preset
# against itself with overlap_slowdown 0, plan by plan, columns by name.
#
#   bash tests/test_x15_nemo.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

# Llama 3 8B on two H100 nodes, 64 sequences of 8192: dp16 (ZeRO-1, no TP:
# 4 micro-batches) and dp2·tp8 with sequence parallelism (32 micro-batches).
cat >"$work/nemo.yaml" <<'YAML'
schema: planeval/v1
name: x15-nemo
framework: nemo
model: { preset: llama3-8b }
cluster: { preset: h100-node, nodes: 2 }
training: { global_batch: 64 }
plans:
  - { name: dp16, dp: 16, tp: 1, pp: 1, zero: 1 }
  - { name: tp8, dp: 2, tp: 8, pp: 1, zero: 1, sequence_parallel: true }
YAML
sed -e 's/^framework: nemo/framework: { preset: nemo, overlap_slowdown: 0 }/' \
    -e 's/^name: x15-nemo/name: x15-nemo-s0/' "$work/nemo.yaml" >"$work/nemo-s0.yaml"
sed -e 's/^framework: nemo/framework: megatron-core/' \
    -e 's/^name: x15-nemo/name: x15-mcore/' "$work/nemo.yaml" >"$work/mcore.yaml"
sed -e 's/^framework: nemo/framework: { preset: megatron-core, overlap_slowdown: 0 }/' \
    -e 's/^name: x15-nemo/name: x15-mcore-s0/' "$work/nemo.yaml" >"$work/mcore-s0.yaml"
for f in nemo nemo-s0 mcore mcore-s0; do
    "$planeval" run --quiet -o "$work/out" "$work/$f.yaml" 2>"$work/$f.err"; rc=$?
    check "$f: run exits 0 (got $rc)" '[ $rc -eq 0 ]'
done
# cell NAME PLAN COLUMN — one cell of report x15-NAME, found by column name
cell() {
    awk -v plan="$2" -v col="$3" -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["plan"] == plan { print $c[col] }' "$work/out/x15-$1.csv"
}
# near A B — |A − B| ≤ 1e-5·|B| + 1e-9 (the comments' six figures)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-5 * m + 1e-9) }'; }

# nemo dp16: X4 at z = 1 is T_rs(S_g) + T_rs(S_w) = 2·0.0414397 = 0.0828793 s
# against windows of 0.566 s and 0.283 s: hidden but X7's last bucket,
# 0.000206418 s. With s = 0.189, s/(1 + s) = 0.189/1.189 = 0.158957:
# max(0.000206418, 0.158957·0.0828793) = 0.0131743 s, so the step grows by
# 0.0131743 − 0.000206418 = 0.0129679 s (3.40444 → 3.41741 s).
dp=$(cell nemo dp16 dp_comm_s) dp0=$(cell nemo-s0 dp16 dp_comm_s)
check "nemo dp16: the hidden DP collectives cost s/(1 + s) of them (0.0131743 s, got $dp; 0.000206418 without X15, got $dp0)" \
    'near "$dp" 0.0131743 && near "$dp0" 0.000206418'
st=$(cell nemo dp16 step_time_s) st0=$(cell nemo-s0 dp16 step_time_s)
check "nemo dp16: the step is longer by that, 0.0129679 s ($st − $st0)" \
    'near "$(awk -v a="$st" -v b="$st0" "BEGIN { printf \"%.9g\", a - b }")" 0.0129679'

# nemo tp8 (sp, overlap.tp 1): T_ar = 0.000350196 s; X1's four collectives
# a layer (forward 2·T_ar, backward 2·T_ar) all hide behind the layer, so
# each layer and micro-batch pays 0.158957·4·0.000350196 = 0.000222665 s:
# 32 layers · 32 micro-batches · 0.000222665 = 0.228009 s (0 without X15).
tp=$(cell nemo tp8 tp_comm_s) tp0=$(cell nemo-s0 tp8 tp_comm_s)
check "nemo tp8: the hidden TP collectives cost 32·32·0.158957·4·T_ar = 0.228009 s (got $tp; $tp0 without X15)" \
    'awk -v a="$tp" "BEGIN { exit !(a > 0.22800 && a < 0.22802) }" && near "$tp0" 0'

# megatron-core tp8 (sp, overlap.tp 0, X13): per layer E_b = T_ar (the two
# blocking all-gathers) + QKV's max(T_ar/2 − 8.64899e-05, 0.158957·T_ar/2)
# + MLP in's max(T_ar/2 − 0.000375626, 0.158957·T_ar/2), T_ar/2 =
# 0.000175098: QKV's reduce-scatter outlasts its GEMM (8.86081e-05, as
# without X15), MLP in's hides and now costs 0.158957·0.000175098 =
# 2.78329e-05 s (0 without X15). tp_comm_s grows by 32 layers · 32
# micro-batches · 2.78329e-05 = 0.0285009 s (1.16654 → 1.19504 s); X15 on
# X13's sum instead, max(4.38804e-04, 0.158957·2·T_ar), would leave it.
mt=$(cell mcore tp8 tp_comm_s) mt0=$(cell mcore-s0 tp8 tp_comm_s)
check "megatron-core tp8: X13's hidden reduce-scatter costs 1024·2.78329e-05 = 0.0285009 s more ($mt − $mt0)" \
    'awk -v a="$mt" -v b="$mt0" "BEGIN { d = a - b; exit !(d > 0.028499 && d < 0.028503) }"'
# megatron-core's DP collectives are not overlapped (overlap.dp 0): unchanged
md=$(cell mcore dp16 dp_comm_s) md0=$(cell mcore-s0 dp16 dp_comm_s)
check "megatron-core dp16: DP collectives it does not overlap are not slowed ($md = $md0 = 0.0828793)" \
    '[ -n "$md" ] && [ "$md" = "$md0" ] && near "$md" 0.0828793'
check "megatron-core dp16: no TP, no X13: the step is unchanged" \
    '[ "$(cell mcore dp16 step_time_s)" = "$(cell mcore-s0 dp16 step_time_s)" ]'

# explain prints X15 with the numbers it took, for a nemo plan and for X13
"$planeval" explain "$work/nemo.yaml" --plan dp16 >"$work/explain.out" 2>&1; rc=$?
check "explain nemo dp16: exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "explain nemo dp16: the X15 formula, its numbers and its result" \
    'grep -q "^X15  exposed under contention = max(max(0, T − overlap·window), T·s/(1 + s)), s = overlap_slowdown$" "$work/explain.out" &&
     grep -q "^       = max(0.000206418, 0.158957·0.0828793)   (X4 above; s = 0.189" "$work/explain.out" &&
     grep -q "^       = 0.0131743 s  *\[arXiv:2507.03114\]$" "$work/explain.out"'
"$planeval" explain "$work/mcore.yaml" --plan tp8 >"$work/explain-x13.out" 2>&1
check "explain megatron-core tp8: X13 takes X15's s/(1 + s) block by block" \
    'grep -q "^       = 0·0.000350196 + 0.000350196 + max(0.000175098 − 8.64899e-05, 0.000175098·0.158957) + max(0.000175098 − 0.000375626, 0.000175098·0.158957)   (X15: s/(1 + s) = 0.158957)$" "$work/explain-x13.out" &&
     grep -q "^       = 0.000466637 s" "$work/explain-x13.out"'
finish
