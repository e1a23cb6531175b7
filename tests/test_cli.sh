#!/usr/bin/env bash
# test_cli.sh PLANEVAL SOURCE_DIR WORKDIR — the command line end to end:
# reports identical for 1 and N threads, --top K is the head of the full
# report, exit codes, a bad file does not stop the others, no partial report.
. "$(dirname "$0")/testlib.sh"

scen=$src/scenarios/drills/01-fit-the-model.yaml
name=01-fit-the-model

# 1 thread and 2 threads give byte-identical reports.
"$planeval" run --quiet --threads 1 -o "$work/t1" "$scen"; rc1=$?
"$planeval" run --quiet --threads 2 -o "$work/t2" "$scen"; rc2=$?
check "run exits 0 (got $rc1, $rc2)" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]'
check "1 vs 2 threads byte-identical" 'cmp -s "$work/t1/$name.csv" "$work/t2/$name.csv"'
rows=$(($(wc -l <"$work/t1/$name.csv") - 1))
check "report has rows ($rows)" '[ $rows -gt 10 ]'

# The header is docs/scenarios.md's column list, in order, then added columns.
want='rank,scenario,plan,status,reason,gpus,dp,tp,pp,cp,zero,recompute,schedule,virtual_stages,sequence_parallel,micro_batch,microbatches,worst_stage,mem_weights_gib,mem_grads_gib,mem_optimizer_gib,mem_activations_gib,mem_other_gib,mem_reserve_gib,mem_total_gib,mem_budget_gib,mem_headroom_gib,compute_s,tp_comm_s,cp_comm_s,bubble_s,pp_comm_s,dp_comm_s,optimizer_s,step_time_s,comm_fraction,bubble_fraction,bound,tokens_per_s,mfu,hfu,tflops_per_gpu,train_days,gpu_hours,interventions,state_total_gib,act_total_gib'
got=$(head -1 "$work/t1/$name.csv")
check "header starts with docs/scenarios.md's columns" '[ "${got#"$want"}" != "$got" ]'
check "LF line endings" '! grep -q $'"'"'\r'"'"' "$work/t1/$name.csv"'

# --top K writes the K best rows: the head of the full report.
"$planeval" run --quiet --top 5 -o "$work/top" "$scen"
check "--top 5 is the head of the full report" \
    'cmp -s "$work/top/$name.csv" <(head -6 "$work/t1/$name.csv")'
"$planeval" run --quiet --top 5 --threads 2 -o "$work/top2" "$scen"
check "--top 5 with 2 threads identical" 'cmp -s "$work/top/$name.csv" "$work/top2/$name.csv"'

# Exit codes: missing file 2; a bad file is reported, the good one still runs.
"$planeval" run --quiet -o "$work/miss" "$work/nope.yaml" 2>"$work/err"; rc=$?
check "missing file exits 2 (got $rc)" '[ $rc -eq 2 ]'
printf 'schema: planeval/v1\nmodel: {layers: 0}\n' >"$work/bad.yaml"
"$planeval" run --quiet -o "$work/mixed" "$work/bad.yaml" "$scen" 2>"$work/err"; rc=$?
check "bad + good exits 2 (got $rc)" '[ $rc -eq 2 ]'
check "good file still reported" '[ -f "$work/mixed/$name.csv" ]'
check "no report for the bad file" '[ ! -e "$work/mixed/bad.csv" ]'
check "one FILE:LINE:COL message" 'grep -Eq "^$work/bad.yaml:[0-9]+:[0-9]+: error: " "$work/err"'
check "no temporary files left" '[ -z "$(ls "$work/mixed" | grep tmp)" ]'

# Two scenarios with one name in one run: an error for the second.
cp "$scen" "$work/copy.yaml"
"$planeval" run --quiet -o "$work/dup" "$scen" "$work/copy.yaml" 2>"$work/err"; rc=$?
check "duplicate scenario name exits 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "already used" "$work/err"'

# Usage errors.
"$planeval" frobnicate 2>/dev/null; rc=$?
check "unknown command exits 2" '[ $rc -eq 2 ]'
"$planeval" run --top 0 "$scen" 2>/dev/null; rc=$?
check "--top 0 exits 2" '[ $rc -eq 2 ]'
"$planeval" --version >"$work/v"; rc=$?
check "--version" '[ $rc -eq 0 ] && grep -q "^planeval " "$work/v"'
"$planeval" --help >"$work/h"; rc=$?
check "--help on stdout" '[ $rc -eq 0 ] && grep -q "usage: planeval" "$work/h"'

# validate prints its "ok" line with the counts on stdout, nothing on
# stderr, and exits 0 on a good file.
out=$("$planeval" validate "$scen" 2>"$work/validate.err"); rc=$?
check "validate exits 0, its ok line on stdout, stderr empty" \
    '[ $rc -eq 0 ] && [ "$(printf "%s\n" "$out" | grep -c ": ok (")" -eq 1 ] && [ ! -s "$work/validate.err" ]'

# Degrees up to 2^53 are legal input: products of them overflow 64 bits and
# must neither misbehave (UBSan in the sanitizer build) nor print garbage.
cat >"$work/huge.yaml" <<'EOF'
schema: planeval/v1
name: huge
model: { preset: gpt3-175b }
cluster: { preset: mi300x-node, nodes: 8 }
training: { global_batch: 1536 }
plans:
  - { name: pv, dp: 1, pp: 9007199254740992, schedule: interleaved, virtual_stages: 9007199254740992 }
  - { name: bdp, dp: 9007199254740992, micro_batch: 9007199254740992 }
sweep: { dp: auto, pp: [9007199254740992], cp: [9007199254740992] }
EOF
"$planeval" run --quiet -o "$work/huge" "$work/huge.yaml" 2>"$work/err"; rc=$?
check "huge degrees: exit 0 (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$work/err" ]'
check "V3 names the overflowing factors" 'grep -q "V3: pp\*virtual_stages=9007199254740992\*9007199254740992 does not divide layers=96" "$work/huge/huge.csv"'
check "V5 names the overflowing factors" 'grep -q "V5: micro_batch\*dp=9007199254740992\*9007199254740992 does not divide" "$work/huge/huge.csv"'
"$planeval" explain "$work/huge.yaml" --plan bdp >"$work/explain" 2>&1; rc=$?
check "explain of an overflowing plan" '[ $rc -eq 0 ] && grep -q "= 9007199254740992\*9007199254740992 |" "$work/explain"'

# A reserve above the GPU's memory is the spec's R >= 0, not an error: the
# file loads and every plan is over_memory with budget - total as headroom
# (a 16 GiB GPU under the default-sized 24 GiB reserve: 16 - 24 < 0).
cat >"$work/reserve.yaml" <<'YAML'
schema: planeval/v1
model: {layers: 4, hidden: 1024, heads: 8, vocab: 32000, seq_len: 1024}
cluster:
  nodes: 1
  gpus_per_node: 8
  reserve_gib: 24
  gpu: {hbm_gib: 16, peak_tflops: 312, hbm_tb_s: 2}
  intra_node: {topology: switch, bandwidth_gb_s: 300, latency_us: 2}
training: {global_batch: 64}
sweep: {dp: auto, tp: [1, 2, 4, 8]}
YAML
"$planeval" run --quiet -o "$work/reserve" "$work/reserve.yaml" 2>"$work/err"; rc=$?
check "reserve above hbm_gib loads and runs (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$work/err" ]'
check "reserve above hbm_gib: every plan over_memory" \
    '[ "$(cut -d, -f4 "$work/reserve/reserve.csv" | tail -n +2 | sort -u)" = over_memory ]'
check "reserve above hbm_gib: headroom = budget - total < 0 on every row" \
    'awk -F, "NR > 1 { d = \$26 - \$25 - \$27; if (\$27 >= 0 || d > 1e-9 || d < -1e-9) bad = 1 } END { exit bad }" "$work/reserve/reserve.csv"'

finish
