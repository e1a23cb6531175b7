#!/usr/bin/env bash
# test_finite_inputs.sh PLANEVAL SOURCE_DIR WORKDIR — no finite input makes
# a report or a gradebook show inf or nan. Every numeric key of a scenario,
# as the key tables of docs/scenarios.md list it (tests/unit/test_docs.c
# checks those tables against the descriptors of src/core/fields.c: each
# key's row, and each number key's range text), is written at the extremes
# of a double (5e-324, 2.2250738585072014e-308, 1e308, -1e308), at its
# range's bounds and just outside them, one key at a time, into one of the
# two scenarios below (a dense refined one, an MoE + MLA one). Each file is
# either refused — exit 2, one `FILE:LINE:COL: error:` line at that key's
# line, naming the range when the value is outside it — or run (exit 0)
# into a report and summary whose every cell is finite; a question's keys
# are also graded, and every cell of the grades file must be finite too.
# Values inside the range must not be refused for their range.
. "$(dirname "$0")/testlib.sh"

doc=$src/docs/scenarios.md
int_max=9007199254740992

# ---------------------------------------------------------------- the keys
# "SECTION KEY KIND LO HI ZERO_TOO TEXT" for every row of a key table whose
# value is a whole number or a number with a range (expect's plain `value`
# is "number": any finite one).
keys=$(awk -v imax=$int_max '
/^### / { sec = "-"; if (match($0, /^### `[^`]+`$/)) sec = substr($0, 6, RLENGTH - 6); next }
/^## / { sec = "-"; next }
sec != "-" && /^\| `[a-z_0-9]+` \| / {
    n = split($0, c, / \| /); key = c[1]; sub(/^\| `/, "", key); sub(/`$/, "", key)
    v = c[2]; zero = 0; text = v; sub(/, or `auto`$/, "", text)
    if (v ~ /^a whole number >= 1/) print sec, key, "int", 1, imax, 0, text
    else if (v ~ /^a whole number >= 0/) print sec, key, "int", 0, imax, 0, "a number >= 0"
    else if (v ~ /^a whole number from 0 to 3/) print sec, key, "int", 0, 3, 0, text
    else if (v ~ /^(0 or )?a number from [-0-9.e]+ to [-0-9.e]+$/) {
        if (v ~ /^0 or /) zero = 1
        m = split(v, w, " "); print sec, key, "number", w[m - 2], w[m], zero, v
    } else if (v ~ /^a number >= 0$/) print sec, key, "number", 0, "inf", 0, v
    else if (v ~ /^a number in \[0, 1\]$/) print sec, key, "number", 0, 1, 0, v
    else if (v == "number") print sec, key, "number", "-inf", "inf", 0, "a number"
}' "$doc")
count=$(printf '%s\n' "$keys" | grep -c .)
check "docs/scenarios.md lists the numeric keys ($count)" '[ "$count" -ge 90 ]'

# ---------------------------------------------------------------- the scenarios
# Every numeric key is on a line of its own, marked "#@ SECTION.KEY".
mkdir -p "$work/base"
cat >"$work/base/dense.yaml" <<'EOF'
schema: planeval/v1
name: finite-dense
model:
  layers: 8                   #@ model.layers
  hidden: 1024                #@ model.hidden
  heads: 16                   #@ model.heads
  kv_heads: 8                 #@ model.kv_heads
  ffn_hidden: 4096            #@ model.ffn_hidden
  vocab: 32000                #@ model.vocab
  seq_len: 2048               #@ model.seq_len
  head_dim: 64                #@ model.head_dim
  params: 150e6               #@ model.params
  mlp: swiglu
precision:
  param_bytes: 2              #@ precision.param_bytes
  grad_bytes: 2               #@ precision.grad_bytes
  optimizer_bytes: 12         #@ precision.optimizer_bytes
  compute: fp8
  fp8_weight_bytes: 2         #@ precision.fp8_weight_bytes
  dispatch_bytes: 2           #@ precision.dispatch_bytes
cluster:
  nodes: 2                    #@ cluster.nodes
  gpus_per_node: 8            #@ cluster.gpus_per_node
  reserve_gib: 10             #@ cluster.reserve_gib
  host_memory_gib: 2048       #@ cluster.host_memory_gib
  cpu_adam_gparams_s: 4       #@ cluster.cpu_adam_gparams_s
  cost_per_gpu_hour: 2        #@ cluster.cost_per_gpu_hour
  node_overhead_w: 4600       #@ cluster.node_overhead_w
  pue: 1.2                    #@ cluster.pue
  gpu:
    hbm_gib: 80               #@ cluster.gpu.hbm_gib
    peak_tflops: 989          #@ cluster.gpu.peak_tflops
    hbm_tb_s: 3.35            #@ cluster.gpu.hbm_tb_s
    flops_efficiency: 0.5     #@ cluster.gpu.flops_efficiency
    gemm_efficiency: 0.7      #@ cluster.gpu.gemm_efficiency
    gemm_half_gflop: 1        #@ cluster.gpu.gemm_half_gflop
    attention_efficiency: 0.6 #@ cluster.gpu.attention_efficiency
    attention_half_seq: 300   #@ cluster.gpu.attention_half_seq
    attention_half_head_dim: 50 #@ cluster.gpu.attention_half_head_dim
    attention_causal_tile: 128 #@ cluster.gpu.attention_causal_tile
    grouped_gemm_half_rows: 123 #@ cluster.gpu.grouped_gemm_half_rows
    elementwise_efficiency: 0.8 #@ cluster.gpu.elementwise_efficiency
    microbatch_overhead_us: 20  #@ cluster.gpu.microbatch_overhead_us
    peak_fp8_tflops: 1979     #@ cluster.gpu.peak_fp8_tflops
    fp8_gemm_efficiency: 0.4  #@ cluster.gpu.fp8_gemm_efficiency
    fp8_rowwise_gemm_efficiency: 0.35 #@ cluster.gpu.fp8_rowwise_gemm_efficiency
    fp8_kernel_gemm_efficiency: 0.5 #@ cluster.gpu.fp8_kernel_gemm_efficiency
    host_link_gb_s: 50        #@ cluster.gpu.host_link_gb_s
    step_time_below: 0.1      #@ cluster.gpu.step_time_below
    step_time_above: 0.1      #@ cluster.gpu.step_time_above
    step_time_interval_runs: 5 #@ cluster.gpu.step_time_interval_runs
    tdp_w: 700                #@ cluster.gpu.tdp_w
    idle_w: 100               #@ cluster.gpu.idle_w
    attention_fa2_efficiency: 0.3 #@ cluster.gpu.attention_fa2_efficiency
    attention_fa2_half_seq: 233 #@ cluster.gpu.attention_fa2_half_seq
    attention_fa3_efficiency: 0.5 #@ cluster.gpu.attention_fa3_efficiency
    attention_fa3_half_seq: 316 #@ cluster.gpu.attention_fa3_half_seq
    attention_cudnn_efficiency: 0.48 #@ cluster.gpu.attention_cudnn_efficiency
    attention_cudnn_half_seq: 238 #@ cluster.gpu.attention_cudnn_half_seq
    sm_count: 132             #@ cluster.gpu.sm_count
  intra_node:
    topology: switch
    bandwidth_gb_s: 450       #@ cluster.intra_node.bandwidth_gb_s
    latency_us: 2             #@ cluster.intra_node.latency_us
    bus_efficiency: 0.9       #@ cluster.intra_node.bus_efficiency
    half_message_mb: 1        #@ cluster.intra_node.half_message_mb
  inter_node:
    nic_gb_s: 50              #@ cluster.inter_node.nic_gb_s
    latency_us: 5             #@ cluster.inter_node.latency_us
    bus_efficiency: 0.8       #@ cluster.inter_node.bus_efficiency
    half_message_mb: 4        #@ cluster.inter_node.half_message_mb
training:
  global_batch: 64            #@ training.global_batch
  tokens: 1e12                #@ training.tokens
budgets:
  memory_gib: 80              #@ budgets.memory_gib
  step_time_s: 100            #@ budgets.step_time_s
  train_days: 30              #@ budgets.train_days
  min_mfu: 0.01               #@ budgets.min_mfu
failures:
  interruptions_per_gpu_day: 0.0005 #@ failures.interruptions_per_gpu_day
  restart_minutes: 10         #@ failures.restart_minutes
checkpointing:
  write_gb_s: 100             #@ checkpointing.write_gb_s
  save: async
  interval_minutes: 30        #@ checkpointing.interval_minutes
overlap:
  tp: 0.5                     #@ overlap.tp
  cp: 1                       #@ overlap.cp
  dp: 1                       #@ overlap.dp
  pp: 0                       #@ overlap.pp
  ep: 0                       #@ overlap.ep
fidelity: refined
framework:
  pp_scatter_gather: true
  dp_bucket_mb: 100           #@ framework.dp_bucket_mb
  comm_slowdown: 0.1          #@ framework.comm_slowdown
  grad_accum_bytes: 6         #@ framework.grad_accum_bytes
  optimizer_pass_bytes: 50    #@ framework.optimizer_pass_bytes
  moe_permute_bytes: 14       #@ framework.moe_permute_bytes
  offload_copy_bytes: 4       #@ framework.offload_copy_bytes
  mem_peak_below: 0.05        #@ framework.mem_peak_below
  mem_peak_above: 0.08        #@ framework.mem_peak_above
  mem_peak_interval_runs: 9   #@ framework.mem_peak_interval_runs
  memory_by_phase: true
  loss_bytes: 12              #@ framework.loss_bytes
  optimizer_temp_bytes: 4     #@ framework.optimizer_temp_bytes
  unsharded_grad_bytes: 2     #@ framework.unsharded_grad_bytes
  workspace_mib: 32           #@ framework.workspace_mib
  allocator_fragmentation: 0.2 #@ framework.allocator_fragmentation
  cuda_context_gib: 0.5       #@ framework.cuda_context_gib
  overlap_slowdown: 0.189     #@ framework.overlap_slowdown
  recompute_num_layers: 2     #@ framework.recompute_num_layers
  gemm_rate_scale: 0.8        #@ framework.gemm_rate_scale
  pp_microbatch_group: 8      #@ framework.pp_microbatch_group
  cpu_offloading_num_layers: 2 #@ framework.cpu_offloading_num_layers
  nccl_channels: 16           #@ framework.nccl_channels
  dp_grad_comm_bytes: 2       #@ framework.dp_grad_comm_bytes
  deepspeed_zero: true
  stage3_max_live_parameters: 1e9 #@ framework.stage3_max_live_parameters
  stage3_max_reuse_distance: 1e9 #@ framework.stage3_max_reuse_distance
  sub_group_size: 1e9         #@ framework.sub_group_size
plans:
  - name: a
    dp: 4                     #@ plans[].dp
    tp: 2                     #@ plans[].tp
    pp: 2                     #@ plans[].pp
    cp: 1                     #@ plans[].cp
    zero: 1                   #@ plans[].zero
    micro_batch: 2            #@ plans[].micro_batch
    first_stage_layers: 4     #@ plans[].first_stage_layers
    last_stage_layers: 4      #@ plans[].last_stage_layers
  - name: b
    dp: 2
    tp: 2
    pp: 2
    cp: 2
    zero: 3
    recompute: selective
    schedule: interleaved
    virtual_stages: 2         #@ plans[].virtual_stages
    offload_optimizer: true
  - name: c
    dp: 16
sweep:
  dp: auto
  tp: [1, 2]                  #@ sweep.tp
  pp: [2]                     #@ sweep.pp
  cp: [1]                     #@ sweep.cp
  zero: [0, 1]                #@ sweep.zero
  micro_batch: [1]            #@ sweep.micro_batch
  virtual_stages: [1]         #@ sweep.virtual_stages
  first_stage_layers: [4]     #@ sweep.first_stage_layers
  last_stage_layers: [4]      #@ sweep.last_stage_layers
expect:
  - plan: a
    step_time_s:
      value: 1                #@ expect[].COLUMN.value
      rel_tol: 0.5            #@ expect[].COLUMN.rel_tol
  - plan: a
    mem_total_gib:
      value: 10
      abs_tol: 5              #@ expect[].COLUMN.abs_tol
questions:
  - id: q1
    ask: column
    plan: a
    column: step_time_s
    points: 2                 #@ questions[].points
    rel_tol: 0.1              #@ questions[].rel_tol
  - id: q2
    ask: column
    plan: a
    column: mem_total_gib
    abs_tol: 1                #@ questions[].abs_tol
EOF
# training.finetune: lora (docs/model.md §3 M15–M17, A27): refused with
# compute: fp8, so a dense bf16 scenario of its own, under ZeRO 0–3 and TP
cat >"$work/base/lora.yaml" <<'EOF'
schema: planeval/v1
name: finite-lora
model: { layers: 8, hidden: 1024, heads: 16, kv_heads: 8, vocab: 32000, seq_len: 2048, mlp: swiglu }
cluster:
  nodes: 1
  gpus_per_node: 8
  gpu: { hbm_gib: 80, peak_tflops: 989, hbm_tb_s: 3.35, flops_efficiency: 0.5 }
  intra_node: { topology: switch, bandwidth_gb_s: 450, latency_us: 2 }
training:
  global_batch: 64
  finetune: lora
  base_quant: nf4
  lora_rank: 16               #@ training.lora_rank
  lora_dropout: 0.1           #@ training.lora_dropout
plans:
  - { name: a, dp: 8 }
  - { name: b, dp: 2, tp: 2, pp: 2, zero: 3, recompute: full }
EOF
# the design axes (docs/sweeps.md "Sweeping the design"): their keys are not
# given in cluster, training or model
cat >"$work/base/design.yaml" <<'EOF'
schema: planeval/v1
name: finite-design
model: { layers: 8, hidden: 1024, heads: 16, vocab: 32000 }
cluster:
  gpus_per_node: 8
  gpu: { hbm_gib: 80, peak_tflops: 989, hbm_tb_s: 3.35, flops_efficiency: 0.5 }
  intra_node: { topology: switch, bandwidth_gb_s: 450, latency_us: 2 }
  inter_node: { nic_gb_s: 50, latency_us: 5 }
training: { tokens: 1e12 }
sweep:
  nodes: [1, 2]               #@ sweep.nodes
  global_batch: [32]          #@ sweep.global_batch
  seq_len: [1024, 2048]       #@ sweep.seq_len
  dp: auto
EOF
sed -e 's/^name: .*/name: finite-gpus/' -e 's/^  nodes: .*/  gpus: [8, 16]                #@ sweep.gpus/' \
    "$work/base/design.yaml" >"$work/base/gpus.yaml"
# targets (docs/sweeps.md "Targets"): a nodes sweep judged against them
cat >"$work/base/targets.yaml" <<'EOF'
schema: planeval/v1
name: finite-targets
model: { layers: 8, hidden: 1024, heads: 16, vocab: 32000, seq_len: 1024 }
cluster:
  gpus_per_node: 8
  gpu: { hbm_gib: 80, peak_tflops: 989, hbm_tb_s: 3.35, flops_efficiency: 0.5 }
  intra_node: { topology: switch, bandwidth_gb_s: 450, latency_us: 2 }
  inter_node: { nic_gb_s: 50, latency_us: 5 }
  cost_per_gpu_hour: 2
training: { global_batch: 32 }
targets:
  tokens: 1e12                #@ targets.tokens
  days: 1e9                   #@ targets.days
  gpu_hours: 1e15             #@ targets.gpu_hours
  cost: 1e15                  #@ targets.cost
sweep:
  nodes: [1, 2]
  dp: auto
EOF
cat >"$work/base/moe.yaml" <<'EOF'
schema: planeval/v1
name: finite-moe
model:
  layers: 4
  hidden: 1024
  heads: 16
  vocab: 32000
  seq_len: 1024
  attention: mla
  q_lora_rank: 256            #@ model.q_lora_rank
  kv_lora_rank: 128           #@ model.kv_lora_rank
  qk_rope_head_dim: 32        #@ model.qk_rope_head_dim
  qk_nope_head_dim: 64        #@ model.qk_nope_head_dim
  v_head_dim: 64              #@ model.v_head_dim
  experts: 8                  #@ model.experts
  top_k: 2                    #@ model.top_k
  moe_ffn_hidden: 512         #@ model.moe_ffn_hidden
  shared_experts: 1           #@ model.shared_experts
  dense_layers: 1             #@ model.dense_layers
  moe_every: 1                #@ model.moe_every
  capacity_factor: 1.25       #@ model.capacity_factor
  moe_imbalance: 1.1          #@ model.moe_imbalance
cluster:
  nodes: 1
  gpus_per_node: 8
  gpu: {hbm_gib: 80, peak_tflops: 989, hbm_tb_s: 3.35, sm_count: 132}
  intra_node:
    topology: full_mesh
    links: 7                  #@ cluster.intra_node.links
    link_gb_s: 64             #@ cluster.intra_node.link_gb_s
    latency_us: 2
training:
  global_batch: 32
  tokens: 1e12
failures: {restart_minutes: 10}
checkpointing: {write_gb_s: 100}
framework:
  recompute_modules: layernorm mla_up_proj moe_act
  cached_input_bytes: 1       #@ framework.cached_input_bytes
  attention_output_bytes: 1.5 #@ framework.attention_output_bytes
  comm_sms: 20                #@ framework.comm_sms
  cp_ring_net_channels: 2     #@ framework.cp_ring_net_channels
plans:
  - name: a
    dp: 8
    recompute: selective
    ep: 4                     #@ plans[].ep
    etp: 1                    #@ plans[].etp
  - name: b
    dp: 4
    tp: 2
    ep: 2
    etp: 1
sweep:
  dp: auto                    #@ sweep.dp
  tp: [1, 2]
  ep: [1, 2]                  #@ sweep.ep
  etp: [1]                    #@ sweep.etp
EOF
cat >"$work/base/student.yaml" <<'EOF'
student: s1
drill: finite-dense
answers:
  q1: 1.5
  q2: 20
EOF

for f in dense moe design gpus targets lora; do
    "$planeval" run --quiet -o "$work/base/out" "$work/base/$f.yaml" 2>"$work/err"; rc=$?
    check "the $f scenario runs as written (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
done
"$planeval" grade --quiet "$work/base/dense.yaml" "$work/base/student.yaml" \
    -o "$work/base/grades.csv" 2>"$work/err"; rc=$?
check "its questions are graded (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'

# ---------------------------------------------------------------- one key at a time
# a whole cell that is inf or nan, either sign, any case, quoted or not
nonfinite='(^|,)"?[-+]?(inf|nan)"?(,|$)'
# cases KIND LO HI ZERO — "VALUE INSIDE" for each value to try: the
# extremes of a double, the bounds and just outside them; INSIDE is 1 when
# the key's range takes VALUE (awk reads the texts as doubles; a whole
# number must be an integer literal of at most 2^53)
cases() {
    awk -v kind="$1" -v lo_t="$2" -v hi_t="$3" -v zero="$4" -v imax=$int_max '
    function inside(v, x) {
        x = v + 0
        if (kind == "int" && (v !~ /^-?[0-9]+$/ || length(v) > 16 || x > 2^53)) return 0
        return (zero && x == 0) || (x >= lo && x <= hi)
    }
    function try(v) { if (!(v in seen)) { seen[v] = 1; print v, inside(v) } }
    BEGIN {
        lo = lo_t == "-inf" ? -2^1024 : lo_t + 0; hi = hi_t == "inf" ? 2^1024 : hi_t + 0
        if (kind == "int") {
            try("0"); try("-1"); try("1"); try(imax); try("9007199254740993"); try("1e308")
            try(lo_t); try(hi_t); try(sprintf("%d", lo - 1))
            if (hi_t != imax) try(sprintf("%d", hi + 1))
        } else {
            try("5e-324"); try("2.2250738585072014e-308"); try("1e308"); try("-1e308"); try("-0.0")
            if (lo_t != "-inf") { try(lo_t); try(lo > 0 ? lo / 10 : -1e-9) }
            if (hi_t != "inf") { try(hi_t); try(hi * 10) }
        }
    }'
}

refused=0 accepted=0 missing= n=0
mkdir -p "$work/schema"
while read -r sec key kind lo hi zero text; do
    mark="#@ $sec.$key"
    base=
    for f in dense moe design gpus targets lora; do
        if grep -qF -- "$mark" "$work/base/$f.yaml"; then base=$f; fi
    done
    if [ -z "$base" ]; then
        missing="$missing $sec.$key"
        continue
    fi
    line=$(grep -nF -- "$mark" "$work/base/$base.yaml" | cut -d: -f1)
    while read -r v inside <&3; do
        f=$work/case.yaml
        awk -v n="$line" -v v="$v" -v key="$key" 'NR == n {
            i = index($0, key ":"); j = index($0, "#@")
            pad = substr($0, 1, i - 1); rest = substr($0, j)
            s = v; if ($0 ~ /: \[/) s = "[" v "]"
            $0 = pad key ": " s "   " rest
        } { print }' "$work/base/$base.yaml" >"$f"
        rm -rf "$work/out"
        "$planeval" run --quiet -o "$work/out" "$f" >/dev/null 2>"$work/err"; rc=$?
        what="$sec.$key: $v"
        n=$((n + 1))
        if [ $rc -eq 2 ]; then
            refused=$((refused + 1))
            if [ $inside -eq 0 ] && [ "$kind" = number ]; then cp "$f" "$work/schema/out-$n.yaml"; fi
            msg=$(cat "$work/err")
            check "$what is refused in one FILE:LINE:COL line (got: $msg)" \
                '[ "$(wc -l <"$work/err")" -eq 1 ] && [[ $msg == "$f:"[0-9]*:[0-9]*": error: "* ]]'
            if [ $inside -eq 0 ]; then
                # at the key's own line; naming the range (an integer key
                # given 1e308 is told it wants an integer)
                check "$what is refused at $f:$line, naming \"$text\" (got: $msg)" \
                    '[[ $msg == "$f:$line:"* ]] && [[ $msg == *"$key"*" must be $text, got "* ||
                       $msg == *"$key"*" must be at most 2^53"* ||
                       ( $kind == int && $msg == *"$key"*": expected an integer"* ) ]]'
            else
                check "$what is inside \"$text\": not refused for its range (got: $msg)" \
                    '[[ $msg != *" must be $text, got "* ]]'
            fi
            continue
        fi
        accepted=$((accepted + 1))
        if [ "$kind" = number ]; then cp "$f" "$work/schema/in-$n.yaml"; fi
        check "$what: exit 0 or 2 (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
        check "$what is outside \"$text\", yet accepted" '[ $inside -eq 1 ]'
        bad=$(grep -Eio "$nonfinite" "$work/out"/*.csv | head -3)
        check "$what: every report cell is finite ($bad)" '[ -z "$bad" ]'
        if [ "$sec" = "questions[]" ]; then
            "$planeval" grade --quiet "$f" "$work/base/student.yaml" -o "$work/out/g.csv" \
                2>"$work/err"; rc=$?
            bad=$(grep -Eio "$nonfinite" "$work/out/g.csv" | head -3)
            check "$what: graded (got $rc), every grade cell finite ($bad)" \
                '[ $rc -eq 0 ] && [ -z "$bad" ]'
        fi
    done 3< <(cases "$kind" "$lo" "$hi" "$zero")
done <<<"$keys"
check "every numeric key has its line in a scenario here:$missing" '[ -z "$missing" ]'
check "some cases are refused ($refused) and some run ($accepted)" \
    '[ $refused -gt 100 ] && [ $accepted -gt 100 ]'

# ---------------------------------------------------------------- the schema agrees
# schemas/scenario.schema.json takes the number values the loader takes and
# refuses those it refuses for their range (with node, ajv and js-yaml as
# tests/test_schema.sh runs them; skipped without).
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
if command -v node >/dev/null 2>&1 && node -e "require('ajv'); require('js-yaml')" 2>/dev/null; then
    node "$src/tests/schema/validate.js" --schema-dir "$src/schemas" \
        --scenario "$work/base/dense.yaml" "$work/base/moe.yaml" "$work/schema"/in-*.yaml \
        --bad "$work/schema"/out-*.yaml >"$work/schema.out" 2>&1
    differ=$(grep -E '^(FAIL|NOTE) ' "$work/schema.out" | head -5 | cut -c1-200)
    check "the schema takes and refuses the numbers the loader does: $differ" '[ -z "$differ" ]'
else
    echo "note: node with ajv and js-yaml not found; the schema is not compared"
fi

finish
