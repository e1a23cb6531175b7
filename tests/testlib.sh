# testlib.sh — shared by the script tests (sourced, not run by CTest):
# arguments, a fresh work directory, and the pass/fail tally that ends in
# the "N passed, N failed" line CI reads.
set -u
planeval=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else no "$1"; fi; }
# the closing line and the exit status
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
# run_both WHAT FILE... — `run` the scenario files quietly into $work/out
# (its output in $work/run.out) and check that it exits 0: "WHAT (exit N)"
run_both() {
    local what=$1 rc
    shift
    "$planeval" run "$@" -o "$work/out" --quiet >"$work/run.out" 2>&1
    rc=$?
    check "$what (exit $rc)" "[ $rc -eq 0 ]"
}
# within A B TOL — A is a number within TOL of B (an empty A is not)
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(a != "" && d < t && d > -t) }'; }
# above A B — the number A is larger than B
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
# cells_matching FILE REGEX — "LINE: cell" for every cell of a CSV file
# (quotes undone) that matches the awk regular expression REGEX.
cells_matching() {
    awk -v re="$2" '
function check(cell) { if (cell ~ re) print NR ": " substr(cell, 1, 60) }
{
    line = $0; cell = ""; q = 0; started = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cell = cell c; i++ } else q = 0 }
            else cell = cell c
        } else if (c == "\"" && !started) { q = 1; started = 1 }
        else if (c == ",") { check(cell); cell = ""; started = 0 }
        else { cell = cell c; started = 1 }
    }
    check(cell)
}' "$1"
}
# csv_column FILE NAME — the cells of column NAME (by its header), one a
# line, quotes undone, for every row of a CSV file without line breaks in
# its cells (planeval's reports and summaries).
csv_column() {
    awk -v want="$2" '
{
    line = $0; cell = ""; q = 0; started = 0; n = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cell = cell c; i++ } else q = 0 }
            else cell = cell c
        } else if (c == "\"" && !started) { q = 1; started = 1 }
        else if (c == ",") { f[++n] = cell; cell = ""; started = 0 }
        else { cell = cell c; started = 1 }
    }
    f[++n] = cell
    if (NR == 1) { for (k = 1; k <= n; k++) if (f[k] == want) col = k; next }
    if (col) print f[col]
}' "$1"
}
# gt A B — A is larger than B as numbers (an empty one counts as 0)
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
# shorter A B — A is a positive number below B (a step that got shorter)
shorter() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > 0 && a + 0 < b + 0) }'; }
# run_scenario DIR ARG... — write $work/DIR.yaml with the test's own
# `scenario FILE ARG...` and `run` it quietly into $work/DIR; the exit
# status is run's
run_scenario() {
    local dir=$1
    shift
    mkdir -p "$work/$dir"
    scenario "$work/$dir.yaml" "$@"
    "$planeval" run --quiet -o "$work/$dir" "$work/$dir.yaml"
}
# explain_plan V PLAN [OUT] — explain plan PLAN of $work/V.yaml into
# $work/OUT.txt (OUT defaults to V), stderr with it; the exit status is
# explain's
explain_plan() { explain_file "$work/$1.yaml" "$2" "${3:-$1}"; }
# explain_file FILE PLAN OUT — explain plan PLAN of scenario FILE into
# $work/OUT.txt, stderr with it; the exit status is explain's
explain_file() { "$planeval" explain "$1" --plan "$2" >"$work/$3.txt" 2>&1; }
# explain_each PLAN V... — explain_plan V PLAN for each V, checking
# "explain V exits 0"
explain_each() {
    local plan=$1 v rc
    shift
    for v in "$@"; do
        explain_plan "$v" "$plan"
        rc=$?
        check "explain $v exits 0" "[ $rc -eq 0 ]"
    done
}
# last_row FILE DIR COLUMN... — `run` FILE (one thread) into DIR and print
# the report's last row's cells of the COLUMNs, space-separated
last_row() {
    local file=$1 dir=$2 r c out=""
    shift 2
    "$planeval" run "$file" --output "$dir" --threads 1 >/dev/null 2>&1 || return 1
    r=$(ls "$dir"/*.csv | grep -v summary | head -1)
    for c in "$@"; do out="$out${out:+ }$(csv_column "$r" "$c" | tail -1)"; done
    echo "$out"
}
# framework_variant NAME PRESET KEYS FROM TO — $work/FROM.yaml is the
# published scenario NAME (framework: PRESET), $work/TO.yaml the same with
# `framework: { preset: PRESET, KEYS }`; checks that TO names KEYS
framework_variant() {
    cp "$src/scenarios/published/$1.yaml" "$work/$4.yaml"
    sed "s/^framework: $2\b.*/framework: { preset: $2, $3 }/" "$work/$4.yaml" >"$work/$5.yaml"
    check "the $5 file names the key" "grep -q \"$3\" \"$work/$5.yaml\""
}
# bad_value WHAT FILE FROM TO — FILE with FROM replaced by TO ($work/bad.yaml)
# is bad input: `run` exits 2, "WHAT exits 2 (got N)"
bad_value() {
    local rc
    sed "s/$3/$4/" "$2" >"$work/bad.yaml"
    "$planeval" run "$work/bad.yaml" --output "$work/out-bad" >"$work/bad.txt" 2>&1
    rc=$?
    check "$1 exits 2 (got $rc)" "[ $rc -eq 2 ]"
}
