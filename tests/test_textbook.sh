#!/usr/bin/env bash
# test_textbook.sh PLANEVAL SOURCE_DIR WORKDIR — `fidelity: textbook`
# (docs/model.md §12) gives docs/model.md v1 exactly: every bundled scenario
# (the drills and scenarios/published), forced to textbook mode, writes the
# very report the v1 evaluator wrote. tests/golden/textbook/v1-reports.sha256
# holds the SHA-256 of each v1 report (written by planeval at a97778f, before
# any refinement, from the same scenario files without framework: keys;
# the four sweep drills 02a-02d re-taken after main's pp = 1 schedule rule,
# which drops duplicate schedules from sweeps, from main's own textbook
# evaluator). Every column planeval added (the MoE columns ep_comm_s and
# mem_experts_gib first, then any later ones) comes after the v1 report's
# last one, rank_by: they are dropped before hashing, so the hashes stay
# v1's and prove every v1 column unchanged; the two MoE columns are checked
# to be 0 (empty for an invalid plan) in these dense reports.
. "$(dirname "$0")/testlib.sh"

# Fields FIRST..LAST (1-based) of each line of a CSV file, commas inside
# double quotes kept (mawk has no FPAT): the cut is made at the commas
# outside quotes.
csv_fields() {
    awk -v first="$2" -v last="$3" '{
        n = 1; q = 0; out = ""
        for (i = 1; i <= length($0); i++) {
            c = substr($0, i, 1)
            if (c == "\"") q = !q
            if (c == "," && !q) { n++; if (n > first && n <= last) out = out ","; continue }
            if (n >= first && n <= last) out = out c
        }
        print out
    }' "$1"
}
# The v1 report's columns end at rank_by (column 50); every column planeval
# added since (the MoE columns, then any later ones) comes after it.
v1_last=50
v1_columns() { csv_fields "$1" 1 "$v1_last"; }

sums=$src/tests/golden/textbook/v1-reports.sha256
mkdir -p "$work/scen" "$work/out"
n=0
for f in "$src"/scenarios/drills/*.yaml "$src"/scenarios/drills/*/*.yaml "$src"/scenarios/published/*.yaml; do
    # the file as v1 knew it: no framework: line and no refined-only
    # schedule (dualpipe, docs/model.md §12: v1 ran those plans as 1f1b, the
    # default), then forced to textbook (a fidelity: line already there is
    # replaced)
    base=$(basename "$f")
    [ -e "$work/scen/$base" ] && base="$(basename "$(dirname "$f")")-$base"
    grep -v -e '^framework:' -e '^fidelity:' "$f" | sed 's/, schedule: dualpipe//' >"$work/scen/$base"
    echo 'fidelity: textbook' >>"$work/scen/$base"
    n=$((n + 1))
done
check "bundled scenarios found ($n)" '[ "$n" -ge 30 ]'
"$planeval" run --quiet -o "$work/out" "$work/scen" >"$work/run.out" 2>&1; rc=$?
check "run exits 0 (got $rc)" '[ $rc -eq 0 ]'
[ $rc -eq 0 ] || head -5 "$work/run.out"
checked=0
while read -r sum name; do
    if [ ! -f "$work/out/$name" ]; then
        no "$name: no report written"
        continue
    fi
    got=$(v1_columns "$work/out/$name" | sha256sum | cut -d' ' -f1)
    check "$name is the v1 report" '[ "$got" = "$sum" ]'
    nonzero=$(csv_fields "$work/out/$name" $((v1_last + 1)) $((v1_last + 2)) | tail -n +2 | awk -F, '{ for (i = 1; i <= 2; i++) if ($i != "" && $i != "0") n++ } END { print n + 0 }')
    check "$name: ep_comm_s and mem_experts_gib are 0 ($nonzero other cells)" '[ "$nonzero" -eq 0 ]'
    checked=$((checked + 1))
done <"$sums"
check "every v1 report compared ($checked)" '[ "$checked" -eq "$(wc -l <"$sums")" ]'

# The same files in refined mode: the published Megatron runs differ (the
# refinement is on), the drills, which say fidelity: textbook, do not.
"$planeval" run --quiet -o "$work/refined" "$src"/scenarios/published/korthikanti-r1-22b-t5-full.yaml \
    "$src"/scenarios/drills/01-fit-the-model.yaml >/dev/null 2>&1
check "a refined published run differs from v1" \
    '[ "$(v1_columns "$work/refined/korthikanti-r1-22b-t5-full.csv" | sha256sum | cut -d" " -f1)" != "$(grep " korthikanti-r1-22b-t5-full.csv$" "$sums" | cut -d" " -f1)" ]'
check "a drill stays v1" \
    '[ "$(v1_columns "$work/refined/01-fit-the-model.csv" | sha256sum | cut -d" " -f1)" = "$(grep " 01-fit-the-model.csv$" "$sums" | cut -d" " -f1)" ]'
finish
