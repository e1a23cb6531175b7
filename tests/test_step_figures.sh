#!/usr/bin/env bash
# test_step_figures.sh PLANEVAL SOURCE_DIR WORKDIR — figures that must not
# mislead: explain's A8 is the one M5 adds on each stage it shows (uneven
# stages too); bubble_fraction is docs/model.md §7's; bound names what sets
# the step (docs/model.md §8 S3).
. "$(dirname "$0")/testlib.sh"

# a8_and_m5 SCENARIO PLAN STAGE — "A8 M5-term" of that stage: explain's A8
# result and the A7/A8 term M5 adds (A7 is 0 off stage 0)
a8_and_m5() {
    "$planeval" explain "$1" --plan "$2" | awk -v st="(stage $3)" '
        /^[A-Z]/ { eq = $1; here = index($0, st) > 0; n = 0; next }
        here && eq == "A8" && ++n == 2 { a8 = $2 }
        here && eq == "M5" && ++n == 1 { split($0, t, " \\+ "); m5 = t[6] }
        END { print a8 + 0, m5 + 0 }'
}
# M5's sum: the dense scenario's megatron-core without its memory by phase
# (docs/model.md §12 M9), which sums no M5
sed 's/^framework: megatron-core$/framework: { preset: megatron-core, memory_by_phase: false }/' \
    "$src/tests/freeze/scenarios/dense-frameworks.yaml" >"$work/dense-frameworks.yaml"
cp "$src/tests/freeze/scenarios/moe-fp8-offload.yaml" "$work/"
for c in "dense-frameworks uneven-1f1b 3" "moe-fp8-offload moe-uneven 15"; do
    set -- $c
    read -r a8 m5 < <(a8_and_m5 "$work/$1.yaml" "$2" "$3")
    check "$2: explain's A8 on the last stage ($a8) is M5's ($m5), not 0" \
        '[ "$a8" = "$m5" ] && [ "$a8" != 0 ]'
done
read -r a8 m5 < <(a8_and_m5 "$work/dense-frameworks.yaml" uneven-1f1b 0)
check "uneven-1f1b: stage 0 carries no A8 ($a8, M5 $m5)" '[ "$a8" = 0 ] && [ "$m5" = 0 ]'

# S3: a step set by X4's overlapped collective is communication-bound, one
# set by the optimizer step optimizer-, by offload's host step host-bound
"$planeval" run --quiet -o "$work/step" "$src"/tests/step/*.yaml >"$work/step.out" 2>&1; rc=$?
check "the bound scenarios run (got $rc)" '[ $rc -eq 0 ]'
col() { awk -F, -v c="$2" -v p="$3" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
                                      $3 == p { print $k[c] }' "$work/step/$1.csv"; }
z3=step-zero3-dp1024
steps=$(for p in none selective full; do col $z3 step_time_s $p; done | sort -u | wc -l)
check "ZeRO-3 dp 1024: one step time whatever the recompute ($steps distinct)" '[ "$steps" -eq 1 ]'
for p in none selective full; do
    b=$(col $z3 bound $p) c=$(col $z3 compute_s $p) d=$(col $z3 dp_comm_s $p)
    check "ZeRO-3 dp 1024 $p: bound communication (got $b; compute_s $c > dp_comm_s $d)" \
        '[ "$b" = communication ] && awk -v c="$c" -v d="$d" "BEGIN { exit !(c > d) }"'
done
check "offloaded optimizer step: bound host (got $(col step-offload-host bound offload))" \
    '[ "$(col step-offload-host bound offload)" = host ]'
check "the same plan on the GPU: bound compute" '[ "$(col step-offload-host bound on-gpu)" = compute ]'
check "slow HBM: bound optimizer (got $(col step-optimizer-slow-hbm bound zero0))" \
    '[ "$(col step-optimizer-slow-hbm bound zero0)" = optimizer ]'
"$planeval" check --quiet "$src"/tests/step/*.yaml >"$work/check.out" 2>&1; rc=$?
check "expect: accepts and checks bound optimizer and host (got $rc)" '[ $rc -eq 0 ]'
"$planeval" explain "$src/tests/step/zero3-dp1024.yaml" --plan full >"$work/z3.txt"
check "explain's S3 shows the competing figures" \
    'grep -q "^       communication .* = exposed .* + " "$work/z3.txt" && grep -q "^       = communication$" "$work/z3.txt"'

# the textbook model keeps the spec's S3 (the exposed columns): the same
# ZeRO-3 file at fidelity textbook is compute-bound, and explain's S3 line
# says that the collective sets the step and that S3′ names it
sed 's/^fidelity: refined.*/fidelity: textbook/' "$src/tests/step/zero3-dp1024.yaml" >"$work/z3-textbook.yaml"
"$planeval" run --quiet -o "$work/tb" "$work/z3-textbook.yaml" >/dev/null 2>&1
check "textbook ZeRO-3 dp 1024: the spec's S3 gives compute ($(awk -F, 'NR > 1 { print $3 ":" $38 }' "$work/tb/$z3.csv" | tr '\n' ' '))" \
    '[ "$(tail -n +2 "$work/tb/$z3.csv" | cut -d, -f38 | sort -u)" = compute ]'
"$planeval" explain "$work/z3-textbook.yaml" --plan full >"$work/z3-tb.txt"
check "textbook explain: S3 over the exposed columns, with the critical-path note" \
    'grep -q "^S3   bound = the largest of compute_s" "$work/z3-tb.txt" && grep -q "note: .* fidelity: refined names the critical path" "$work/z3-tb.txt"'

# bubble_fraction (docs/model.md §7): bubble_s over m·(t_f + t_b), which is
# compute_s + tp_comm_s + cp_comm_s + ep_comm_s; in [0, 1] when m ≥ p − 1
# (the textbook's (p − 1)/m), on every bundled report
"$planeval" run --quiet -o "$work/bundled" "$src"/scenarios/drills "$src"/scenarios/drills/*/ \
    "$src"/scenarios/published "$src"/tests/freeze/scenarios >/dev/null 2>&1; rc=$?
check "the bundled scenarios run (got $rc)" '[ $rc -eq 0 ]'
bad=$(for f in "$work"/bundled/*.csv; do
    case $f in *.summary.csv) continue ;; esac
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
        $k["bubble_fraction"] != "" {
            f = $k["bubble_fraction"]; d = $k["compute_s"] + $k["tp_comm_s"] + $k["cp_comm_s"] + $k["ep_comm_s"]
            e = $k["bubble_s"] / d; r = f - e; if (r < 0) r = -r
            if (f < 0 || r > 1e-9 * (e > 1 ? e : 1) || ($k["microbatches"] >= $k["pp"] - 1 && f > 1))
                print FILENAME ": " $3 " " f
        }' "$f"
done | head -5)
check "every bubble_fraction is §7's, and in [0, 1] when m ≥ p − 1 ${bad:+($bad)}" '[ -z "$bad" ]'

check "bubble_fraction is defined once: docs/scenarios.md links to docs/model.md §7" \
    'grep -q "id=\"bubble-fraction\"" "$src/docs/model.md" &&
     grep "^| \`bubble_fraction\` |" "$src/docs/scenarios.md" | grep -q "model.md#bubble-fraction"'

finish
