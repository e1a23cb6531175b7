#!/usr/bin/env bash
# test_compare.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval compare`: across
# reports of one run on three clusters (the Llama 3 405B drill on H100 and
# B200 nodes, and on H100 nodes with hour-long restarts), one line per
# report with its best plan, the days and cost read from the report by
# column name, the Pareto front of cost, days and memory headroom (the slow
# H100 run is dominated: same cost and headroom, more days); the HTML page
# (one table row and one point per report, the front outlined) rendered in
# headless Chromium when it is installed; a file that is not a report is
# refused with exit 2 and its name.
. "$(dirname "$0")/testlib.sh"

drill=$src/scenarios/drills/05-llama3-405b-goodput.yaml
mkdir -p "$work/scen"
sed 's/^name: .*/name: cmp-h100/' "$drill" >"$work/scen/h100.yaml"
sed 's/^name: .*/name: cmp-b200/; s/preset: h100-node,/preset: b200-node,/' "$drill" >"$work/scen/b200.yaml"
sed 's/^name: .*/name: cmp-h100-slow/; s/restart_minutes: 10 /restart_minutes: 60 /' "$drill" \
    >"$work/scen/slow.yaml"
"$planeval" run --quiet -o "$work/out" "$work/scen/h100.yaml" "$work/scen/b200.yaml" \
    "$work/scen/slow.yaml"
reports="$work/out/cmp-h100.csv $work/out/cmp-b200.csv $work/out/cmp-h100-slow.csv"
# shellcheck disable=SC2086
"$planeval" compare $reports -o "$work/page/compare.html" >"$work/text" 2>"$work/err"; rc=$?
check "compare exits 0 (got $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'
line() { grep -E "^(yes|no) +$1 " "$work/text"; }
check "one line per report" '[ "$(grep -cE "^(yes|no) +cmp-" "$work/text")" -eq 3 ]'
days=$(csv_column "$work/out/cmp-h100.csv" effective_train_days | head -1)
cost=$(csv_column "$work/out/cmp-h100.csv" cost | head -1)
want=$(awk -v d="$days" -v c="$cost" 'BEGIN { printf "%.4g %.4g", d, c }')
got=$(line cmp-h100 | awk '{ print $4, $5 }')
check "the h100 line's days and cost are the report's effective_train_days and cost ($got, want $want)" \
    '[ -n "$days" ] && [ "$got" = "$want" ]'
check "the goodput of the hour-long restarts is below the 10-minute one's" \
    'awk -v a="$(line cmp-h100-slow | awk "{print \$6}")" -v b="$(line cmp-h100 | awk "{print \$6}")" "BEGIN { exit !(a < b) }"'
check "h100 and b200 are on the front" 'line cmp-h100 | grep -q "^yes" && line cmp-b200 | grep -q "^yes"'
check "the slow h100 run is dominated" 'line cmp-h100-slow | grep -q "^no"'
check "the best plan is named" 'line cmp-b200 | grep -q "llama3-405b-16k$"'
page=$work/page/compare.html
check "the page is written, nothing fetched" '[ -s "$page" ] && ! grep -qE "(src|href)=\"(https?:)?//" "$page"'
check "the page has a row and a point per report" \
    '[ "$(grep -c "<tr class=\"\(pf\|np\)\">" "$page")" -eq 3 ] && [ "$(grep -o "<circle class=\"pt" "$page" | wc -l)" -eq 3 ]'
check "no temporary left beside the page" '[ "$(ls -A "$work/page" | wc -l)" -eq 1 ]'

browser=
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -n "$browser" ]; then
    export HOME=$work/home
    mkdir -p "$HOME"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/profile" --dump-dom "file://$page" >"$work/dom" 2>/dev/null
    check "in Chromium: the table has three rows, two on the front" \
        '[ "$(grep -o "<tr class=\"pf\">" "$work/dom" | wc -l)" -eq 2 ] && [ "$(grep -o "<tr class=\"np\">" "$work/dom" | wc -l)" -eq 1 ]'
    check "in Chromium: three points, two outlined, the front drawn" \
        '[ "$(grep -o "<circle class=\"pt pf\"" "$work/dom" | wc -l)" -eq 2 ] && grep -q "<polyline class=\"front\" points=\"[0-9]" "$work/dom"'
else
    echo "note: Chromium is not installed; the page is checked without a browser"
fi

"$planeval" compare "$work/out/cmp-h100.summary.csv" >"$work/o" 2>"$work/err"; rc=$?
check "a summary is not a report: exit 2, named (got $rc: $(cat "$work/err"))" \
    '[ $rc -eq 2 ] && grep -q "cmp-h100.summary.csv:1:1: error: not a planeval report" "$work/err" && [ ! -s "$work/o" ]'
"$planeval" compare "$work/scen/h100.yaml" >/dev/null 2>"$work/err"; rc=$?
check "a scenario is not a report: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "h100.yaml:" "$work/err"'
"$planeval" compare >/dev/null 2>&1; rc=$?
check "no report given: exit 2 (got $rc)" '[ $rc -eq 2 ]'
finish
