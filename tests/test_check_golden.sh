#!/usr/bin/env bash
# test_check_golden.sh PLANEVAL SOURCE_DIR WORKDIR — `check --golden` on
# edits a scenario's author makes every day: rows are matched by plan, not
# plan_index, so removing a plan is one line, not every later plan
# renumbered; --rank-tol forgives small moves and ties are no moves;
# --max-lines caps the lines and counts the rest; a --top mismatch gets a
# hint.
. "$(dirname "$0")/testlib.sh"

drill=$src/scenarios/drills/01-fit-the-model.yaml
name=01-fit-the-model
mkdir -p "$work/golden" "$work/edited"
"$planeval" check --quiet --golden "$work/golden" --update-golden "$drill" >/dev/null 2>&1
check "the golden report is written" '[ -s "$work/golden/$name.csv" ]'

# Removing one explicit plan (zero1, plan_index 1) renumbers every later
# plan: the report differs by that one plan, nothing else.
awk '/^  - name: zero1 *$/ {skip = 1; next} skip && /^  - / {skip = 0} !skip' "$drill" >"$work/edited/$name.yaml"
check "the plan was removed from the scenario" '! grep -q "name: zero1 *$" "$work/edited/$name.yaml" && grep -q "name: zero3 *$" "$work/edited/$name.yaml"'
"$planeval" check --quiet --golden "$work/golden" "$work/edited/$name.yaml" >"$work/removed.out" 2>&1; rc=$?
check "a removed plan fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "it is named once, as removed" \
    '[ "$(grep -c "plan .zero1. (golden row [0-9]*): not in the fresh report" "$work/removed.out")" -eq 1 ]'
check "no plan is added, moved or has a differing cell" \
    'grep -q ": 0 cells differ in 0 plans; 0 plans moved in rank; 0 plans added, 1 removed; 0 columns differ" "$work/removed.out"'
check "three lines in all: the plan, the summary, the closing line (got $(wc -l <"$work/removed.out"))" '[ "$(wc -l <"$work/removed.out")" -eq 3 ]'

# An added plan likewise: the golden without zero1, the scenario with it.
mkdir -p "$work/golden-less"
"$planeval" check --quiet --golden "$work/golden-less" --update-golden "$work/edited/$name.yaml" >/dev/null 2>&1
"$planeval" check --quiet --golden "$work/golden-less" "$drill" >"$work/added.out" 2>&1; rc=$?
check "an added plan fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "it is named once, as added, nothing else" \
    'grep -q "plan .zero1. (row [0-9]*): not in the golden report" "$work/added.out" && grep -q ": 0 cells differ in 0 plans; 0 plans moved in rank; 1 plans added, 0 removed; 0 columns differ" "$work/added.out"'

# plan_index alone changed (the explicit plans reordered): nothing at all.
awk '/^  - name: zero1 *$/ {hold = 1}
     hold == 2 && /^  - / {printf "%s", buf; hold = 0}
     hold == 1 && /^  - name: zero3 *$/ {hold = 2}
     hold == 1 {buf = buf $0 "\n"; next}
     {print}' "$drill" >"$work/edited/reordered.yaml"
check "zero1 now comes after zero3" '[ "$(grep -n "name: zero1 *$" "$work/edited/reordered.yaml" | cut -d: -f1)" -gt "$(grep -n "name: zero3 *$" "$work/edited/reordered.yaml" | cut -d: -f1)" ]'
"$planeval" check --quiet --golden "$work/golden" "$work/edited/reordered.yaml" >"$work/reordered.out" 2>&1; rc=$?
check "reordered explicit plans pass (exit 0, got $rc)" '[ $rc -eq 0 ]'
check "and print only the closing line" '[ "$(cat "$work/reordered.out")" = "1 passed, 0 failed" ]'

# reorder FILE ROW...: the data rows in this order, ranks renumbered.
reorder() {
    local f=$1; shift
    { head -1 "$f"; for r in "$@"; do sed -n "$((r + 1))p" "$f"; done; tail -n +$(($# + 2)) "$f"; } |
        awk -F, 'BEGIN{OFS=","} NR>1{$1=NR-1} {print}' >"$f.new" && mv "$f.new" "$f"
}
g=$work/golden/$name.csv
cp "$g" "$g.orig"

# --rank-tol N: the plan of row 3 ranked two places lower in the golden
# report moves 2 places, the two it passed 1 each.
reorder "$g" 1 2 4 5 3
check "row 3 was moved down" 'sed -n 6p "$g" | grep -q "^5,$name,dp2-tp8-pp4-cp1-z0-none-mb1-1f1b-v1-sp1,"'
"$planeval" check --quiet --golden "$work/golden" "$drill" >"$work/rank.out" 2>&1; rc=$?
check "without --rank-tol three moves fail (got $rc)" '[ $rc -eq 1 ] && grep -q "; 3 plans moved in rank;" "$work/rank.out"'
"$planeval" check --quiet --golden "$work/golden" --rank-tol 1 "$drill" >"$work/rank.out" 2>&1; rc=$?
check "--rank-tol 1: the move of 2 still fails, alone (got $rc)" \
    '[ $rc -eq 1 ] && grep -q "; 1 plans moved in rank;" "$work/rank.out" && grep -q "plan .dp2-tp8-pp4-cp1-z0-none-mb1-1f1b-v1-sp1.: rank 5 in the golden report, 3 now" "$work/rank.out"'
"$planeval" check --quiet --golden "$work/golden" --rank-tol 2 "$drill" >"$work/rank.out" 2>&1; rc=$?
check "--rank-tol 2 passes (got $rc)" '[ $rc -eq 0 ] && [ "$(cat "$work/rank.out")" = "1 passed, 0 failed" ]'
"$planeval" check --quiet --golden "$work/golden" --rank-tol -1 "$drill" >"$work/rank.out" 2>&1; rc=$?
check "--rank-tol -1 is a usage error (got $rc)" \
    '[ $rc -eq 2 ] && grep -q "^planeval: --rank-tol needs a whole number >= 0, got .-1.$" "$work/rank.out"'

# Ties within the tolerance: rows 3 and 4 (step time 99.11 s and 99.28 s)
# swapped are two moves at the default tolerance, none at --rel-tol 0.01.
cp "$g.orig" "$g"
reorder "$g" 1 2 4 3
"$planeval" check --quiet --golden "$work/golden" "$drill" >"$work/tie.out" 2>&1; rc=$?
check "a swap of 99.11 s and 99.28 s fails at rel_tol 1e-9 (got $rc)" '[ $rc -eq 1 ] && grep -q "; 2 plans moved in rank;" "$work/tie.out"'
"$planeval" check --quiet --golden "$work/golden" --rel-tol 0.01 "$drill" >"$work/tie.out" 2>&1; rc=$?
check "at --rel-tol 0.01 they tie: no move (got $rc)" '[ $rc -eq 0 ]'

# --top: a golden of the 3 best rows compared without --top is 196 added
# plans: 50 lines (the default --max-lines), a line counting the rest, the
# summary and a hint naming the --top to use.
mkdir -p "$work/golden-top"
"$planeval" check --quiet --golden "$work/golden-top" --update-golden --top 3 "$drill" >/dev/null 2>&1
"$planeval" check --quiet --golden "$work/golden-top" "$drill" >"$work/top.out" 2>&1; rc=$?
check "a top-3 golden without --top fails (got $rc)" '[ $rc -eq 1 ] && grep -q "; 196 plans added, 0 removed;" "$work/top.out"'
check "50 difference lines are printed" '[ "$(grep -c ": not in the golden report$" "$work/top.out")" -eq 50 ]'
check "the rest are counted by kind" \
    'grep -q "^$work/golden-top/$name.csv: 146 more lines not printed (--max-lines 50): 146 plans added; --max-lines 0 prints every line$" "$work/top.out"'
check "a hint names --top 3" \
    'grep -q "^$work/golden-top/$name.csv: hint: the golden report holds the 3 best plans of the 199 compared without --top: if it was written with --top 3, compare with --top 3$" "$work/top.out"'
check "54 lines in all (got $(wc -l <"$work/top.out"))" '[ "$(wc -l <"$work/top.out")" -eq 54 ]'
"$planeval" check --quiet --golden "$work/golden-top" --top 5 "$drill" >"$work/top.out" 2>&1; rc=$?
check "with --top 5 the hint names --top 3 too (got $rc)" \
    '[ $rc -eq 1 ] && grep -q "hint: the golden report holds the 3 best plans of the 5 compared with --top 5: if it was written with --top 3, compare with --top 3" "$work/top.out"'
cp "$g.orig" "$g"
"$planeval" check --quiet --golden "$work/golden" --top 3 "$drill" >"$work/top.out" 2>&1; rc=$?
check "a full golden with --top 3: the hint says so (got $rc)" \
    '[ $rc -eq 1 ] && grep -q "hint: the golden report has 199 rows, --top 3 compares 3: if it was written without --top or with another K, compare with that --top" "$work/top.out"'
"$planeval" check --quiet --golden "$work/golden-top" --max-lines 0 "$drill" >"$work/top.out" 2>&1; rc=$?
check "--max-lines 0 prints all 196 (got $rc)" '[ "$(grep -c ": not in the golden report$" "$work/top.out")" -eq 196 ] && ! grep -q "not printed" "$work/top.out"'
"$planeval" check --quiet --golden "$work/golden-top" --max-lines 2 "$drill" >"$work/top.out" 2>&1; rc=$?
check "--max-lines 2 prints 2" '[ "$(grep -c ": not in the golden report$" "$work/top.out")" -eq 2 ] && grep -q ": 194 more lines not printed (--max-lines 2): 194 plans added;" "$work/top.out"'
"$planeval" check --quiet --golden "$work/golden-top" --max-lines x "$drill" >"$work/top.out" 2>&1; rc=$?
check "--max-lines x is a usage error (got $rc)" \
    '[ $rc -eq 2 ] && grep -q "^planeval: --max-lines needs a whole number >= 0 (0: every line), got .x.$" "$work/top.out"'

finish
