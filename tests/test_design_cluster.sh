#!/usr/bin/env bash
# test_design_cluster.sh PLANEVAL SOURCE_DIR WORKDIR — sweep.cluster, the GPU
# generation as a design axis (docs/sweeps.md "Sweeping the design"): each
# listed preset is one type, its rows ranked in the one report with a
# `cluster` column naming it; each type's price makes its own cost
# (S7 cost = gpu_hours · cost_per_gpu_hour: $2.00 on h100-node, $4.00 on
# b200-node); the same rows as one scenario a type; validate counts the plans
# of each type; targets: name the smallest meeting size of each type (T1
# per type); shards, merge and resume work on a cluster sweep unchanged.
. "$(dirname "$0")/testlib.sh"

cat >"$work/two.yaml" <<'EOF2'
schema: planeval/v1
name: two
fidelity: refined
model: { preset: llama3-70b }
cluster: { nodes: 64 }
training: { global_batch: 1024, tokens: 15e12 }
sweep:
  cluster: [h100-node, b200-node]
  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
  recompute: [none, selective]
EOF2
"$planeval" run --quiet -o "$work/two" "$work/two.yaml"; rc=$?
report=$work/two/two.csv
check "a sweep over two cluster presets runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
# the same scenario one type at a time: cluster.preset instead of the list
for t in h100-node b200-node; do
    sed -e "s/cluster: { nodes: 64 }/cluster: { preset: $t, nodes: 64 }/" -e '/  cluster: \[/d' \
        -e "s/^name: two/name: one-$t/" "$work/two.yaml" >"$work/$t.yaml"
    "$planeval" run --quiet -o "$work/one" "$work/$t.yaml"
done
same=$(python3 - "$report" "$work/one/one-h100-node.csv" "$work/one/one-b200-node.csv" <<'EOF2'
import csv, sys
two = list(csv.DictReader(open(sys.argv[1])))
ones = {"h100-node": list(csv.DictReader(open(sys.argv[2]))),
        "b200-node": list(csv.DictReader(open(sys.argv[3])))}
keep = lambda r: {k: v for k, v in r.items() if k not in ("rank", "scenario", "plan_index")}
bad = []
for t, rows in ones.items():
    mine = [keep(r) for r in two if r["cluster"] == t]
    if sorted(map(str, mine)) != sorted(map(str, (keep(r) for r in rows))):
        bad.append(t + ": rows differ")
    for r in rows:
        if r["cluster"] != t:
            bad.append("one type's report names %s" % r["cluster"])
price = {"h100-node": 2.0, "b200-node": 4.0}
for r in two:
    if r["cost"] and abs(float(r["cost"]) - price[r["cluster"]] * float(r["gpu_hours"])) > 1e-9 * float(r["cost"]):
        bad.append("cost of %s on %s" % (r["plan"], r["cluster"]))
ranks = [int(r["rank"]) for r in two]
if ranks != list(range(1, len(two) + 1)) or {r["cluster"] for r in two} != set(price):
    bad.append("not one ranking over both types")
print("ok" if not bad else "; ".join(bad[:3]))
EOF2
)
check "each type's rows are those of its own scenario, named in the cluster column, cost at its own price, ranked together ($same)" \
    '[ "$same" = ok ]'

out=$("$planeval" validate "$work/two.yaml")
n1=$(sed -n 's/.*h100-node: \([0-9]*\) plans.*/\1/p' <<<"$out")
n2=$(sed -n 's/.*b200-node: \([0-9]*\) plans.*/\1/p' <<<"$out")
r1=$(csv_column "$report" cluster | grep -cx h100-node); r2=$(csv_column "$report" cluster | grep -cx b200-node)
check "validate counts the plans of each type (sweep.cluster: h100-node: $n1, b200-node: $n2; the report $r1, $r2)" \
    '[[ $out == *"  sweep.cluster: h100-node: $n1 plans, b200-node: $n2 plans"* ]] && [ "$n1" = "$r1" ] && [ "$n2" = "$r2" ] && [ "$r1" -gt 0 ]'

# a type's own keys: an item {preset, cost_per_gpu_hour} prices that type
sed -e 's/cluster: \[h100-node, b200-node\]/cluster: [h100-node, {preset: b200-node, cost_per_gpu_hour: 3.5}]/' \
    -e 's/^name: two/name: priced/' "$work/two.yaml" >"$work/priced.yaml"
"$planeval" run --quiet -o "$work/priced" "$work/priced.yaml"; rc=$?
priced=$(python3 - "$work/priced/priced.csv" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
b = [r for r in rows if r["cluster"] == "b200-node" and r["cost"]]
print("ok" if b and all(abs(float(r["cost"]) - 3.5 * float(r["gpu_hours"])) < 1e-9 * float(r["cost"]) for r in b) else "bad")
EOF2
)
check "an item's own cost_per_gpu_hour prices its type (exit $rc, $priced)" '[ $rc -eq 0 ] && [ "$priced" = ok ]'

# targets per type: drill 6's question in one file (h100.yaml, b200.yaml:
# 1024 H100 nodes, 512 B200 nodes)
cat >"$work/tg.yaml" <<'EOF2'
schema: planeval/v1
name: tg
fidelity: refined
model: { preset: llama3-70b }
training: { global_batch: 2048 }
targets: { tokens: 15e12, days: 30 }
sweep:
  cluster: [h100-node, b200-node]
  nodes: [256, 512, 1024, 2048]
  tp: [4, 8]
  pp: [1, 2, 4, 8]
  dp: auto
  zero: 1
  recompute: [none, selective]
  micro_batch: [1, 2]
EOF2
"$planeval" run -o "$work/tg" "$work/tg.yaml" >"$work/tg.out" 2>/dev/null; rc=$?
check "targets: the smallest meeting size of each type, as drill 6's two files find (exit $rc: $(cat "$work/tg.out"))" \
    '[ $rc -eq 0 ] && grep -q "^tg: targets met on h100-node: smallest cluster 1024 nodes (8192 GPUs); best plan on it: dp1024-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1 (rank [0-9]*): 22.8077 days, 4.48417e+06 GPU-hours, cost 8.96834e+06$" "$work/tg.out" &&
     grep -q "^tg: targets met on b200-node: smallest cluster 512 nodes (4096 GPUs); best plan on it: dp1024-tp4-pp1-cp1-z1-none-mb2-1f1b-v1-sp1 (rank [0-9]*): 19.3666 days, 1.90381e+06 GPU-hours, cost 7.61525e+06$" "$work/tg.out"'
sed -e 's/days: 30/days: 11/' -e 's/^name: tg/name: tg11/' "$work/tg.yaml" >"$work/tg11.yaml"
"$planeval" run -o "$work/tg11" "$work/tg11.yaml" >"$work/tg11.out" 2>/dev/null; rc=$?
check "a type that meets no size says which target and the best it reached; the others still answer (exit $rc)" \
    '[ $rc -eq 0 ] && grep -q "^tg11: targets not met on h100-node: targets.days = 11: no design meets it; the best reached is 12.0597 days (dp2048-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1 on 16384 GPUs)$" "$work/tg11.out" && grep -q "^tg11: targets met on b200-node: smallest cluster 1024 nodes (8192 GPUs); " "$work/tg11.out"'
sed -e 's/days: 30/days: 5/' -e 's/^name: tg/name: tg5/' "$work/tg.yaml" >"$work/tg5.yaml"
"$planeval" run -o "$work/tg5" "$work/tg5.yaml" >"$work/tg5.out" 2>"$work/tg5.err"; rc=$?
check "no type meets them: exit 2, each type's best reached, no report (exit $rc)" \
    '[ $rc -eq 2 ] && [ ! -e "$work/tg5/tg5.csv" ] && grep -q "tg5.yaml:6:10: error: targets: no type of sweep.cluster meets them: h100-node: targets.days = 5: no design meets it; the best reached is 12.0597 days .*; b200-node: targets.days = 5: no design meets it; the best reached is 9.08301 days" "$work/tg5.err"'

# shards merge into the one run's report; a cluster sweep resumes
for i in 0 1 2; do "$planeval" run --quiet --shard $i/3 -o "$work/shards" "$work/two.yaml"; done
"$planeval" merge --quiet "$work"/shards/two.shard-*-of-3.csv -o "$work/merged.csv"; rc=$?
check "cluster-sweep shards merge into one run's report, byte for byte (exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/merged.csv" "$report"'
big=$work/big.yaml
sed -e 's/preset: h100-node, nodes: 512, /nodes: 512, /' -e 's/^name: .*/name: big-cluster/' \
    "$src/tests/bench/gpt3-4096-lists.yaml" >"$big"
printf '  cluster: [h100-node, h200-node]\n' >>"$big"
"$planeval" run --quiet --threads 2 --top 20 -o "$work/big-full" "$big"; rc=$?
check "a big sweep over two cluster types runs (exit $rc)" '[ $rc -eq 0 ]'
"$planeval" run --quiet --threads 2 --top 20 -o "$work/big-int" "$big" & pid=$!
sleep 0.5
kill -INT $pid; wait $pid; rc=$?
if [ $rc -eq 0 ]; then
    echo "note: the run finished before SIGINT arrived; this machine is fast: not a failure of resume"
    ok; ok
else
    check "SIGINT leaves a checkpoint (exit $rc)" '[ $rc -eq 130 ] && [ -s "$work/big-int/big-cluster.checkpoint" ]'
    "$planeval" run --quiet --resume --threads 1 --top 20 -o "$work/big-int" "$big"
    check "the resumed cluster sweep: byte-identical report" \
        'cmp -s "$work/big-int/big-cluster.csv" "$work/big-full/big-cluster.csv"'
fi
finish
