#!/usr/bin/env bash
# bench/run.sh PLANEVAL SOURCE_DIR WORKDIR — the sweep benchmark (`make bench`
# or `cmake --build build --target bench`): plans/s in top-K mode with 1
# thread and with every core, and report rows/s written in full-report mode.
# Prints medians of 3 runs; these machines are shared, so compare ratios.
# Last, the MoE sweeps (tests/bench/qwen3-235b-moe*.yaml).
set -eu
planeval=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
scen=$src/tests/bench/gpt3-4096-lists.yaml
name=bench-gpt3-4096-lists
cores=$(nproc)
value() { awk -F, -v k="$1" '$1 == k { print $2 }' "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "scenario: $scen"
for threads in 1 "$cores"; do
    for i in 1 2 3; do
        "$planeval" run --quiet --top 100 --threads "$threads" -o "$work/top" "$scen"
        value plans_per_s "$work/top/$name.summary.csv"
    done | median >"$work/rate"
    plans=$(value plans_evaluated "$work/top/$name.summary.csv")
    slots=$(value index_last "$work/top/$name.summary.csv")
    echo "top-K (K=100), $threads thread(s): $(cat "$work/rate") plans/s (median of 3; $plans plans, $slots index slots)"
done
# Full report: every evaluated plan of one shard is a row.
for threads in 1 "$cores"; do
    for i in 1 2 3; do
        t0=$(date +%s.%N)
        "$planeval" run --quiet --threads "$threads" --shard 0/25 -o "$work/full" "$scen"
        t1=$(date +%s.%N)
        rows=$(value rows_written "$work/full/$name.shard-0-of-25.summary.csv")
        awk -v r="$rows" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f\n", r / (b - a) }'
    done | median >"$work/rate"
    rows=$(value rows_written "$work/full/$name.shard-0-of-25.summary.csv")
    echo "full report, $threads thread(s): $(cat "$work/rate") rows/s written (median of 3; $rows rows, $(du -h "$work/full/$name.shard-0-of-25.csv" | cut -f1))"
done
if [ -x /usr/bin/time ]; then
    for scen_rss in "$src/tests/bench/gpt3-4096.yaml" "$scen"; do
        rss=$( { /usr/bin/time -f %M "$planeval" run --quiet --top 100 -o "$work/top" "$scen_rss"; } 2>&1 | tail -1)
        echo "peak RSS, top-K, all threads: $rss KiB ($(basename "$scen_rss"))"
    done
fi
# The realistic sweep: every parallel axis auto (most combinations are
# skipped by construction; 80% of the plans are valid, so report rows carry
# every figure).
real=$src/tests/bench/gpt3-4096.yaml
for threads in 1 "$cores"; do
    for i in 1 2 3; do
        "$planeval" run --quiet --top 100 --threads "$threads" -o "$work/real" "$real"
        value plans_per_s "$work/real/bench-gpt3-4096.summary.csv"
    done | median >"$work/rate"
    echo "all-auto sweep, top-K, $threads thread(s): $(cat "$work/rate") plans/s ($(value plans_evaluated "$work/real/bench-gpt3-4096.summary.csv") plans, $(value index_last "$work/real/bench-gpt3-4096.summary.csv") index slots)"
    for i in 1 2 3; do
        t0=$(date +%s.%N)
        "$planeval" run --quiet --threads "$threads" -o "$work/real-full" "$real"
        t1=$(date +%s.%N)
        awk -v r="$(value rows_written "$work/real-full/bench-gpt3-4096.summary.csv")" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f\n", r / (b - a) }'
    done | median >"$work/rate"
    echo "all-auto sweep, full report, $threads thread(s): $(cat "$work/rate") rows/s written"
done
# MoE sweeps (Qwen3-235B-A22B, FP8, ep auto) in top-K mode: the
# listed one (most plans invalid) and the all-auto one (about 30% valid).
for moe_name in bench-qwen3-235b-moe bench-qwen3-235b-moe-auto; do
    moe=$src/tests/bench/${moe_name#bench-}.yaml
    for threads in 1 "$cores"; do
        for i in 1 2 3; do
            "$planeval" run --quiet --top 100 --threads "$threads" -o "$work/moe" "$moe"
            value plans_per_s "$work/moe/$moe_name.summary.csv"
        done | median >"$work/rate"
        echo "MoE sweep $moe_name, top-K, $threads thread(s): $(cat "$work/rate") plans/s ($(value plans_evaluated "$work/moe/$moe_name.summary.csv") plans, $(value index_last "$work/moe/$moe_name.summary.csv") index slots)"
    done
done
