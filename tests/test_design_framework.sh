#!/usr/bin/env bash
# test_design_framework.sh PLANEVAL SOURCE_DIR WORKDIR — sweep.framework, the
# training framework as a design axis (docs/sweeps.md "Sweeping the design"):
# each listed preset's rows equal the scenario with `framework: NAME` (its
# step flags, memory by phase, overlap defaults, then the scenario's
# overlap:); the `framework` column names it; validate counts the plans of
# each; a sweep.overlap axis overrides each framework's default; shards merge
# unchanged; under fidelity: textbook every framework is the textbook model.
. "$(dirname "$0")/testlib.sh"

base() { # base NAME TOP_LINES SWEEP_LINES
    cat <<EOF2
schema: planeval/v1
name: $1
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
base fw "overlap: { pp: 0.5 }" "  framework: [megatron-core, nemo, torchtitan]" >"$work/fw.yaml"
"$planeval" run --quiet -o "$work/fw" "$work/fw.yaml"; rc=$?
report=$work/fw/fw.csv
check "a sweep over three frameworks runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
# run's facts (stderr, and the page's) are the first design's: they say so
"$planeval" run -o "$work/fw-facts" "$work/fw.yaml" 2>"$work/fw.err" >/dev/null
check "run's framework fact says the framework is swept and whose facts it shows" \
    'grep -q "^fw: framework: swept by sweep.framework (each row.s is its framework column); the first design.s: megatron-core: " "$work/fw.err"'
for f in megatron-core nemo torchtitan; do
    base "one-$f" "framework: $f
overlap: { pp: 0.5 }" "" >"$work/one-$f.yaml"
    "$planeval" run --quiet -o "$work/one" "$work/one-$f.yaml"
done
same=$(python3 "$(dirname "$0")/design_rows.py" same "$report" framework $(ls "$work"/one/one-*.csv | grep -v summary))
more=$(python3 - "$report" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
steps = {f: sorted(float(r["step_time_s"]) for r in rows if r["framework"] == f and r["status"] != "invalid") for f in ("megatron-core", "nemo", "torchtitan")}
if steps["megatron-core"] == steps["torchtitan"]:
    bad.append("the frameworks time alike")
if {r["overlap.pp"] for r in rows if r["status"] != "invalid"} != {"0.5"}:
    bad.append("the scenario's overlap: over each framework's")
print("ok" if not bad else "; ".join(bad[:3]))
EOF2
)
check "each framework's rows are its framework: NAME scenario's, named in the framework column ($same; $more)" \
    '[ "$same" = ok ] && [ "$more" = ok ]'
out=$("$planeval" validate "$work/fw.yaml")
check "validate counts the plans of each framework" \
    '[[ $out == *"  sweep.framework: megatron-core: 10 plans, nemo: 10 plans, torchtitan: 10 plans"* ]]'

base both "" "  framework: [megatron-core, nemo]
  overlap: { dp: [0, 1] }" >"$work/both.yaml"
"$planeval" run --quiet -o "$work/both" "$work/both.yaml"; rc=$?
combos=$(python3 "$(dirname "$0")/design_rows.py" distinct "$work/both/both.csv" framework overlap.dp overlap.tp)
check "sweep.overlap over each framework's defaults: dp swept, tp each framework's own (exit $rc: $combos)" \
    "[ $rc -eq 0 ] && [ \"\$combos\" = \"[('megatron-core', '0', '0'), ('megatron-core', '1', '0'), ('nemo', '0', '1'), ('nemo', '1', '1')]\" ]"

base tb "fidelity: textbook" "  framework: [megatron-core, torchtitan]" >"$work/tb.yaml"
"$planeval" run --quiet -o "$work/tb" "$work/tb.yaml"; rc=$?
alike=$(python3 - "$work/tb/tb.csv" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
drop = lambda r: str({k: v for k, v in r.items() if k not in ("rank", "plan_index", "framework")})
a = sorted(drop(r) for r in rows if r["framework"] == "megatron-core")
b = sorted(drop(r) for r in rows if r["framework"] == "torchtitan")
print("ok" if a and a == b else "differ")
EOF2
)
check "fidelity: textbook: every framework is the textbook model, rows alike but for the column (exit $rc, $alike)" \
    '[ $rc -eq 0 ] && [ "$alike" = ok ]'

for i in 0 1; do "$planeval" run --quiet --shard $i/2 -o "$work/shards" "$work/fw.yaml"; done
"$planeval" merge --quiet "$work"/shards/fw.shard-*-of-2.csv -o "$work/merged.csv"; rc=$?
check "framework-axis shards merge into one run's report, byte for byte (exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/merged.csv" "$report"'
finish
