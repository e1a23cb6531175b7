#!/usr/bin/env bash
# generate.sh PLANEVAL SOURCE_DIR OUT_DIR — every output the freeze pins
# (tests/test_freeze.sh), written under OUT_DIR with the fields that measure
# the machine rather than the model taken out:
#   reports/   the README's main run plus tests/freeze/scenarios, --html:
#              each CSV report, its summary (less threads, wall_s and
#              plans_per_s) and its HTML page; the benchmark's four sweeps
#              with --top 50
#   explain/   `explain` of every named plan of those scenarios and of the
#              best and the last-ranked plan of each report
#   calibrate/ `calibrate` of each scenarios/calibration file (and the b200
#              fit the preset documents, and each runs file with its priors in
#              scenarios/calibration/priors/)
#   check/     `check --table scenarios/published` and `check --table scenarios/memory`
# Paths are given relative to SOURCE_DIR so that no output names the
# checkout's location. Regenerate the pinned sums with
#   tests/freeze/generate.sh build/planeval . /tmp/freeze &&
#   (cd /tmp/freeze && find . -type f | LC_ALL=C sort | xargs sha256sum) >tests/freeze/outputs.sha256
set -u
planeval=$(realpath "$1") src=$2 out=$3
rm -rf "$out" && mkdir -p "$out/reports" "$out/explain" "$out/calibrate" "$out/check"
out=$(realpath "$out")
cd "$src" || exit 2
dirs="scenarios/drills scenarios/drills/02-choose-parallelism scenarios/drills/03-comm-budget scenarios/drills/06-llama3-70b-h100-vs-b200 scenarios/published scenarios/memory tests/freeze/scenarios"
# shellcheck disable=SC2086
"$planeval" run --quiet --html --threads 2 -o "$out/reports" $dirs >"$out/run.stdout" 2>"$out/run.stderr" \
    || { echo "run failed: $(head -3 "$out/run.stderr")"; exit 1; }
# the benchmark's sweeps (10^7 plans), top-K mode: the ranking of a large sweep
"$planeval" run --quiet --top 50 --threads 2 -o "$out/reports" tests/bench/*.yaml >"$out/run.stdout" 2>"$out/run.stderr" \
    || { echo "bench run failed: $(head -3 "$out/run.stderr")"; exit 1; }
rm -f "$out/run.stdout" "$out/run.stderr"
for s in "$out"/reports/*.summary.csv; do
    grep -v -e '^threads,' -e '^wall_s,' -e '^plans_per_s,' "$s" >"$s.tmp" && mv "$s.tmp" "$s"
done
# scenario file -> report stem: the name: key
for dir in $dirs; do
    for f in "$dir"/*.yaml; do
        [ -f "$f" ] || continue
        stem=$(sed -n 's/^name: *\([^ #]*\).*/\1/p' "$f" | head -1)
        report="$out/reports/$stem.csv"
        [ -f "$report" ] || { echo "no report for $f ($stem)"; exit 1; }
        # named plans, then the first and the last row (column 3: plan)
        { tail -n +2 "$report" | cut -d, -f3 | grep -v '^dp[0-9]*-tp[0-9]*-pp' ;
          tail -n +2 "$report" | head -1 | cut -d, -f3 ;
          tail -1 "$report" | cut -d, -f3 ; } | awk '!seen[$0]++' |
        while read -r plan; do
            "$planeval" explain "$f" --plan "$plan" >"$out/explain/$stem--$plan.txt" 2>&1
            echo "exit $?" >>"$out/explain/$stem--$plan.txt"
        done
    done
done
for c in scenarios/calibration/*.csv; do
    "$planeval" calibrate "$c" >"$out/calibrate/$(basename "$c" .csv).txt" 2>&1
    echo "exit $?" >>"$out/calibrate/$(basename "$c" .csv).txt"
done
"$planeval" calibrate scenarios/calibration/b200.csv --fit fp8_gemm_efficiency,attention_efficiency \
    >"$out/calibrate/b200-fp8-attention.txt" 2>&1
echo "exit $?" >>"$out/calibrate/b200-fp8-attention.txt"
for c in scenarios/calibration/priors/*.csv; do # calibrate with priors (docs/model.md §12)
    g=$(basename "$c" .csv)
    "$planeval" calibrate "scenarios/calibration/$g.csv" --priors "$c" \
        >"$out/calibrate/$g-priors.txt" 2>&1
    echo "exit $?" >>"$out/calibrate/$g-priors.txt"
done
"$planeval" check --table scenarios/published >"$out/check/published-table.md" 2>&1
echo "exit $?" >>"$out/check/published-table.md"
"$planeval" check --table scenarios/memory >"$out/check/memory-table.md" 2>&1
echo "exit $?" >>"$out/check/memory-table.md"
exit 0
