#!/usr/bin/env bash
# test_commands.sh PLANEVAL SOURCE_DIR WORKDIR — the everyday edges of the
# scenario commands: explain evaluates any valid canonical text; a run or
# check whose plans are all invalid names no plan "best".
. "$(dirname "$0")/testlib.sh"

drill=$src/scenarios/drills/01-fit-the-model.yaml

# explain: a canonical text the scenario does not enumerate is still a plan.
canon=dp16-tp4-pp1-cp1-z2-full-mb2-1f1b-v1-sp1
"$planeval" explain "$drill" --plan $canon >"$work/explain.out" 2>"$work/explain.err"; rc=$?
check "explain of a canonical text outside the scenario exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "it explains that plan" 'grep -q "plan $canon" "$work/explain.out" && grep -q "^S1 " "$work/explain.out"'
"$planeval" explain "$drill" --plan dp16-tp4-pp3-cp1-z2-full-mb2-1f1b-v1-sp1 >"$work/explain.out" 2>&1; rc=$?
check "an invalid plan is explained with the rule it breaks (got $rc)" '[ $rc -eq 0 ] && grep -q "^V1 .*FAILS" "$work/explain.out"'
"$planeval" explain "$drill" --plan dp064-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0 >"$work/explain.out" 2>&1; rc=$?
check "a text that is not canonical is bad input (got $rc)" '[ $rc -eq 2 ] && grep -q "no plan named" "$work/explain.out"'

# A scenario whose plans are all invalid has no best plan.
cat >"$work/all-invalid.yaml" <<'YAML'
schema: planeval/v1
name: all-invalid
model: { preset: gpt3-175b }
cluster: { preset: mi300x-node, nodes: 8 }
training: { global_batch: 1536 }
plans:
  - { name: five-stages, dp: 8, tp: 1, pp: 5 }
  - { name: too-many, dp: 128 }
expect:
  - best_plan: too-many
YAML
"$planeval" check "$work/all-invalid.yaml" >"$work/check.out" 2>&1; rc=$?
check "check: best_plan of all-invalid plans fails (exit 1, got $rc)" '[ $rc -eq 1 ]'
check "check: it says no valid plan" 'grep -q "best_plan: expected .too-many., got .no valid plan." "$work/check.out"'

# run: all plans invalid: no best plan named, in the summary and on stderr.
"$planeval" run -o "$work/out" "$work/all-invalid.yaml" 2>"$work/run.err"; rc=$?
check "run of all-invalid plans exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "run says no valid plan" 'grep -q "all-invalid: no valid plan" "$work/run.err" && ! grep -q "best:" "$work/run.err"'
check "the summary names no best plan" 'grep -q "^best_plan,$" "$work/out/all-invalid.summary.csv" && grep -q "^best_status,$" "$work/out/all-invalid.summary.csv"'

# Per-command --help: usage, every option, and the documentation's place.
help_has() { # help_has COMMAND OPTION...
    local cmd=$1 o
    shift
    "$planeval" "$cmd" --help >"$work/help.out" 2>&1 || return 1
    head -1 "$work/help.out" | grep -q "^usage: planeval $cmd " || return 1
    grep -q "docs/scenarios.md" "$work/help.out" || return 1
    for o in "$@"; do grep -q -- "$o" "$work/help.out" || return 1; done
}
check "run --help" 'help_has run --output --top --threads --quiet --shard --resume --catalog'
check "check --help" 'help_has check --golden --rel-tol --abs-tol --rank-tol --max-lines --top --update-golden --table --format'
check "explain --help" 'help_has explain --plan --catalog'
check "validate --help" 'help_has validate --quiet --catalog'
check "merge --help" 'help_has merge --output --top --allow-partial'
check "calibrate --help" 'help_has calibrate --plan --step-time --peak-memory --fit RUNS.csv'
check "--help is not the general usage" '"$planeval" explain --help | grep -vq "^  grade KEY"'

# Long options spelled in full, and only the command's own.
"$planeval" run --thread 2 -o "$work/out" "$drill" 2>"$work/err"; rc=$?
check "run --thread (abbreviated) is refused (exit 2, got $rc)" '[ $rc -eq 2 ] && grep -q "unknown option .--thread. (did you mean --threads?)" "$work/err"'
"$planeval" explain "$drill" --plan zero3-selective --top 3 >/dev/null 2>"$work/err"; rc=$?
check "explain --top is refused (exit 2, got $rc)" '[ $rc -eq 2 ] && grep -q "explain does not take --top" "$work/err"'

# The memory note of a large sweep without --top (more than 20 M plans)
# gives the measured bytes per row. The run is stopped (SIGTERM) as soon as
# the note is out.
cat >"$work/large.yaml" <<'YAML'
schema: planeval/v1
name: large
model: { preset: gpt3-175b }
cluster: { preset: a100-node, nodes: 512 }
training: { global_batch: 4096 }
sweep:
  tp: [1, 2, 4, 8, 16, 32]
  pp: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96]
  cp: [1, 2, 4, 8]
  dp: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 2048]
  zero: [0, 1, 2, 3]
  recompute: [none, selective, full]
  micro_batch: [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64]
  schedule: [1f1b, interleaved, gpipe]
  virtual_stages: [1, 2, 3, 4, 5, 6, 7, 8]
  sequence_parallel: [true, false]
  offload_optimizer: [false, true]
YAML
"$planeval" run --threads 1 -o "$work/large" "$work/large.yaml" 2>"$work/large.err" &
pid=$!
for _ in $(seq 1 100); do grep -q "note:" "$work/large.err" && break; sleep 0.1; done
kill -TERM $pid 2>/dev/null
wait $pid
check "the note gives about 1000 bytes a row, measured" 'grep -q "note: .* about 1000 bytes a row (measured)" "$work/large.err"'
check "the note gives the memory that takes at most" 'grep -Eq "note: .*up to [0-9.]+ GiB" "$work/large.err"'

# A scenario that names no refinement is the textbook model; when its
# presets carry fitted numbers, run and calibrate say fidelity: refined uses
# them (docs/model.md §12), and say nothing when fidelity: is written.
cat >"$work/hint.yaml" <<'YAML'
schema: planeval/v1
name: hint
model: { preset: gpt3-175b }
cluster: { preset: h100-node, nodes: 8 }
training: { global_batch: 512 }
plans:
  - { name: a, dp: 1, tp: 8, pp: 8 }
YAML
"$planeval" run "$work/hint.yaml" -o "$work/hint" 2>"$work/hint.err" >/dev/null; rc=$?
check "no fidelity, fitted presets: run exits 0 (got $rc) and notes fidelity: refined" \
    '[ $rc -eq 0 ] && grep -q "^hint: note: the textbook model .*fidelity: refined" "$work/hint.err"'
"$planeval" calibrate "$work/hint.yaml" --plan a --step-time 30 >"$work/hint.cal" 2>&1; rc=$?
check "calibrate notes it too (got $rc)" '[ $rc -eq 0 ] && grep -q "^# note: the textbook model" "$work/hint.cal"'
for f in textbook refined; do
    sed "2a fidelity: $f" "$work/hint.yaml" >"$work/hint-$f.yaml"
    "$planeval" run "$work/hint-$f.yaml" -o "$work/hint" 2>"$work/hint-$f.err" >/dev/null; rc=$?
    check "fidelity: $f written: exits 0 (got $rc), no note" \
        '[ $rc -eq 0 ] && ! grep -q "note: the textbook model" "$work/hint-$f.err"'
done

# validate: the counts it exists to print go to stdout, errors to stderr.
printf 'schema: planeval/v1\nname: broken\n' >"$work/broken.yaml"
"$planeval" validate "$drill" "$work/broken.yaml" >"$work/validate.out" 2>"$work/validate.err"; rc=$?
check "validate of a good and a bad file exits 2 (got $rc)" '[ $rc -eq 2 ]'
check "the good file's counts are on stdout" \
    'grep -Eq "^$drill: ok \(01-fit-the-model: [0-9]+ explicit plans" "$work/validate.out" && [ "$(wc -l <"$work/validate.out")" -eq 1 ]'
check "the bad file's errors are on stderr, no ok line there" \
    'grep -q "^$work/broken.yaml:" "$work/validate.err" && ! grep -q ": ok (" "$work/validate.err"'
validate_sweep=$(find "$src/scenarios" -name '*.yaml' -not -path '*/catalog/*' -exec grep -l '^sweep:' {} + | LC_ALL=C sort | head -1)
"$planeval" validate "$validate_sweep" >"$work/validate.out" 2>"$work/validate.err"; rc=$?
check "a sweep's combinations and plans are counted on stdout (got $rc)" \
    '[ $rc -eq 0 ] && grep -Eq ": ok \(.*a sweep of [0-9]+ combinations: [0-9]+ plans, [0-9]+ skipped\)$" "$work/validate.out" && [ ! -s "$work/validate.err" ]'

finish
