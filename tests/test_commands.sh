#!/usr/bin/env bash
# test_commands.sh PLANEVAL SOURCE_DIR WORKDIR — the everyday edges of the
# scenario commands: explain evaluates any valid canonical text; a run or
# check whose plans are all invalid names no plan "best".
. "$(dirname "$0")/testlib.sh"

drill=$src/scenarios/drills/01-fit-the-model.yaml

# explain: a canonical text the scenario does not enumerate is still a plan.
canon=dp16-tp4-pp1-cp1-z2-full-mb2-1f1b-v1-sp1
"$planeval" explain "$drill" --plan $canon >"$work/explain.out" 2>"$work/explain.err"; rc=$?
check "explain of a canonical text outside the scenario exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "it explains that plan" 'grep -q "plan $canon" "$work/explain.out" && grep -q "^S1 " "$work/explain.out"'
"$planeval" explain "$drill" --plan dp16-tp4-pp3-cp1-z2-full-mb2-1f1b-v1-sp1 >"$work/explain.out" 2>&1; rc=$?
check "an invalid plan is explained with the rule it breaks (got $rc)" '[ $rc -eq 0 ] && grep -q "^V1 .*FAILS" "$work/explain.out"'
"$planeval" explain "$drill" --plan dp064-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0 >"$work/explain.out" 2>&1; rc=$?
check "a text that is not canonical is bad input (got $rc)" '[ $rc -eq 2 ] && grep -q "no plan named" "$work/explain.out"'

# A scenario whose plans are all invalid has no best plan.
cat >"$work/all-invalid.yaml" <<'YAML'
schema: planeval/v1
name: all-invalid
model: { preset: gpt3-175b }
cluster: { preset: mi300x-node, nodes: 8 }
training: { global_batch: 1536 }
plans:
  - { name: five-stages, dp: 8, tp: 1, pp: 5 }
  - { name: too-many, dp: 128 }
expect:
  - best_plan: too-many
YAML
"$planeval" check "$work/all-invalid.yaml" >"$work/check.out" 2>&1; rc=$?
check "check: best_plan of all-invalid plans fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "check: it says no valid plan" 'grep -q "best_plan: expected .too-many., got .no valid plan." "$work/check.out"'

finish
