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
cp "$g" "$g.orig"
awk -F, 'BEGIN{OFS=","} NR==2{$25=$25*1.01} {print}' "$g" >"$g.new" && mv "$g.new" "$g"
"$planeval" check --quiet --golden "$work/golden" "$scen" >"$work/diff.out" 2>&1; rc=$?
check "a changed cell fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "the cell is named" 'grep -q "row 1 (plan .*), column mem_total_gib: expected" "$work/diff.out"'

# Rows are matched by plan, not position: two plans that swap places are
# two rank moves (one line each), not rows of cells compared across plans.
# swap_rows FILE N: data rows N and N+1 trade places (and rank cells).
swap_rows() {
    awk -F, -v n="$2" 'BEGIN{OFS=","} NR==n+1{a=$0; r=$1; next} NR==n+2{$1=r; print; split(a,f,","); b=r+1; for(i=2;i<=length(f);i++) b=b "," f[i]; print b; next} {print}' "$1" >"$1.new" && mv "$1.new" "$1"
}
cp "$work/golden/01-fit-the-model.csv.orig" "$g"
swap_rows "$g" 2
check "the swap was made" 'sed -n 3p "$g" | grep -q "^2,01-fit-the-model,dp2-tp8-pp4-cp1-z0-none-mb1-1f1b-v1-sp1," && sed -n 4p "$g" | grep -q "^3,01-fit-the-model,tp8-zero1,"'
"$planeval" check --quiet --golden "$work/golden" "$scen" >"$work/swap.out" 2>&1; rc=$?
check "a swap fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "two rank moves, one line per plan" '[ "$(grep -c "rank [23] in the golden report, [23] now" "$work/swap.out")" -eq 2 ]'
check "no cell compared across plans" '! grep -q ", column " "$work/swap.out"'
check "one summary line" '[ "$(grep -c "cells differ" "$work/swap.out")" -eq 1 ] && grep -q ": 0 cells differ in 0 plans; 2 plans moved in rank; 0 plans added, 0 removed; 0 columns differ" "$work/swap.out"'

# Two tied plans (rows 1 and 2: the same figures, ranked by canonical text)
# that swap are no move at all: the ranking does not tell them apart.
cp "$work/golden/01-fit-the-model.csv.orig" "$g"
swap_rows "$g" 1
check "the tie swap was made" 'sed -n 2p "$g" | grep -q "^1,01-fit-the-model,tp8-zero1,"'
"$planeval" check --quiet --golden "$work/golden" "$scen" >"$work/swap.out" 2>&1; rc=$?
check "a swapped tie passes (exit 0, got $rc)" '[ $rc -eq 0 ] && [ "$(cat "$work/swap.out")" = "1 passed, 0 failed" ]'

# A plan missing from the golden report is added; an extra one is removed.
cp "$work/golden/01-fit-the-model.csv.orig" "$g"
sed -i '4d' "$g"
printf '200,01-fit-the-model,ghost-plan,invalid,x,64,64,1,1,1,0,none,1f1b,1,false,1\n' >>"$g"
"$planeval" check --quiet --golden "$work/golden" "$scen" >"$work/addrm.out" 2>&1; rc=$?
check "added and removed plans fail (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "the added plan is named" 'grep -q "plan .dp2-tp8-pp4-cp1-z0-none-mb1-1f1b-v1-sp1. (row 3): not in the golden report" "$work/addrm.out"'
check "the removed plan is named" 'grep -q "plan .ghost-plan. (golden row 199): not in the fresh report" "$work/addrm.out"'
check "summary counts one added, one removed, nothing else" 'grep -q ": 0 cells differ in 0 plans; 0 plans moved in rank; 1 plans added, 1 removed;" "$work/addrm.out" && [ "$(wc -l <"$work/addrm.out")" -eq 4 ]'

# --abs-tol beside --rel-tol: a change of 0.001 GiB passes within 0.01.
cp "$work/golden/01-fit-the-model.csv.orig" "$g"
awk -F, 'BEGIN{OFS=","} NR==2{$25=$25+0.001} {print}' "$g" >"$g.new" && mv "$g.new" "$g"
"$planeval" check --quiet --golden "$work/golden" "$scen" >"$work/abs.out" 2>&1; rc=$?
check "a 0.001 change fails at the default tolerance (got $rc)" '[ $rc -eq 1 ] && grep -q "1 cells differ in 1 plans" "$work/abs.out"'
"$planeval" check --quiet --golden "$work/golden" --abs-tol 0.01 "$scen" >"$work/abs.out" 2>&1; rc=$?
check "--abs-tol 0.01 accepts it (got $rc)" '[ $rc -eq 0 ]'
"$planeval" check --quiet --golden "$work/golden" --abs-tol 0.0001 "$scen" >"$work/abs.out" 2>&1; rc=$?
check "--abs-tol 0.0001 does not (got $rc)" '[ $rc -eq 1 ]'
"$planeval" check --quiet --golden "$work/golden" --abs-tol -1 "$scen" >"$work/abs.out" 2>&1; rc=$?
check "--abs-tol -1 is a usage error (got $rc)" '[ $rc -eq 2 ] && grep -q "abs-tol" "$work/abs.out"'

# --top K with --golden: the K best rows, as run --top K writes them.
mkdir -p "$work/golden-top"
"$planeval" check --quiet --golden "$work/golden-top" --update-golden --top 3 "$scen" >/dev/null 2>&1
check "--update-golden --top 3 writes 3 rows" '[ "$(wc -l <"$work/golden-top/01-fit-the-model.csv")" -eq 4 ]'
"$planeval" run --quiet --top 3 -o "$work/run-top" "$scen" 2>/dev/null
check "they are the rows run --top 3 writes" 'cmp -s "$work/golden-top/01-fit-the-model.csv" "$work/run-top/01-fit-the-model.csv"'
"$planeval" check --quiet --golden "$work/golden-top" --top 3 "$scen" >"$work/top.out" 2>&1; rc=$?
check "check --golden --top 3 against it passes (got $rc)" '[ $rc -eq 0 ]'
"$planeval" check --quiet --golden "$work/golden-top" "$scen" >"$work/top.out" 2>&1; rc=$?
check "without --top every other plan is added (got $rc)" '[ $rc -eq 1 ] && grep -q "196 plans added, 0 removed" "$work/top.out"'
"$planeval" check --top 3 "$scen" >"$work/top.out" 2>&1; rc=$?
check "--top without --golden is refused (exit 2, got $rc)" '[ $rc -eq 2 ] && grep -q "top K applies to the --golden reports only" "$work/top.out"'

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
