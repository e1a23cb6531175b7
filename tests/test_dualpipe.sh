#!/usr/bin/env bash
# test_dualpipe.sh PLANEVAL SOURCE_DIR WORKDIR — schedule dualpipe
# (docs/model.md §12 "DualPipe"): V6′'s reasons with their numbers, B6's
# bubble against 1F1B's B1 on the same stages (hand arithmetic below), and
# explain's B6, A21 and M14 lines.
. "$(dirname "$0")/testlib.sh"

s=$src/tests/dualpipe/rules.yaml
"$planeval" run -o "$work/out" "$s" >"$work/run.txt" 2>&1
r=$work/out/dualpipe-rules.csv
# the cell of column $2 in the row of plan $1
cell() { paste -d '\t' <(csv_column "$r" plan) <(csv_column "$r" "$2") | awk -F'\t' -v p="$1" '$1 == p { print $2 }'; }

check "dual-pp3: V6′ names pp (got '$(cell dual-pp3 reason)')" \
    '[ "$(cell dual-pp3 status)" = invalid ] && [ "$(cell dual-pp3 reason)" = "V6: dualpipe needs an even pp>=2 (pp=3)" ]'
check "dual-v2: V6′ names virtual_stages (got '$(cell dual-v2 reason)')" \
    '[ "$(cell dual-v2 reason)" = "V6: dualpipe needs virtual_stages=1 (virtual_stages=2)" ]'
check "dual-pp6 is a valid plan (got $(cell dual-pp6 status))" '[ "$(cell dual-pp6 status)" != invalid ]'
# B1 = (p−1)(t_f + t_b), B6 = (p/2 − 1)(t_f + t_b/2); no recompute, t_b = 2t_f:
# B1 = 5·3t_f = 15t_f, B6 = 2·2t_f = 4t_f, so B6/B1 = 4/15
check "B6 = 4/15 of B1 at p = 6 (got $(cell dual-pp6 bubble_s) and $(cell one-pp6 bubble_s))" \
    'awk -v d="$(cell dual-pp6 bubble_s)" -v o="$(cell one-pp6 bubble_s)" \
        "BEGIN { x = d / o * 15 / 4; exit !(x > 0.999999 && x < 1.000001) }"'
# m = 1536/8 = 192; m odd: global_batch 120 → m 15; m < 2p: 88 → m 11 (odd too), 80 → m 10 < 12
for gb in 120 80; do
    sed "s/global_batch: 1536/global_batch: $gb/" "$s" >"$work/gb$gb.yaml"
    "$planeval" run -o "$work/gb$gb" "$work/gb$gb.yaml" >/dev/null 2>&1
done
r=$work/gb120/dualpipe-rules.csv
check "m 15: V6′ names the micro-batches (got '$(cell dual-pp6 reason)')" \
    '[ "$(cell dual-pp6 reason)" = "V6: dualpipe needs an even number of microbatches >= 2*pp=12 (microbatches=15)" ]'
r=$work/gb80/dualpipe-rules.csv
check "m 10 < 2p: V6′ (got '$(cell dual-pp6 reason)')" \
    '[ "$(cell dual-pp6 reason)" = "V6: dualpipe needs an even number of microbatches >= 2*pp=12 (microbatches=10)" ]'
# a canonical text under the textbook model: no DualPipe there (V6)
sed 's/^fidelity: refined/fidelity: textbook/; /schedule: dualpipe/d' "$s" >"$work/tb.yaml"
"$planeval" explain "$work/tb.yaml" --plan dp8-tp1-pp6-cp1-z0-none-mb1-dualpipe-v1-sp0 >"$work/tb.txt" 2>&1
check "textbook: a -dualpipe canonical text is invalid by V6" \
    'grep -q "V6: dualpipe is a refinement (docs/model.md §12 B6), not in the textbook model" "$work/tb.txt"'
"$planeval" explain "$s" --plan dual-pp6 >"$work/explain.txt" 2>&1
check "explain prints B6, A21 and M14" \
    'grep -q "^B6 " "$work/explain.txt" && grep -q "^A21 " "$work/explain.txt" &&
     grep -q "^M14 " "$work/explain.txt" && grep -q "k = min(6 + 1, 192) = 7" "$work/explain.txt"'

# a sweep listing dualpipe first: p = 1 takes 1f1b (dualpipe needs p >= 2), p odd is V6
sed '/^plans:/,$d' "$s" >"$work/sweep.yaml"
printf 'sweep:\n  dp: auto\n  pp: [1, 2, 3]\n  schedule: [dualpipe, 1f1b]\n' >>"$work/sweep.yaml"
"$planeval" run -o "$work/sweep" "$work/sweep.yaml" >/dev/null 2>&1
r=$work/sweep/dualpipe-rules.csv
rows=$(paste -d' ' <(csv_column "$r" pp) <(csv_column "$r" schedule) <(csv_column "$r" status) | LC_ALL=C sort | tr '\n' ';')
check "sweep: p 1 as 1f1b only, p 2 both, p 3 dualpipe invalid (got $rows)" \
    '[ "$rows" = "1 1f1b over_memory;2 1f1b over_memory;2 dualpipe over_memory;3 1f1b over_memory;3 dualpipe invalid;" ]'

finish
