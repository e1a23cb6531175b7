#!/usr/bin/env bash
# test_calibrate_runs.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval calibrate
# RUNS.csv` (docs/model.md §12): the A100 and H100 fits of
# scenarios/calibration/ print the numbers the GPU presets carry (so the
# catalog is what its named runs give), every row with its error, the
# in-sample and leave-one-out lines and the lines to paste; bad runs files
# are refused with a FILE:LINE message and exit 2.
. "$(dirname "$0")/testlib.sh"

cal=$src/scenarios/calibration
gpus=$src/scenarios/catalog/gpus.yaml
# the value of KEY in the GPU preset NAME of the catalog
preset_value() {
    awk -v name="  $1:" -v key="$2" '$0 == name { on = 1; next }
        on && /^  [a-z0-9]/ { on = 0 } on && $1 == key ":" { print $2; exit }' "$gpus"
}
# The A100 file has nine fit rows, the H100 file eight: the default tries
# up to four numbers (⌊9/2⌋, ⌊8/2⌋) and keeps the count with the least
# leave-one-out error (three for both: the A100's gemm_efficiency,
# elementwise_efficiency and gemm_half_gflop, the last at its bound 0; the
# H100's, whose runs include fp8 ones, gemm_efficiency,
# elementwise_efficiency and fp8_gemm_efficiency, with its measured F_half
# held: gemm_half_measured; docs/model.md §13). A key the fit does not
# print must be absent from the preset too, but a measured one it holds. A number at
# its bound 0 comes out at about 1e-13, its digits the simplex's: the
# catalog's 0 is that value.
for gpu in a100:a100-80gb h100:h100-sxm; do
    runs=${gpu%%:*} name=${gpu#*:}
    "$planeval" calibrate "$cal/$runs.csv" >"$work/$runs.out" 2>"$work/$runs.err"; rc=$?
    check "$runs: exits 0 (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$work/$runs.err" ]'
    rows=$(($(wc -l <"$cal/$runs.csv") - 1))
    check "$runs: one table row per run ($rows)" \
        '[ "$(grep -c "^| [a-z0-9.-]*/[a-z0-9.-]* | \(fit\|predict\) |" "$work/$runs.out")" -eq "$rows" ]'
    check "$runs: in-sample and leave-one-out line" \
        'grep -Eq "^fit: [0-9]+ runs, in-sample mean \|error\| [0-9.]+% \(max [0-9.]+%\), leave-one-out mean \|error\| [0-9.]+%$" "$work/$runs.out"'
    nfit=$(grep -c ',fit$' "$cal/$runs.csv")
    check "$runs: at most half of the runs are fitted ($nfit of $rows)" '[ $((2 * nfit)) -le "$rows" ]'
    keys="gemm_efficiency elementwise_efficiency gemm_half_gflop"
    [ "$runs" = h100 ] && keys="gemm_efficiency elementwise_efficiency fp8_gemm_efficiency"
    for key in $keys; do
        got=$(awk -v k="$key:" '$1 == k { print $2 }' "$work/$runs.out")
        want=$(preset_value "$name" "$key")
        check "$runs: $name $key in the catalog ($want) is the fit ($got)" \
            '[ -n "$got" ] && { [ "$got" = "$want" ] || awk -v a="$got" -v b="$want" "BEGIN { exit !(b == 0 && a >= 0 && a < 1e-9) }"; }'
    done
    for key in gemm_efficiency elementwise_efficiency fp8_gemm_efficiency gemm_half_gflop attention_efficiency; do
        case " $keys " in *" $key "*) continue ;; esac
        check "$runs: $name carries no $key the fit held neutral ($(preset_value "$name" "$key"))" \
            '! grep -q "^    $key:" "$work/$runs.out" && { [ "$key" = attention_efficiency ] && [ "$runs" = h100 ] ||
             { [ "$key" = gemm_half_gflop ] && [ "$(preset_value "$name" gemm_half_measured)" = true ]; } ||
             [ -z "$(preset_value "$name" "$key")" ]; }'
    done
done

# The B200 preset holds the number its runs measure, named with --fit, and
# its attention core at F41's measurement (attention_measured: calibrate
# holds it, prints no line for it and names it for no removal;
# docs/model.md §13): the catalog's values are that fit's.
"$planeval" calibrate "$cal/b200.csv" --fit fp8_gemm_efficiency \
    >"$work/b200.out" 2>"$work/b200.err"; rc=$?
check "b200: exits 0 (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$work/b200.err" ]'
for key in fp8_gemm_efficiency step_time_below step_time_above; do
    got=$(awk -v k="$key:" '$1 == k { print $2 }' "$work/b200.out")
    want=$(preset_value b200 "$key")
    check "b200: $key in the catalog ($want) is the fit ($got)" '[ -n "$got" ] && [ "$got" = "$want" ]'
done
check "b200: the measured attention_efficiency ($(preset_value b200 attention_efficiency)) is held, not named" \
    '[ "$(preset_value b200 attention_measured)" = true ] && ! grep -q "attention_efficiency" "$work/b200.out"'
nfit=$(grep -c ',fit$' "$cal/b200.csv") nrows=$(($(wc -l <"$cal/b200.csv") - 1))
check "b200: at most half of the runs are fitted ($nfit of $nrows)" '[ $((2 * nfit)) -le "$nrows" ]'

# The paste block holds: with a GPU that carries no refinement number
# (b200's datasheet keys only, as a new gpu the b200-node cluster names: an
# override of b200 itself would merge over its refinement numbers), the held
# gemm_efficiency is printed too, and those lines under that GPU give the
# step time calibrate printed for a fit row. Keys the GPU carries but the fit
# held neutral are named for removal.
mkdir -p "$work/cat"
printf 'gpus:\n  b200-bare: { hbm_gib: 180, peak_tflops: 2250, hbm_tb_s: 8, peak_fp8_tflops: 4500 }\n' \
    >"$work/cat/gpus.yaml"
printf 'clusters:\n  b200-node: { gpu: { preset: b200-bare } }\n' >"$work/cat/clusters.yaml"
"$planeval" calibrate "$cal/b200.csv" --catalog "$work/cat" \
    --fit fp8_gemm_efficiency,attention_efficiency >"$work/bare.out" 2>"$work/bare.err"; rc=$?
check "bare b200: exits 0 (got $rc: $(head -c 200 "$work/bare.err"))" '[ $rc -eq 0 ]'
check "bare b200: the held gemm_efficiency is printed" \
    'grep -q "^    gemm_efficiency: 0.5 # not fitted: the runs. flops_efficiency, held while fitting; it turns F7-F11 on$" "$work/bare.out"'
{
    printf 'gpus:\n  b200-bare:\n    hbm_gib: 180\n    peak_tflops: 2250\n    hbm_tb_s: 8\n    peak_fp8_tflops: 4500\n'
    sed -n '/^# paste under/,$p' "$work/bare.out" | grep '^    [a-z]'
} >"$work/cat/gpus.yaml"
row=$(grep -m1 ',fit$' "$cal/b200.csv")
scen=$cal/${row%%,*} plan=$(echo "$row" | cut -d, -f2)
want=$(grep -F "| $plan/$plan | fit |" "$work/bare.out" | cut -d'|' -f5 | tr -d ' ')
"$planeval" check --table --catalog "$work/cat" "$scen" >"$work/paste.out" 2>&1
got=$(grep -F "| $plan | $plan | step_time_s |" "$work/paste.out" | cut -d'|' -f6 | tr -d ' ')
check "bare b200: the pasted lines give calibrate's step time for $plan ($want, got $got)" \
    '[ -n "$want" ] && awk -v a="$want" -v b="$got" "BEGIN { exit !(b > 0 && (a - b) / a < 1e-4 && (b - a) / a < 1e-4) }"'
"$planeval" calibrate "$cal/h100.csv" --fit gemm_efficiency,fp8_gemm_efficiency >"$work/part.out" 2>&1
check "h100 partial fit: the carried keys it held neutral are named for removal" \
    'grep -q "^# and remove elementwise_efficiency from the preset: not fitted, the fit held it neutral$" "$work/part.out" &&
     ! grep -q "^# and remove fp8_gemm_efficiency" "$work/part.out"'

# Without --fit the count of numbers is the one with the smallest
# leave-one-out error among 1 .. ⌊fit rows/2⌋: the printed list's argmin.
for runs in a100 h100; do
    line=$(grep '^leave-one-out mean |error| by the number of numbers fitted:' "$work/$runs.out")
    # the least printed error; counts tied at the printed precision (the
    # A100's 2 and 3: 3.99%) are all least, the tool's unrounded one picks
    least=$(echo "$line" | grep -oE '[0-9]+: [0-9.]+%' | tr -d ':%' |
             awk '{ if (n == 0 || $2 + 0 < best) best = $2 + 0; v[$1] = $2 + 0; n++ }
                  END { for (k in v) if (v[k] == best) printf " %s", k; printf " " }')
    chosen=${line##*-> }
    fitted=$(sed -n 's/^# paste .*; \([0-9]\) of 4 numbers fitted$/\1/p' "$work/$runs.out")
    check "$runs: the count with the least leave-one-out error is fitted (least:$least chosen $chosen, fitted $fitted)" \
        '[ -n "$chosen" ] && case "$least" in *" $chosen "*) true ;; *) false ;; esac && [ "$chosen" = "$fitted" ]'
done

# --fit: the numbers named, in their order; the default rule: max(1, ⌊fit rows/2⌋).
# (The S6 interval lines, step_time_*, follow the fitted numbers; not counted.)
"$planeval" calibrate "$cal/a100.csv" --fit attention_efficiency,gemm_efficiency >"$work/fit2.out"; rc=$?
check "--fit two numbers: exit 0 (got $rc), 2 of 4 fitted, in the order named" \
    '[ $rc -eq 0 ] && grep -q "2 of 4 numbers fitted" "$work/fit2.out" &&
     [ "$(grep -E "^    [a-z_]+:" "$work/fit2.out" | grep -v "^    step_time_" | cut -d: -f1 | tr -d " " | paste -sd,)" = attention_efficiency,gemm_efficiency ]'
# two fit rows (of the A100 file, paths made absolute) free one number
{ head -1 "$cal/a100.csv"; grep ',fit$' "$cal/a100.csv" | head -2; } | sed "s#^\.\./#$src/scenarios/#" >"$work/two.csv"
"$planeval" calibrate "$work/two.csv" >"$work/fit1.out"; rc=$?
check "default with two fit rows: one number (gemm_efficiency)" \
    '[ $rc -eq 0 ] && grep -q "1 of 4 numbers fitted" "$work/fit1.out" && [ "$(grep -E "^    [a-z_]+:" "$work/fit1.out" | grep -cv "^    step_time_")" -eq 1 ] && grep -q "^    gemm_efficiency:" "$work/fit1.out"'
for bad in "gemm_efficiency,gemm_efficiency:names gemm_efficiency twice" \
    "flops_efficiency:--fit takes names from gemm_efficiency" \
    "gemm_efficiency,elementwise_efficiency,gemm_half_gflop:--fit names 3 numbers but the runs file has 2 fit rows" \
    "gemm_efficiency,elementwise_efficiency,gemm_half_gflop,attention_efficiency,microbatch_overhead_us:at most 4 are fitted per GPU type" \
    "gemm_efficiency,fp8_gemm_efficiency:no fit row runs compute: fp8"; do
    "$planeval" calibrate "$work/two.csv" --fit "${bad%%:*}" >/dev/null 2>"$work/fitbad.err"; rc=$?
    check "--fit ${bad%%:*}: exit 2 (got $rc): ${bad#*:}" '[ $rc -eq 2 ] && grep -q -- "${bad#*:}" "$work/fitbad.err"'
done
"$planeval" calibrate "$src/scenarios/published/nemotron4-15b-t2-r1-dp96.yaml" --plan nemotron4-15b-t2-r1-dp96 --step-time 1 --fit gemm_efficiency >/dev/null 2>"$work/fitone.err"; rc=$?
check "--fit with one scenario: exit 2 (got $rc), says it needs a runs file" \
    '[ $rc -eq 2 ] && grep -q -- "--fit applies to a runs file" "$work/fitone.err"'

# A runs file of two GPU types is refused.
printf 'scenario,plan,column,value,group\n' >"$work/mixed.csv"
sed -n 2p "$cal/a100.csv" | sed "s#^\.\./#$src/scenarios/#" >>"$work/mixed.csv"
sed -n 2p "$cal/h100.csv" | sed "s#^\.\./#$src/scenarios/#" >>"$work/mixed.csv"
"$planeval" calibrate "$work/mixed.csv" >"$work/mixed.out" 2>"$work/mixed.err"; rc=$?
check "two GPU types: exit 2 (got $rc)" '[ $rc -eq 2 ]'
check "two GPU types: says so" 'grep -q "runs of more than one GPU type" "$work/mixed.err"'

# A bad header, a bad value, a bad group.
printf 'scenario,plan,step\n' >"$work/header.csv"
"$planeval" calibrate "$work/header.csv" 2>"$work/header.err" >/dev/null; rc=$?
check "bad header: exit 2 (got $rc) and the header named" \
    '[ $rc -eq 2 ] && grep -q "header.csv:1:1: error: a runs file starts with the header scenario,plan,column,value" "$work/header.err"'
head -2 "$work/mixed.csv" | sed '2s/,[a-z]*$/,train/' >"$work/group.csv"
"$planeval" calibrate "$work/group.csv" 2>"$work/group.err" >/dev/null; rc=$?
check "bad group: exit 2 (got $rc), line 2 named" \
    '[ $rc -eq 2 ] && grep -q "group.csv:2:5: error: group must be fit, predict or empty, got .train." "$work/group.err"'
# A value that is not a finite decimal number, a column that is not one the
# runs file takes, a plan the scenario lacks, a row with too many cells:
# each refused at its row and cell (FILE:LINE:COL).
row=$(sed -n 2p "$work/mixed.csv")
IFS=, read -r r_scen r_plan r_col r_value _ <<<"$row"
r_group=fit
runs_case() { # NAME ROW WANT — WANT is the message after "NAME.csv:"
    case_file=$work/$1
    printf 'scenario,plan,column,value,group\n%s\n' "$2" >"$case_file.csv"
    "$planeval" calibrate "$case_file.csv" 2>"$case_file.err" >"$case_file.out"; rc=$?
    want_line="$case_file.csv:$3"
    check "$1: exit 2 (got $rc), says '$3' (got: $(head -c 300 "$case_file.err"))" \
        '[ $rc -eq 2 ] && [ ! -s "$case_file.out" ] && grep -qxF -- "$want_line" "$case_file.err"'
}
for v in 1e400 inf nan 0x10 '+-1'; do
    runs_case "value-$v" "$r_scen,$r_plan,$r_col,$v,$r_group" \
        "2:4: error: value must be a number > 0, got '$v'"
done
runs_case column "$r_scen,$r_plan,mem_total_gib,1,$r_group" \
    "2:3: error: column must be step_time_s, tokens_per_s, mfu, hfu or tflops_per_gpu, got 'mem_total_gib'"
runs_case plan "$r_scen,no-such-plan,$r_col,$r_value,$r_group" \
    "2:2: error: no plan named 'no-such-plan' in $r_scen: give an explicit plan's name or a canonical text"
runs_case cells "$r_scen,$r_plan,$r_col,$r_value,$r_group,extra" \
    "2:6: error: a run has at most 5 cells (scenario,plan,column,value,group), got 6"

# F8's measured F_half (gemm_half_measured) is held: the H100 fit prints no
# gemm_half_gflop line and tries three counts (its place among the first
# four is kept, microbatch_overhead_us not freed); the same GPU without the
# flag (an override) has it held neutral, named for removal, and fits
# another e_max
mkdir -p "$work/halfcat"
printf 'gpus:\n  h100-sxm: { gemm_half_measured: false }\n' >"$work/halfcat/gpus.yaml"
"$planeval" calibrate "$cal/h100.csv" --catalog "$work/halfcat" >"$work/half-neutral.out" 2>&1
check "h100: the measured F_half is held (no gemm_half_gflop line, counts 1 to 3)" \
    '! grep -q "^    gemm_half_gflop:" "$work/h100.out" && grep -q "^leave-one-out .* 3: [0-9.]*% -> 3$" "$work/h100.out"'
check "h100 without gemm_half_measured: F_half held neutral and named for removal" \
    'grep -q "remove gemm_half_gflop" "$work/half-neutral.out"'
held=$(awk '$1 == "gemm_efficiency:" { print $2 }' "$work/h100.out")
neutral=$(awk '$1 == "gemm_efficiency:" { print $2 }' "$work/half-neutral.out")
check "the two fits differ (held $held, neutral $neutral)" '[ -n "$held" ] && [ -n "$neutral" ] && [ "$held" != "$neutral" ]'
# --threads: the leave-one-out refits on several threads print the same
# bytes as on one (each refit is independent; the mean is summed in row
# order); a priors fit too; a bad count is refused
"$planeval" calibrate "$cal/h100.csv" --threads 1 >"$work/t1.out" 2>&1
"$planeval" calibrate "$cal/h100.csv" --threads 4 >"$work/t4.out" 2>&1
check "calibrate --threads 4 prints what --threads 1 does" \
    '[ -s "$work/t1.out" ] && cmp -s "$work/t1.out" "$work/t4.out"'
"$planeval" calibrate "$cal/torchtitan.csv" --priors "$cal/priors/torchtitan.csv" --threads 1 >"$work/p1.out" 2>&1
"$planeval" calibrate "$cal/torchtitan.csv" --priors "$cal/priors/torchtitan.csv" --threads 3 >"$work/p3.out" 2>&1
check "calibrate --priors --threads 3 prints what --threads 1 does" \
    '[ -s "$work/p1.out" ] && cmp -s "$work/p1.out" "$work/p3.out"'
"$planeval" calibrate "$cal/h100.csv" --threads 0 >/dev/null 2>"$work/t0.err"; rc=$?
check "calibrate --threads 0: exit 2 (got $rc)" '[ $rc -eq 2 ] && [ -s "$work/t0.err" ]'

# A fit row repeated is fitted through its first (one evaluation, one
# leave-one-out refit, counted as many times as it appears): the fit of a
# file listing Nemotron-4 340B's fit row three times equals the fit of the
# same file whose two repeats spell their path otherwise (./, no repeat to
# merge: every copy evaluated and refitted on its own)
{ head -1 "$cal/h100.csv"; sed -n '2,$p' "$cal/h100.csv"; sed -n 5p "$cal/h100.csv"; sed -n 5p "$cal/h100.csv"; } \
    | sed "s|^\.\./published/|$src/scenarios/published/|" >"$work/repeat-same.csv"
{ head -1 "$cal/h100.csv"; sed -n '2,$p' "$cal/h100.csv"; sed -n 5p "$cal/h100.csv" | sed 's|^\.\./published/|./published/|';
  sed -n 5p "$cal/h100.csv" | sed 's|^\.\./published/|published/./|'; } \
    | sed "s|^\.\./published/|$src/scenarios/published/|; s|^\./published/|$src/scenarios/./published/|; s|^published/\./|$src/scenarios/published/./|" >"$work/repeat-spelled.csv"
"$planeval" calibrate "$work/repeat-same.csv" >"$work/repeat-same.out" 2>&1
"$planeval" calibrate "$work/repeat-spelled.csv" >"$work/repeat-spelled.out" 2>&1
check "a repeated fit row fits as its respelled copies do ($(grep -c nemotron4-340b-t2-r1 "$work/repeat-same.out") rows)" \
    'grep -q "step_time_interval_runs: 10" "$work/repeat-same.out" && cmp -s "$work/repeat-same.out" "$work/repeat-spelled.out"'

finish
