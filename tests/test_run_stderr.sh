#!/usr/bin/env bash
# test_run_stderr.sh PLANEVAL SOURCE_DIR WORKDIR — what `run` says on stderr
# in a batch job's log: a plain progress line every --progress seconds off a
# terminal (no carriage return, no escape code, nothing that changes the
# report), and the memory note of a full report sized by the plans it
# keeps, not by the combinations it skips.
. "$(dirname "$0")/testlib.sh"

big=$src/tests/bench/gpt3-4096-lists.yaml
bigname=bench-gpt3-4096-lists

# ------------------------------------------------------------ progress off a terminal
# one thread over the bench sweep with micro_batch 1..48 (396.26 M
# combinations, 48/7 of the bench file's 57.8 M): several seconds however
# fast the machine, so a 1 s progress line always falls inside the run (the
# bench file alone now runs in under one second on one core)
long=$work/long.yaml
sed "s/micro_batch: \[1, 2, 4, 8, 16, 32, 64\]/micro_batch: [$(seq -s ', ' 1 48)]/" "$big" >"$long"
check "the long sweep's micro_batch list is 1..48" 'grep -q "micro_batch: \[1, 2, 3, .*, 47, 48\]" "$long"'
"$planeval" run --top 50 --threads 1 --progress 1 -o "$work/p1" "$long" 2>"$work/p1.err"; rc=$?
lines=$(grep -c "^$bigname: progress: " "$work/p1.err")
line_re="^$bigname: progress: [0-9]+ of 396264960 combinations done \([0-9]+\.[0-9]%\), [0-9]+ plans evaluated, [0-9]+ plans/s, [0-9]+ s elapsed, about [0-9]+ s left$"
check "--progress 1 off a terminal: progress lines in the log (exit $rc, $lines lines)" \
    '[ $rc -eq 0 ] && [ "$lines" -ge 1 ]'
check "... each in plain numbers: done of total, percent, plans, plans/s, elapsed, left" \
    '[ "$(grep "^$bigname: progress: " "$work/p1.err" | grep -cE "$line_re")" -eq "$lines" ]'
check "... no carriage return or escape code anywhere on stderr" \
    '! grep -q "$(printf "[\r\033]")" "$work/p1.err"'
"$planeval" run --quiet --top 50 --threads 2 --progress 0 -o "$work/p0" "$long"
check "... the report is the one a run without progress writes" \
    'cmp -s "$work/p1/$bigname.csv" "$work/p0/$bigname.csv" &&
     diff <(grep -v "^threads,\|^wall_s,\|^plans_per_s," "$work/p1/$bigname.summary.csv") \
          <(grep -v "^threads,\|^wall_s,\|^plans_per_s," "$work/p0/$bigname.summary.csv") >/dev/null'
"$planeval" run --top 50 --threads 2 -o "$work/pd" "$big" 2>"$work/pd.err"
check "without --progress, a log gets a line a minute: none in a short run" \
    '! grep -q "progress:" "$work/pd.err" && grep -q "^$bigname: best: " "$work/pd.err"'
"$planeval" run --quiet --top 50 --threads 1 --progress 1 -o "$work/pq" "$long" 2>"$work/pq.err"
check "--quiet silences --progress" '[ ! -s "$work/pq.err" ]'
for bad in -1 x 1.5 86401; do
    "$planeval" run --progress "$bad" -o "$work/bad" "$big" 2>"$work/bad.err"; rc=$?
    check "--progress $bad: exit 2 (got $rc), nothing run" \
        '[ $rc -eq 2 ] && grep -q "^planeval: --progress needs a whole number of seconds in 0..86400 (0: no progress), got '"'$bad'"'$" "$work/bad.err" && [ ! -e "$work/bad" ]'
done

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
