#!/usr/bin/env bash
# test_textbook_oracle.sh PLANEVAL SOURCE_DIR WORKDIR — planeval against an
# independent textbook model: tests/textbook_oracle.py, written from the
# spec (model.md v1.1, interface.md) alone, generates 200 seeded random
# scenarios (random models, clusters, budgets, explicit plans valid and
# invalid, sweeps over every textbook key), runs `planeval run` on them (and
# `--top 3`) and compares every cell of the 47 report columns, and the row
# order, with its own evaluation; any mismatch fails, the first ones
# printed (scenario, plan, column, oracle value, planeval value). Then the
# comparison is shown to bite: one number of one report changed in its last
# digits, and two rows swapped, must each be found. More seeds:
# `python3 tests/textbook_oracle.py build/planeval --seed S --count N`.
. "$(dirname "$0")/testlib.sh"

command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
oracle=$src/tests/textbook_oracle.py
seed=1 count=200

python3 "$oracle" "$planeval" --seed $seed --count $count --work "$work/o" >"$work/log" 2>&1
rc=$?
head -21 "$work/log"
check "oracle and planeval agree on every cell (exit $rc)" '[ $rc -eq 0 ]'
check "the oracle compared at least 300,000 cells" \
    'awk "/cells compared/ { for (i = 1; i <= NF; i++) if (\$(i + 1) == \"cells\") exit !(\$i >= 300000) }" "$work/log"'

# The comparison bites: a report whose best plan is ok, changed twice.
rep=
for f in "$work"/o/out/oracle-*[0-9].csv; do
    [ "$(csv_column "$f" status | sed -n 2p)" = ok ] && { rep=$f; break; }
done
check "a report whose best plan is ok" '[ -n "$rep" ]'
name=$(basename "$rep" .csv)
cp "$rep" "$work/saved.csv"
# edit ROW COLUMN FACTOR | swap — rewrite $rep from the saved report
edit() {
    python3 - "$work/saved.csv" "$rep" "$@" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
if sys.argv[3] == "swap":
    rows[1], rows[2] = rows[2], rows[1]
else:
    c = rows[0].index(sys.argv[3])
    rows[1][c] = repr(float(rows[1][c]) * float(sys.argv[4]))
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(rows)
PY
}
again() { python3 "$oracle" "$planeval" --seed $seed --count $count --work "$work/o" --reuse >"$1" 2>&1; }
# Bite 1: the best plan's step time 1e-6 relative off.
edit step_time_s 1.000001
again "$work/log1"; rc=$?
check "a step time off by 1e-6 is a mismatch (exit $rc)" '[ $rc -eq 1 ]'
check "the mismatch names the report, the column and both values" \
    'grep -q "^MISMATCH $name | .* | step_time_s | oracle [0-9.e-]* | planeval [0-9.e-]*$" "$work/log1"'
# Bite 2: the two best rows swapped (a ranking difference).
edit swap
again "$work/log2"; rc=$?
check "two rows swapped is a mismatch (exit $rc)" '[ $rc -eq 1 ]'
check "the mismatch is the plan at rank 1" 'grep -q "^MISMATCH $name | rank 1 | plan | " "$work/log2"'
cp "$work/saved.csv" "$rep"
again "$work/log3"; rc=$?
check "the restored report agrees again (exit $rc)" '[ $rc -eq 0 ]'
finish
