#!/usr/bin/env bash
# test_check_formats.sh PLANEVAL SOURCE_DIR WORKDIR — `check --format
# junit|json`: one document on stdout for CI, with every scenario,
# assertion and golden comparison; a missing golden report is a failure of
# its own class, not a regression; stale golden reports are listed.
. "$(dirname "$0")/testlib.sh"

drill=$src/scenarios/drills/01-fit-the-model.yaml
mkdir -p "$work/g"
"$planeval" check --quiet --golden "$work/g" --update-golden --top 3 "$drill" >/dev/null 2>&1
cp "$src/tests/golden/03-comm-budget-400g.csv" "$work/g/old.csv"   # no scenario below writes it
cat >"$work/wrong.yaml" <<'YAML'
schema: planeval/v1
name: wrong
model: { preset: gpt3-175b }
cluster: { preset: mi300x-node, nodes: 8 }
training: { global_batch: 1536 }
plans:
  - { name: base, dp: 64 }
  - { name: z3, dp: 64, zero: 3, recompute: selective }
expect:
  - plan: base
    status: ok
    mem_total_gib: { value: 1, rel_tol: 0.01 }
    gpus: 64
  - best_plan: base
YAML
printf 'schema: planeval/v1\nname: broken\n' >"$work/broken.yaml"
have() { command -v "$1" >/dev/null 2>&1; }

# Text: the missing golden report has its own line and count.
"$planeval" check --quiet --golden "$work/g" "$work/wrong.yaml" "$drill" >"$work/text.out" 2>&1; rc=$?
check "text: exit 1 (got $rc)" '[ $rc -eq 1 ]'
check "text: a missing golden report is its own kind of line" \
    'grep -q "^$work/g/wrong.csv: missing golden report: no such file (run with --update-golden to write it)$" "$work/text.out"'
check "text: the stale golden report is named" \
    'grep -q "^$work/g/old.csv: stale golden report: no scenario checked writes it$" "$work/text.out"'
check "text: the closing line counts both" \
    '[ "$(tail -1 "$work/text.out")" = "1 passed, 5 failed, 1 of them a missing golden report; 1 stale golden report" ]'

# JSON: one object on stdout, nothing else there.
"$planeval" check --quiet --golden "$work/g" --format json "$work/wrong.yaml" "$drill" >"$work/out.json" 2>"$work/json.err"; rc=$?
check "json: exit 1 as in text (got $rc)" '[ $rc -eq 1 ]'
check "json: stdout is the object alone" '[ "$(head -c1 "$work/out.json")" = "{" ] && [ "$(tail -1 "$work/out.json")" = "}" ] && ! grep -q " passed, " "$work/out.json"'
check "json: the counts" 'grep -q "^  \"passed\": 1,$" "$work/out.json" && grep -q "^  \"failed\": 5,$" "$work/out.json" && grep -q "^  \"missing_golden\": 1,$" "$work/out.json" && grep -q "^  \"stale_golden\": 1,$" "$work/out.json"'
check "json: a failed assertion with its message" \
    'grep -q "\"line\": 12, \"col\": 5, \"plan\": \"base\", \"column\": \"mem_total_gib\", \"status\": \"fail\", \"message\": \"$work/wrong.yaml:12:5: wrong: plan .base.: mem_total_gib: expected 1 (rel_tol 0.01), got " "$work/out.json"'
check "json: the missing golden report" 'grep -q "{\"scenario\": \"wrong\", \"path\": \"$work/g/wrong.csv\", \"status\": \"missing\"" "$work/out.json"'
check "json: the differing one, counted" 'grep -q "{\"scenario\": \"01-fit-the-model\", \"path\": \"$work/g/01-fit-the-model.csv\", \"status\": \"fail\", \"cells_differ\": 0, \"plans_differ\": 0, \"moved\": 0, \"added\": 196, \"removed\": 0, \"columns_differ\": 0, \"golden_rows\": 3, \"fresh_rows\": 199, \"lines_not_printed\": 146, \"lines\": \[" "$work/out.json"'
check "json: the stale golden report" 'grep -q "^  \"stale_golden_reports\": \[\"$work/g/old.csv\"\]$" "$work/out.json"'
if have jq; then
    check "json: jq reads it" '[ "$(jq -r "[.failed, .missing_golden, (.assertions | length), (.golden[1].lines | length), .scenarios[0].golden] | @tsv" "$work/out.json")" = "$(printf "5\t1\t4\t53\tmissing")" ]'
fi

# JUnit: a testsuite per scenario, a testcase per scenario, assertion and
# golden report, failures with their message.
"$planeval" check --quiet --golden "$work/g" --format junit "$work/wrong.yaml" "$drill" "$work/broken.yaml" >"$work/out.xml" 2>"$work/junit.err"; rc=$?
check "junit: exit 2 with a file that does not load (got $rc)" '[ $rc -eq 2 ]'
check "junit: the load error is still on stderr" 'grep -q "^$work/broken.yaml:1:1: error: missing required key .model." "$work/junit.err"'
check "junit: the totals" 'grep -q "^<testsuites name=\"planeval check\" tests=\"10\" failures=\"5\" errors=\"1\" skipped=\"1\">$" "$work/out.xml"'
check "junit: three failed assertions" '[ "$(grep -c "<failure type=\"assertion\"" "$work/out.xml")" -eq 3 ]'
check "junit: their message" 'grep -q "<failure type=\"assertion\" message=\"$work/wrong.yaml:14:5: wrong: best_plan: expected &apos;base&apos;, got &apos;z3&apos;\">" "$work/out.xml"'
check "junit: the missing golden report is its own type" '[ "$(grep -c "<failure type=\"missing-golden\"" "$work/out.xml")" -eq 1 ]'
check "junit: the differing golden report, its lines in the body" \
    'grep -q "<failure type=\"golden-diff\" message=\"0 cells differ in 0 plans; 0 plans moved in rank; 196 plans added, 0 removed; 0 columns differ\">.*not in the golden report" "$work/out.xml"'
check "junit: the file that did not load is an error" 'grep -q "<error type=\"error\" message=\"$work/broken.yaml:1:1: error: missing required key &apos;model&apos;&#10;" "$work/out.xml"'
check "junit: the stale golden report is skipped" 'grep -q "<skipped type=\"stale-golden\" message=\"stale golden report: no scenario checked writes it\">" "$work/out.xml"'
if have xmllint; then
    check "junit: well-formed XML" 'xmllint --noout "$work/out.xml"'
fi

# A passing check: exit 0, no failure in the document.
"$planeval" check --quiet --format json "$drill" >"$work/pass.json" 2>&1; rc=$?
check "json: a passing check exits 0 (got $rc)" '[ $rc -eq 0 ] && grep -q "^  \"failed\": 0,$" "$work/pass.json" && ! grep -q "\"status\": \"fail\"" "$work/pass.json"'
"$planeval" check --quiet --format junit "$drill" >"$work/pass.xml" 2>&1; rc=$?
check "junit: a passing check exits 0 (got $rc)" '[ $rc -eq 0 ] && grep -q "failures=\"0\" errors=\"0\"" "$work/pass.xml" && ! grep -q "<failure" "$work/pass.xml"'

# --update-golden: each report written, listed as such.
mkdir -p "$work/g2"
"$planeval" check --quiet --golden "$work/g2" --update-golden --format json "$drill" >"$work/up.json" 2>&1; rc=$?
check "json --update-golden: exit 0, the report written (got $rc)" '[ $rc -eq 0 ] && [ -s "$work/g2/01-fit-the-model.csv" ] && grep -q "\"status\": \"written\"" "$work/up.json"'

# Bad usage.
"$planeval" check --format xml "$drill" >"$work/bad.out" 2>&1; rc=$?
check "--format xml is a usage error (got $rc)" '[ $rc -eq 2 ] && grep -q "^planeval: --format needs text, junit or json, got .xml.$" "$work/bad.out"'
"$planeval" check --format json --table "$drill" >"$work/bad.out" 2>&1; rc=$?
check "--format json with --table is a usage error (got $rc)" \
    '[ $rc -eq 2 ] && grep -q "^planeval: --format junit|json cannot be combined with --table (the table is Markdown for people)$" "$work/bad.out"'

finish
