#!/usr/bin/env bash
# test_calculators.sh PLANEVAL SOURCE_DIR WORKDIR — explain, calibrate and the
# quick calculators (memory, collective, bubble) against hand arithmetic.
. "$(dirname "$0")/testlib.sh"
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t * (b < 0 ? -b : b)) }'; }

scen=$src/scenarios/drills/01-fit-the-model.yaml

# bubble: 1f1b p 4, m 16 → (p−1)/m = 3/16 = 0.1875; k(0) = min(p, m) = 4
out=$("$planeval" bubble --schedule 1f1b --pp 4 --microbatches 16)
check "1f1b bubble_fraction 3/16" '[ "$(echo "$out" | field bubble_fraction)" = 0.1875 ]'
check "1f1b k(0) = 4" '[ "$(echo "$out" | field in_flight_first)" = 4 ]'
# interleaved p 8, m 64, v 3 → (p−1)/(v·m) = 7/192 = 0.0364583; k(0) = 8 + 7/3 = 10.3333
out=$("$planeval" bubble --schedule interleaved --pp 8 --microbatches 64 --virtual-stages 3)
check "interleaved bubble_fraction 7/192" 'near "$(echo "$out" | field bubble_fraction)" 0.036458333 1e-5'
check "interleaved k(0) = 31/3" 'near "$(echo "$out" | field in_flight_first)" 10.333333 1e-5'
# zb-h1 p 4, m 16, t_f 1, t_b 2 → (p−1)·t_f/(m·(t_f+t_b)) = 3/48 = 0.0625
out=$("$planeval" bubble --schedule zb-h1 --pp 4 --microbatches 16)
check "zb-h1 bubble_fraction 3/48" '[ "$(echo "$out" | field bubble_fraction)" = 0.0625 ]'
"$planeval" bubble --schedule interleaved --pp 8 --microbatches 12 --virtual-stages 2 2>"$work/err"; rc=$?
check "V6 violation refused (exit 2)" '[ $rc -eq 2 ] && grep -q "V6" "$work/err"'
"$planeval" bubble --schedule 1fb1 --pp 8 --microbatches 12 2>"$work/err"; rc=$?
check "unknown schedule refused" '[ $rc -eq 2 ] && grep -q "unknown schedule" "$work/err"'

# collective: all-reduce of 1 GiB over 16 GPUs of h100-node (switch 450 GB/s,
# NIC 50 GB/s, α 2 µs / 5 µs): n_in 8, n_out 2;
# T_rs = 7/8·2^30/450e9 + 7·2e-6 + 1/2·(2^30/8)/50e9 + 1·5e-6 = 0.00344901; T_ar = 0.00689802
out=$("$planeval" collective --op all-reduce --bytes 1GiB --group 16 --cluster h100-node)
check "all-reduce 16 on h100 = 0.00689802 s" 'near "$(echo "$out" | field time_s)" 0.00689802 1e-5'
# full mesh pair (mi300x-node, n_in 2): C2 min(1, 7)·64 GB/s;
# T_rs = 1/2·1e9/64e9 + 1·2e-6 = 0.0078145; T_ar = 0.015629
out=$("$planeval" collective --op all-reduce --bytes 1e9 --group 2)
check "mesh pair all-reduce = 0.015629 s" 'near "$(echo "$out" | field time_s)" 0.015629 1e-5'
"$planeval" collective --op all-reduce --bytes 1e9 2>"$work/err"; rc=$?
check "missing --group refused" '[ $rc -eq 2 ] && grep -q "required" "$work/err"'
"$planeval" collective --op all-reduce --bytes 1e9 --group 4 --topology switch 2>"$work/err"; rc=$?
check "links under switch refused with the loader's message" '[ $rc -eq 2 ] && grep -q "error:" "$work/err"'

# memory: GPT-3 175B, dp 64, ZeRO-3, selective, b 1 on MI300X:
# M1 = M2 = 2·175e9/64 B = 5.0932 GiB, M3 = 12·175e9/64 = 30.559 GiB,
# A6 = 96·s·b·(34h + 0) = 96·2048·(8h+2h + 4h+4h+4·4h) = 76.5 GiB,
# M4 = 6·N_layer = 10.1116, A7 + A8 = 0.0234 + 0.4844, R = 10 → 137.865 GiB
out=$("$planeval" memory --model gpt3-175b --dp 64 --zero 3 --recompute selective)
check "memory total 137.865 GiB" 'near "$(echo "$out" | field total)" 137.865 1e-5'
# memory with a framework: the refined memory by phase of a memory-library
# file, scenarios/memory/torchtitan-2412-t1-8b-fsdp8.yaml, from options
# alone: the same peak, reserved bytes and phase as `run` on the file
"$planeval" run --quiet -o "$work/tt" "$src/scenarios/memory/torchtitan-2412-t1-8b-fsdp8.yaml"
tt_csv=$work/tt/torchtitan-2412-t1-8b-fsdp8.csv
col() { awk -F, -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i } NR == 2 { print $c }' "$tt_csv"; }
out=$("$planeval" memory --model llama3-8b --seq-len 8192 --grad-bytes 4 --cluster h100-node \
    --nodes 1 --hbm-gib 96 --fidelity refined --framework torchtitan --eager-elementwise true \
    --zero 3 --recompute selective --micro-batch 2 --global-batch 16)
check "memory --framework: reserved is the file's mem_reserved_gib ($(col mem_reserved_gib))" \
    'near "$(echo "$out" | field reserved)" "$(col mem_reserved_gib)" 1e-4'
check "memory --framework: peak is the file's mem_peak_gib ($(col mem_peak_gib))" \
    'near "$(echo "$out" | field peak)" "$(col mem_peak_gib)" 1e-4'
check "memory --framework: the peak's phase is the file's ($(col mem_peak_phase))" \
    'echo "$out" | grep -q "^peak .* at the $(col mem_peak_phase) phase"'
# M23: the total's interval at the peak's ratios, the report's lo/peak and hi/peak
ratio_lo=$(awk -v a="$(col mem_peak_lo_gib)" -v b="$(col mem_peak_gib)" -v t="$(col mem_total_gib)" 'BEGIN { printf "%.3f", t * a / b }')
ratio_hi=$(awk -v a="$(col mem_peak_hi_gib)" -v b="$(col mem_peak_gib)" -v t="$(col mem_total_gib)" 'BEGIN { printf "%.3f", t * a / b }')
check "memory --framework: the M23 interval line is the report's ($ratio_lo..$ratio_hi)" \
    'echo "$out" | grep -q "^interval  *$ratio_lo\.\.$ratio_hi GiB   M23: the total.s 80% interval (δ− 0.0544, δ+ 0.0847: the framework.s memory residuals)"'
out=$("$planeval" memory --model llama3-8b --seq-len 8192 --cluster h100-node --nodes 1 \
    --fidelity refined --framework torchtitan --zero 3 --recompute selective --selective-recompute attention)
out_op=$("$planeval" memory --model llama3-8b --seq-len 8192 --cluster h100-node --nodes 1 \
    --fidelity refined --framework torchtitan --zero 3 --recompute selective --selective-recompute op)
check "memory: --selective-recompute op keeps fewer activations than attention" \
    'awk -v a="$(echo "$out" | field activations)" -v b="$(echo "$out_op" | field activations)" "BEGIN { exit !(b < a) }"'
out=$("$planeval" memory --model llama3-8b --framework torchtitan --fidelity textbook)
check "memory: --fidelity textbook ignores the framework (no peak line, no interval)" \
    '! echo "$out" | grep -q "^peak " && ! echo "$out" | grep -q "^interval " && echo "$out" | grep -q "^total .* M5$"'
"$planeval" memory --model gpt3-17b 2>"$work/err"; rc=$?
check "unknown preset: did you mean" '[ $rc -eq 2 ] && grep -q "did you mean .gpt3-175b." "$work/err"'

# explain: its S1 figure is the report's step_time_s for the same plan
"$planeval" run --quiet -o "$work/out" "$scen"
report_step=$(awk -F, '$3 == "zero3-selective" { print $35 }' "$work/out/01-fit-the-model.csv")
"$planeval" explain "$scen" --plan zero3-selective >"$work/explain.txt"; rc=$?
explain_step=$(awk '/^S1 /{ getline; print $2 }' "$work/explain.txt")
check "explain exits 0" '[ $rc -eq 0 ]'
check "explain S1 ($explain_step) = report step_time_s ($report_step)" 'near "$explain_step" "$report_step" 1e-5'
for id in V1 P1 P6 P7 M1 M4 A4 A6 A8 M5 F3 F6 C1 C4 X1 X4 X5 S1 S4; do
    check "explain shows $id" 'grep -q "^$id " "$work/explain.txt"'
done
check "explain names sources" 'grep -q "arXiv:2205.05198" "$work/explain.txt"'
"$planeval" explain "$scen" --plan dp64-tp1-pp1-cp1-z3-selective-mb1-1f1b-v1-sp0 >/dev/null; rc=$?
check "explain accepts canonical text" '[ $rc -eq 0 ]'
"$planeval" explain "$scen" --plan nope 2>"$work/err"; rc=$?
check "explain of a missing plan exits 2" '[ $rc -eq 2 ] && grep -q "no plan named" "$work/err"'

# calibrate: the model's own step time gives back flops_efficiency 0.5
# (plan tp8-pp8-selective is compute-bound enough that e changes step time)
step=$(awk -F, '$3 == "tp8-pp8-selective" { print $35 }' "$work/out/01-fit-the-model.csv")
out=$("$planeval" calibrate "$scen" --plan tp8-pp8-selective --step-time "$step")
e=$(echo "$out" | awk '/flops_efficiency:/ { print $2 }')
check "calibrate round-trips e = 0.5 (got $e)" 'near "$e" 0.5 1e-3'
"$planeval" calibrate "$scen" --plan zero3-selective --step-time 1 2>"$work/err"; rc=$?
check "calibrate says when no e reproduces the run" '[ $rc -eq 2 ] && grep -q "even at flops_efficiency 1" "$work/err"'
# ... and when the measurement is slower than any efficiency gives (it
# printed flops_efficiency 1e-09 and a step time 1e290 times too short)
"$planeval" calibrate "$scen" --plan tp8-pp8-selective --step-time 1e300 >"$work/calc.out" 2>"$work/err"; rc=$?
check "calibrate --step-time 1e300 is refused (got $rc)" \
    '[ $rc -eq 2 ] && [ ! -s "$work/calc.out" ] && grep -q "no efficiency reproduces it" "$work/err"'

# Hostile option values: one clear message, exit 2, never a crash
for args in "memory --gpus-per-node 0" "memory --dp 3037000500 --tp 3037000500" \
            "memory --micro-batch 9223372036854775807 --dp 2" \
            "collective --op p2p --bytes 1 --group 2 --stride 9223372036854775807" \
            "bubble --pp 2 --microbatches 4 --tf 1e308 --tb 1e308" "bubble --pp 2 --microbatches 4 --tf 1TiB" \
            "memory --frob"; do
    "$planeval" $args >/dev/null 2>"$work/err"; rc=$?
    check "'$args' exits 2 with one message (got $rc)" '[ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ]'
done

# The first line names the cluster and the GPU a calculator used.
out=$("$planeval" memory --model llama3-70b --tp 8)
check "memory: first line names the default cluster and its GPU ($(echo "$out" | head -1))" \
    'echo "$out" | head -1 | grep -q "^cluster  *mi300x-node (the default.*--cluster.*), gpu mi300x (192 GiB"'
out=$("$planeval" memory --model llama3-70b --tp 8 --cluster h100-node)
check "memory: first line names the chosen cluster" 'echo "$out" | head -1 | grep -q "^cluster  *h100-node, gpu h100-sxm (80 GiB"'
out=$("$planeval" memory --model llama3-70b --tp 8 --cluster h100-node --gpu h200)
check "memory: an overriding --gpu is named" 'echo "$out" | head -1 | grep -q "^cluster  *h100-node, gpu h200 (141 GiB"'
out=$("$planeval" collective --op all-reduce --bytes 1GiB --group 16)
check "collective: first line names the cluster and GPU" 'echo "$out" | head -1 | grep -q "^cluster  *mi300x-node (the default.*), gpu mi300x"'

# Long options spelled in full: --gpus is not --gpus-per-node.
for args in "collective --op all-reduce --bytes 1GiB --group 16 --gpus 4" \
            "memory --model llama3-70b --gpus 4" "memory --model llama3-70b --tp 8 --expl" \
            "bubble --pp 4 --micro 16" "bubble --pp 4 --microbatches=16 --virtual 2"; do
    "$planeval" $args >"$work/calc.out" 2>"$work/err"; rc=$?
    check "'$args' is refused (exit 2, got $rc)" '[ $rc -eq 2 ] && grep -q "unknown option" "$work/err" && [ ! -s "$work/calc.out" ]'
done
"$planeval" memory --model llama3-70b --gpus 4 2>"$work/err"
check "the message suggests the full name" 'grep -q "did you mean --gpus-per-node" "$work/err"'
"$planeval" bubble --pp 4 --microbatches=16 >/dev/null 2>&1; rc=$?
check "--option=value spelled in full still works (got $rc)" '[ $rc -eq 0 ]'

# bubble warns (stderr) when micro-batches < stages.
"$planeval" bubble --pp 8 --microbatches 4 >"$work/calc.out" 2>"$work/err"; rc=$?
check "bubble m < p: still answers (got $rc)" '[ $rc -eq 0 ] && grep -q "^bubble_fraction" "$work/calc.out"'
check "bubble m < p: a warning on stderr" 'grep -q "warning: .*4 micro-batches.*8 stages" "$work/err"'
"$planeval" bubble --pp 4 --microbatches 16 >/dev/null 2>"$work/err"
check "bubble m >= p: no warning" '[ ! -s "$work/err" ]'

# A value the loader refuses is named by its option, never by a line of
# the scenario text the calculator builds (which the user never saw).
calc_refused() { # WANT ARGS... — exit 2, stderr is exactly WANT
    want_err=$1
    shift
    "$planeval" "$@" >"$work/calc.out" 2>"$work/err"; rc=$?
    check "'$*': exit 2 (got $rc), says '$want_err' (got: $(head -c 300 "$work/err"))" \
        '[ $rc -eq 2 ] && [ ! -s "$work/calc.out" ] && [ "$(cat "$work/err")" = "$want_err" ]'
}
calc_refused "error: memory: --framework nosuch: framework.preset: unknown framework preset 'nosuch'" \
    memory --model llama3-8b --framework nosuch
calc_refused "error: memory: --selective-recompute bogus: framework.selective_recompute: unknown value 'bogus'; expected one of attention, op" \
    memory --model llama3-8b --selective-recompute bogus
calc_refused "error: memory: no model given: --model PRESET, or --layers, --hidden, --heads, --vocab and --seq-len (see --help)" memory --dp 8
calc_refused "error: memory: --heads 3: model.heads = 3 does not divide model.hidden = 64 (the head dimension hidden/heads must be whole)" \
    memory --layers 4 --hidden 64 --heads 3 --vocab 10 --seq-len 8
calc_refused "error: memory: missing required key 'vocab' in model: give --vocab (or a preset that has it)
error: memory: missing required key 'seq_len' in model: give --seq-len (or a preset that has it)" \
    memory --layers 4 --hidden 64 --heads 4
calc_refused "error: memory: --gpu nope: cluster.gpu.preset: unknown gpu preset 'nope'" \
    memory --model gpt3-175b --gpu nope
calc_refused "error: collective: --links 0: cluster.intra_node.links must be a whole number >= 1, got 0" \
    collective --op all-reduce --bytes 1GiB --group 8 --topology full_mesh --links 0

for b in 0x10 1e400 inf; do # strtod reads these; a byte count is decimal
    calc_refused "error: --bytes needs a decimal number, got '$b'" collective --op all-reduce --bytes "$b" --group 8
done

# memory takes every key of a scenario's plan (docs/scenarios.md "plans[]",
# overlap aside) as --KEY, '_' spelled '-': the option exists, and a bad
# value is the loader's message for that key, named by the option (the
# degrees and micro_batch, which size the cluster, are read first).
keys=$(sed -n '/^### `plans\[\]`/,/^An explicit/p' "$src/docs/scenarios.md" |
       sed -n 's/^| `\([a-z_]*\)` |.*/\1/p' | grep -vx 'name\|overlap')
check "docs list the plan keys ($(echo $keys | wc -w))" '[ "$(echo $keys | wc -w)" -ge 15 ]'
for k in $keys; do
    o=$(echo "$k" | tr _ -)
    "$planeval" memory --model llama3-8b --"$o" zzz >"$work/calc.out" 2>"$work/err"; rc=$?
    check "memory --$o: a plan option (exit 2, '$(head -c 120 "$work/err")')" \
        '[ $rc -eq 2 ] && grep -Eq "^error: (memory: --$o zzz: plans\[0\]\.$k: |--$o needs a whole number)" "$work/err"'
done
# offload_optimizer: Llama 3 8B (8,030,261,248 parameters), dp 8, ZeRO-1:
# M3 = 12 B · P / 8 = 11.218 GiB on the GPU; offloaded, none.
h100="--model llama3-8b --cluster h100-node --dp 8 --zero 1"
out=$("$planeval" memory $h100)
check "memory: optimizer 11.218 GiB on the GPU" '[ "$(echo "$out" | field optimizer)" = 11.218 ]'
out=$("$planeval" memory $h100 --offload-optimizer true)
check "memory --offload-optimizer true: optimizer 0 on the GPU" \
    '[ "$(echo "$out" | field optimizer)" = 0.000 ] && echo "$out" | grep -q "^plan .*-off$"'
# ep: Mixtral 8x7B, 46,702,792,704 parameters of which 32 x 8 x 3 x 4096 x
# 14336 = 45,097,156,608 in experts; ep 8 keeps 1/8 of them:
# (1,605,636,096 + 45,097,156,608 / 8) x 2 B = 13.491 GiB (ep 1: 86.991).
mix="--model mixtral-8x7b --cluster h100-node --dp 8 --zero 1"
check "memory: Mixtral weights 86.991 GiB at ep 1" \
    '[ "$("$planeval" memory $mix | field weights)" = 86.991 ]'
out=$("$planeval" memory $mix --ep 8 --etp 1)
check "memory --ep 8 --etp 1: weights 13.491 GiB" \
    '[ "$(echo "$out" | field weights)" = 13.491 ] && echo "$out" | grep -q "^plan .*-ep8$"'
# stage layout: Llama 2 7B on pp 2 with 20 + 12 layers; stage 0 holds 20
# layers of 4·4096² + 3·4096·11008 + 2·4096 = 202,383,360 and the
# embedding 32000·4096: 4,178,739,200 x 2 B = 7.784 GiB.
out=$("$planeval" memory --model llama2-7b --cluster h100-node --dp 4 --pp 2 --first-stage-layers 20 --last-stage-layers 12)
check "memory --first/--last-stage-layers: stage 0 weights 7.784 GiB" \
    '[ "$(echo "$out" | field weights)" = 7.784 ] && echo "$out" | grep -q "^plan .*-fs20-ls12$"'
# --nodes: the cluster's size; dp = 2 x 8 / (tp·pp·cp) when not given
out=$("$planeval" memory --model llama3-8b --cluster h100-node --zero 3 --nodes 2)
check "memory --nodes 2: dp 16 on 16 GPUs" 'echo "$out" | grep -q "^plan  *dp16-tp1-pp1-cp1-z3-"'
out=$("$planeval" memory --model llama3-8b --cluster h100-node --zero 3 --nodes 2 --tp 2)
check "memory --nodes 2 --tp 2: dp 8" 'echo "$out" | grep -q "^plan  *dp8-tp2-"'
calc_refused "error: memory: --nodes 2: the cluster has 16 GPUs, but dp*tp*pp*cp = 8 (V1; leave out --dp to take dp = GPUs/(tp*pp*cp))" \
    memory $h100 --nodes 2
calc_refused "error: memory: --nodes 2: plans[0].dp: auto needs N/(tp*pp*cp) to be whole, but N = 16 GPUs and tp*pp*cp = 3*1*1" \
    memory --model llama3-8b --cluster h100-node --nodes 2 --tp 3
calc_refused "error: --nodes needs a whole number >= 1, got '0'" memory --model llama3-8b --nodes 0
calc_refused "error: memory: dp*tp*pp*cp = 12 GPUs is not a whole number of 8-GPU nodes (set --gpus-per-node, or give --nodes)" \
    memory --model llama3-8b --cluster h100-node --dp 12
# --catalog anywhere among the options, merged key by key as run merges
# it: a cluster override giving only gpus_per_node keeps its GPU (named on
# the first line) and the GPU's numbers; a GPU override keeps the rest.
mkdir -p "$work/cat"
printf 'clusters:\n  h100-node: { gpus_per_node: 4 }\ngpus:\n  h100-sxm: { hbm_gib: 96 }\n' >"$work/cat/o.yaml"
out=$("$planeval" memory --model llama3-8b --cluster h100-node --dp 4 --catalog "$work/cat" 2>&1)
check "memory: --catalog after the options ($(echo "$out" | head -1))" \
    'echo "$out" | head -1 | grep -qx "cluster  *h100-node, gpu h100-sxm (96 GiB HBM, 989.4 TFLOP/s peak), 4 GPUs a node"'
out=$("$planeval" memory --catalog="$work/cat" --model llama3-8b --cluster h100-node --dp 8 2>&1)
check "memory: --catalog=DIR first, 8 GPUs are 2 nodes of 4" \
    'echo "$out" | head -1 | grep -q "4 GPUs a node$" && echo "$out" | grep -q "^plan  *dp8-"'
out=$("$planeval" collective --op all-reduce --bytes 1GiB --group 4 --cluster h100-node --catalog "$work/cat" 2>&1)
check "collective: --catalog after the options" 'echo "$out" | head -1 | grep -q "^cluster  *h100-node, gpu h100-sxm (96 GiB"'
calc_refused "error: memory: --catalog needs a directory" memory --model llama3-8b --catalog
calc_refused "error: memory: --catalog given twice ('$work/cat' and '$work/x'): give one directory" \
    memory --model llama3-8b --catalog "$work/cat" --catalog="$work/x"
calc_refused "$work/none: error: cannot read the directory: No such file or directory" \
    memory --model llama3-8b --catalog "$work/none"

finish
