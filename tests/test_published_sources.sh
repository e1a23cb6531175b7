#!/usr/bin/env bash
# test_published_sources.sh PLANEVAL SOURCE_DIR WORKDIR — the sources of
# scenarios/published/ (docs/validation.md): every file cites its source and
# says its group; within each source (the scenario name before its first
# '-') at most half of the files are fit runs; the NeMo releases the files
# hold are the ones docs/validation.md's "NeMo's performance pages, release
# by release" names, and a step time derived from a TFLOP/s figure is the
# arithmetic its comment states.
. "$(dirname "$0")/testlib.sh"

pub=$src/scenarios/published
val=$src/docs/validation.md

check "every file has a '# Source:' line" \
    '[ -z "$(grep -L "^# Source: " "$pub"/*.yaml)" ]'
grep -L "^# Source: " "$pub"/*.yaml | head -3
check "every file has a '# group: fit|predict' line" \
    '[ -z "$(grep -LE "^# group: (fit|predict)" "$pub"/*.yaml)" ]'

# at most half of each source's files are fit runs (issue: "Fitting uses at
# most half the runs of each source, named")
for f in "$pub"/*.yaml; do
    n=$(basename "$f" .yaml)
    printf '%s %s\n' "${n%%-*}" "$(sed -n 's/^# group: \([a-z]*\).*/\1/p' "$f" | head -1)"
done | sort >"$work/groups"
awk '{ n[$1]++; if ($2 == "fit") f[$1]++ }
     END { for (s in n) if (2 * f[s] > n[s]) print s, f[s] "/" n[s] }' "$work/groups" >"$work/over"
check "no source has more fit files than predict files ($(tr '\n' ' ' <"$work/over"))" \
    '[ ! -s "$work/over" ]'

# the NeMo releases: the files' nemo-RELEASE- prefixes against the section
sed -n "/^## NeMo's performance pages, release by release/,/^## /p" "$val" >"$work/section"
check "docs/validation.md has the NeMo release section" '[ -s "$work/section" ]'
grep -o 'nemo-[0-9]\{4\}-' "$work/section" | sort -u >"$work/named"
for f in "$pub"/nemo-*.yaml; do basename "$f" | grep -o '^nemo-[0-9]\{4\}-'; done | sort -u >"$work/files"
check "the section names releases ($(tr '\n' ' ' <"$work/named"))" '[ -s "$work/named" ]'
check "every release with files is named in the section and every named one has files" \
    'cmp -s "$work/named" "$work/files"'
cmp -s "$work/named" "$work/files" || diff "$work/named" "$work/files"
# each release's file count as the section states it ("the nine nemo-2403-* files")
for pair in "nine nemo-2403-" "twelve nemo-2407-" "eight nemo-2504-llama3-8b-b200-" "seven nemo-2504-*-gb200-" \
            "five dense nemo-2502-*-b200-" "one nemo-2502-*-h100-"; do
    word=${pair% *} rel=${pair##* }
    word=${word% dense}
    want=$(case $word in one) echo 1 ;; five) echo 5 ;; six) echo 6 ;; seven) echo 7 ;; nine) echo 9 ;; twelve) echo 12 ;; eight) echo 8 ;; esac)
    got=$(ls "$pub"/$rel*.yaml 2>/dev/null | grep -v mixtral | wc -l)
    [ "$rel" = "nemo-2504-*-gb200-" ] && got=$(ls "$pub"/$rel*.yaml 2>/dev/null | wc -l)
    check "the section's ${pair% *} $rel* files exist ($got)" \
        'grep -qF "${pair% *} \`$rel*\`" "$work/section" && [ "$got" -eq "$want" ]'
done

# every nemo file names its release, its table and its system on one line,
# '# Release: NeMo YY.MM[...], table "NAME" (where), system DGX-X': the release
# is the file's nemo-YYMM- prefix, the system the one its cluster preset
# describes (h100-node DGX-H100, b200-node DGX-B200, gb200-nvl72 DGX-GB200)
unnamed=
for f in "$pub"/nemo-*.yaml; do
    n=$(basename "$f" .yaml)
    rel=$(printf '%s\n' "$n" | sed -n 's/^nemo-\([0-9][0-9]\)\([0-9][0-9]\)-.*/\1\\.\2/p')
    preset=$(sed -n 's/^cluster: { preset: \([a-z0-9-]*\).*/\1/p' "$f")
    case $preset in h100-node) sys=DGX-H100 ;; b200-node) sys=DGX-B200 ;; gb200-nvl72) sys=DGX-GB200 ;; *) sys=none ;; esac
    if [ -z "$rel" ] || [ "$(grep -c '^# Release: ' "$f")" -ne 1 ] ||
       ! grep -qE "^# Release: NeMo $rel[^,]*, table \"[^\"]+\".*, system $sys\$" "$f"; then
        unnamed="$unnamed $n"
    fi
done
check "every nemo file names its release, table and system (not:${unnamed:- none})" '[ -z "$unnamed" ]'

# NeMo 24.03's step times: F = GBS s L h^2 (12 + 12 g/a + 18 f/h + 12 s/h +
# 6 V/(L h)) for Llama 2 7B (L 32, h 4096, a = g 32, f 11008, V 32000),
# step = F / (TFLOP/s x 1e12 x GPUs), with GBS and s from the scenario and
# TFLOP/s and GPUs from the comment's first line.
n2403=0
for f in "$pub"/nemo-2403-*.yaml; do
    [ -f "$f" ] || continue
    n2403=$((n2403 + 1))
    gbs=$(sed -n 's/^training: { global_batch: \([0-9]*\) }.*/\1/p' "$f")
    seq=$(sed -n 's/^model: { preset: llama2-7b, seq_len: \([0-9]*\) }.*/\1/p' "$f")
    gpus=$(sed -n 's/^# sequence length [0-9]*K: \([0-9]*\) H100 GPUs.*/\1/p' "$f")
    tf=$(sed -n 's/^# published \([0-9.]*\) TFLOP\/s per GPU.*/\1/p' "$f")
    want=$(sed -n 's/^ *step_time_s: { value: \([0-9.]*\),.*/\1/p' "$f")
    check "$(basename "$f"): step time is F / (TFLOP/s x GPUs) ($want)" \
        'awk -v b="$gbs" -v s="$seq" -v g="$gpus" -v t="$tf" -v w="$want" "BEGIN {
             L = 32; h = 4096; F = b * s * L * h * h * (12 + 12 + 18 * 11008 / h + 12 * s / h + 6 * 32000 / (L * h))
             st = F / (t * 1e12 * g); d = (st - w) / w; exit !(b > 0 && s > 0 && g > 0 && t > 0 && d < 1e-4 && d > -1e-4) }"'
done
check "NeMo 24.03's nine long-sequence rows are files ($n2403)" '[ "$n2403" -eq 9 ]'

# DeepSeek-V3's whole run (arXiv:2412.19437 Table 1 and §1): the pre-training
# GPU hours are the report's 180K a trillion tokens times its 14.8T tokens,
# and the cost those hours at the report's $2 an hour.
ds=$pub/deepseek-v3-h800-pretrain-14.8t.yaml
check "DeepSeek-V3's pre-training run as a whole-run file" '[ -f "$ds" ]'
tokens=$(sed -n 's/^training: {.*tokens: \([0-9.e]*\) }.*/\1/p' "$ds" 2>/dev/null)
price=$(sed -n 's/^cluster: {.*cost_per_gpu_hour: \([0-9.]*\) }.*/\1/p' "$ds" 2>/dev/null)
hours=$(sed -n 's/^ *gpu_hours: { value: \([0-9.]*\),.*/\1/p' "$ds" 2>/dev/null)
cost=$(sed -n 's/^ *cost: { value: \([0-9.]*\),.*/\1/p' "$ds" 2>/dev/null)
check "gpu_hours = 180K x tokens / 1e12 ($hours, tokens $tokens), cost = gpu_hours x price ($cost, \$$price)" \
    'awk -v t="$tokens" -v p="$price" -v h="$hours" -v c="$cost" "BEGIN {
         exit !(t + 0 == 14.8e12 && h + 0 == 180000 * t / 1e12 && p + 0 == 2 && c + 0 == h * p) }"'

finish
