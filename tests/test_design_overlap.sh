#!/usr/bin/env bash
# test_design_overlap.sh PLANEVAL SOURCE_DIR WORKDIR — the overlap switches
# as design axes (docs/sweeps.md "Sweeping the design"): sweep.overlap
# {tp, cp, dp, pp, ep}, each value a design whose rows equal the scenario
# with that fraction in overlap: (over the framework's defaults); the
# columns overlap.tp … overlap.ep carry each row's fractions; validate
# counts the plans of each value; shards merge unchanged.
. "$(dirname "$0")/testlib.sh"

base() { # base NAME OVERLAP_LINE SWEEP_LINES
    cat <<EOF2
schema: planeval/v1
name: $1
fidelity: refined
framework: megatron-core
model: { preset: llama3-70b }
cluster: { preset: h100-node, nodes: 64 }
training: { global_batch: 1024, tokens: 15e12 }
$2
sweep:
$3
  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
EOF2
}
base ov "" "  overlap: { dp: [1, 0.5, 0], tp: [1, 0] }" >"$work/ov.yaml"
"$planeval" run --quiet -o "$work/ov" "$work/ov.yaml"; rc=$?
report=$work/ov/ov.csv
check "a sweep of the overlap switches runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
for dp in 0 0.5 1; do for tp in 0 1; do
    base "one-$dp-$tp" "overlap: { dp: $dp, tp: $tp }" "" >"$work/one-$dp-$tp.yaml"
    "$planeval" run --quiet -o "$work/one" "$work/one-$dp-$tp.yaml"
done; done
same=$(python3 "$(dirname "$0")/design_rows.py" same "$report" overlap.dp,overlap.tp $(ls "$work"/one/one-*.csv | grep -v summary))
more=$(python3 - "$report" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
# megatron-core's own cp, pp, ep (1, 0, 0) stay where the sweep does not vary them
if {(r["overlap.cp"], r["overlap.pp"], r["overlap.ep"]) for r in rows if r["status"] != "invalid"} != {("1", "0", "0")}:
    bad.append("the unswept fractions")
hidden = lambda dp: {r["plan"]: float(r["step_time_s"]) for r in rows if r["overlap.dp"] == dp and r["overlap.tp"] == "0" and r["status"] != "invalid"}
none, full = hidden("0"), hidden("1")
if not none or any(full[p] > none[p] for p in none) or not any(full[p] < none[p] for p in none):
    bad.append("hiding DP communication does not shorten the step")
print("ok" if not bad else "; ".join(bad[:3]))
EOF2
)
check "each (dp, tp) overlap design's rows are its one-value scenario's, named in the overlap columns ($same; $more)" \
    '[ "$same" = ok ] && [ "$more" = ok ]'
out=$("$planeval" validate "$work/ov.yaml")
check "validate counts the plans of each overlap value" \
    '[[ $out == *"  sweep.overlap.tp: 1: 30 plans, 0: 30 plans"* ]] && [[ $out == *"  sweep.overlap.dp: 1: 20 plans, 0.5: 20 plans, 0: 20 plans"* ]] && [ "$(($(wc -l <"$report") - 1))" -eq 60 ]'
err=$("$planeval" run -o "$work/facts" "$work/ov.yaml" 2>&1 >/dev/null)
want="overlap: swept by sweep.overlap (each row's are its overlap.* columns); the first design's: tp 1, cp 1, dp 1, pp 0, ep 0 in force"
check "run's overlap fact says it is swept and is the design of index 0's, the first values (dp 1, tp 1)" '[[ $err == *"$want"* ]]'
for i in 0 1 2; do "$planeval" run --quiet --shard $i/3 -o "$work/shards" "$work/ov.yaml"; done
"$planeval" merge --quiet "$work"/shards/ov.shard-*-of-3.csv -o "$work/merged.csv"; rc=$?
check "overlap-axis shards merge into one run's report, byte for byte (exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/merged.csv" "$report"'
finish
