#!/usr/bin/env bash
# test_bloom_run.sh — BLOOM 176B's published run as BigScience ran it
# (scenarios/published/bloom-176b-tr11-48nodes.yaml; docs/model.md §12
# "BLOOM as BigScience ran it"): the run inherited Megatron-LM's default
# dropout (bigscience-workshop/bigscience train/tr11-176B-ml/README.md: "The
# default Megatron-LM dropout settings are inherited: --attention-dropout
# 0.1 --hidden-dropout default=0.1"; the slurm script passes neither), so the
# file runs with model.dropout true and F10 times the masks; dropout never
# shortens the step (property over the file's plan and micro-batch sizes).
#
#   bash tests/test_bloom_run.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

f=$src/scenarios/published/bloom-176b-tr11-48nodes.yaml
plan=bloom-176b-tr11-48nodes
check "the BLOOM file runs with dropout on, as the run's flags did" \
    'grep -q "^model: { preset: bloom-176b, dropout: true }" "$f"'
run_both "the BLOOM file runs and its expect holds" "$f"
status=$(csv_column "$work/out/$plan.csv" status)
check "BLOOM trained, so it is ok or over_time ($status)" \
    '[ "$status" = ok ] || [ "$status" = over_time ]'

explain_file "$f" "$plan" explain
check "explain counts the dropout masks: A1's 2·δ·h with δ = 1" \
    'grep -q "= 8·14336 + 2·1·14336" "$work/explain.txt"'
# F10 with δ = 1 on stage 1's layer (b = 2, s = 2048, t = 4, a = 112):
# rep 8h + 2h + ... = 315392, att (4 + 5)·a·s = 9·112·2048 = 2064384 bytes
check "explain's F10 carries the attention dropout's 5·a·s bytes (att 2.06438e+06)" \
    'grep -q "4096·(315392/1 + 344064/4 + 2.06438e+06/4)" "$work/explain.txt"'

# property: the same run with dropout off is never slower, at every micro-batch
with=$(csv_column "$work/out/$plan.csv" step_time_s)
for mb in 1 2 4; do
    for d in true false; do
        sed -e "s/^model: { preset: bloom-176b, dropout: true }/model: { preset: bloom-176b, dropout: $d }/" \
            -e "s/^name: .*/name: bloom-d$d-mb$mb/" -e "s/micro_batch: 2,/micro_batch: $mb,/" \
            -e '/^expect:/,$d' "$f" >"$work/d$d-mb$mb.yaml"
        "$planeval" run "$work/d$d-mb$mb.yaml" -o "$work/out" --quiet >/dev/null 2>&1
    done
    on=$(csv_column "$work/out/bloom-dtrue-mb$mb.csv" step_time_s)
    off=$(csv_column "$work/out/bloom-dfalse-mb$mb.csv" step_time_s)
    check "micro-batch $mb: dropout on ($on s) is slower than off ($off s)" \
        'awk -v a="$on" -v b="$off" "BEGIN { exit !(a > b && b > 0) }"'
done
check "the file's own step is the dropout-on one ($with s)" \
    'awk -v a="$with" -v b="$(csv_column "$work/out/bloom-dtrue-mb2.csv" step_time_s)" "BEGIN { exit !(a == b) }"'

finish
