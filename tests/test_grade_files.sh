#!/usr/bin/env bash
# test_grade_files.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval grade` and the
# submission files themselves: a UTF-16 file is named as UTF-16; a symbolic
# link is refused, not followed; no error quotes the text of a file that is
# not a submission (nor does `run` for a file that is not a scenario).
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

# 2. Symbolic links are refused (as files given, and as a directory's
# entries), with a row saying so, and the linked file's text is nowhere.
secret=$work/secret-file
printf 'root:$6$SECRETHASH:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n' >"$secret"
links=$work/links
mkdir -p "$links"
printf 'student: real\ndrill: 01-fit-the-model\nanswers: {state: 2607.7}\n' >"$links/a-real.yaml"
ln -s "$secret" "$links/b-shadow.yaml"
ln -s "$links/a-real.yaml" "$links/c-link-to-a-submission.yaml"
ln -s "$work/nothing-here" "$links/d-dangling.yaml"
"$planeval" grade --quiet "$key" "$links" -o "$work/links.csv" --gradebook "$work/links-book.csv" 2>"$work/err"; rc=$?
check "links in a directory: graded, exit 0 (rc $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'
for f in b-shadow c-link-to-a-submission d-dangling; do
    check "$f: refused as a link" \
        'grep ",total," "$work/links.csv" | grep "/$f.yaml$" | grep -q ",the file is a symbolic link: a submission is read only as a regular file (copy the file itself into the submissions),0,13,"'
    check "$f: a gradebook row saying so" \
        'grep -q "^$f.yaml,0,13,0,.*/$f.yaml,rejected: the file is a symbolic link" "$work/links-book.csv"'
done
check "the regular file is graded" 'grep -q "^real,total,,,,2,13," "$work/links.csv"'
check "the linked file's text is in no cell" '! grep -q "SECRETHASH\|daemon" "$work/links.csv" "$work/links-book.csv"'
"$planeval" grade --quiet "$key" "$links/b-shadow.yaml" -o "$work/link-arg.csv" 2>"$work/err"; rc=$?
check "a link given as a file: a row, exit 0 (rc $rc)" \
    '[ $rc -eq 0 ] && grep -q ",total,,,the file is a symbolic link" "$work/link-arg.csv" && ! grep -q SECRETHASH "$work/link-arg.csv"'
ln -s "$links" "$work/links-dir"
"$planeval" grade --quiet "$key" "$work/links-dir" -o "$work/link-dir.csv" 2>"$work/err"; rc=$?
check "a linked directory given: its regular files graded (rc $rc)" \
    '[ $rc -eq 0 ] && grep -q "^real,total,,,,2,13," "$work/link-dir.csv"'

# 3. Files that are not submissions: the error names a place and a key,
# never the file's text.
odd=$work/odd
mkdir -p "$odd"
cp "$secret" "$odd/a-shadow.yaml"
printf 'SECRET-ONE-LINE\n' >"$odd/b-scalar.yaml"
printf 'SECRETKEY: 1\nSECRETKEY: 2\n' >"$odd/c-duplicate.yaml"
printf 'k: *SECRETALIAS\n' >"$odd/d-alias.yaml"
printf 'k: !SECRETTAG v\n' >"$odd/e-tag.yaml"
printf 'student: [SECRETID]\ndrill: 01-fit-the-model\nanswers: {}\n' >"$odd/f-id-a-list.yaml"
printf 'student: s1\ndrill: SECRETDRILL\nanswers: {}\n' >"$odd/g-other-drill.yaml"
printf 'student: s2\ndrill: 01-fit-the-model\nanswers: SECRETANSWERS\n' >"$odd/h-answers-text.yaml"
printf 'student: s3\ndrill: 0x5EC\nanswers: {}\n' >"$odd/i-hex-drill.yaml"
printf 'student: s4\ndrill: 01-fit-the-model\nanswer5: {}\n' >"$odd/j-unknown-key.yaml"
"$planeval" grade --quiet "$key" "$odd" -o "$work/odd.csv" --gradebook "$work/odd-book.csv" 2>"$work/err"; rc=$?
check "files that are not submissions: rows, exit 0 (rc $rc)" '[ $rc -eq 0 ]'
leaks=$(grep -h "SECRET\|5EC\|answer5" "$work/odd.csv" "$work/odd-book.csv" | head -3)
check "no cell quotes their text${leaks:+: $leaks}" '[ -z "$leaks" ]'
err_of() { grep ",total," "$work/odd.csv" | grep "/$1.yaml$" | cut -d, -f5-; }
hasin() { if [[ "$(err_of "$1")" == *"$2"* ]]; then ok; else no "$1: error lacks '$2' (got: $(err_of "$1"))"; fi; }
hasin a-shadow "1:1: unknown key: a submission has the keys student, drill and answers"
hasin b-scalar "1:1: a submission is a mapping (student, drill, answers), got text"
hasin c-duplicate "2:1: duplicate key '...' (first given at line 1)"
hasin d-alias "1:4: an alias (*) refers to no anchor: its anchor (&) must come before it"
hasin e-tag "1:4: explicit tags such as '...' are not allowed"
hasin f-id-a-list "1:10: student: expected an id (text or a whole number), got a list"
hasin g-other-drill 'wrong drill: this key grades ""01-fit-the-model"", and drill: names another'
hasin h-answers-text "3:10: answers: expected a mapping of question ids to answers, got text"
hasin i-hex-drill "2:8: drill: hexadecimal '...' is not allowed"
hasin j-unknown-key "3:1: unknown key: a submission has the keys student, drill and answers (did you mean 'answers'?)"

# 4. run: a file that is not a scenario (here a link to one) is refused
# without echoing its text.
ln -s "$secret" "$work/not-a-scenario.yaml"
printf 'SECRET-ONE-LINE\n' >"$work/scalar.yaml"
for f in not-a-scenario scalar; do
    "$planeval" run --quiet -o "$work/out" "$work/$f.yaml" >/dev/null 2>"$work/err"; rc=$?
    check "run $f: exit 2, no text of the file on stderr (rc $rc: $(head -c 300 "$work/err"))" \
        '[ $rc -eq 2 ] && ! grep -q "SECRET\|daemon" "$work/err"'
done
check "run of a file without schema: says only that" \
    '"$planeval" run -o "$work/out" "$work/not-a-scenario.yaml" 2>&1 | grep -qx "$work/not-a-scenario.yaml:1:1: error: missing required key .schema. (write schema: planeval/v1)"'
check "run of a single value: not quoted" \
    '"$planeval" run -o "$work/out" "$work/scalar.yaml" 2>&1 | grep -q "got a single value$"'

finish
