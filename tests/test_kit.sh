#!/usr/bin/env bash
# test_kit.sh PLANEVAL SOURCE_DIR WORKDIR — the calibration kit
# (src/kit/measure.py) at toy sizes on the CPU: it writes gemm.csv,
# attention.csv and hbm.csv with exactly the headers of
# scenarios/measurements/ (so the same readers take them), every rate
# positive, and a priors.csv that `planeval calibrate --priors` accepts.
# Skipped (exit 77) where PyTorch is not importable: the kit's one optional
# dependency. Where PyTorch is missing the kit itself says so and exits 3.
. "$(dirname "$0")/testlib.sh"

kit=$src/src/kit/measure.py
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
py=
for p in python3 /usr/bin/python3; do # the first Python that imports torch
    command -v "$p" >/dev/null && "$p" -c "import torch" 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
    python3 "$kit" --out "$work/none" >"$work/none.out" 2>"$work/none.err"; rc=$?
    if [ $rc -ne 3 ] || ! grep -q "PyTorch is not installed" "$work/none.err"; then
        echo "FAIL: without PyTorch the kit exits 3 and says so (got $rc)"; exit 1
    fi
    echo "SKIP: PyTorch is not importable (the kit's optional dependency); without it the kit exits 3 and says so"
    exit 77
fi
"$py" "$kit" --tiny --device cpu --out "$work/kit" --gpu cpu-test --peak-tflops 1 \
    --hbm-tb-s 0.05 >"$work/kit.out" 2>"$work/kit.err"; rc=$?
check "the kit runs at toy sizes on the CPU (rc $rc)" '[ $rc -eq 0 ]'
for kind in gemm attention hbm; do
    check "$kind.csv: the header of scenarios/measurements/$kind.csv" \
        '[ "$(head -1 "$work/kit/$kind.csv")" = "$(head -1 "$src/scenarios/measurements/$kind.csv")" ]'
    check "$kind.csv: rows, each cited as measured by the kit, every rate > 0" \
        'python3 - "$work/kit/$kind.csv" <<'"'"'PY'"'"'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
rate = [k for k in ("tflops", "bytes_moved_gb_s") if k in rows[0]][0]
ok = rows and all(float(r[rate]) > 0 and r["read"] == "measured" and "measure.py" in r["source"]
                  for r in rows)
sys.exit(0 if ok else 1)
PY'
done
check "attention.csv: forward and backward, causal and not" \
    '[ "$(cut -d, -f3,5 "$work/kit/attention.csv" | sort -u | grep -c "^\(fwd\|bwd\),\(yes\|no\)$")" -eq 4 ]'
# two ranks over loopback (gloo on the CPU; NCCL on GPUs): collectives.csv
port=$((29500 + $$ % 1000))
for r in 0 1; do
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 RANK=$r LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 \
        timeout 120 "$py" "$kit" --tiny --device cpu --out "$work/two" >"$work/two-$r.out" 2>&1 &
done
wait
check "two ranks: collectives.csv with the header of scenarios/measurements/collectives.csv" \
    '[ "$(head -1 "$work/two/collectives.csv")" = "$(head -1 "$src/scenarios/measurements/collectives.csv")" ]'
check "two ranks: all-reduce by message size, 2 GPUs, busbw > 0" \
    '[ "$(awk -F, '"'"'$2 == "all_reduce" && $4 == 2 && $8 > 0'"'"' "$work/two/collectives.csv" | wc -l)" -eq 2 ]'
check "priors.csv: the header calibrate reads" \
    '[ "$(head -1 "$work/kit/priors.csv")" = "number,value,width,basis" ]'
"$planeval" calibrate "$src/scenarios/calibration/a100.csv" --priors "$work/kit/priors.csv" \
    >"$work/cal.out" 2>"$work/cal.err"; rc=$?
check "calibrate --priors takes the kit's priors.csv (rc $rc)" \
    '[ $rc -eq 0 ] && grep -q "^priors (docs/model.md" "$work/cal.out"'
finish
