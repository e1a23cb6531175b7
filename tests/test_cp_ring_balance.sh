#!/usr/bin/env bash
# test_cp_ring_balance.sh PLANEVAL SOURCE_DIR WORKDIR — framework.cp_ring_load_balance
# (docs/model.md §12 X31) on torchtitan's Table 2 CP 2 file: the torchtitan
# preset sets it, explain prints X31 with the load-balanced ring's share of
# F9's count (1/(2·S_d) + 1/(4·S_h) at c = 2, F33 off) and its merge bytes
# (66 and 144 a element at c = 2), the core below F9's and the step shorter
# than with the key off; the CP 1 file (no ring) prints no X31 and keeps its
# step with the key off; a value that is not a boolean exits 2.
. "$(dirname "$0")/testlib.sh"

name=torchtitan-2412-t2-llama3-8b-8gpu-cp2-64k
cp "$src/scenarios/published/$name.yaml" "$work/on.yaml"
sed 's/^framework: torchtitan\b.*/framework: { preset: torchtitan, cp_ring_load_balance: false }/' \
    "$work/on.yaml" >"$work/off.yaml"
check "the off file names the key" 'grep -q "cp_ring_load_balance: false" "$work/off.yaml"'
for v in off on; do
    "$planeval" explain "$work/$v.yaml" --plan "$name" >"$work/$v.txt" 2>&1
    check "explain $v exits 0" '[ $? -eq 0 ]'
done
res() { grep -A"$2" "^$1 " "$3" | grep "^       = [0-9]" | tail -1 | awk '{print $2}'; }
check "on (the preset): X31 with c = 2, F33's ω = 1 and one half block" \
    'grep -q "^X31  attention core of PyTorch.s load-balanced CP ring" "$work/on.txt" && grep -q "·\[1/(2·0.982142) + (2 − 1)/(2·1·2·0.985978)\]" "$work/on.txt"'
check "on: the share is 1/(2·0.982142) + 1/(4·0.985978) = 0.762647" \
    'grep -q "share of F_att/(peak·e_att·D) = 0.762647" "$work/on.txt"'
check "on: the merge passes are 66 and 144 bytes an element" \
    'grep -q "·(66, 144) / 2.4e+12" "$work/on.txt"'
check "off: no X31" '! grep -q "^X31 " "$work/off.txt"'
x31=$(grep -A3 "^X31  attention core" "$work/on.txt" | grep "^       = [0-9]" | tail -1 | awk '{print $2}')
f9=$(res F9 2 "$work/on.txt")
check "on: the ring's core ($x31 s) is 0.762647/1.01818 of F9's ($f9 s)" \
    'awk -v a="$x31" -v b="$f9" "BEGIN { r = a / b; e = 0.762647 / 1.01818; exit !(a > 0 && (r - e) / e < 1e-4 && (e - r) / e < 1e-4) }"'

run() { # run FILE DIR -> the report's step_time_s
    "$planeval" run "$1" --output "$2" --threads 1 >/dev/null 2>&1 || return 1
    local r
    r=$(ls "$2"/*.csv | grep -v summary | head -1)
    csv_column "$r" step_time_s | tail -1
}
s_on=$(run "$work/on.yaml" "$work/out-on")
s_off=$(run "$work/off.yaml" "$work/out-off")
check "the step is shorter with the ring's real blocks ($s_on s against $s_off s)" \
    'awk -v a="$s_on" -v b="$s_off" "BEGIN { exit !(a > 0 && a < b) }"'

one=torchtitan-2412-t2-llama3-8b-8gpu-cp1-32k
cp "$src/scenarios/published/$one.yaml" "$work/one-on.yaml"
sed 's/^framework: torchtitan\b.*/framework: { preset: torchtitan, cp_ring_load_balance: false }/' \
    "$work/one-on.yaml" >"$work/one-off.yaml"
"$planeval" explain "$work/one-on.yaml" --plan "$one" >"$work/one-on.txt" 2>&1
check "cp 1: no ring, no X31" '! grep -q "^X31 " "$work/one-on.txt"'
o_on=$(run "$work/one-on.yaml" "$work/out-one-on")
o_off=$(run "$work/one-off.yaml" "$work/out-one-off")
check "cp 1: the same step with and without the key ($o_on, $o_off)" \
    '[ -n "$o_on" ] && [ "$o_on" = "$o_off" ]'

sed 's/cp_ring_load_balance: false/cp_ring_load_balance: 2/' "$work/off.yaml" >"$work/bad.yaml"
"$planeval" run "$work/bad.yaml" --output "$work/out-bad" >"$work/bad.txt" 2>&1
rc=$?
check "a key that is not a boolean exits 2 (got $rc)" '[ $rc -eq 2 ]'
finish
