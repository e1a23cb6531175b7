#!/usr/bin/env bash
# test_run_stderr.sh PLANEVAL SOURCE_DIR WORKDIR — what `run` says on stderr
# in a batch job's log: the memory note of a full report sized by the plans
# it keeps, not by the combinations it skips.
. "$(dirname "$0")/testlib.sh"

big=$src/tests/bench/gpt3-4096-lists.yaml

# ------------------------------------------------------------ the full report's memory note
# 33.6 M combinations of which 84 are plans: a full report of 84 rows
values=$(seq -s, 1 200)
cat >"$work/sparse.yaml" <<EOF
schema: planeval/v1
name: sparse-sweep
model: { preset: gpt3-175b }
cluster: { preset: h100-node, nodes: 512, allow_cross_node_tp: true }
training: { global_batch: 4096 }
budgets: { memory_gib: 80 }
sweep:
  tp: [1]
  pp: [1]
  cp: [1]
  dp: [4096]
  zero: [0, 1, 2, 3]
  recompute: [none, selective, full]
  micro_batch: [1, 2, 4, 8, 16, 32, 64]
  schedule: [1f1b, interleaved, gpipe, zb-h1, zb-h2]
  virtual_stages: [$values]
  sequence_parallel: [false, true]
  ep: [$values]
EOF
"$planeval" run -o "$work/sparse" "$work/sparse.yaml" 2>"$work/sparse.err"; rc=$?
check "84 plans of 33.6 M combinations, no --top: no memory note (exit $rc)" \
    '[ $rc -eq 0 ] && grep -q "^sparse-sweep: 84 plans" "$work/sparse.err" && ! grep -q "note: .*no --top" "$work/sparse.err"'
# 31.7 M plans of 115.6 M combinations: the note gives the plans; the run is
# stopped as soon as it is said
sed 's/^name: .*/name: many-plans/; s/^  sequence_parallel: \[false, true\]$/&\n  offload_optimizer: [false, true]/' \
    "$big" >"$work/many.yaml"
note_of() { # note_of NAME [OPTION...]: the run's stderr until its memory note
    local name=$1 i
    shift
    "$planeval" run --threads 1 "$@" -o "$work/$name" "$work/many.yaml" 2>"$work/$name.err" & pid=$!
    for ((i = 0; i < 3000; i++)); do
        grep -q "note: " "$work/$name.err" && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.01
    done
    kill -INT $pid 2>/dev/null
    wait $pid
}
note_of many
check "31.7 M plans, no --top: the note counts the plans kept, not the combinations" \
    'grep -q "^many-plans: note: 31707312 plans (of 115577280 combinations) and no --top: every plan'"'"'s row is kept in memory to rank the full report, about 1000 bytes a row (measured), so up to 29.5 GiB; --top K keeps only K$" "$work/many.err"'
note_of many-status --status ok
check "... with --status, the rows of the statuses asked for, at most that many" \
    'grep -q "^many-plans: note: 31707312 plans (of 115577280 combinations) and no --top: every plan'"'"'s row of the statuses asked for (--status) is kept in memory .* so up to 29.5 GiB" "$work/many-status.err"'

finish
