#!/usr/bin/env bash
# test_intervals.sh PLANEVAL SOURCE_DIR WORKDIR — S6's prediction interval
# (docs/model.md §8, §12 "Prediction intervals"), properties over every
# bundled report: step_time_lo_s ≤ step_time_s ≤ step_time_hi_s on every row
# with a step time, the interval holding the point; the cells empty in
# textbook mode and on invalid rows; columns found by name. check --table
# prints the coverage of the published runs.
. "$(dirname "$0")/testlib.sh"

dirs="scenarios/drills scenarios/drills/02-choose-parallelism scenarios/drills/03-comm-budget scenarios/published tests/freeze/scenarios"
# shellcheck disable=SC2086
(cd "$src" && "$planeval" run --quiet --threads 2 -o "$work/reports" $dirs) >"$work/run.out" 2>&1
rc=$?
check "every bundled scenario runs (rc $rc)" '[ $rc -eq 0 ]'
n_reports=$(find "$work/reports" -name '*.csv' ! -name '*.summary.csv' | wc -l)
check "reports written ($n_reports)" '[ "$n_reports" -gt 50 ]'

# Every row of every report: lo ≤ point ≤ hi where the cells are numbers
# (S6: step_time_s; M23: mem_peak_gib); lo and hi empty together; counts of
# rows with an interval and without.
interval_props() { # POINT LO HI: one line "with N without N bad N", then the first faults
    python3 - "$work/reports" "$1" "$2" "$3" <<'PY'
import csv, glob, os, sys
root, point, lo_col, hi_col = sys.argv[1:5]
bad, with_iv, without = [], 0, 0
for path in sorted(glob.glob(os.path.join(root, '*.csv'))):
    if path.endswith('.summary.csv'):
        continue
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    if not rows or lo_col not in rows[0]:
        bad.append(f'{path}: no {lo_col} column'); continue
    for r in rows:
        lo, hi, pt = r[lo_col], r[hi_col], r[point]
        if (lo == '') != (hi == ''):
            bad.append(f'{path}: one of lo, hi empty')
        elif lo == '':
            without += 1
        elif pt == '':
            bad.append(f'{path}: an interval without a {point}')
        elif not (float(lo) <= float(pt) <= float(hi)):
            bad.append(f'{path}: {lo} <= {pt} <= {hi} fails')
        else:
            with_iv += 1
print(f'with {with_iv} without {without} bad {len(bad)}')
for b in bad[:5]:
    print(b)
PY
}
interval_props step_time_s step_time_lo_s step_time_hi_s >"$work/prop.out" 2>&1
check "lo <= step <= hi on every row: $(head -3 "$work/prop.out" | tr '\n' ' ')" \
    'grep -q "bad 0$" "$work/prop.out"'
check "rows with an interval exist" '! grep -q "^with 0 " "$work/prop.out"'
check "rows without one exist (textbook, invalid)" '! grep -q " without 0 " "$work/prop.out"'
interval_props mem_peak_gib mem_peak_lo_gib mem_peak_hi_gib >"$work/mprop.out" 2>&1
check "M23: lo <= mem_peak <= hi on every row: $(head -3 "$work/mprop.out" | tr '\n' ' ')" \
    'grep -q "bad 0$" "$work/mprop.out"'
check "M23: rows with a memory interval exist" '! grep -q "^with 0 " "$work/mprop.out"'

# textbook mode: the two cells empty on every row
cp "$src/scenarios/published/korthikanti-r1-22b-t5-selective.yaml" "$work/tb.yaml"
sed -i 's/^fidelity: refined.*/fidelity: textbook/' "$work/tb.yaml"
"$planeval" run --quiet -o "$work/tb" "$work/tb.yaml" >/dev/null 2>&1
tb=$(find "$work/tb" -name '*.csv' ! -name '*.summary.csv' | head -1)
cells=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(','.join(x['step_time_lo_s']+'|'+x['step_time_hi_s'] for x in r))" "$tb")
check "textbook: lo and hi empty ($cells)" '[ "$cells" = "|" ]'
mcells=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(','.join(x['mem_peak_lo_gib']+'|'+x['mem_peak_hi_gib'] for x in r))" "$tb")
check "textbook: mem_peak_lo_gib and _hi_gib empty ($mcells)" '[ "$mcells" = "|" ]'

# the refined file: the A100's interval from its preset, explained
"$planeval" explain "$src/scenarios/published/korthikanti-r1-22b-t5-selective.yaml" \
    --plan korthikanti-r1-22b-t5-selective >"$work/explain.out" 2>&1
check "explain prints S6 with the preset's numbers" \
    'grep -q "δ− = 0.08608, δ+ = 0.07315: the GPU preset.s, from 9 leave-one-out" "$work/explain.out"'
# an uncalibrated framework: the stated default, named as such
"$planeval" explain "$src/scenarios/published/torchtitan-2412-t1-llama3-8b-8gpu-fsdp.yaml" \
    --plan torchtitan-2412-t1-llama3-8b-8gpu-fsdp >"$work/explain2.out" 2>&1
check "explain names the default as not a measurement" \
    'grep -q "δ− = 0.333333, δ+ = 0.5: the stated default, not a measurement" "$work/explain2.out"'

# M23: the framework preset's memory interval: its numbers recomputed from
# the memory library, the report cells, explain, the default elsewhere
python3 "$src/tests/derive_memory_interval.py" "$planeval" "$src" >"$work/derive.out" 2>&1
rc=$?
check "derive_memory_interval.py: every number agrees (rc $rc; $(grep -c '^ok' "$work/derive.out") ok)" \
    '[ $rc -eq 0 ] && ! grep -q "^FAIL" "$work/derive.out" && [ "$(grep -c "^ok" "$work/derive.out")" -eq 10 ]'
check "derive: torchtitan's 9 residuals" \
    'grep -q "torchtitan/torchtitan-2506: 9 residuals, q- -0.0487, q+ +0.0707, w 1.1490, delta- 0.0544, delta+ 0.0847" "$work/derive.out"'
# a catalog with another δ− is caught
mkdir -p "$work/bad/scenarios"
cp -r "$src/scenarios/memory" "$src/scenarios/catalog" "$work/bad/scenarios/"
sed -i '0,/mem_peak_below: 0.0544/s//mem_peak_below: 0.06/' "$work/bad/scenarios/catalog/frameworks.yaml"
python3 "$src/tests/derive_memory_interval.py" "$planeval" "$work/bad" >"$work/derive-bad.out" 2>&1
rc=$?
check "derive: a catalog number that disagrees fails (rc $rc)" \
    '[ $rc -eq 1 ] && grep -q "^FAIL torchtitan.mem_peak_below catalog=0.06 derived=0.0544" "$work/derive-bad.out"'
mem=scenarios/memory/torchtitan-2412-t2-8b-fsdp8-cp1.yaml
"$planeval" run --quiet -o "$work/mem" "$src/$mem" >/dev/null 2>&1
cells=$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r['mem_peak_gib'], r['mem_peak_lo_gib'], r['mem_peak_hi_gib'])" "$work/mem/torchtitan-2412-t2-8b-fsdp8-cp1.csv")
# 73.86377716064453·(1 − 0.0544) = 69.8456..., ·(1 + 0.0847) = 80.1209...
check "M23 cells: peak·(1 − 0.0544), peak·(1 + 0.0847) ($cells)" \
    'echo "$cells" | python3 -c "import sys; p, lo, hi = map(float, sys.stdin.read().split()); sys.exit(not (abs(lo - p * (1 - 0.0544)) < 1e-9 * p and abs(hi - p * 1.0847) < 1e-9 * p))"'
"$planeval" explain "$src/$mem" --plan torchtitan-2412-t2-8b-fsdp8-cp1 >"$work/mexplain.out" 2>&1
check "explain prints M23 with the framework's numbers" \
    'grep -q "δ− = 0.0544, δ+ = 0.0847: the framework torchtitan.s, from 9 residuals of its published memory runs" "$work/mexplain.out"'
check "explain carries the ratios to the reserved and device totals" \
    'grep -q "the same ratios: mem_reserved_gib 88.1195 in \[83.3258, 95.5832\]" "$work/mexplain.out"'
"$planeval" explain "$src/scenarios/published/nemo-2407-llama3-8b-8gpu.yaml" \
    --plan nemo-2407-llama3-8b-8gpu >"$work/explain3.out" 2>&1
check "explain names the memory default for a framework with no memory runs (nemo)" \
    'grep -q "^     δ− = 0.333333, δ+ = 0.5: the stated default, not a measurement: no memory runs of this framework in the library" "$work/explain3.out"'
(cd "$src" && "$planeval" check --table scenarios/memory) >"$work/mtable.out" 2>&1
check "memory coverage table header" \
    'grep -qx "| source | group | memory peaks with an interval | inside | coverage % |" "$work/mtable.out"'
check "memory coverage: 21 of 24 inside" \
    'grep -qx "memory intervals (M23, 80%): 21 of 24 published memory peaks inside (87.5%)" "$work/mtable.out"'
check "memory coverage: torchtitan predict 8 of 11" \
    'grep -qx "| torchtitan | predict | 11 | 8 | 72.7 |" "$work/mtable.out"'

# check --table: the coverage table and line
(cd "$src" && "$planeval" check --table scenarios/published) >"$work/table.out" 2>&1
check "coverage table header" \
    'grep -qx "| source | group | step times with an interval | inside | coverage % |" "$work/table.out"'
check "coverage line" \
    'grep -qE "^prediction intervals \(S6, 80%\): [0-9]+ of [0-9]+ published step times inside \([0-9.]+%\)$" "$work/table.out"'

# calibrate prints the preset's S6 lines
(cd "$src" && "$planeval" calibrate scenarios/calibration/a100.csv) >"$work/cal.out" 2>&1
check "calibrate prints step_time_below" 'grep -qx "    step_time_below: 0.08608" "$work/cal.out"'
check "calibrate names the runs' frameworks" 'grep -q "runs on: megatron-core megatron-lm-2021" "$work/cal.out"'
finish
