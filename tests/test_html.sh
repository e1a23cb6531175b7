#!/usr/bin/env bash
# test_html.sh PLANEVAL SOURCE_DIR WORKDIR — the HTML report without a
# browser: `run --html` and `planeval html REPORT.csv` write one
# self-contained page (no external reference), with a drawn point per
# plan, the Pareto front as a table whose size the summary states, and the
# stacked bars; a sweep of 190,908 plans is drawn as at most ~20,000
# points in a file under 5 MB, saying so. (test_html_browser.sh renders.)
. "$(dirname "$0")/testlib.sh"

scen=$src/scenarios/drills/02-choose-parallelism/02b-70b-8-nodes.yaml
name=02b-70b-8-nodes

"$planeval" run --quiet --html -o "$work/run" "$scen"; rc=$?
page=$work/run/$name.html
check "run --html exits 0 (got $rc) and writes DIR/<name>.html" '[ $rc -eq 0 ] && [ -s "$page" ]'
check "the CSV report is unchanged by --html" \
    '"$planeval" run --quiet -o "$work/plain" "$scen" && cmp -s "$work/plain/$name.csv" "$work/run/$name.csv"'
# self-contained: nothing fetched (no src=, href= to a file or URL, url(), @import)
check "no external reference" \
    '! grep -Eiq "(src|href)=\"(https?:|//|[a-z0-9_./-]+\\.(js|css|png|svg))|url\\(|@import|<link" "$page"'
check "at most a few KB of script" \
    '[ $(sed -n "s/.*<script>\\(.*\\)<\\/script>.*/\\1/p" "$page" | wc -c) -lt 4096 ]'

# every ok/over_time/over_memory plan is a point (fewer than 20,000 here)
drawable=$(awk -F, 'NR > 1 && $4 != "invalid"' "$work/run/$name.csv" | wc -l)
points=$(grep -c '^<use href="#m[cmb]" class="\(ok\|ot\|om\)' "$page")
check "one point per drawable plan ($points of $drawable)" '[ "$points" -eq "$drawable" ]'
ok_points=$(grep -c '^<use href="#m[cmb]" class="ok' "$page")
ok_rows=$(awk -F, 'NR > 1 && $4 == "ok"' "$work/run/$name.csv" | wc -l)
check "ok points = ok rows ($ok_points, $ok_rows)" '[ "$ok_points" -eq "$ok_rows" ]'
pareto_rows=$(sed -n '/<table id="pareto">/,/<\/table>/p' "$page" | grep -c '^<tr><td>')
pareto_summary=$(awk -F, '$1 == "pareto_optimal" { print $2 }' "$work/run/$name.summary.csv")
check "Pareto table rows = summary's pareto_optimal ($pareto_rows, $pareto_summary)" \
    '[ "$pareto_rows" -gt 0 ] && [ "$pareto_rows" = "$pareto_summary" ]'
check "Pareto points marked (pf) as many as table rows" \
    '[ $(grep -c "^<use href=\"#m[cmb]\" class=\"ok pf\"" "$page") -eq "$pareto_rows" ]'
check "the front is drawn in both x views" '[ $(grep -c "<path class=\"front ax[12]\"" "$page") -eq 2 ]'
check "stacked bars of time and memory, 10 plans each" \
    '[ $(grep -o "<rect class=\"seg\"" "$page" | wc -l) -ge 20 ] && grep -q "id=\"bars-time\"" "$page" && grep -q "id=\"bars-mem\"" "$page"'
check "facts: model, gpus, efficiency, overlap" \
    'grep -q ">model</th>" "$page" && grep -q ">gpus</th>" "$page" && grep -q ">flops_efficiency</th>" "$page" && grep -q ">overlap</th>" "$page"'
check "counts: status, rule, skipped reason" \
    'grep -q ">status: ok</th>" "$page" && grep -q ">invalid: V6</th>" "$page" && grep -q ">skipped: schedule applies to pp &gt; 1 only</th>" "$page"'
best=$(awk -F, 'NR == 2 { print $3 }' "$work/run/$name.csv")
check "the best plan named" 'grep -q "<p id=\"best\"><code>$best</code>" "$page"'
check "the memory budget line" 'grep -q "memory budget 80 GiB" "$page"'

# a refined scenario's facts are the numbers the model used: fidelity, the
# framework and what it puts in force, the GPU's refinement numbers instead
# of flops_efficiency, the precision, the links' C8 numbers, the expert shape
cat >"$work/refined.yaml" <<'YAML'
schema: planeval/v1
name: refined-moe
framework: nemo
model: { preset: mixtral-8x7b }
precision: { compute: fp8 }
cluster: { preset: h100-node, nodes: 2 }
training: { global_batch: 128 }
overlap: { ep: 0.5 }
plans:
  - { name: ep8, dp: 8, tp: 2, ep: 8, zero: 1 }
YAML
"$planeval" run --quiet --html -o "$work/refined" "$work/refined.yaml"; rc=$?
rsum=$work/refined/refined-moe.summary.csv
rfact() { awk -F, -v k="fact: $1" '$1 == k { sub(/^[^,]*,/, ""); gsub(/"/, ""); print }' "$rsum"; }
check "refined: run --html exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "refined: the fidelity is a fact ($(rfact fidelity | cut -c1-40))" 'rfact fidelity | grep -q "^refined "'
check "refined: the framework and every number it sets ($(rfact framework | cut -c1-60))" \
    'rfact framework | grep -q "^nemo: pp_scatter_gather true, dp_algorithm flat, allreduce auto, dp_bucket_mb 80, comm_slowdown 0, tp_async_backward true, grad_accum_bytes 0, optimizer_pass_bytes 50, bubble_by_stage true, moe_permute_bytes 14, calibrated true, mem_peak_below none, mem_peak_above 0, mem_peak_interval_runs 0, memory_by_phase true, loss_bytes 10, master_weights_only false, pp_unsharded_params false, optimizer_temp_bytes 0, workspace_mib 32, allocator_fragmentation 0, cuda_context_gib 0, selective_recompute attention, tp_gathered_inputs false, overlap_slowdown 0.189, tp_micro_pipeline false, recompute_method uniform, recompute_num_layers 1, megatron_legacy_model false, te_saved_tensors false, gemm_rate_scale 1, pp_microbatch_group 0, recompute_modules core_attn, cached_input_bytes 2, attention_output_bytes 2, cp_ring_buffers none, eager_elementwise false, fused_rmsnorm false, cp_kv_allgather false, attention_kernel none, comm_sms 0, tied_embedding_allreduce false, cpu_offloading false, cpu_offloading_num_layers 0, tp_fp8_all_gather false, moe_dispatch_saved true, pp_recv_grad true, attention_causal_work false, nccl_channels 0, tp_seq_dim_copy false, dp_grad_collective reduce_scatter, dp_grad_comm_bytes 0, dp_grad_window backward, cp_ring_per_step true, cp_ring_net_channels 2, dp_chunk_sync true, pp_overlap_interleaved_only false, tp_grad_sum_unfused false, tp_fused_rs_reduce false, tp_ag_shard_stage false, fp8_cast_by_role false, fp8_kernel_rate false, op_sac_recompute_elementwise false, cp_ring_load_balance false, ddp_grad_buckets false, unsharded_grad_bytes 0, deepspeed_zero false, reduce_bucket_size 5e+08, contiguous_gradients true, overlap_comm auto, stage3_prefetch_bucket_size 5e+07, stage3_max_live_parameters 1e+09, stage3_max_reuse_distance 1e+09, stage3_param_persistence_threshold 100000, sub_group_size 1e+09, offload_copy_bytes 0$"'
check "refined: the overlap in force, ep too, and where it comes from ($(rfact overlap | cut -c1-60))" \
    'rfact overlap | grep -q "^tp 1, cp 1, dp 1, pp 1, ep 0.5 in force (the framework nemo.s overlap, then the scenario.s overlap:"'
check "refined: the GPU preset's refinement numbers, FP8 ones too" \
    'rfact gpu_refinements | grep -q "gemm_efficiency 0.6606, gemm_half_gflop 4.99, attention_efficiency 0.53, elementwise_efficiency 1, microbatch_overhead_us 0, attention_half_seq 370, attention_half_head_dim 58, attention_causal_tile 128, gemm_half_measured true, fp8_gemm_efficiency 0.4859$"'
check "refined: no flops_efficiency row (gemm_efficiency replaces F6)" '[ -z "$(rfact flops_efficiency)" ]'
check "refined: the compute precision" 'rfact precision | grep -q "^compute fp8 (the linear layers. GEMMs at peak_fp8_tflops 1978.9), fp8_weight_bytes 2"'
check "refined: the links' C8 numbers" 'rfact intra_node | grep -q "(C8: bus_efficiency 0.81, half_message_mb 0)$"'
check "refined: the expert shape ($(rfact experts | cut -c1-50))" \
    'rfact experts | grep -q "^experts 8, top_k 2, moe_ffn_hidden 14336, shared_experts 0, dense_layers 0, moe_every 1, capacity_factor dropless, moe_imbalance 1, dispatch_bytes 2; ep and etp: each plan"'
check "refined: the page shows them" \
    'grep -q "<tr><th>framework</th><td>nemo: pp_scatter_gather" "$work/refined/refined-moe.html" && grep -q "<tr><th>experts</th><td>experts 8, top_k 2" "$work/refined/refined-moe.html"'
"$planeval" html --quiet -o "$work/refined-again" "$work/refined/refined-moe.csv"
check "refined: planeval html reads them back from the summary" \
    'grep -q "<tr><th>framework</th><td>nemo: pp_scatter_gather" "$work/refined-again/refined-moe.html"'
# the presets of today's stacks: the page shows what each stands for and
# the numbers it sets (megatron-bridge: the bf16 128M-parameter bucket, TE's
# fused loss), read back by planeval html from the summary too
for fw in megatron-bridge nemo-automodel llm-foundry; do
    sed "s/^framework: nemo$/framework: $fw/; s/^name: refined-moe$/name: refined-$fw/" "$work/refined.yaml" >"$work/refined-$fw.yaml"
    "$planeval" run --quiet --html -o "$work/stacks" "$work/refined-$fw.yaml"; rc=$?
    "$planeval" html --quiet -o "$work/stacks-again" "$work/stacks/refined-$fw.csv"; rc2=$?
    check "refined under $fw: run --html and html exit 0 (got $rc, $rc2)" '[ $rc -eq 0 ] && [ $rc2 -eq 0 ]'
    check "refined under $fw: the page names the preset and its flags, read back alike" \
        'for d in stacks stacks-again; do grep -q "<tr><th>framework</th><td>$fw: pp_scatter_gather" "$work/$d/refined-$fw.html" &&
             grep -q "<tr><th>framework_flags</th><td>$(awk -F"\"" "/^  $fw:\$/ { on = 1 } on && /^    flags: / { print substr(\$2, 1, 30); exit }" "$src/scenarios/catalog/frameworks.yaml")" "$work/$d/refined-$fw.html" || exit 1; done'
done
check "refined under megatron-bridge: its bucket and loss on the page" \
    'grep -q "<tr><th>framework</th><td>megatron-bridge: pp_scatter_gather true, dp_algorithm flat, allreduce auto, dp_bucket_mb 268.4, .* loss_bytes 2, " "$work/stacks/refined-megatron-bridge.html"'
check "textbook: the facts are the textbook ones" \
    '[ "$(awk -F, "/^fact: /{ print \$1 }" "$work/run/$name.summary.csv" | tr "\n" "|")" = "fact: model|fact: gpus|fact: gpu|fact: flops_efficiency|fact: reserve|fact: intra_node|fact: inter_node|fact: overlap|fact: training|fact: budgets|fact: budget: memory_gib|" ]'

# the time bars: every addend of S1′ (ep_comm_s too) is a segment, so each
# bar is as long as its step_time_s; planeval html on the report names a
# plan by the canonical text of its plan cell, never one rebuilt from the
# columns, which have no -ep/-etp/-fs/-ls/-off tail
cat >"$work/bars.yaml" <<'YAML'
schema: planeval/v1
name: bars-moe
fidelity: refined
model: { preset: mixtral-8x7b }
cluster: { preset: h100-node, nodes: 4 }
training: { global_batch: 256 }
plans:
  - { name: ep8-uneven, dp: 16, tp: 1, pp: 2, ep: 8, zero: 1, first_stage_layers: 15 }
sweep:
  tp: [1, 2]
  pp: [1, 2]
  dp: auto
  ep: [1, 2, 4, 8]
  etp: [1]
  zero: [1]
  recompute: [selective, full]
  offload_optimizer: [false, true]
  first_stage_layers: [15]
YAML
"$planeval" run --quiet --html -o "$work/bars" "$work/bars.yaml"; rc=$?
"$planeval" html --quiet -o "$work/bars-again" "$work/bars/bars-moe.csv"
bcsv=$work/bars/bars-moe.csv
paste -d' ' <(csv_column "$bcsv" status) <(csv_column "$bcsv" step_time_s) <(csv_column "$bcsv" ep_comm_s) |
    awk '$1 != "invalid"' | head -10 >"$work/bars.rows"
# each time bar's segments' widths summed (one line a bar in the page)
bar_sums() {
    sed -n '/<svg class="bars" id="bars-time"/,/<\/svg>/p' "$1" | grep '<text class="bl"' |
        awk '{ s = 0; n = split($0, a, "<rect class=\"seg\"")
               for (i = 2; i <= n; i++) { match(a[i], /width="[0-9.]+"/); s += substr(a[i], RSTART + 7, RLENGTH - 8) }
               print s }'
}
bar_sums "$work/bars/bars-moe.html" >"$work/bars.sums"
eps=$(awk '$3 > 0' "$work/bars.rows" | wc -l)
ep_segs=$(sed -n '/<svg class="bars" id="bars-time"/,/<\/svg>/p' "$work/bars/bars-moe.html" | grep -c '<title>ep_comm_s = ')
check "bars: run exits 0 (got $rc), 10 bars drawn" '[ $rc -eq 0 ] && [ $(wc -l <"$work/bars.sums") -eq 10 ]'
check "bars: each MoE plan's time bar has its ep_comm_s segment ($ep_segs of $eps)" \
    '[ "$eps" -gt 0 ] && [ "$ep_segs" -eq "$eps" ]'
spread=$(paste -d' ' "$work/bars.sums" "$work/bars.rows" |
    awk '{ r = $1 / $3; if (NR == 1 || r < lo) lo = r; if (r > hi) hi = r } END { printf "%.5f", hi / lo }')
check "bars: every time bar's length is in proportion to its step_time_s (spread $spread)" \
    'awk -v x="$spread" "BEGIN { exit !(x < 1.002) }"'
check "bars: planeval html draws the same time bars" \
    'bar_sums "$work/bars-again/bars-moe.html" | cmp -s - "$work/bars.sums"'
tip_heads() { grep -o '"#[0-9]* [^"\\]*' "$1" | sed 's/^"//' | sort; }
tip_heads "$work/bars/bars-moe.html" >"$work/bars.heads"
tip_heads "$work/bars-again/bars-moe.html" >"$work/bars-again.heads"
false_equal=$(grep ' = ' "$work/bars-again.heads" | comm -23 - "$work/bars.heads" | head -2 | tr '\n' ' ')
check "bars: planeval html writes no 'name = canonical text' that run --html does not (${false_equal:-none})" \
    '[ -z "$false_equal" ] && [ $(wc -l <"$work/bars-again.heads") -eq $(wc -l <"$work/bars.heads") ]'
check "bars: a sweep plan's canonical text keeps its tail" \
    'grep -q "^#[0-9]* dp8-tp2-pp2-cp1-z1-full-mb1-1f1b-v1-sp1-ep4-etp1-fs15-off$" "$work/bars-again.heads"'
check "bars: a named plan read back is named alone, and the page says why" \
    'grep -q "^#[0-9]* ep8-uneven$" "$work/bars-again.heads" && grep -q "<p class=\"note\" id=\"names\">1 named plan is shown by name alone" "$work/bars-again/bars-moe.html"'
check "bars: run --html names it with its whole canonical text" \
    'grep -q "^#[0-9]* ep8-uneven = dp16-tp1-pp2-cp1-z1-none-mb1-1f1b-v1-sp0-ep8-fs15$" "$work/bars.heads"'

# planeval html on the written report: the same figures
"$planeval" html --quiet -o "$work/again" "$work/run/$name.csv"; rc=$?
again=$work/again/$name.html
check "planeval html exits 0 (got $rc) and writes DIR/<stem>.html" '[ $rc -eq 0 ] && [ -s "$again" ]'
check "same points, Pareto table and bars as run --html" \
    'diff <(sed -n "/<svg id=\"sc\"/,\$p" "$page") <(sed -n "/<svg id=\"sc\"/,\$p" "$again") >/dev/null'
check "facts from the summary beside the report" 'grep -q ">flops_efficiency</th>" "$again"'
# without a summary: counts from the rows, said so
cp "$work/run/$name.csv" "$work/alone.csv"
"$planeval" html --quiet -o "$work/alone" "$work/alone.csv"
check "no summary: counts of the rows, noted" \
    'grep -q "no summary beside the report" "$work/alone/alone.html" && grep -q ">status: ok</th><td>$ok_rows<" "$work/alone/alone.html"'
# merged shards
for i in 0 1; do "$planeval" run --quiet --shard $i/2 -o "$work/shards" "$scen"; done
"$planeval" merge --quiet "$work"/shards/$name.shard-*-of-2.csv -o "$work/merged.csv"
"$planeval" html --quiet -o "$work/merged" "$work/merged.csv"; rc=$?
check "merged shards: a page with every point" \
    '[ $rc -eq 0 ] && [ $(grep -c "^<use href=\"#m[cmb]\" class=\"\\(ok\\|ot\\|om\\)" "$work/merged/merged.html") -eq "$drawable" ]'

# bad inputs: exact messages
"$planeval" html 2>"$work/err"; rc=$?
check "html without a report: usage error" \
    '[ $rc -eq 2 ] && grep -qx "planeval: html: no report given (planeval html REPORT.csv... \[-o DIR\])" "$work/err"'
"$planeval" html --quiet -o "$work/x" "$work/nope.csv" 2>"$work/err"; rc=$?
check "missing report: exit 2" '[ $rc -eq 2 ] && grep -q "^$work/nope.csv: error: cannot read the file: No such file or directory" "$work/err"'
printf 'a,b\n1,2\n' >"$work/notreport.csv"
"$planeval" html --quiet -o "$work/x" "$work/notreport.csv" 2>"$work/err"; rc=$?
check "not a report: exit 2, exact message" \
    '[ $rc -eq 2 ] && grep -qx "$work/notreport.csv:1:1: error: not a planeval report: no column '"'"'rank'"'"'" "$work/err"'
# a figure that is not one as the writer writes it (nan, inf, hexadecimal,
# text, a negative time): refused at its cell, no page with a bar of no length
for v in nan inf -inf 0x10 1e999 abc -1; do
    awk -F, -v OFS=, -v v="$v" 'NR == 2 { $35 = v } { print }' "$work/run/$name.csv" >"$work/fig.csv"
    rm -rf "$work/fig"
    "$planeval" html --quiet -o "$work/fig" "$work/fig.csv" >"$work/out" 2>"$work/err"; rc=$?
    check "step_time_s '$v': exit 2 at its cell, no page (got $rc: $(head -c 200 "$work/err"))" \
        '[ $rc -eq 2 ] && grep -q "^$work/fig.csv:2:35: error: step_time_s: not a figure" "$work/err" && [ ! -e "$work/fig/fig.html" ] && [ ! -s "$work/out" ]'
done
mkdir -p "$work/o2"; cp "$work/run/$name.csv" "$work/o2/$name.csv"
"$planeval" html --quiet -o "$work/x" "$work/run/$name.csv" "$work/o2/$name.csv" 2>"$work/err"; rc=$?
check "two reports of one stem refused" '[ $rc -eq 2 ] && grep -q "give reports of different file names" "$work/err"'

# a big sweep: binned, every Pareto and top point kept, small file
big=$src/tests/bench/gpt3-4096.yaml
"$planeval" run --quiet --html --threads 2 -o "$work/big" "$big"; rc=$?
bigpage=$work/big/bench-gpt3-4096.html
bigdrawn=$(grep -c '^<use href="#m[cmb]" class="\(ok\|ot\|om\)' "$bigpage")
bigsize=$(wc -c <"$bigpage")
check "big sweep: exit 0, binned and said so" '[ $rc -eq 0 ] && grep -q "<p class=\"note\" id=\"sampled\">" "$bigpage"'
check "big sweep: at most ~20,000 points drawn ($bigdrawn)" '[ "$bigdrawn" -le 20500 ] && [ "$bigdrawn" -gt 1000 ]'
check "big sweep: file under 5 MB ($bigsize bytes)" '[ "$bigsize" -lt 5000000 ]'
bigpareto=$(awk -F, '$1 == "pareto_optimal" { print $2 }' "$work/big/bench-gpt3-4096.summary.csv")
check "big sweep: every Pareto point drawn ($bigpareto)" \
    '[ $(grep -c "^<use href=\"#m[cmb]\" class=\"ok pf\"" "$bigpage") -eq "$bigpareto" ]'
# rules past V9 are counted too (two-digit ids), by run and by html
cat >"$work/v15.yaml" <<'YAML'
schema: planeval/v1
name: v15
model: { preset: llama3-8b }
cluster: { preset: h100-node, nodes: 1 }
training: { global_batch: 64 }
plans:
  - { name: offload-z0, dp: 8, zero: 0, offload_optimizer: true }
  - { name: fine, dp: 8, zero: 1 }
YAML
"$planeval" run --quiet --html -o "$work/v15" "$work/v15.yaml"; rc=$?
"$planeval" html "$work/v15/v15.csv" -o "$work/v15page" >/dev/null 2>&1
check "a V15 plan: run --html (rc $rc) and html both count it" \
    'grep -q ">invalid: V15</th>" "$work/v15/v15.html" && grep -q ">invalid: V15</th>" "$work/v15page/v15.html"'
# A page write killed mid-file (a file-size limit stops it with SIGXFSZ)
# leaves its temporary; the next run --html into that directory removes
# it, as it removes a killed report's, and so does the next html command.
for next in run html; do
    mkdir -p "$work/killed-$next"
    cp "$work/run/$name.csv" "$work/killed-$next/"
    rc=$(bash -c 'ulimit -f 2; "$@" >/dev/null 2>&1; echo $?' limited \
        "$planeval" html "$work/killed-$next/$name.csv" -o "$work/killed-$next" 2>/dev/null)
    check "a page write killed mid-file (rc $rc) leaves a temporary ($next)" \
        '[ $rc -gt 128 ] && ls -A "$work/killed-$next" | grep -q tmp'
    if [ $next = run ]; then
        "$planeval" run --quiet --html -o "$work/killed-$next" "$scen"
    else
        "$planeval" html --quiet "$work/killed-$next/$name.csv" -o "$work/killed-$next"
    fi
    check "the next $next removes it (left: $(ls -A "$work/killed-$next" | grep tmp | tr '\n' ' '))" \
        '! ls -A "$work/killed-$next" | grep -q tmp'
done
echo "note: $name.html $(wc -c <"$page") bytes ($points points); bench-gpt3-4096.html $bigsize bytes ($bigdrawn points)"
finish
