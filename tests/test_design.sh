#!/usr/bin/env bash
# test_design.sh PLANEVAL SOURCE_DIR WORKDIR — sweeping the design
# (docs/sweeps.md "Sweeping the design"): sweep.nodes and sweep.global_batch
# rank every design's plans in one report; each design's rows are exactly the
# rows of the scenario with those values written in; validate counts the
# plans of each axis value; shards merge into one run's report and an
# interrupted design sweep resumes into it; the cost column is gpu_hours at
# the preset's price (docs/model.md S7).
. "$(dirname "$0")/testlib.sh"

design() { # design NODES_LINE BATCH_LINE SWEEP_EXTRA
    cat <<EOF
schema: planeval/v1
name: design
model: { preset: llama3-70b }
cluster: { preset: h100-node$1 }
training: { tokens: 15e12$2 }
sweep:
$3  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
  recompute: [none, selective]
EOF
}
design "" "" "  nodes: [16, 32, 64]
  global_batch: [512, 1024]
" >"$work/design.yaml"

"$planeval" run --quiet -o "$work/out" "$work/design.yaml"; rc=$?
report=$work/out/design.csv
check "a sweep over nodes and global_batch runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
check "its rows carry nodes 16, 32 and 64" \
    '[ "$(csv_column "$report" nodes | sort -un | tr "\n" " ")" = "16 32 64 " ]'
check "and global_batch 512 and 1024" \
    '[ "$(csv_column "$report" global_batch | sort -un | tr "\n" " ")" = "512 1024 " ]'

"$planeval" validate "$work/design.yaml" >"$work/validate.out" 2>&1
plans=$(sed -n 's/.*combinations: \([0-9]*\) plans.*/\1/p' "$work/validate.out")
rows=$(($(wc -l <"$report") - 1))
check "one row per plan validate counts ($rows rows, $plans plans)" '[ "$rows" = "$plans" ]'
per_node=$(sed -n 's/^  sweep.nodes: //p' "$work/validate.out")
check "validate counts the plans of each nodes value ($per_node)" \
    '[[ "$per_node" =~ ^16:\ [0-9]+\ plans,\ 32:\ [0-9]+\ plans,\ 64:\ [0-9]+\ plans$ ]]'
check "validate counts the plans of each global_batch value" \
    'grep -q "^  sweep.global_batch: 512: [0-9]* plans, 1024: [0-9]* plans$" "$work/validate.out"'

# Each design's rows are the rows of that design written as a scenario: the
# same plans with the same figures (design axes change nothing but the values).
same=0
for n in 16 32 64; do
    for b in 512 1024; do
        design ", nodes: $n" ", global_batch: $b" "" | sed "s/^name: design/name: d-$n-$b/" \
            >"$work/d-$n-$b.yaml"
        "$planeval" run --quiet -o "$work/one" "$work/d-$n-$b.yaml"
        python3 - "$report" "$work/one/d-$n-$b.csv" "$n" "$b" <<'EOF' && same=$((same + 1))
import csv, sys
cols = ["plan", "status", "gpus", "step_time_s", "mem_total_gib", "mfu", "train_days",
        "gpu_hours", "cost", "seq_len"]
def rows(path, keep):
    return sorted(tuple(r[c] for c in cols) for r in csv.DictReader(open(path)) if keep(r))
swept = rows(sys.argv[1], lambda r: r["nodes"] == sys.argv[3] and r["global_batch"] == sys.argv[4])
alone = rows(sys.argv[2], lambda r: True)
sys.exit(0 if swept == alone and alone else 1)
EOF
    done
done
check "each of the 6 designs' rows == its own scenario's rows ($same of 6)" '[ $same -eq 6 ]'

# sweep.gpus is sweep.nodes times gpus_per_node: the same report
sed -e 's/^  nodes: \[16, 32, 64\]/  gpus: [128, 256, 512]/' "$work/design.yaml" >"$work/gpus.yaml"
"$planeval" run --quiet -o "$work/gpus" "$work/gpus.yaml"; rc=$?
check "sweep.gpus [128, 256, 512] == sweep.nodes [16, 32, 64], byte for byte (exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/gpus/design.csv" "$report"'

# cost (S7): gpu_hours at h100-node's list price, 2.00 a GPU-hour
bad_cost=$(python3 - "$report" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] != "invalid"]
print(sum(1 for r in rows if abs(float(r["cost"]) - 2.0 * float(r["gpu_hours"])) > 1e-9 * float(r["cost"])) if rows else -1)
EOF
)
check "cost = gpu_hours * 2.00 on every valid row ($bad_cost wrong)" '[ "$bad_cost" = 0 ]'

# shards of a design sweep merge into exactly one run's report
for i in 0 1 2; do "$planeval" run --quiet --shard $i/3 -o "$work/shards" "$work/design.yaml"; done
"$planeval" merge --quiet "$work"/shards/design.shard-*-of-3.csv -o "$work/merged.csv"; rc=$?
check "merged design shards == one run, byte for byte (merge exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/merged.csv" "$report"'
"$planeval" run --quiet --top 7 -o "$work/top" "$work/design.yaml"
for i in 0 1; do "$planeval" run --quiet --top 7 --shard $i/2 -o "$work/shards-top" "$work/design.yaml"; done
"$planeval" merge --quiet --top 7 "$work"/shards-top/design.shard-*-of-2.csv -o "$work/merged-top.csv"
check "top-K design shards merge into the top-K run" 'cmp -s "$work/merged-top.csv" "$work/top/design.csv"'

# a large design sweep (tp: auto across nodes, whose candidates depend on N)
# interrupted and resumed: the report of an uninterrupted run
big=$work/big.yaml
sed -e 's/nodes: 512, //' -e 's/^name: .*/name: big-design/' \
    "$src/tests/bench/gpt3-4096-lists.yaml" >"$big"
printf '  nodes: [256, 512]\n' >>"$big"
"$planeval" run --quiet --threads 2 --top 20 -o "$work/big-full" "$big"; rc=$?
check "a design sweep with tp: auto over nodes [256, 512] runs (exit $rc)" '[ $rc -eq 0 ]'
check "its best rows come from both designs or one, all with a nodes value" \
    '[ -z "$(csv_column "$work/big-full/big-design.csv" nodes | grep -vx -e 256 -e 512)" ]'
"$planeval" run --quiet --threads 2 --top 20 -o "$work/big-int" "$big" & pid=$!
sleep 0.5
kill -INT $pid; wait $pid; rc=$?
if [ $rc -eq 0 ]; then
    echo "note: the run finished before SIGINT arrived; this machine is fast: not a failure of resume"
    ok; ok
else
    check "SIGINT leaves a checkpoint (exit $rc)" '[ $rc -eq 130 ] && [ -s "$work/big-int/big-design.checkpoint" ]'
    "$planeval" run --quiet --resume --threads 1 --top 20 -o "$work/big-int" "$big"
    check "resumed design sweep: byte-identical report" \
        'cmp -s "$work/big-int/big-design.csv" "$work/big-full/big-design.csv"'
fi
finish
