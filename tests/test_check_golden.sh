#!/usr/bin/env bash
# test_check_golden.sh PLANEVAL SOURCE_DIR WORKDIR — `check --golden` on
# edits a scenario's author makes every day: rows are matched by plan, not
# plan_index, so removing a plan is one line, not every later plan
# renumbered.
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

finish
