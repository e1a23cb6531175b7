#!/usr/bin/env bash
# test_targets.sh PLANEVAL SOURCE_DIR WORKDIR — targets: (docs/sweeps.md
# "Targets"): the smallest cluster of a nodes sweep that trains the tokens in
# the days (or within a GPU-hours or cost budget), found by T1 and printed on
# stdout; the rows that meet the targets are the ok rows; the figures checked
# against hand arithmetic (S5 days = tokens / tokens_per_s / 86400, gpu_hours =
# N · days · 24, S7 cost = gpu_hours · 2.00 on h100-node).
. "$(dirname "$0")/testlib.sh"

scenario() { # scenario TARGETS [TRAINING_EXTRA]
    cat <<EOF
schema: planeval/v1
name: tg
model: { preset: llama3-70b }
cluster: { preset: h100-node }
training: { global_batch: 1024${2:-} }
targets: $1
sweep:
  nodes: [64, 128, 256, 512]
  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
  recompute: [none, selective]
EOF
}

scenario "{ tokens: 15e12, days: 100 }" >"$work/days.yaml"
"$planeval" run -o "$work/days" "$work/days.yaml" >"$work/days.out" 2>"$work/days.err"; rc=$?
report=$work/days/tg.csv
check "targets: { tokens, days } runs a nodes sweep (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
line=$(grep "targets met" "$work/days.out")
check "stdout names the smallest cluster meeting them: 256 nodes, 2048 GPUs ($line)" \
    '[[ $line == "tg: targets met: smallest cluster 256 nodes (2048 GPUs); best plan on it: dp256-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1 (rank "* ]]'

# Hand arithmetic from the report's own tokens_per_s (S4), per design: the
# best (fewest days) plan that fits memory on 128 nodes takes
# 15e12 / tokens_per_s / 86400 = 194.5 days > 100 (misses), on 256 nodes
# 97.5 days <= 100 (meets): 256 nodes is the smallest; gpu_hours =
# 2048 · 97.4968 · 24 = 4.792e6; cost = 2.00 · that = 9.584e6.
hand=$(python3 - "$report" "$line" <<'EOF'
import csv, sys, re
rows = list(csv.DictReader(open(sys.argv[1])))
fits = [r for r in rows if r["status"] != "invalid" and not r["reason"].startswith("memory")]
def days(r): return 15e12 / float(r["tokens_per_s"]) / 86400
meets = [r for r in fits if days(r) <= 100]
small = min(int(r["gpus"]) for r in meets)
best = min((r for r in meets if int(r["gpus"]) == small), key=lambda r: int(r["rank"]))
slower = min(days(r) for r in fits if int(r["gpus"]) == 1024)
ok = [r for r in rows if r["status"] == "ok"]
m = re.search(r"\(rank (\d+)\): ([0-9.e+]+) days, ([0-9.e+]+) GPU-hours, cost ([0-9.e+]+)", sys.argv[2])
d = days(best)
good = (small == 2048 and slower > 100 and m and int(m.group(1)) == int(best["rank"])
        and abs(float(m.group(2)) - d) < 1e-5 * d
        and abs(float(m.group(3)) - 2048 * d * 24) < 1e-5 * 2048 * d * 24
        and abs(float(m.group(4)) - 2.0 * 2048 * d * 24) < 1e-5 * 2.0 * 2048 * d * 24
        and {r["plan_index"] for r in ok} == {r["plan_index"] for r in meets})
print("ok" if good else "bad: small %s slower %.4g days %.6g line %s" % (small, slower, d, sys.argv[2]))
EOF
)
check "the line's figures are the hand arithmetic, the ok rows exactly those meeting the targets ($hand)" \
    '[ "$hand" = ok ]'
miss=$(grep -c "train_days: .* > budget 100" "$report")
check "a row that misses the days says so in its reason ($miss rows)" '[ "$miss" -gt 0 ]'

# cost budget: gpu_hours barely grows with N here, so the smallest design
# meets cost <= 9.6e6: 512 GPUs at 4.775e6 GPU-hours · 2.00 = 9.55e6
scenario "{ tokens: 15e12, cost: 9.6e6 }" >"$work/cost.yaml"
"$planeval" run -o "$work/cost" "$work/cost.yaml" >"$work/cost.out" 2>/dev/null; rc=$?
check "a cost target picks the smallest design, 64 nodes (exit $rc)" \
    '[ $rc -eq 0 ] && grep -q "^tg: targets met: smallest cluster 64 nodes (512 GPUs); .*, cost 9\.55" "$work/cost.out"'
scenario "{ tokens: 15e12, gpu_hours: 4.785e6, days: 200 }" >"$work/hours.yaml"
"$planeval" run -o "$work/hours" "$work/hours.yaml" >"$work/hours.out" 2>/dev/null; rc=$?
check "gpu_hours <= 4.785e6 and days <= 200: 128 nodes (1024 GPUs: 194.5 days, 4.7807e6 GPU-hours) is the one design meeting both" \
    '[ $rc -eq 0 ] && grep -q "^tg: targets met: smallest cluster 128 nodes (1024 GPUs); " "$work/hours.out"'

# the tokens in one place: targets.tokens equal to training.tokens is one number
scenario "{ tokens: 15e12, days: 100 }" ", tokens: 15e12" >"$work/both.yaml"
"$planeval" run -o "$work/both" "$work/both.yaml" >"$work/both.out" 2>/dev/null; rc=$?
check "targets.tokens equal to training.tokens is accepted, the same report (exit $rc)" \
    '[ $rc -eq 0 ] && cmp -s "$work/both/tg.csv" "$report"'

# targets no design meets: exit 2, no report (tests/bad/targets-* hold the messages)
scenario "{ tokens: 15e12, days: 30 }" >"$work/unmet.yaml"
"$planeval" run -o "$work/unmet" "$work/unmet.yaml" >"$work/unmet.out" 2>"$work/unmet.err"; rc=$?
check "days 30 is met by no design: exit 2, the best reached named, no report (exit $rc)" \
    '[ $rc -eq 2 ] && grep -q "targets.days = 30: no design meets it; the best reached is 49.0011 days" "$work/unmet.err" && [ ! -e "$work/unmet/tg.csv" ] && [ ! -s "$work/unmet.out" ]'

# a shard sees some designs only: no verdict there, the shards still merge
"$planeval" run --quiet --shard 0/2 -o "$work/shard" "$work/unmet.yaml"; rc=$?
check "a shard is not judged against the targets (exit $rc)" '[ $rc -eq 0 ]'

# the whole-run drill (scenarios/drills/06-llama3-70b-h100-vs-b200/, one file a
# cluster): its expect: values are the hand arithmetic of its comments, and
# run names 1024 H100 nodes against 512 B200 nodes
drill=$src/scenarios/drills/06-llama3-70b-h100-vs-b200
"$planeval" check "$drill" >"$work/drill-check.out" 2>&1; rc=$?
check "the drill's expect: values hold (exit $rc: $(tail -1 "$work/drill-check.out"))" \
    '[ $rc -eq 0 ] && grep -q "^26 passed, 0 failed$" "$work/drill-check.out"'
"$planeval" run -o "$work/drill" "$drill" >"$work/drill.out" 2>/dev/null; rc=$?
check "H100: 1024 nodes, 22.81 days, 4.48 M GPU-hours, \$8.97 M (exit $rc)" \
    '[ $rc -eq 0 ] && grep -q "^06-llama3-70b-h100: targets met: smallest cluster 1024 nodes (8192 GPUs); .*: 22\.807[0-9]* days, 4\.4841[0-9]*e+06 GPU-hours, cost 8\.9683[0-9]*e+06$" "$work/drill.out"'
check "B200: 512 nodes, 19.37 days, 1.90 M GPU-hours, \$7.62 M" \
    'grep -q "^06-llama3-70b-b200: targets met: smallest cluster 512 nodes (4096 GPUs); .*: 19\.366[0-9]* days, 1\.9038[0-9]*e+06 GPU-hours, cost 7\.6152[0-9]*e+06$" "$work/drill.out"'

# the drill's one-run file (both.yaml, sweep.cluster over both types): the
# same answer per type as the two one-type files, in the summary too, and
# compare gives the best plan of each type and size (4 sizes x 2 types)
for t in h100 b200; do
    one=$(grep "^06-llama3-70b-$t: targets met:" "$work/drill.out" | sed 's/.*smallest cluster //; s/(rank [0-9]*)//')
    both=$(grep "^06-llama3-70b-h100-vs-b200: targets met on $t-node:" "$work/drill.out" |
        sed 's/.*smallest cluster //; s/(rank [0-9]*)//')
    check "both.yaml on $t-node answers as $t.yaml ($both)" '[ -n "$one" ] && [ "$one" = "$both" ]'
done
check "both.yaml's summary names each type's smallest size" \
    'grep -qx "targets: h100-node: smallest_nodes,1024" "$work/drill/06-llama3-70b-h100-vs-b200.summary.csv" && grep -qx "targets: b200-node: smallest_nodes,512" "$work/drill/06-llama3-70b-h100-vs-b200.summary.csv"'
"$planeval" compare "$work/drill/06-llama3-70b-h100-vs-b200.csv" >"$work/drill-compare" 2>&1; rc=$?
check "compare on both.yaml's report: one line per type and size (exit $rc)" \
    '[ $rc -eq 0 ] && [ "$(grep -cE "^(yes|no|-) +06-llama3-70b-h100-vs-b200 +cluster=" "$work/drill-compare")" -eq 8 ]'

finish
