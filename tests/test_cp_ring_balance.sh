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
framework_variant "$name" torchtitan "cp_ring_load_balance: false" on off
explain_each "$name" off on
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

s_on=$(last_row "$work/on.yaml" "$work/out-on" step_time_s)
s_off=$(last_row "$work/off.yaml" "$work/out-off" step_time_s)
check "the step is shorter with the ring's real blocks ($s_on s against $s_off s)" \
    'shorter "$s_on" "$s_off"'

one=torchtitan-2412-t2-llama3-8b-8gpu-cp1-32k
framework_variant "$one" torchtitan "cp_ring_load_balance: false" one-on one-off
"$planeval" explain "$work/one-on.yaml" --plan "$one" >"$work/one-on.txt" 2>&1
check "cp 1: no ring, no X31" '! grep -q "^X31 " "$work/one-on.txt"'
o_on=$(last_row "$work/one-on.yaml" "$work/out-one-on" step_time_s)
o_off=$(last_row "$work/one-off.yaml" "$work/out-one-off" step_time_s)
check "cp 1: the same step with and without the key ($o_on, $o_off)" \
    '[ -n "$o_on" ] && [ "$o_on" = "$o_off" ]'

bad_value "a key that is not a boolean" "$work/off.yaml" "cp_ring_load_balance: false" "cp_ring_load_balance: 2"
finish
