#!/usr/bin/env bash
# test_design_links.sh PLANEVAL SOURCE_DIR WORKDIR — the link numbers as
# design axes (docs/sweeps.md "Sweeping the design"): sweep.inter_node
# {nic_gb_s, latency_us} and sweep.intra_node {bandwidth_gb_s, link_gb_s,
# latency_us}, each value a design whose rows equal the scenario with that
# one value in cluster.inter_node/intra_node; the columns of the same names
# carry each row's numbers; validate counts the plans of each value; the
# axes combine with sweep.cluster (each type takes the swept number) and
# shard/merge unchanged.
. "$(dirname "$0")/testlib.sh"

base() { # base NAME CLUSTER SWEEP_LINES
    cat <<EOF2
schema: planeval/v1
name: $1
fidelity: refined
model: { preset: llama3-70b }
cluster: $2
training: { global_batch: 1024, tokens: 15e12 }
sweep:
$3
  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
EOF2
}
base links "{ preset: h100-node, nodes: 64 }" "  inter_node: { nic_gb_s: [25, 50, 100], latency_us: [5, 10] }
  intra_node: { bandwidth_gb_s: [300, 450] }" >"$work/links.yaml"
"$planeval" run --quiet -o "$work/links" "$work/links.yaml"; rc=$?
report=$work/links/links.csv
check "a sweep of the link numbers runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
for nic in 25 100; do for lat in 5 10; do for bw in 300 450; do
    base "one-$nic-$lat-$bw" "{ preset: h100-node, nodes: 64, inter_node: { nic_gb_s: $nic, latency_us: $lat }, intra_node: { bandwidth_gb_s: $bw } }" "" \
        >"$work/one-$nic-$lat-$bw.yaml"
    "$planeval" run --quiet -o "$work/one" "$work/one-$nic-$lat-$bw.yaml"
done; done; done
same=$(python3 "$(dirname "$0")/design_rows.py" same "$report" inter_node.nic_gb_s,inter_node.latency_us,intra_node.bandwidth_gb_s $(ls "$work"/one/one-*.csv | grep -v summary))
more=$(python3 - "$report" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
values = lambda c: sorted({r[c] for r in rows if r["status"] != "invalid"}, key=float)
if values("inter_node.nic_gb_s") != ["25", "50", "100"] or values("intra_node.bandwidth_gb_s") != ["300", "450"]:
    bad.append("the columns' values")
if any(r["intra_node.link_gb_s"] for r in rows):
    bad.append("link_gb_s filled on a switch")
slow = {r["plan"]: float(r["dp_comm_s"]) for r in rows if r["inter_node.nic_gb_s"] == "25" and r["inter_node.latency_us"] == "5" and r["intra_node.bandwidth_gb_s"] == "450" and r["status"] != "invalid"}
fast = {r["plan"]: float(r["dp_comm_s"]) for r in rows if r["inter_node.nic_gb_s"] == "100" and r["inter_node.latency_us"] == "5" and r["intra_node.bandwidth_gb_s"] == "450" and r["status"] != "invalid"}
if not slow or any(fast[p] > slow[p] for p in slow) or not any(fast[p] < slow[p] for p in slow):
    bad.append("a faster NIC does not shorten dp_comm_s")
print("ok" if not bad else "; ".join(bad[:3]))
EOF2
)
check "each (nic_gb_s, latency_us, bandwidth_gb_s) design's rows are its one-value scenario's, named in the columns of the same names ($same; $more)" \
    '[ "$same" = ok ] && [ "$more" = ok ]'
out=$("$planeval" validate "$work/links.yaml")
check "validate counts the plans of each link value" \
    '[[ $out == *"120 plans, 120 skipped"* ]] && [[ $out == *"  sweep.inter_node.nic_gb_s: 25: 40 plans, 50: 40 plans, 100: 40 plans"* ]] && [[ $out == *"  sweep.inter_node.latency_us: 5: 60 plans, 10: 60 plans"* ]] && [[ $out == *"  sweep.intra_node.bandwidth_gb_s: 300: 60 plans, 450: 60 plans"* ]] && [ "$(($(wc -l <"$report") - 1))" -eq 120 ]'

# with sweep.cluster: every type takes each swept number
base both "{ nodes: 64 }" "  cluster: [h100-node, b200-node]
  inter_node: { nic_gb_s: [25, 100] }" >"$work/both.yaml"
"$planeval" run --quiet -o "$work/both" "$work/both.yaml"; rc=$?
combos=$(python3 "$(dirname "$0")/design_rows.py" distinct "$work/both/both.csv" cluster inter_node.nic_gb_s intra_node.bandwidth_gb_s)
check "sweep.cluster with a nic axis: each type on each NIC, its own intra-node bandwidth (exit $rc: $combos)" \
    "[ $rc -eq 0 ] && [ \"\$combos\" = \"[('b200-node', '100', '900'), ('b200-node', '25', '900'), ('h100-node', '100', '450'), ('h100-node', '25', '450')]\" ]"

for i in 0 1; do "$planeval" run --quiet --shard $i/2 -o "$work/shards" "$work/links.yaml"; done
"$planeval" merge --quiet "$work"/shards/links.shard-*-of-2.csv -o "$work/merged.csv"; rc=$?
check "link-axis shards merge into one run's report, byte for byte (exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/merged.csv" "$report"'
finish
