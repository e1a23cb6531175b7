#!/usr/bin/env bash
# test_ttfit.sh PLANEVAL SOURCE_DIR WORKDIR — F26 (docs/model.md §12,
# gemm_rate_scale) as the torchtitan presets carry it: the value in the
# catalog is exactly what `planeval calibrate scenarios/calibration/
# torchtitan.csv --priors scenarios/calibration/priors/torchtitan.csv`
# prints, so a change of the GPU numbers (or of the model) that leaves the
# preset stale fails here; the runs file lists exactly torchtitan's fit half
# (the published files marked `# group: fit`); the runs constrain the
# number; a framework fit refuses runs of two frameworks and a GPU number
# beside it.
. "$(dirname "$0")/testlib.sh"

cal=$src/scenarios/calibration
"$planeval" calibrate "$cal/torchtitan.csv" --priors "$cal/priors/torchtitan.csv" \
    >"$work/fit.out" 2>"$work/fit.err"; rc=$?
check "calibrate torchtitan.csv --priors: exits 0, nothing on stderr (got $rc)" \
    '[ $rc -eq 0 ] && [ ! -s "$work/fit.err" ]'
check "the 16 fit runs are fitted, none predicted" \
    'grep -q "^fit: 16 runs, in-sample" "$work/fit.out" && ! grep -q "^predict:" "$work/fit.out"'
check "the runs constrain gemm_rate_scale (prior 1)" \
    'grep -q "^  gemm_rate_scale: prior 1 ± 0.2 .*: constrained" "$work/fit.out"'
check "the lines go under the framework preset torchtitan" \
    'grep -q "^# paste under the framework preset torchtitan " "$work/fit.out"'
fitted=$(sed -n 's/^    gemm_rate_scale: \([0-9.]*\)$/\1/p' "$work/fit.out")
check "calibrate prints one fitted value (got '$fitted')" '[ -n "$fitted" ]'

# the value each preset carries, as the binary reads it (explain's F26 line)
sigma_of() { # sigma_of FRAMEWORK
    cat >"$work/$1.yaml" <<YAML
schema: planeval/v1
name: sigma-$1
fidelity: refined
model: { preset: llama3-8b, seq_len: 8192 }
cluster: { preset: h100-node, nodes: 1 }
framework: $1
training: { global_batch: 16 }
plans:
  - { name: fsdp, dp: 8, zero: 3, micro_batch: 2, recompute: selective }
YAML
    "$planeval" explain "$work/$1.yaml" --plan fsdp 2>&1 |
        sed -n 's/^       = framework [^:]*: σ = \([0-9.]*\);.*/\1/p'
}
for fw in torchtitan torchtitan-2506; do
    got=$(sigma_of "$fw")
    check "preset $fw carries the fit's gemm_rate_scale $fitted (has '$got')" \
        '[ -n "$got" ] && [ "$got" = "$fitted" ]'
done
check "the fsdp preset carries none (F26 neutral: no explain line)" '[ -z "$(sigma_of fsdp)" ]'

# the runs file: exactly the published torchtitan files of the fit group
(cd "$src/scenarios/published" && grep -l '^# group: fit' torchtitan-*.yaml | LC_ALL=C sort) \
    >"$work/fit-files"
tail -n +2 "$cal/torchtitan.csv" | cut -d, -f1 | sed 's|^\.\./published/||' | LC_ALL=C sort \
    >"$work/runs-files"
check "torchtitan.csv lists exactly the 16 fit-group files" \
    '[ "$(wc -l <"$work/fit-files")" -eq 16 ] && cmp -s "$work/fit-files" "$work/runs-files"'
check "every row of torchtitan.csv is group fit" \
    '[ "$(tail -n +2 "$cal/torchtitan.csv" | cut -d, -f5 | sort -u)" = fit ]'

# refusals: another framework among the runs; a GPU number beside σ
pub=$(cd "$src/scenarios/published" && pwd)
{ sed "s|^\.\./published/|$pub/|" "$cal/torchtitan.csv"
  echo "$pub/nemo-2407-llama3-8b-8gpu.yaml,nemo-2407-llama3-8b-8gpu,step_time_s,10.68,fit"
} >"$work/mixed.csv"
"$planeval" calibrate "$work/mixed.csv" --fit gemm_rate_scale >"$work/mixed.out" 2>"$work/mixed.err"; rc=$?
check "runs of two frameworks: exit 2, a message naming both, nothing on stdout (got $rc)" \
    '[ $rc -eq 2 ] && [ ! -s "$work/mixed.out" ] &&
     grep -q "gemm_rate_scale is a framework.s number (F26): every run must name the same framework preset (first run: .torchtitan., this one: .nemo.)" "$work/mixed.err"'
"$planeval" calibrate "$cal/torchtitan.csv" --fit gemm_rate_scale,gemm_efficiency \
    >"$work/both.out" 2>"$work/both.err"; rc=$?
check "gemm_rate_scale with a GPU number: exit 2 (got $rc)" \
    '[ $rc -eq 2 ] && [ ! -s "$work/both.out" ] && grep -q "fit it alone" "$work/both.err"'
# without --fit or priors a runs file of several GPUs is refused, and the
# message names the framework fit
"$planeval" calibrate "$cal/torchtitan.csv" >"$work/plain.out" 2>"$work/plain.err"; rc=$?
check "plain calibrate of runs on several GPUs: exit 2, the message names --fit gemm_rate_scale (got $rc)" \
    '[ $rc -eq 2 ] && [ ! -s "$work/plain.out" ] &&
     grep -q "calibrate one GPU type at a time (or fit a framework.s number across them: --fit gemm_rate_scale, F26)" "$work/plain.err"'
finish
