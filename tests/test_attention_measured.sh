#!/usr/bin/env bash
# test_attention_measured.sh PLANEVAL SOURCE_DIR WORKDIR — F41 (docs/model.md
# §12): the b200 and gb200 presets' attention core is the median over their
# cuDNN causal training rows of scenarios/measurements/attention.csv of
# min(1, 2·3/(1/fwd + 2.5/bwd)/peak), flagged attention_measured, which
# calibrate holds (as F22's e_att) instead of setting it neutral; explain
# names it measured; the flag changes no step time.
. "$(dirname "$0")/testlib.sh"

gpus=$src/scenarios/catalog/gpus.yaml
att=$src/scenarios/measurements/attention.csv
preset_value() { # preset_value GPU KEY — KEY's value in the catalog's GPU preset
    awk -v name="  $1:" -v key="$2" '$0 == name { on = 1; next }
        on && /^  [a-z0-9]/ { on = 0 } on && $1 == key ":" { print $2; exit }' "$gpus"
}
# the rows' cells by hand: gpu,cudnn,DIR,128,yes,SEQ,SEQ,...,TFLOPS,PEAK,"source@COMMIT ..."
row() { # row GPU COMMIT DIR SEQ — the tflops cell
    awk -F, -v g="$1" -v c="$2" -v d="$3" -v s="$4" \
        '$1 == g && $2 == "cudnn" && $3 == d && $6 == s && index($0, "cudnn-frontend@" c) { print $10 }' "$att"
}

# one pair by hand: B200, cuDNN 9.13.0 (@bb37575), 8K tokens: forward 1171.278,
# backward 942.509 TFLOP/s on the causal half; 1/1171.278 = 0.00085377,
# 2.5/942.509 = 0.00265249, sum 0.00350626, R = 3/0.00350626 = 855.61 TFLOP/s;
# e_att = 2·855.61/2250 = 0.7605
fwd=$(row b200 bb37575 fwd 8192) bwd=$(row b200 bb37575 bwd 8192)
check "the B200 8K pair is in attention.csv (fwd $fwd, bwd $bwd)" '[ "$fwd" = 1171.278 ] && [ "$bwd" = 942.509 ]'
e=$(awk -v f="$fwd" -v b="$bwd" 'BEGIN { printf "%.4f", 2 * 3 / (1 / f + 2.5 / b) / 2250 }')
check "F41 of that pair is the hand value 0.7605 ($e)" '[ "$e" = 0.7605 ]'

# the presets carry the median of their pairs (18 B200 pairs: two releases;
# 9 GB200 pairs), as tests/derive_presets.py's F41 rule checks
median() { # median GPU PEAK — F41's median over the GPU's cuDNN causal pairs
    awk -F, -v g="$1" -v p="$2" '$1 == g && $2 == "cudnn" && $5 == "yes" {
            k = $6 SUBSEP substr($0, index($0, "cudnn-frontend@"), 22); v[k, $3] = $10; keys[k] = 1 }
        END { n = 0; for (k in keys) if ((k, "fwd") in v && (k, "bwd") in v) {
                  e = 2 * 3 / (1 / v[k, "fwd"] + 2.5 / v[k, "bwd"]) / p; x[++n] = e > 1 ? 1 : e }
              for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
              printf "%d %.4f", n, n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }' "$att"
}
read -r n m <<<"$(median b200 2250)"
check "b200: attention_efficiency $(preset_value b200 attention_efficiency) is the median of its $n pairs ($m)" \
    '[ "$n" = 18 ] && [ "$m" = "$(preset_value b200 attention_efficiency)" ] && [ "$(preset_value b200 attention_measured)" = true ]'
read -r n m <<<"$(median gb200 2500)"
check "gb200: attention_efficiency $(preset_value gb200 attention_efficiency) is the median of its $n pairs ($m)" \
    '[ "$n" = 9 ] && [ "$m" = "$(preset_value gb200 attention_efficiency)" ] && [ "$(preset_value gb200 attention_measured)" = true ]'

# calibrate holds a measured e_att: the fit prints no attention line; the
# same GPU without the flag (an override) has it held neutral and named for
# removal, and fits a different e_max8
cal=$src/scenarios/calibration
"$planeval" calibrate "$cal/gb200.csv" --fit fp8_gemm_efficiency >"$work/held.out" 2>&1
mkdir -p "$work/cat"
printf 'gpus:\n  gb200: { attention_measured: false }\n' >"$work/cat/gpus.yaml"
"$planeval" calibrate "$cal/gb200.csv" --catalog "$work/cat" --fit fp8_gemm_efficiency >"$work/neutral.out" 2>&1
check "calibrate holds the measured e_att (no attention line)" '! grep -q attention_efficiency "$work/held.out"'
check "without attention_measured calibrate holds it neutral and names it for removal" \
    'grep -q "remove attention_efficiency" "$work/neutral.out"'
held=$(awk '$1 == "fp8_gemm_efficiency:" { print $2 }' "$work/held.out")
neutral=$(awk '$1 == "fp8_gemm_efficiency:" { print $2 }' "$work/neutral.out")
check "the two fits differ (held $held, neutral $neutral)" '[ -n "$held" ] && [ -n "$neutral" ] && [ "$held" != "$neutral" ]'

# explain names the basis; the flag changes no step time
f=$src/scenarios/published/nemo-2504-llama3-8b-gb200-8gpu.yaml p=nemo-2504-llama3-8b-gb200-8gpu
"$planeval" explain "$f" --plan "$p" >"$work/explain.out" 2>&1
check "explain: e_att $(preset_value gb200 attention_efficiency) measured (F41)" \
    'grep -q "e_att $(preset_value gb200 attention_efficiency): measured (F41: median of the causal training rows)" "$work/explain.out"'
"$planeval" run "$f" -o "$work/on" >/dev/null 2>&1
"$planeval" run "$f" --catalog "$work/cat" -o "$work/off" >/dev/null 2>&1
check "the flag changes no report row" \
    '[ -s "$work/on/$p.csv" ] && cmp -s "$work/on/$p.csv" "$work/off/$p.csv"'
finish
