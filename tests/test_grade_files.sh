#!/usr/bin/env bash
# test_grade_files.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval grade` and the
# submission files themselves: a UTF-16 file is named as UTF-16.
# Prints "N passed, N failed"; exit 1 on any failure.
. "$(dirname "$0")/testlib.sh"
case $planeval in /*) ;; *) planeval=$PWD/$planeval ;; esac
src=$(cd "$src" && pwd) work=$(cd "$work" && pwd)
key=$src/scenarios/drills/01-fit-the-model.yaml
row() { grep -F -- "$1" "$2" | head -1; }

# 1. UTF-16, with either byte-order mark or none: named, with what to do.
utf=$work/utf16
mkdir -p "$utf"
body() { printf 'student: %s\ndrill: 01-fit-the-model\nanswers: {state: 2607.7}\n' "$1"; }
body wu1 | iconv -f UTF-8 -t UTF-16LE >"$utf/le-nobom.yaml"
body wu2 | iconv -f UTF-8 -t UTF-16BE >"$utf/be-nobom.yaml"
{ printf '\377\376'; body wu3 | iconv -f UTF-8 -t UTF-16LE; } >"$utf/le-bom.yaml"
{ printf '\376\377'; body wu4 | iconv -f UTF-8 -t UTF-16BE; } >"$utf/be-bom.yaml"
"$planeval" grade --quiet "$key" "$utf" -o "$work/utf16.csv" 2>"$work/err"; rc=$?
check "UTF-16 files are rows, not a failure (rc $rc)" '[ $rc -eq 0 ]'
for f in le-nobom le-bom; do
    check "$f: named as UTF-16 (got: $(row "$f.yaml" "$work/utf16.csv"))" \
        '[[ "$(grep ",total,.*/$f.yaml$" "$work/utf16.csv")" == *",the file is UTF-16 (little-endian); save it as UTF-8,0,13,"* ]]'
done
for f in be-nobom be-bom; do
    check "$f: named as UTF-16 (got: $(row "$f.yaml" "$work/utf16.csv"))" \
        '[[ "$(grep ",total,.*/$f.yaml$" "$work/utf16.csv")" == *",the file is UTF-16 (big-endian); save it as UTF-8,0,13,"* ]]'
done
check "no generic UTF-8 or NUL error for UTF-16" '! grep -q "not valid UTF-8\|U+0000" "$work/utf16.csv"'
check "a UTF-16 file's ASCII first line still names the student" \
    '[ "$(grep ",total," "$work/utf16.csv" | cut -d, -f1 | tr "\n" " ")" = "wu4 wu2 wu3 wu1 " ]'

finish
