#!/usr/bin/env bash
# test_pipeline_layout.sh — any pipeline layout (docs/scenarios.md "Pipeline
# layouts", docs/model.md V3″ and B2′), end to end: Llama 3 405B as Meta laid
# it out (126 layers on 16 stages, interleaved, one layer fewer on the first
# and the last) runs, in Megatron-Core's string form and as a list, to the
# same figures; its report and explain show the layout in force; the
# published scenarios check; a canonical text carries the layout and reads
# back. (The refusals are tests/bad/layout-*.yaml.)
#
#   bash tests/test_pipeline_layout.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

ones=$(printf '1, %.0s' $(seq 126))
cat >"$work/l3.yaml" <<EOF
schema: planeval/v1
name: l3
fidelity: refined
model: { preset: llama3-405b, seq_len: 8192 }
cluster: { preset: h100-node, nodes: 1024 }
training: { global_batch: 2048 }
plans:
  - { name: text, dp: 64, tp: 8, pp: 16, zero: 2, schedule: interleaved, pipeline_layout: "E|(t|)*126,L" }
  - { name: list, dp: 64, tp: 8, pp: 16, zero: 2, schedule: interleaved, virtual_stages: 8, pipeline_layout: [0, ${ones}0] }
  - { name: even, dp: 64, tp: 8, pp: 16, zero: 2, schedule: interleaved, virtual_stages: 8 }
EOF
"$planeval" run "$work/l3.yaml" -o "$work/out" --quiet >"$work/run.out" 2>&1
rc=$?
check "the Llama 3 405B layout runs (exit $rc)" '[ "$rc" -eq 0 ]'
rep=$work/out/l3.csv
# plan_row NAME — the row of plan NAME without the columns that name or
# place it (rank, plan, plan_index), found by the header's names
plan_row() {
    awk -F, -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["plan"] == p { row = ""
            for (i = 1; i <= NF; i++)
                if (i != col["rank"] && i != col["plan"] && i != col["plan_index"]) row = row "," $i
            print row }' "$rep"
}
check "string and list forms give the same row" \
    '[ -n "$(plan_row text)" ] && [ "$(plan_row text)" = "$(plan_row list)" ]'
check "the layout's virtual_stages is 128/16 = 8" \
    '[ "$(csv_column "$rep" virtual_stages | sort -u)" = "8" ]'
# the report's pipeline_layout column: the layout's canonical text for both
# forms (0, 126 ones, 0 -> "0.1*126.0"), empty for the plan without one
layouts=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "plan") p = i; next } { print $p }' "$rep" |
    paste -d' ' - <(csv_column "$rep" pipeline_layout) | LC_ALL=C sort | tr '\n' ';')
check "the pipeline_layout column holds each plan's layout ($layouts)" \
    '[ "$layouts" = "even ;list 0.1*126.0;text 0.1*126.0;" ]'
check "an even split is refused by V3 (126 mod 128)" \
    'plan_row even | grep -q ",invalid,V3: pp\*virtual_stages=128 does not divide layers=126,"'

"$planeval" explain "$work/l3.yaml" --plan text >"$work/explain.out" 2>&1
check "explain prints the layout in force" \
    'grep -q "pipeline layout (V3″): 128 virtual stages = pp 16 x v 8, .*: 0.1\*126.0$" "$work/explain.out"'
check "explain prints stage 0's chunks" \
    'grep -q "stage 0: 7 layers in chunks 0 + 1 + 1 + 1 + 1 + 1 + 1 + 1$" "$work/explain.out"'
check "explain prints the middle candidate" \
    'grep -q "stage 1: 8 layers in chunks 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 (the middle candidate)" "$work/explain.out"'
check "explain prints V3″ and B2′ with their numbers" \
    'grep -q "^V3   pipeline_layout: 128 virtual stages = p·v = 16·8, holding 126 = L = 126 layers" "$work/explain.out" &&
     grep -q "stage w = 1: L_w = 8, c_w = 1, v_w = 8" "$work/explain.out"'

# the canonical text carries the layout: explain takes it, refuses a broken one
canon="dp64-tp8-pp16-cp1-z2-none-mb1-interleaved-v8-sp1-pl0.1*126.0"
"$planeval" explain "$work/l3.yaml" --plan "$canon" >"$work/canon.out" 2>&1
check "a canonical -pl text is the same plan" \
    'grep -q "0.1\*126.0$" "$work/canon.out" && ! grep -q "status: invalid" "$work/canon.out"'
"$planeval" explain "$work/l3.yaml" --plan "${canon%.0}.2" >"$work/broken.out" 2>&1
check "a canonical text whose layout does not add up is invalid (V3″)" \
    'grep -q "V3: pipeline_layout: the virtual stages hold 128 layers, the model has layers=126" "$work/broken.out"'

# the bundled published runs check with their layout
"$planeval" check "$src"/scenarios/published/llama3-t4-*.yaml >"$work/check.out" 2>&1
rc=$?
check "the Llama 3 405B published scenarios check (exit $rc)" '[ "$rc" -eq 0 ]'

finish
