#!/usr/bin/env bash
# test_causal_work.sh PLANEVAL SOURCE_DIR WORKDIR — framework.attention_causal_work
# (docs/model.md §12 F33): on an H100 (attention_causal_tile 128) explain
# prints F33 = 1 while the key is off (F9's whole κ = 1 count at F22's rate)
# and 1/(2κ) = 0.5 with it on, where F9's core is half the off value and
# the step shorter, the FLOP count (model_flops per step: mfu·step) kept;
# with model.causal_flops (κ = 0.5, the causal half already counted) the key
# changes nothing (no double halving); a scenario file that is not a boolean
# is refused with exit 2.
. "$(dirname "$0")/testlib.sh"

name=nemo-2403-llama2-7b-h100-1024k-1024gpu
framework_variant "$name" nemo "attention_causal_work: true" off on
explain_each "$name" off on
f33() { grep -A2 "^F33 " "$1" | tail -1 | awk '{print $2}'; }
f9() { grep -A2 "^F9 " "$1" | tail -1 | awk '{print $2}'; }
check "off: F33 says the key is off and is 1" \
    'grep -q "framework.attention_causal_work false" "$work/off.txt" && [ "$(f33 "$work/off.txt")" = 1 ]'
check "on: F33 is 1/(2·1) = 0.5 with the kernel's computed share 0.501953" \
    'grep -q "^       = 1/(2·1)   (the kernel computes (s.² + s.·B_c)/2 = 0.501953" "$work/on.txt" && [ "$(f33 "$work/on.txt")" = 0.5 ]'
check "on: F9's core is half the off value ($(f9 "$work/on.txt") against $(f9 "$work/off.txt"))" \
    'awk -v a="$(f9 "$work/on.txt")" -v b="$(f9 "$work/off.txt")" "BEGIN { exit !(a > 0 && (a - b / 2) / a < 1e-5 && (a - b / 2) / a > -1e-5) }"'

read -r s_off m_off <<<"$(last_row "$work/off.yaml" "$work/out-off" step_time_s mfu)"
read -r s_on m_on <<<"$(last_row "$work/on.yaml" "$work/out-on" step_time_s mfu)"
check "the step is shorter with the key ($s_on s against $s_off s)" \
    'shorter "$s_on" "$s_off"'
check "the FLOP count stays: mfu·step equal ($m_on·$s_on, $m_off·$s_off)" \
    'awk -v a="$m_on" -v b="$s_on" -v c="$m_off" -v d="$s_off" "BEGIN { x = a * b; y = c * d; exit !(x > 0 && (x - y) / y < 1e-4 && (y - x) / y < 1e-4) }"'

# κ = 0.5: the causal half is counted already; the key changes nothing
for v in off on; do
    sed 's/^model: { preset: llama2-7b, seq_len: 1048576 }/model: { preset: llama2-7b, seq_len: 1048576, causal_flops: true }/' \
        "$work/$v.yaml" >"$work/half-$v.yaml"
done
check "the κ = 0.5 files name causal_flops" 'grep -q "causal_flops: true" "$work/half-on.yaml"'
read -r h_off _ <<<"$(last_row "$work/half-off.yaml" "$work/out-half-off" step_time_s mfu)"
read -r h_on _ <<<"$(last_row "$work/half-on.yaml" "$work/out-half-on" step_time_s mfu)"
check "κ = 0.5: the same step with and without the key ($h_on, $h_off)" \
    '[ -n "$h_on" ] && [ "$h_on" = "$h_off" ]'

bad_value "a key that is not a boolean" "$work/on.yaml" "attention_causal_work: true" "attention_causal_work: 2"
finish
