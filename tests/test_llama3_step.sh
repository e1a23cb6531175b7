#!/usr/bin/env bash
# test_llama3_step.sh — Llama 3 405B's step as Meta ran it (arXiv:2407.21783
# §3.3.2; the meta-llama3 framework preset, docs/model.md §12 "Llama 3 as
# Meta ran it"): FSDP reduces the gradients asynchronously, under the
# micro-batch's compute (X27), so the compute is slowed while it runs by
# X15's measured s (arXiv:2507.03114, scenarios/measurements/overlap.csv),
# the value every other preset that overlaps a collective carries; the
# pipeline's point-to-point is asynchronous (overlap.pp 1: X3's sends
# hidden behind a chunk's compute); a synchronous pipeline fills and drains
# at each stage's pace (B5). Properties: s = 0 and blocking sends give a
# shorter and a longer step than the preset; the three runs stay ok.
#
#   bash tests/test_llama3_step.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
r1=$pub/llama3-t4-r1-405b-8k.yaml
"$planeval" explain "$r1" --plan llama3-t4-r1-405b-8k >"$work/explain.out" 2>&1
check "explain shows the preset's overlap: pp 1 (asynchronous point-to-point)" \
    'grep -q "overlap in force: tp 0, cp 1, dp 1, pp 1" "$work/explain.out"'
check "explain charges X15 on r1's FSDP reduce-scatter (s 0.189)" \
    'grep -q "^X15" "$work/explain.out" && grep -A2 "^X15" "$work/explain.out" | grep -q "0.189"'
check "explain uses B5's bubble by stage" 'grep -q "^B5" "$work/explain.out"'

for f in "$r1" "$pub"/llama3-t4-r2-405b-8k.yaml "$pub"/llama3-t4-r3-405b-128k.yaml; do
    stem=$(basename "$f" .yaml)
    "$planeval" run "$f" -o "$work/out" --quiet >/dev/null 2>&1
    rc=$?
    check "$stem runs and its expect holds (exit $rc)" '[ "$rc" -eq 0 ]'
    status=$(csv_column "$work/out/$stem.csv" status)
    check "$stem trained: ok or over_time ($status)" '[ "$status" = ok ] || [ "$status" = over_time ]'
    step=$(csv_column "$work/out/$stem.csv" step_time_s)
    pp=$(csv_column "$work/out/$stem.csv" pp_comm_s)
    check "$stem: asynchronous sends hide behind a chunk ($pp s exposed)" \
        'awk -v p="$pp" "BEGIN { exit !(p == 0) }"'
    for v in s0 pp0; do
        case $v in
            s0) sed -e 's/^framework: meta-llama3.*/framework: { preset: meta-llama3, overlap_slowdown: 0 }/' "$f" ;;
            pp0) sed -e 's/^framework: meta-llama3.*/framework: meta-llama3\noverlap: { pp: 0 }/' "$f" ;;
        esac | sed -e "s/^name: .*/name: $stem-$v/" -e '/^expect:/,$d' >"$work/$stem-$v.yaml"
        "$planeval" run "$work/$stem-$v.yaml" -o "$work/out" --quiet >/dev/null 2>&1
        other=$(csv_column "$work/out/$stem-$v.csv" step_time_s)
        case $v in
            s0) check "$stem: without X15's contention the step is shorter ($other s < $step s)" \
                    'awk -v a="$other" -v b="$step" "BEGIN { exit !(a > 0 && a < b) }"' ;;
            pp0) check "$stem: blocking sends give a longer step ($other s > $step s)" \
                    'awk -v a="$other" -v b="$step" "BEGIN { exit !(b > 0 && a > b) }"' ;;
        esac
    done
done

finish
