#!/usr/bin/env bash
# test_summary_targets.sh PLANEVAL SOURCE_DIR WORKDIR — the summary carries
# the answer to targets: (T1, docs/sweeps.md "Targets"; docs/reports.md):
# per cluster type of sweep.cluster, "targets: TYPE: met" and, when met, the
# smallest nodes and GPUs and its best plan's name, rank, train_days,
# gpu_hours and cost — the same as the stdout line, and checked against the
# report by column name (the rank's row is that plan on that type and size,
# no ok row of the type is smaller); an unmet type says why; the rows come
# after the existing keys; a scenario without targets has none.
. "$(dirname "$0")/testlib.sh"

cat >"$work/tg.yaml" <<'EOF2'
schema: planeval/v1
name: tg
fidelity: refined
model: { preset: llama3-70b }
training: { global_batch: 1024, tokens: 15e12 }
targets: { days: 320 }
sweep:
  cluster: [h100-node, b200-node]
  nodes: [8, 16, 32, 64]
  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
  recompute: [none, selective]
EOF2
"$planeval" run -o "$work/out" "$work/tg.yaml" >"$work/stdout" 2>"$work/err"; rc=$?
summary=$work/out/tg.summary.csv
check "the run exits 0 (got $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ] && [ -s "$summary" ]'
val() { awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); print; exit }' "$summary"; }
check "b200-node meets the targets, h100-node does not" \
    '[ "$(val "targets: b200-node: met")" = yes ] && [ "$(val "targets: h100-node: met")" = no ]'
check "the unmet type says why" 'val "targets: h100-node: unmet" | grep -q "days"'
line=$(grep "targets met on b200-node" "$work/stdout")
want=$(echo "$line" | sed -E 's/.*smallest cluster ([0-9]+) nodes \(([0-9]+) GPUs\); best plan on it: ([^ ]+) \(rank ([0-9]+)\): ([^ ]+) days, ([^ ]+) GPU-hours, cost ([^ ]+)$/\1 \2 \3 \4 \5 \6 \7/')
got="$(val "targets: b200-node: smallest_nodes") $(val "targets: b200-node: smallest_gpus") $(val "targets: b200-node: best_plan") $(val "targets: b200-node: best_rank") $(val "targets: b200-node: train_days") $(val "targets: b200-node: gpu_hours") $(val "targets: b200-node: cost")"
check "the summary's answer is the stdout line's ($got; want $want)" '[ -n "$line" ] && [ "$got" = "$want" ]'
agree=$(python3 - "$work/out/tg.csv" "$got" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
nodes, gpus, plan, rank = sys.argv[2].split()[:4]
r = rows[int(rank) - 1]
bad = []
if (r["rank"], r["plan"], r["cluster"], r["nodes"], r["gpus"], r["status"]) != (rank, plan, "b200-node", nodes, gpus, "ok"):
    bad.append("rank %s is %s on %s x%s" % (rank, r["plan"], r["cluster"], r["nodes"]))
if any(x["cluster"] == "b200-node" and x["status"] == "ok" and int(x["nodes"]) < int(nodes) for x in rows):
    bad.append("a smaller ok b200 row")
if any(x["cluster"] == "b200-node" and x["status"] == "ok" and x["nodes"] == nodes and int(x["rank"]) < int(rank) for x in rows):
    bad.append("a better-ranked row of that size")
print("ok" if not bad else "; ".join(bad))
EOF2
)
check "the answer agrees with the report ($agree)" '[ "$agree" = ok ]'
check "the targets rows follow the existing keys (plans_per_s before them)" \
    '[ "$(cut -d, -f1 "$summary" | grep -n . | awk -F: "/plans_per_s/ { p = \$1 } /^[0-9]+:targets: / && !t { t = \$1 } END { print (p && t > p) }")" = 1 ]'
sed -e 's/^name: tg/name: nt/' -e '/^targets:/d' "$work/tg.yaml" >"$work/nt.yaml"
"$planeval" run --quiet -o "$work/out" "$work/nt.yaml"
check "a scenario without targets has no targets rows" \
    '[ -s "$work/out/nt.summary.csv" ] && ! grep -q "^targets: " "$work/out/nt.summary.csv"'
finish
