#!/usr/bin/env bash
# test_report_options.sh PLANEVAL SOURCE_DIR WORKDIR — reports people can
# read: --status (which statuses are written; the summary still counts
# every plan), --pareto (only Pareto-optimal plans, checked by brute force:
# no written plan is dominated by an ok plan, every ok plan left out is),
# --digits N, rank_by as a list, validate's combination and plan counts,
# and the exact messages of bad option values.
. "$(dirname "$0")/testlib.sh"

scen=$src/scenarios/drills/02-choose-parallelism/02a-7b-one-node.yaml
name=02a-7b-one-node
"$planeval" run --quiet -o "$work/full" "$scen"
full=$work/full/$name.csv

# --status: only those statuses, in the full report's order; counts unchanged
"$planeval" run --quiet --status ok,over_memory -o "$work/st" "$scen"; rc=$?
check "--status ok,over_memory exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "--status: rows of those statuses only, in the same order" \
    'diff <(awk -F, "NR > 1 && (\$4 == \"ok\" || \$4 == \"over_memory\")" "$full" | cut -d, -f3-) <(tail -n +2 "$work/st/$name.csv" | cut -d, -f3-) >/dev/null'
check "--status: ranks count the rows written" \
    '[ "$(tail -n +2 "$work/st/$name.csv" | cut -d, -f1 | tr "\n" " ")" = "$(seq -s " " 1 $(($(wc -l <"$work/st/$name.csv") - 1))) " ]'
check "--status: the summary counts every plan" \
    'diff <(grep -E "^(plans_evaluated|status: )" "$work/full/$name.summary.csv") <(grep -E "^(plans_evaluated|status: )" "$work/st/$name.summary.csv") >/dev/null'
"$planeval" run --quiet --status over_memory --top 7 -o "$work/sttop" "$scen"
check "--status with --top: the K best of those statuses" \
    'diff <(awk -F, "NR > 1 && \$4 == \"over_memory\"" "$full" | head -7 | cut -d, -f3-) <(tail -n +2 "$work/sttop/$name.csv" | cut -d, -f3-) >/dev/null'

# --pareto: every written plan is ok and not dominated by any ok plan; every
# ok plan not written is dominated (memory, step time: smaller is better)
"$planeval" run --quiet --pareto -o "$work/par" "$scen"; rc=$?
par=$work/par/$name.csv
n=$(($(wc -l <"$par") - 1))
check "--pareto exits 0 with rows (got $rc, $n rows)" '[ $rc -eq 0 ] && [ "$n" -gt 0 ]'
check "--pareto: the summary says how many" \
    '[ "$(awk -F, "\$1 == \"pareto_optimal\" { print \$2 }" "$work/par/$name.summary.csv")" = "$n" ]'
awk -F, 'NR > 1 && $4 == "ok" { print $25, $35, $3 }' "$full" >"$work/ok.txt"
tail -n +2 "$par" | awk -F, '{ print $3 }' | sort >"$work/front.txt"
bad=$(awk 'NR == FNR { front[$1] = 1; next }
    { m[FNR] = $1 + 0; t[FNR] = $2 + 0; p[FNR] = $3; n = FNR }
    END {
        for (i = 1; i <= n; i++) {
            dom = 0
            for (j = 1; j <= n && !dom; j++)
                if (m[j] <= m[i] && t[j] <= t[i] && (m[j] < m[i] || t[j] < t[i])) dom = 1
            if (dom == (p[i] in front)) bad++
        }
        print bad + 0
    }' "$work/front.txt" "$work/ok.txt")
check "--pareto: dominance holds for every ok plan (violations: $bad)" '[ "$bad" -eq 0 ]'
check "--pareto: only ok plans" '[ -z "$(tail -n +2 "$par" | awk -F, "\$4 != \"ok\"")" ]'

# --digits N: numbers to N significant digits; the default stays exact
"$planeval" run --quiet --digits 3 -o "$work/dg" "$scen"; rc=$?
check "--digits 3 exits 0 (got $rc)" '[ $rc -eq 0 ]'
long=$(tail -n +2 "$work/dg/$name.csv" | cut -d, -f19-37 | tr , "\n" | grep -E "[0-9]" | sed "s/e.*//; s/[-.]//g; s/^0*//" | awk "length > 3" | wc -l)
check "--digits 3: no number with more than 3 significant digits ($long)" '[ "$long" -eq 0 ]'
check "--digits 3: same plans in the same order" 'diff <(cut -d, -f1-16 "$full") <(cut -d, -f1-16 "$work/dg/$name.csv") >/dev/null'
check "--digits 3: step time of rank 1 rounded" \
    '[ "$(awk -F, "NR == 2 { printf \"%.3g\", \$35 }" "$full")" = "$(awk -F, "NR == 2 { print \$35 }" "$work/dg/$name.csv")" ]'

# rank_by as a list: ties of step time broken by memory; one key unchanged
sed 's/^rank_by:.*//' "$scen" >"$work/one.yaml"
printf 'rank_by: [step_time]\n' >>"$work/one.yaml"
"$planeval" run --quiet -o "$work/one" "$work/one.yaml"
check "rank_by: [step_time] ranks as rank_by: step_time" \
    'cmp -s "$work/one/$name.csv" "$full"'
sed 's/^rank_by:.*//' "$scen" >"$work/two.yaml"
printf 'rank_by: [step_time, memory]\n' >>"$work/two.yaml"
"$planeval" run --quiet -o "$work/two" "$work/two.yaml"; rc=$?
two=$work/two/$name.csv
check "rank_by list exits 0 (got $rc); column says step_time,memory" \
    '[ $rc -eq 0 ] && [ "$(csv_column "$two" rank_by | head -1)" = "step_time,memory" ]'
unordered=$(awk -F, 'NR > 1 && $4 == "ok" { if ($35 == t && $25 + 0 < m + 0) bad++; t = $35; m = $25 } END { print bad + 0 }' "$two")
check "rank_by list: equal step times by increasing memory ($unordered out of order)" '[ "$unordered" -eq 0 ]'
check "rank_by list: the same rows as one key" 'diff <(cut -d, -f3 "$full" | sort) <(cut -d, -f3 "$two" | sort) >/dev/null'
for i in 0 1 2; do "$planeval" run --quiet --shard $i/3 -o "$work/sh" "$work/two.yaml"; done
"$planeval" merge --quiet "$work"/sh/$name.shard-*-of-3.csv -o "$work/two-merged.csv"
check "rank_by list: merged shards == one run" 'cmp -s "$work/two-merged.csv" "$two"'

# validate: combinations and plans, before a run
"$planeval" validate "$scen" >"$work/val"
plans=$(awk -F, '$1 == "plans_evaluated" { print $2 }' "$work/full/$name.summary.csv")
combos=$(awk -F, '$1 == "index_last" { print $2 }' "$work/full/$name.summary.csv")
check "validate states combinations and plans ($combos, $plans)" \
    'grep -q "a sweep of $combos combinations: $plans plans" "$work/val"'

# bad option values: exact messages, exit 2
expect_usage() { # WHAT MESSAGE ARGS...
    local what=$1 msg=$2
    shift 2
    "$planeval" "$@" 2>"$work/err" >/dev/null; local rc=$?
    check "$what: exit 2 (got $rc) and '$msg'" '[ $rc -eq 2 ] && [ "$(head -1 "$work/err")" = "planeval: $msg" ]'
}
expect_usage "--status bogus" "--status needs statuses from ok, over_time, over_memory, invalid, separated by commas, got 'ok,bogus'" run --status ok,bogus "$scen"
expect_usage "--status empty" "--status needs statuses from ok, over_time, over_memory, invalid, separated by commas, got ''" run --status "" "$scen"
expect_usage "--digits 0" "--digits needs a whole number in 1..17, got '0'" run --digits 0 "$scen"
expect_usage "--digits 18" "--digits needs a whole number in 1..17, got '18'" run --digits 18 "$scen"
expect_usage "--digits x" "--digits needs a whole number in 1..17, got '3x'" run --digits 3x "$scen"
expect_usage "--pareto without ok" "--pareto writes ok plans only: --status must include ok" run --pareto --status over_time "$scen"
expect_usage "--pareto with --shard" "--pareto cannot be combined with --shard (a shard's Pareto front is not the sweep's: merge the shards, then planeval html draws the front)" run --pareto --shard 0/2 "$scen"
expect_usage "--digits with --shard" "--digits cannot be combined with --shard (merge re-ranks shards by their exact figures)" run --digits 4 --shard 0/2 "$scen"
finish
