#!/usr/bin/env bash
# test_grade_policy.sh PLANEVAL SOURCE_DIR WORKDIR — grade's edges: one malformed answer costs that answer only; the student column
# is filled whenever the id parsed; several files of one student: the last
# by name counts, the others are listed as superseded, one total; the
# --gradebook; the feedback's explain hint runs as printed; a missing
# submission file writes no CSV.
. "$(dirname "$0")/testlib.sh"
case $planeval in /*) ;; *) planeval=$PWD/$planeval ;; esac
src=$(cd "$src" && pwd) work=$(cd "$work" && pwd)
key=$src/scenarios/drills/01-fit-the-model.yaml
subs=$work/subs
mkdir -p "$subs"

# One malformed answer: the others still earn their points.
cat >"$subs/10-sam.yaml" <<'YAML'
student: sam
drill: 01-fit-the-model
answers:
  state: 2607.7
  activations: 0x100
  baseline-fits: no
  tp-comm: 16.56
YAML
# Rejected submissions whose student id parsed: the id is in every row.
cat >"$subs/20-wes.yaml" <<'YAML'
student: wes
drill: 01-fit-the-model
answer:
  state: 2607.7
YAML
cat >"$subs/21-xia.yaml" <<'YAML'
student: xia
drill: 01-fit-the-model
YAML
# Two files of one student: the last by name counts.
cat >"$subs/30-ann-first.yaml" <<'YAML'
student: ann
drill: 01-fit-the-model
answers:
  state: 1
YAML
cat >"$subs/31-ann-second.yaml" <<'YAML'
student: ann
drill: 01-fit-the-model
answers:
  state: 2607.7
  tp-comm: 16.56
YAML
# A number no usual mistake explains: the feedback names an explain command.
cat >"$subs/40-max.yaml" <<'YAML'
student: max
drill: 01-fit-the-model
answers:
  zero3-selective-memory: 100
YAML

out=$work/grades.csv
"$planeval" grade "$key" "$subs" -o "$out" --gradebook "$work/book.csv" 2>"$work/err"; rc=$?
check "grade exits 0 (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
row() { grep -F -- "$1" "$out" | head -1; }

# 1. a malformed answer costs that answer
check "sam: state still earns its 2 points" 'row "sam,state," | grep -q ",2,2,correct"'
check "sam: tp-comm still earns its point" 'row "sam,tp-comm," | grep -q ",1,1,correct"'
check "sam: baseline-fits: no is an error of that answer only" 'row "sam,baseline-fits," | grep -q "is not a boolean.*,0,1,"'
check "sam: activations: 0x100 is an error of that answer only" 'row "sam,activations," | grep -q "hexadecimal.*,0,1,"'
check "sam: total 3 of 13" 'row "sam,total," | grep -q ",3,13,"'

# 2. the student column is filled when the id parsed
check "wes (misspelt answers key): every row names wes" '[ "$(grep -c "20-wes.yaml" "$out")" -ge 1 ] && ! grep "20-wes.yaml" "$out" | grep -q "^,"'
check "wes: rejected with the error" 'row "wes,total," | grep -q "did you mean .answers.\?.*,0,13,submission rejected"'
check "xia (no answers): rows name xia" 'row "xia,total," | grep -q "missing required key .answers.*,0,13,"'

# 3. several files: the last by name counts, the other is superseded, one total
check "ann: one total" '[ "$(grep -c "^ann,total," "$out")" -eq 1 ]'
check "ann: the total comes from the last file" 'row "ann,total," | grep -q ",3,13,.*31-ann-second.yaml$"'
check "ann: the first file is listed as superseded" 'grep "30-ann-first.yaml" "$out" | grep -q "^ann,,.*,0,0,\"\?superseded by .*31-ann-second.yaml"'
check "ann: no answer rows from the superseded file" '[ "$(grep -c "30-ann-first.yaml" "$out")" -eq 1 ]'
"$planeval" grade --help >"$work/help.out" 2>&1
check "grade --help states the policy" 'grep -qi "last .*by name" "$work/help.out" && grep -qi "superseded" "$work/help.out"'

# 4. --gradebook: one row per student, points, possible, percent, file, note
book=$work/book.csv
check "gradebook header" '[ "$(head -1 "$book")" = "student,points,possible,percent,file,note" ]'
check "gradebook: one row per student (5)" '[ "$(tail -n +2 "$book" | wc -l)" -eq 5 ]'
check "gradebook: sam 3 of 13" 'grep -q "^sam,3,13,23.08,.*10-sam.yaml,$" "$book"'
check "gradebook: ann once, from the last file, naming the superseded one" \
    '[ "$(grep -c "^ann," "$book")" -eq 1 ] && grep -q "^ann,3,13,23.08,.*31-ann-second.yaml,supersedes .*30-ann-first.yaml (the last file by name counts)$" "$book"'
check "gradebook: a rejected student has 0 and the reason" \
    'grep -q "^wes,0,13,0,.*20-wes.yaml,\"rejected: 3:1: unknown key: a submission has the keys student, drill and answers (did you mean .answers.?)\"$" "$book"'
check "gradebook: sorted by student" '[ "$(tail -n +2 "$book" | cut -d, -f1 | tr "\n" " ")" = "ann max sam wes xia " ]'
# Every file is a row of the gradebook: a file the YAML parser refuses is
# named by the id of its first line, one without an id by its file name.
rej=$work/rejected
mkdir -p "$rej"
printf 'student: yul\ndrill: 01-fit-the-model\nanswers: { state: 2607.7\n' >"$rej/a-bad-yaml-with-id.yaml"
printf 'student: "zed q"   # quoted\ndrill: [\n' >"$rej/b-quoted-id.yaml"
printf '# my answers\nstudent: nia\ndrill: [\n' >"$rej/c-id-not-on-line-1.yaml"
printf 'drill: 01-fit-the-model\nanswers: {state: 2607.7}\n' >"$rej/d-no-student.yaml"
printf '' >"$rej/e-empty.yaml"
printf 'student: [x\n' >"$rej/f-id-not-plain.yaml"
"$planeval" grade --quiet "$key" "$rej" -o "$work/rej.csv" --gradebook "$work/rej-book.csv" 2>"$work/err"; rc=$?
rb=$work/rej-book.csv
check "rejected class graded (rc $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'
check "gradebook: a row for every file (6, got $(tail -n +2 "$rb" | wc -l))" '[ "$(tail -n +2 "$rb" | wc -l)" -eq 6 ]'
check "gradebook: the id on line 1 survives a YAML error" \
    'grep -q "^yul,0,13,0,.*a-bad-yaml-with-id.yaml,\"rejected: 4:1: YAML syntax error" "$rb"'
check "grades: the id on line 1 survives a YAML error" 'grep -q "^yul,total,.*a-bad-yaml-with-id.yaml$" "$work/rej.csv"'
check "gradebook: a quoted id on line 1" 'grep -q "^zed q,0,13,0,.*b-quoted-id.yaml,\"\\?rejected: .*YAML syntax error" "$rb"'
check "gradebook: no id on line 1: the file name" 'grep -q "^c-id-not-on-line-1.yaml,0,13,0,.*c-id-not-on-line-1.yaml,\"\\?rejected: .*YAML syntax error" "$rb"'
check "gradebook: no student key: the file name" \
    'grep -q "^d-no-student.yaml,0,13,0,.*d-no-student.yaml,rejected: 1:1: missing required key .student.$" "$rb"'
check "gradebook: an empty file: the file name" 'grep -q "^e-empty.yaml,0,13,0,.*e-empty.yaml,rejected: 1:1: the file is empty" "$rb"'
check "gradebook: a non-plain id is not guessed" 'grep -q "^f-id-not-plain.yaml,0,13,0," "$rb"'
printf 'student: "=HYPERLINK(\\"http://x\\")"\ndrill: 01-fit-the-model\nanswers: {state: 2607.7}\n' >"$subs/50-evil.yaml"
"$planeval" grade --quiet "$key" "$subs" -o "$work/g2.csv" --gradebook "$work/book2.csv" 2>/dev/null
check "gradebook: a formula student id is neutralised" 'grep -q "^\"'"'"'=HYPERLINK" "$work/book2.csv"'
rm "$subs/50-evil.yaml"

# 5. the explain hint runs as printed (planeval on PATH)
hint=$(row "max,zero3-selective-memory," | sed -nE 's/.*compare your working with (planeval explain [^"]*)"?,[^,]*$/\1/p')
check "max: the feedback has an explain hint ($hint)" '[ -n "$hint" ]'
(cd /tmp && PATH=$(dirname "$planeval"):$PATH eval "$hint") >"$work/hint.out" 2>&1; rc=$?
check "the hint runs as printed (got $rc: $(head -c 200 "$work/hint.out"))" '[ $rc -eq 0 ] && grep -q "^M1 " "$work/hint.out"'

# 6. a number of the wrong sign: the feedback says so, not "off by -200%"
mkdir -p "$work/sign"
printf 'student: neg\ndrill: 01-fit-the-model\nanswers: {state: -2607.7, activations: -100}\n' >"$work/sign/neg.yaml"
"$planeval" grade --quiet "$key" "$work/sign" -o "$work/sign.csv" 2>/dev/null
check "wrong sign, right size (got: $(grep "^neg,state," "$work/sign.csv"))" \
    'grep -q "^neg,state,2607.7,.-2607.7,,0,2,\"wrong sign: expected +2607.7, got -2607.7 (needs within 1%); the size is right, only the sign is wrong\"," "$work/sign.csv"'
check "wrong sign, wrong size (got: $(grep "^neg,activations," "$work/sign.csv"))" \
    'grep -q "^neg,activations,256.5,.-100,,0,1,\"wrong sign: expected +256.5, got -100 (needs within 1%); the size is off by -61%* too\"," "$work/sign.csv"'
check "no \"off by -200%\"" '! grep -q "off by -200%" "$work/sign.csv"'

# 7. a missing submission file: exit 2, no CSV
rm -f "$work/miss.csv" "$work/miss-book.csv"
"$planeval" grade "$key" "$subs/10-sam.yaml" "$work/nope.yaml" -o "$work/miss.csv" --gradebook "$work/miss-book.csv" 2>"$work/err"; rc=$?
check "missing submission: exit 2 (got $rc)" '[ $rc -eq 2 ]'
check "missing submission: named" 'grep -q "nope.yaml" "$work/err"'
check "missing submission: no CSV written" '[ ! -e "$work/miss.csv" ] && [ ! -e "$work/miss-book.csv" ]'

finish
