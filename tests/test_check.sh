#!/usr/bin/env bash
# test_check.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval check`: every bundled
# scenario's expect: block holds; the golden reports match; a wrong
# expectation and a changed golden cell are caught and named.
. "$(dirname "$0")/testlib.sh"

# Every scenario under scenarios/ (the catalog aside) passes its own expect:.
mapfile -t scenarios < <(find "$src/scenarios" -name '*.yaml' -not -path '*/catalog/*' | LC_ALL=C sort)
"$planeval" check --quiet "${scenarios[@]}" >"$work/all.out" 2>&1; rc=$?
check "check on all ${#scenarios[@]} bundled scenarios exits 0 (got $rc)" '[ $rc -eq 0 ]'
[ $rc -eq 0 ] || cat "$work/all.out"
check "closing line N passed, 0 failed" 'tail -1 "$work/all.out" | grep -Eq "^[0-9]+ passed, 0 failed$"'

# Golden reports: committed CSVs under tests/golden/ match cell by cell.
for g in "$src"/tests/golden/*.csv; do
    name=$(basename "$g" .csv)
    scen=$(grep -rl --include='*.yaml' -E "^name: $name\$" "$src/scenarios" | head -1)
    "$planeval" check --quiet --golden "$src/tests/golden" "$scen" >"$work/golden.out" 2>&1; rc=$?
    check "golden $name matches (got $rc)" '[ $rc -eq 0 ]'
    [ $rc -eq 0 ] || head -20 "$work/golden.out"
done

# A changed golden cell is named: row, plan and column.
scen=$src/scenarios/drills/01-fit-the-model.yaml
mkdir -p "$work/golden"
"$planeval" check --quiet --golden "$work/golden" --update-golden "$scen" >/dev/null 2>&1
g=$work/golden/01-fit-the-model.csv
check "--update-golden writes the report" '[ -s "$g" ]'
awk -F, 'BEGIN{OFS=","} NR==2{$25=$25*1.01} {print}' "$g" >"$g.new" && mv "$g.new" "$g"
"$planeval" check --quiet --golden "$work/golden" "$scen" >"$work/diff.out" 2>&1; rc=$?
check "a changed cell fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "the cell is named" 'grep -q "row 1 (plan .*), column mem_total_gib: expected" "$work/diff.out"'

# A wrong expectation: one line with scenario, plan, column, expected, got, error.
cat >"$work/wrong.yaml" <<'EOF'
schema: planeval/v1
name: wrong
model: { preset: gpt3-175b }
cluster: { preset: mi300x-node, nodes: 8 }
training: { global_batch: 1536 }
plans:
  - { name: base, dp: 64 }
  - { name: z3, dp: 64, zero: 3, recompute: selective }
expect:
  - plan: base
    status: ok
    mem_total_gib: { value: 1, rel_tol: 0.01 }
    gpus: 64
  - best_plan: base
EOF
"$planeval" check "$work/wrong.yaml" >"$work/wrong.out" 2>"$work/wrong.err"; rc=$?
check "wrong expectations exit 1 (got $rc)" '[ $rc -eq 1 ]'
check "mem_total_gib miss reported with error" \
    'grep -Eq "wrong.yaml:[0-9]+:[0-9]+: wrong: plan .base.: mem_total_gib: expected 1 \(rel_tol 0.01\), got [0-9.]+ \(error" "$work/wrong.out"'
check "best_plan miss reported" 'grep -q "best_plan: expected .base., got .z3." "$work/wrong.out"'
check "closing line counts" 'tail -1 "$work/wrong.out" | grep -Eq "^1 passed, 3 failed$"'

finish
