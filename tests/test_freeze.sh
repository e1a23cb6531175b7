#!/usr/bin/env bash
# test_freeze.sh PLANEVAL SOURCE_DIR WORKDIR — the freeze: every bundled
# report, summary (timing fields aside) and HTML page, the explain output of
# every named plan, calibrate's output for each calibration file and the
# published table are byte-identical to tests/freeze/outputs.sha256. A code
# move must pass it unchanged; a change of behaviour regenerates the sums in
# a commit of its own that names what moved (tests/freeze/generate.sh says
# how).
. "$(dirname "$0")/testlib.sh"

bash "$src/tests/freeze/generate.sh" "$planeval" "$src" "$work/out" >"$work/generate.log" 2>&1; rc=$?
check "generate.sh exits 0 (got $rc: $(head -2 "$work/generate.log"))" '[ $rc -eq 0 ]'
sums=$src/tests/freeze/outputs.sha256
(cd "$work/out" && find . -type f | LC_ALL=C sort) >"$work/have"
awk '{ print $2 }' "$sums" >"$work/want"
check "the same $(wc -l <"$work/want") files are written ($(diff "$work/want" "$work/have" | grep -c '^[<>]') differ by name: $(diff "$work/want" "$work/have" | grep '^[<>]' | head -3 | tr '\n' ' '))" \
    'cmp -s "$work/want" "$work/have"'
changed=$(cd "$work/out" && sha256sum --quiet -c "$sums" 2>/dev/null | sed 's/: FAILED.*//' )
n=$(printf '%s' "$changed" | grep -c .)
check "every pinned output is byte-identical ($n differ: $(printf '%s' "$changed" | head -5 | tr '\n' ' '))" '[ "$n" -eq 0 ]'
# the test can fail: a changed byte in one output is seen
first=$(head -1 "$work/want")
printf 'x' >>"$work/out/$first"
check "a changed output is caught" '! (cd "$work/out" && sha256sum --quiet -c "$sums" >/dev/null 2>&1)'
finish
