#!/usr/bin/env bash
# test_framework_presets.sh — framework presets as people run them
# (docs/catalog.md "Frameworks", docs/model.md §12 "Framework presets"):
# every preset of scenarios/catalog/frameworks.yaml states the flags it
# stands for and its numbers' provenance; megatron-core (defaults) and
# megatron-core-perf (the performance example's overlap flags) are separate
# presets and give the same plan different steps; torchtitan sits beside
# fsdp; run's summary lines, the summary's facts, the HTML page and explain print
# the framework, its flags and the overlap in force.
#
#   bash tests/test_framework_presets.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
. "$(dirname "$0")/testlib.sh"

yaml=$src/scenarios/catalog/frameworks.yaml
presets=$(awk '/^frameworks:/ { on = 1; next } on && /^  [a-z0-9-]+:$/ { sub(/:$/, ""); print $1 }' "$yaml")
check "the catalog holds megatron-core-perf and torchtitan" \
    'echo "$presets" | grep -qx megatron-core-perf && echo "$presets" | grep -qx torchtitan'
for p in $presets; do
    # the preset's block: its comment above it and its keys below
    block=$(awk -v p="$p" '/^  #/ { c = c $0 "\n"; next } $0 == "  " p ":" { print c; on = 1; next }
        on && /^  [a-z0-9-]+:$/ { exit } on { print } !/^  #/ { c = "" }' "$yaml")
    check "$p states its flags" 'echo "$block" | grep -q "^    flags: \"..*\"$"'
    check "$p states its numbers' provenance" 'echo "$block" | grep -q "Provenance:"'
done

# one plan under each preset
base=$src/scenarios/published/nemo-2407-llama3-70b-64gpu.yaml
for fw in megatron-core megatron-core-perf torchtitan; do
    sed "s/^framework: .*/framework: $fw/; s/^name: .*/name: fw-$fw/" "$base" >"$work/fw-$fw.yaml"
    "$planeval" run --html "$work/fw-$fw.yaml" -o "$work/out" >"$work/$fw.out" 2>"$work/$fw.err"
    rc=$?
    check "a scenario runs under $fw (exit $rc)" '[ "$rc" -eq 0 ]'
done
err=$work/megatron-core-perf.err
check "run prints the framework in force" \
    'grep -q "^fw-megatron-core-perf: framework: megatron-core-perf: pp_scatter_gather true, " "$err"'
check "run prints what the preset stands for" \
    'grep -q "^fw-megatron-core-perf: framework_flags: .*--overlap-grad-reduce --overlap-param-gather$" "$err"'
check "run prints the overlap in force" \
    'grep -q "^fw-megatron-core-perf: overlap: tp 0, cp 1, dp 1, pp 0, ep 0 in force (the framework megatron-core-perf" "$err"'
check "the defaults preset says it overlaps no data-parallel collective" \
    'grep -q "^fw-megatron-core: overlap: tp 0, cp 1, dp 0, pp 0, ep 0 in force" "$work/megatron-core.err"'
check "torchtitan's flags name FSDP2, compile, float8 and async TP" \
    'grep -q "^fw-torchtitan: framework_flags: .*FSDP2.*compile.*float8.*async" "$work/torchtitan.err"'
check "the summary carries the flags as a fact" \
    'grep -q "^fact: framework_flags,.*--overlap-param-gather" "$work/out/fw-megatron-core-perf.summary.csv"'
check "the HTML page shows them" 'grep -q -- "--overlap-grad-reduce --overlap-param-gather" "$work/out/fw-megatron-core-perf.html"'

"$planeval" explain "$work/fw-torchtitan.yaml" --plan nemo-2407-llama3-70b-64gpu >"$work/explain.out" 2>&1
check "explain prints the flags (async TP as X16's micro-pipeline named) and the overlap in force" \
    'grep -q "^     framework flags: .*async TP: overlap tp 1 in the runs that name it, X16" "$work/explain.out" &&
     grep -q "^     overlap in force: tp 0, cp 1, dp 1, pp 0, ep 0 " "$work/explain.out"'

# the same plan, two presets: the performance recipe hides the data-parallel collectives
dp_of() { csv_column "$work/out/fw-$1.csv" dp_comm_s; }
step_of() { csv_column "$work/out/fw-$1.csv" step_time_s; }
check "megatron-core-perf exposes less data-parallel time than megatron-core ($(dp_of megatron-core-perf) < $(dp_of megatron-core))" \
    'awk -v a="$(dp_of megatron-core-perf)" -v b="$(dp_of megatron-core)" "BEGIN { exit !(a < b) }"'
check "and so a shorter step ($(step_of megatron-core-perf) < $(step_of megatron-core))" \
    'awk -v a="$(step_of megatron-core-perf)" -v b="$(step_of megatron-core)" "BEGIN { exit !(a < b) }"'

# a textbook scenario names no framework: only the overlap in force
grep -v '^framework:\|^fidelity:' "$base" | sed 's/^name: .*/name: fw-none/' >"$work/fw-none.yaml"
echo 'fidelity: textbook' >>"$work/fw-none.yaml"
"$planeval" run "$work/fw-none.yaml" -o "$work/out" >/dev/null 2>"$work/none.err"
check "a textbook run prints the overlap in force and no framework" \
    'grep -q "^fw-none: overlap: tp 0, cp 1, dp 1, pp 0$" "$work/none.err" && ! grep -q "^fw-none: framework" "$work/none.err"'

finish
