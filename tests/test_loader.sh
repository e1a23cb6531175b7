#!/usr/bin/env bash
# test_loader.sh PLANEVAL SOURCE_DIR WORKDIR — legal inputs load: a UTF-8
# byte-order mark at the start of a scenario, catalog or submission; *.yml
# beside *.yaml in a directory argument and in --catalog DIR; a directory
# with neither is an error naming it; plans and students named off/yes are
# strings. Several mistakes in one pass are pinned by tests/bad/*.expect;
# here: the exit status and the "... and N more" line of a file with more
# mistakes than are listed; a scenario named by dots only (a hidden report);
# a partial --catalog entry merges over the built-in one.
. "$(dirname "$0")/testlib.sh"

drill=$src/scenarios/drills/01-fit-the-model.yaml
bom=$(printf '\357\273\277')

# ---------------------------------------------------------------- BOM
# A BOM, then a document start marker (which must stand at column 1).
mkdir -p "$work/bom"
{ printf '%s---\n' "$bom"; cat "$drill"; } >"$work/bom/drill.yaml"
"$planeval" validate "$work/bom/drill.yaml" 2>"$work/err"; rc=$?
check "a scenario with a BOM loads (got $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'
"$planeval" run --quiet -o "$work/bom/r1" "$drill"
"$planeval" run --quiet -o "$work/bom/r2" "$work/bom/drill.yaml"
check "its report is the same as without the BOM" \
    '[ -s "$work/bom/r1/01-fit-the-model.csv" ] && cmp -s "$work/bom/r1/01-fit-the-model.csv" "$work/bom/r2/01-fit-the-model.csv"'
# positions are unchanged by the BOM: line 1 column 1 is still the first key
printf '%sschema: planeval/v2\n' "$bom" >"$work/bom/v2.yaml"
"$planeval" validate "$work/bom/v2.yaml" 2>"$work/err"; rc=$?
check "an error after a BOM is at line 1, column 9 (got $rc: $(cat "$work/err"))" \
    '[ $rc -eq 2 ] && grep -q "^$work/bom/v2.yaml:1:9: error: schema must be planeval/v1" "$work/err"'

node='{gpus_per_node: 8, gpu: {preset: mi300x}, intra_node: {topology: full_mesh, links: 7, link_gb_s: 64, latency_us: 2}, inter_node: {nic_gb_s: 50, latency_us: 5}}'
mkdir -p "$work/bomcat"
printf '%s---\nclusters:\n  bom-node: %s\n' "$bom" "$node" >"$work/bomcat/extra.yaml"
sed 's/^  preset: mi300x-node.*/  preset: bom-node/' "$drill" >"$work/bom/preset.yaml"
"$planeval" validate --catalog "$work/bomcat" "$work/bom/preset.yaml" 2>"$work/err"; rc=$?
check "a catalog file with a BOM loads (got $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'

mkdir -p "$work/bomsub"
{ printf '%s---\n' "$bom"; cat "$src/tests/grade/class/01-ada-correct.yaml"; } >"$work/bomsub/ada.yaml"
"$planeval" grade --quiet "$drill" "$work/bomsub/ada.yaml" -o "$work/bomsub/g.csv" 2>"$work/err"; rc=$?
check "a submission with a BOM is graded (got $rc)" \
    '[ $rc -eq 0 ] && grep -q "^ada.lovelace,total,,,,13,13," "$work/bomsub/g.csv"'

# ---------------------------------------------------------------- *.yml, empty directories
mkdir -p "$work/dir"
sed 's/^name: .*/name: b-yml/' "$drill" >"$work/dir/b.yml"
sed 's/^name: .*/name: a-yaml/' "$drill" >"$work/dir/a.yaml"
sed 's/^name: .*/name: c-yaml/' "$drill" >"$work/dir/c.yaml"
printf 'not yaml\n' >"$work/dir/notes.txt"
"$planeval" validate "$work/dir" >"$work/out" 2>"$work/err"; rc=$?
check "a directory's *.yaml and *.yml are read (got $rc)" '[ $rc -eq 0 ] && [ $(wc -l <"$work/out") -eq 3 ]'
check "in byte order of their names" \
    '[ "$(cut -d: -f1 "$work/out" | tr "\n" " ")" = "$work/dir/a.yaml $work/dir/b.yml $work/dir/c.yaml " ]'

mkdir -p "$work/empty"
printf 'x\n' >"$work/empty/readme.txt"
"$planeval" validate "$work/empty" 2>"$work/err"; rc=$?
check "a directory without YAML files exits 2 (got $rc)" '[ $rc -eq 2 ]'
check "and names it" \
    '[ "$(cat "$work/err")" = "$work/empty: error: no *.yaml or *.yml file in this directory" ]'
"$planeval" validate "$work/empty" "$drill" >"$work/out" 2>"$work/err"; rc=$?
check "the other arguments still load (got $rc)" '[ $rc -eq 2 ] && grep -q "01-fit-the-model.yaml: ok" "$work/out"'
"$planeval" validate --catalog "$work/empty" "$drill" 2>"$work/err"; rc=$?
check "--catalog DIR without YAML files exits 2 (got $rc)" '[ $rc -eq 2 ]'
check "and names it" \
    '[ "$(cat "$work/err")" = "$work/empty: error: no *.yaml or *.yml file in this directory" ]'
"$planeval" grade --quiet "$drill" "$work/empty" -o "$work/g.csv" >/dev/null 2>"$work/err"; rc=$?
check "grade: a submission directory without YAML files exits 2 (got $rc)" \
    '[ $rc -eq 2 ] && grep -q "^$work/empty: error: no \*.yaml or \*.yml file" "$work/err"'

mkdir -p "$work/ymlcat"
printf 'clusters:\n  yml-node: %s\n' "$node" >"$work/ymlcat/extra.yml"
sed 's/^  preset: mi300x-node.*/  preset: yml-node/' "$drill" >"$work/yml-preset.yaml"
"$planeval" validate --catalog "$work/ymlcat" "$work/yml-preset.yaml" 2>"$work/err"; rc=$?
check "--catalog DIR reads *.yml (got $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'

mkdir -p "$work/badcat"
printf 'gpus:\n  a: {hbm_gb: 80, hbm_tb_s: 0}\n  b: {hbm_gib: yes}\nmodels:\n  Bad: {layers: 1}\n' >"$work/badcat/x.yml"
"$planeval" validate --catalog "$work/badcat" "$drill" 2>"$work/err"; rc=$?
printf '%s\n' \
    "$work/badcat/x.yml:2:7: error: unknown key 'hbm_gb' in gpus.a (did you mean 'hbm_gib'?)" \
    "$work/badcat/x.yml:2:29: error: gpus.a.hbm_tb_s must be a number from 0.001 to 1e7, got 0" \
    "$work/badcat/x.yml:3:16: error: gpus.b.hbm_gib: expected a number, got \"yes\"" \
    "$work/badcat/x.yml:5:3: error: models: preset name \"Bad\" must match [a-z0-9._-]+" >"$work/want"
check "a catalog file's mistakes are all reported (got $rc: $(cat "$work/err"))" \
    '[ $rc -eq 2 ] && cmp -s "$work/err" "$work/want"'

# ---------------------------------------------------------------- names that are strings
sed -e 's/^name: .*/name: off/' "$drill" | awk '
    /^plans:/ { print; print "  - name: off"; print "    dp: 64"; print "  - name: yes"; print "    dp: 64"; print "    zero: 3"; next } { print }' \
    >"$work/names.yaml"
"$planeval" run --quiet -o "$work/names" "$work/names.yaml" 2>"$work/err"; rc=$?
check "a scenario and plans named off/yes load (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
check "the report is named off.csv" '[ -f "$work/names/off.csv" ]'
check "the plans are named off and yes" \
    'grep -q "^[0-9]*,off,off," "$work/names/off.csv" && grep -q "^[0-9]*,off,yes," "$work/names/off.csv"'

sed 's/^student: .*/student: off/' "$src/tests/grade/class/01-ada-correct.yaml" >"$work/off.yaml"
"$planeval" grade --quiet "$drill" "$work/off.yaml" -o "$work/off.csv" 2>"$work/err"; rc=$?
check "a student named off is graded (got $rc)" '[ $rc -eq 0 ] && grep -q "^off,total,,,,13,13," "$work/off.csv"'

# ---------------------------------------------------------------- many mistakes
{
    printf 'schema: planeval/v1\nmodel:\n'
    for i in $(seq 1 25); do printf '  bad_key_%02d: 1\n' "$i"; done
} >"$work/many.yaml"
"$planeval" validate "$work/many.yaml" >/dev/null 2>"$work/err"; rc=$?
check "many mistakes: exit 2, 20 errors listed, then one line for the rest (got $rc, $(wc -l <"$work/err") lines)" \
    '[ $rc -eq 2 ] && [ $(wc -l <"$work/err") -eq 21 ] && [ $(grep -c "^$work/many.yaml:[0-9]*:[0-9]*: error: " "$work/err") -eq 20 ]'
# 25 unknown keys, 5 missing model keys, missing cluster and training, no plans
check "the last line counts the others" \
    '[ "$(tail -1 "$work/err")" = "$work/many.yaml: error: ... and 13 more errors" ]'
check "the first 20 in file order" \
    'sed -n 4p "$work/err" | grep -q ":3:3: error: unknown key .bad_key_01." &&
     sed -n 20p "$work/err" | grep -q ":14:3: error: unknown key .bad_key_12."'

# ---------------------------------------------------------------- preset variants
# A dense or non-MLA variant of an MoE/MLA preset: `experts: 0` drops the
# preset's MoE keys and `attention: flash` its MLA keys (back to their
# defaults); the same keys written in the file itself are still refused.
variant() {
    printf 'schema: planeval/v1\nname: v\nmodel: { preset: deepseek-v3, %s }\ncluster: { preset: h100-node, nodes: 8 }\ntraining: { global_batch: 1024 }\nplans:\n  - { name: a, dp: 64 }\n' "$1" >"$work/variant.yaml"
    "$planeval" explain --plan a "$work/variant.yaml" >"$work/variant.out" 2>"$work/err"
}
variant 'experts: 0'; rc=$?
check "deepseek-v3 with experts: 0 loads as a dense model (got $rc: $(head -c 200 "$work/err"))" \
    '[ $rc -eq 0 ] && ! grep -q "Mixture of experts" "$work/variant.out"'
variant 'experts: 0, attention: flash'; rc=$?
# P1 without MLA and MoE: h·(h + 2·g·d) + h·h + 3·h·f (swiglu) with
# d = h/a = 56, g = a: 7168·21504 + 7168·7168 + 3·7168·18432 =
# 154,140,672 + 51,380,224 + 396,361,728 = 601,882,624
check "and with attention: flash a plain dense layer (got $rc: $(grep -m1 -A2 "^P1" "$work/variant.out" | tail -1))" \
    '[ $rc -eq 0 ] && grep -m1 -A2 "^P1" "$work/variant.out" | grep -q "= 6.01883e+08 parameters"'
variant 'experts: 0, top_k: 2'; rc=$?
check "a MoE key the file writes with experts: 0 is still refused (got $rc: $(cat "$work/err"))" \
    '[ $rc -eq 2 ] && grep -q "model.top_k is set but model.experts is 0" "$work/err"'
variant 'attention: flash, kv_lora_rank: 512'; rc=$?
check "an MLA key the file writes without mla is still refused (got $rc)" \
    '[ $rc -eq 2 ] && grep -q "model.kv_lora_rank applies to attention: mla only" "$work/err"'

# ---------------------------------------------------------------- a name of dots only
# "." or ".." would name a hidden report "...csv": refused, as name: and as
# the stem of a file "..yaml" without name: (tests/bad/name-only-dots for name: ..).
mkdir -p "$work/dots"
grep -v '^name:' "$drill" >"$work/dots/..yaml"
"$planeval" run --quiet -o "$work/dots/out" "$work/dots/..yaml" 2>"$work/err"; rc=$?
check "a file ..yaml without name: is refused (got $rc: $(cat "$work/err"))" \
    '[ $rc -eq 2 ] && [ "$(cat "$work/err")" = "$work/dots/..yaml:9:1: error: no name: given, and the file stem \".\" is not a valid name ([a-z0-9._-]+, not only dots, at most 128 bytes): add name: or rename the file" ]'
check "and writes no hidden report" '[ -z "$(ls -A "$work/dots/out" 2>/dev/null)" ]'

# ---------------------------------------------------------------- a partial --catalog override
# An entry named like a built-in merges over it key by key (nested mappings
# too): the report is the one the same keys give written in the scenario.
mkdir -p "$work/over/cat" "$work/over/cat2" "$work/over/bad"
grep -v '^    hbm_gib: 192$' "$drill" | grep -v '^  gpu:$' >"$work/over/plain.yaml"
printf 'gpus:\n  mi300x: {hbm_gib: 100}\n' >"$work/over/cat/gpus.yaml"
"$planeval" run --quiet --catalog "$work/over/cat" -o "$work/over/a" "$work/over/plain.yaml" \
    2>"$work/err"; rc=$?
check "a --catalog gpu entry of hbm_gib alone merges over the built-in mi300x (got $rc: $(head -c 300 "$work/err"))" \
    '[ $rc -eq 0 ] && cut -d, -f26 "$work/over/a/01-fit-the-model.csv" | sed -n 2p | grep -qx 100'
sed 's/^  nodes: 8$/  nodes: 8\n  gpu: {hbm_gib: 100}/' "$work/over/plain.yaml" >"$work/over/inline.yaml"
"$planeval" run --quiet -o "$work/over/b" "$work/over/inline.yaml"
check "with the preset's other figures: the report of gpu: {hbm_gib: 100} in the scenario" \
    'cmp -s "$work/over/a/01-fit-the-model.csv" "$work/over/b/01-fit-the-model.csv"'
printf 'clusters:\n  mi300x-node:\n    intra_node: {latency_us: 3}\n' >"$work/over/cat2/c.yaml"
"$planeval" run --quiet --catalog "$work/over/cat2" -o "$work/over/c" "$drill" 2>"$work/err"; rc=$?
sed 's/^  nodes: 8$/  nodes: 8\n  intra_node: {latency_us: 3}/' "$drill" >"$work/over/lat.yaml"
"$planeval" run --quiet -o "$work/over/d" "$work/over/lat.yaml"
check "a cluster entry's intra_node merges key by key over the preset's (got $rc: $(head -c 300 "$work/err"))" \
    '[ $rc -eq 0 ] && cmp -s "$work/over/c/01-fit-the-model.csv" "$work/over/d/01-fit-the-model.csv"'
printf 'gpus:\n  mi300x: {hbm_gib: 0}\n' >"$work/over/bad/gpus.yaml"
"$planeval" validate --catalog "$work/over/bad" "$work/over/plain.yaml" 2>"$work/err"; rc=$?
check "a bad override is blamed on the catalog file, not the scenario (got $rc: $(cat "$work/err"))" \
    '[ $rc -eq 2 ] && [ "$(cat "$work/err")" = "$work/over/bad/gpus.yaml:2:21: error: gpus.mi300x.hbm_gib must be a number from 0.001 to 1e6, got 0" ]'

finish
