#!/usr/bin/env bash
# test_framework_presets.sh — framework presets as people run them
# (docs/catalog.md "Frameworks", docs/model.md §12 "Framework presets"):
# every preset of scenarios/catalog/frameworks.yaml states the flags it
# stands for and its numbers' provenance; megatron-core (defaults) and
# megatron-core-perf (the performance example's overlap flags) are separate
# presets and give the same plan different steps; torchtitan sits beside
# fsdp; run's summary lines, the summary's facts, the HTML page and explain print
# the framework, its flags and the overlap in force.
#
#   bash tests/test_framework_presets.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

yaml=$src/scenarios/catalog/frameworks.yaml
presets=$(awk '/^frameworks:/ { on = 1; next } on && /^  [a-z0-9-]+:$/ { sub(/:$/, ""); print $1 }' "$yaml")
check "the catalog holds megatron-core-perf and torchtitan" \
    'echo "$presets" | grep -qx megatron-core-perf && echo "$presets" | grep -qx torchtitan'
check "the catalog ends with megatron-bridge, nemo-automodel, llm-foundry, in that order" \
    '[ "$(echo "$presets" | tail -3 | tr "\n" " ")" = "megatron-bridge nemo-automodel llm-foundry " ]'
for p in $presets; do
    # the preset's block: its comment above it and its keys below
    block=$(awk -v p="$p" '/^  #/ { c = c $0 "\n"; next } $0 == "  " p ":" { print c; on = 1; next }
        on && /^  [a-z0-9-]+:$/ { exit } on { print } !/^  #/ { c = "" }' "$yaml")
    check "$p states its flags" 'echo "$block" | grep -q "^    flags: \"..*\"$"'
    check "$p states its numbers' provenance" 'echo "$block" | grep -q "Provenance:"'
done

# one plan under each preset
base=$src/scenarios/published/nemo-2407-llama3-70b-64gpu.yaml
for fw in megatron-core megatron-core-perf torchtitan nemo megatron-bridge nemo-automodel llm-foundry; do
    sed "s/^framework: .*/framework: $fw/; s/^name: .*/name: fw-$fw/" "$base" >"$work/fw-$fw.yaml"
    "$planeval" run --html "$work/fw-$fw.yaml" -o "$work/out" >"$work/$fw.out" 2>"$work/$fw.err"
    rc=$?
    check "a scenario runs under $fw (exit $rc)" '[ "$rc" -eq 0 ]'
done
err=$work/megatron-core-perf.err
check "run prints the framework in force" \
    'grep -q "^fw-megatron-core-perf: framework: megatron-core-perf: pp_scatter_gather true, " "$err"'
check "run prints what the preset stands for" \
    'grep -q "^fw-megatron-core-perf: framework_flags: .*--overlap-grad-reduce --overlap-param-gather$" "$err"'
check "run prints the overlap in force" \
    'grep -q "^fw-megatron-core-perf: overlap: tp 0, cp 1, dp 1, pp 0, ep 0 in force (the framework megatron-core-perf" "$err"'
check "the defaults preset says it overlaps no data-parallel collective" \
    'grep -q "^fw-megatron-core: overlap: tp 0, cp 1, dp 0, pp 0, ep 0 in force" "$work/megatron-core.err"'
check "torchtitan's flags name FSDP2, compile, float8 and async TP" \
    'grep -q "^fw-torchtitan: framework_flags: .*FSDP2.*compile.*float8.*async" "$work/torchtitan.err"'
check "the summary carries the flags as a fact" \
    'grep -q "^fact: framework_flags,.*--overlap-param-gather" "$work/out/fw-megatron-core-perf.summary.csv"'
check "the HTML page shows them" 'grep -q -- "--overlap-grad-reduce --overlap-param-gather" "$work/out/fw-megatron-core-perf.html"'

# the stacks of today: each prints what it stands for, its overlap and the
# numbers where it differs from nemo (Megatron-Bridge) or fsdp
check "megatron-bridge's framework line has its 128M-parameter bf16 bucket and the fused loss" \
    'grep -q "^fw-megatron-bridge: framework: megatron-bridge: pp_scatter_gather true, dp_algorithm flat, allreduce auto, dp_bucket_mb 268.4, .*calibrated false, mem_peak_below none, mem_peak_above 0, mem_peak_interval_runs 0, memory_by_phase true, loss_bytes 2, " "$work/megatron-bridge.err"'
check "megatron-bridge's flags name its overlap config and the TE cross entropy" \
    'grep -q "^fw-megatron-bridge: framework_flags: Megatron-Bridge v0.3.0 performance recipes: distributed optimizer, overlap_grad_reduce, overlap_param_gather (128M-parameter buckets, grad_reduce_in_fp32 False), align_param_gather and overlap_p2p_comm when interleaved, tp_comm_overlap with TP and sequence parallelism, TE fused cross entropy, manual GC$" "$work/megatron-bridge.err"'
check "megatron-bridge overlaps as nemo" \
    'grep -q "^fw-megatron-bridge: overlap: tp 1, cp 1, dp 1, pp 1, ep 0 in force (the framework megatron-bridge" "$work/megatron-bridge.err"'
check "nemo-automodel's flags name FSDP2, its deferred gradient sync and flash_attention_2" \
    'grep -q "^fw-nemo-automodel: framework_flags: NeMo AutoModel v0.3.0: FSDP2 fully_shard per block .*defer_fsdp_grad_sync.*flash_attention_2" "$work/nemo-automodel.err"'
check "nemo-automodel overlaps the FSDP collectives only, FlashAttention-2 its kernel, B5 on" \
    'grep -q "^fw-nemo-automodel: overlap: tp 0, cp 1, dp 1, pp 0, ep 0 in force (the framework nemo-automodel" "$work/nemo-automodel.err" &&
     grep -q "^fw-nemo-automodel: framework: nemo-automodel: .*bubble_by_stage true, .*attention_kernel flash-attention-2, " "$work/nemo-automodel.err"'
check "llm-foundry's flags name Composer FSDP1's settings and its loss" \
    'grep -q "^fw-llm-foundry: framework_flags: llm-foundry v0.21.0 on Composer FSDP1: sharding_strategy FULL_SHARD, mixed_precision PURE .*limit_all_gathers true, backward_prefetch BACKWARD_POST, forward_prefetch false; attn_impl flash (flash-attn 2), loss_fn fused_crossentropy$" "$work/llm-foundry.err"'
check "llm-foundry overlaps as fsdp, no pipeline bubble key, FlashAttention-2" \
    'grep -q "^fw-llm-foundry: overlap: tp 0, cp 1, dp 1, pp 0, ep 0 in force (the framework llm-foundry" "$work/llm-foundry.err" &&
     grep -q "^fw-llm-foundry: framework: llm-foundry: .*bubble_by_stage false, .*attention_kernel flash-attention-2, " "$work/llm-foundry.err"'
flags_head() { # the first words of a preset's flags, as the YAML writes them
    case $1 in megatron-bridge) echo "Megatron-Bridge v0.3.0 performance recipes: distributed optimizer" ;;
        nemo-automodel) echo "NeMo AutoModel v0.3.0: FSDP2 fully_shard per block" ;;
        llm-foundry) echo "llm-foundry v0.21.0 on Composer FSDP1: sharding_strategy FULL_SHARD" ;; esac
}
for fw in megatron-bridge nemo-automodel llm-foundry; do
    check "the summary and the HTML page carry $fw's flags" \
        'grep -q "^fact: framework_flags,\"$(flags_head $fw)" "$work/out/fw-$fw.summary.csv" &&
         grep -q "<tr><th>framework_flags</th><td>$(flags_head $fw)" "$work/out/fw-$fw.html"'
done
# megatron-bridge against nemo, the same plan: TE's in-place fused cross
# entropy keeps the bf16 logits only at the loss (A14: 2 bytes, not 10),
# and its DP bucket is 128·1024·1024 bf16 gradients (X7)
"$planeval" explain "$work/fw-nemo.yaml" --plan nemo-2407-llama3-70b-64gpu >"$work/explain-nemo.out" 2>&1
"$planeval" explain "$work/fw-megatron-bridge.yaml" --plan nemo-2407-llama3-70b-64gpu >"$work/explain-mb.out" 2>&1
check "explain: megatron-bridge's loss at 2 bytes a logit, nemo's at 10 (2·4096·128256/4 = 262,668,288 bytes)" \
    'grep -q "^       = 2·4096·1·128256/4$" "$work/explain-mb.out" && grep -q "^       = 2.62668e+08 bytes = 0.244629 GiB" "$work/explain-mb.out" &&
     grep -q "^       = 10·4096·1·128256/4$" "$work/explain-nemo.out"'
check "explain: megatron-bridge's last bucket is 268,435,456 bytes, nemo's 80 MB" \
    'grep -q "bucket 2.684e+08 bytes" "$work/explain-mb.out" && grep -q "bucket 8e+07 bytes" "$work/explain-nemo.out"'

# X34: Megatron-Bridge overlaps the pipeline sends only when interleaved
# (overlap_p2p_comm needs vp > 1); nemo's preset keeps overlap.pp 1 on 1F1B
for fw in nemo megatron-bridge; do
    sed "s/schedule: interleaved, virtual_stages: 5/schedule: 1f1b, virtual_stages: 1/; s/^name: .*/name: fw-$fw-1f1b/" \
        "$work/fw-$fw.yaml" >"$work/fw-$fw-1f1b.yaml"
    "$planeval" run "$work/fw-$fw-1f1b.yaml" -o "$work/out" >/dev/null 2>&1
done
"$planeval" explain "$work/fw-megatron-bridge-1f1b.yaml" --plan nemo-2407-llama3-70b-64gpu >"$work/explain-mb-1f1b.out" 2>&1
pp_of() { csv_column "$work/out/fw-$1.csv" pp_comm_s; }
check "explain: X34 puts megatron-bridge's 1F1B sends at overlap.pp 0, its interleaved ones at 1" \
    'grep -A1 "^X34 " "$work/explain-mb-1f1b.out" | grep -q "^       = 0   (not interleaved, v = 1: the sends blocking)" &&
     grep -A1 "^X34 " "$work/explain-mb.out" | grep -q "^       = 1   (interleaved, v = 5: the plan.s overlap.pp)" &&
     ! grep -q "^X34 " "$work/explain-nemo.out"'
check "so megatron-bridge's 1F1B plan exposes its sends ($(pp_of megatron-bridge-1f1b) > $(pp_of nemo-1f1b) s under nemo)" \
    'awk -v a="$(pp_of megatron-bridge-1f1b)" -v b="$(pp_of nemo-1f1b)" "BEGIN { exit !(a > b && a > 0) }"'

"$planeval" explain "$work/fw-torchtitan.yaml" --plan nemo-2407-llama3-70b-64gpu >"$work/explain.out" 2>&1
check "explain prints the flags (async TP as X16's micro-pipeline named) and the overlap in force" \
    'grep -q "^     framework flags: .*async TP: overlap tp 1 in the runs that name it, X16" "$work/explain.out" &&
     grep -q "^     overlap in force: tp 0, cp 1, dp 1, pp 0, ep 0 " "$work/explain.out"'

# the same plan, two presets: the performance recipe hides the data-parallel collectives
dp_of() { csv_column "$work/out/fw-$1.csv" dp_comm_s; }
step_of() { csv_column "$work/out/fw-$1.csv" step_time_s; }
check "megatron-core-perf exposes less data-parallel time than megatron-core ($(dp_of megatron-core-perf) < $(dp_of megatron-core))" \
    'awk -v a="$(dp_of megatron-core-perf)" -v b="$(dp_of megatron-core)" "BEGIN { exit !(a < b) }"'
check "and so a shorter step ($(step_of megatron-core-perf) < $(step_of megatron-core))" \
    'awk -v a="$(step_of megatron-core-perf)" -v b="$(step_of megatron-core)" "BEGIN { exit !(a < b) }"'

# a textbook scenario names no framework: only the overlap in force
grep -v '^framework:\|^fidelity:' "$base" | sed 's/^name: .*/name: fw-none/' >"$work/fw-none.yaml"
echo 'fidelity: textbook' >>"$work/fw-none.yaml"
"$planeval" run "$work/fw-none.yaml" -o "$work/out" >/dev/null 2>"$work/none.err"
check "a textbook run prints the overlap in force and no framework" \
    'grep -q "^fw-none: overlap: tp 0, cp 1, dp 1, pp 0$" "$work/none.err" && ! grep -q "^fw-none: framework" "$work/none.err"'

# X35: deepspeed's offloaded step copies fp32 both ways. Llama 3 8B, dp 8,
# ZeRO-2, offload: N_sh = 8,030,261,248/8 = 1,003,782,656 parameters; on
# h100-sxm's 64 GB/s host link T_h2d = 4·N_sh/64e9 = 0.0627364 s (X12's
# 2 bytes: 0.0313682 s); the same plan under fsdp's X12 keeps 2.
cat >"$work/ds-off.yaml" <<'YAML'
schema: planeval/v1
name: ds-off
fidelity: refined
model: { preset: llama3-8b, seq_len: 4096 }
cluster: { preset: h100-node, nodes: 1 }
framework: deepspeed
training: { global_batch: 16 }
plans:
  - { name: off, dp: 8, tp: 1, pp: 1, zero: 2, micro_batch: 2, recompute: full, offload_optimizer: true }
YAML
"$planeval" explain "$work/ds-off.yaml" --plan off >"$work/ds-off.out" 2>&1
check "deepspeed offload: explain names X35's 4 bytes" \
    'grep -q "^X35   bytes a parameter each host copy moves = offload_copy_bytes = 4" "$work/ds-off.out"'
check "deepspeed offload: T_h2d = 4·N_sh/B_host = 0.0627364 s" \
    'grep -q "T_h2d = 4·N_sh/B_host = 0.0627364 s (X35.s bytes)" "$work/ds-off.out"'
sed 's/^framework: deepspeed$/framework: { preset: deepspeed, offload_copy_bytes: 0 }/' "$work/ds-off.yaml" >"$work/ds-off0.yaml"
"$planeval" explain "$work/ds-off0.yaml" --plan off >"$work/ds-off0.out" 2>&1
check "offload_copy_bytes 0: X12's 2 bytes (T_h2d 0.0313682 s), no X35 line" \
    'grep -q "T_h2d = 2·N_sh/B_host = 0.0313682 s (β_g and β_w)" "$work/ds-off0.out" && ! grep -q "^X35" "$work/ds-off0.out"'

finish
