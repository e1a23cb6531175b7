#!/usr/bin/env bash
# test_published_predictions.sh PLANEVAL SOURCE_DIR WORKDIR — the
# "# Predicted (fidelity: ...)" comment blocks of scenarios/published are
# what the binary predicts now (tests/published_predictions.py makes them;
# rerun it with --write after a model change). They once went stale: the
# Llama 3 405B blocks said 11.19 s, 5.92 s and 13.97 s after later
# refinements had moved the runs to 12.17 s, 6.40 s and 14.48 s, and BLOOM's
# textbook block 119.44 s against 120.63 s.
. "$(dirname "$0")/testlib.sh"
got=$(python3 "$src/tests/published_predictions.py" "$planeval" "$src" "$work/pp" 2>&1)
rc=$?
check "every Predicted block is the binary's ($(head -c 600 <<<"$got"))" '[ $rc -eq 0 ]'
check "the twelve blocks are found ($(tail -1 <<<"$got"))" '[ "$(tail -1 <<<"$got")" = "12 blocks, 0 stale" ]'
# the checker itself: a block with a changed number is stale, and named
cp -r "$src/scenarios" "$work/src-scenarios" && mkdir -p "$work/copy" &&
    mv "$work/src-scenarios" "$work/copy/scenarios"
sed -i 's/^# Predicted (fidelity: textbook) 9.80 s/# Predicted (fidelity: textbook) 9.81 s/' \
    "$work/copy/scenarios/published/nemo-2407-llama3-8b-8gpu.yaml"
bad=$(python3 "$src/tests/published_predictions.py" "$planeval" "$work/copy" "$work/pp2" 2>&1)
rc=$?
check "a changed number is found stale ($(head -c 300 <<<"$bad"))" \
    '[ $rc -eq 1 ] && grep -q "^nemo-2407-llama3-8b-8gpu.yaml:32: stale: # Predicted (fidelity: textbook) 9.81 s" <<<"$bad" &&
     [ "$(tail -1 <<<"$bad")" = "12 blocks, 1 stale" ]'
finish
