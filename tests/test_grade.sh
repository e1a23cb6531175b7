#!/usr/bin/env bash
# test_grade.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval grade` end to end:
# the synthetic class of tests/grade/class/ (plus two 1 MB
# submissions made here) graded against drill 1, then specific rows (points,
# the mistake named in the feedback, errors of hostile submissions), a
# byte-identical rerun, formula neutralisation of every cell, exit codes,
# the loader's strictness on questions:, drill 3 (tests/grade/comm/) and
# drill 2 (ties at rank 1), and — when node, ajv and js-yaml are installed —
# the class against schemas/submission.schema.json.
# Prints "N passed, N failed"; exit 1 on any failure.
# testlib.sh: the arguments, a fresh WORKDIR, check and cells_matching.
. "$(dirname "$0")/testlib.sh"
case $planeval in /*) ;; *) planeval=$PWD/$planeval ;; esac
src=$(cd "$src" && pwd) work=$(cd "$work" && pwd)

key=$src/scenarios/drills/01-fit-the-model.yaml
class=$work/class
cp -r "$src/tests/grade/class" "$class"
# 1 MB strings: as the student id (the submission is rejected), and as
# answers (those answers are errors, the rest is graded).
big=$(head -c 1048576 /dev/zero | tr '\0' 'x')
printf 'student: "%s"\ndrill: 01-fit-the-model\nanswers: {state: 2607.7}\n' "$big" >"$class/30-h-1mb-id.yaml"
printf 'student: zoe\ndrill: 01-fit-the-model\nanswers:\n  state: "%s"\n  min-intervention: %s\n  activations: 256.5\n' \
    "$big" "$big" >"$class/31-h-1mb-answers.yaml"
nsub=$(ls "$class"/*.yaml | wc -l)
check "a class of at least 20 submissions ($nsub)" '[ "$nsub" -ge 20 ]'

out=$work/grades.csv
"$planeval" grade "$key" "$class" -o "$out" 2>"$work/err"; rc=$?
check "grade exits 0 with hostile submissions in the class (got $rc)" '[ $rc -eq 0 ]'
check "grades file written" '[ -s "$out" ]'
check "no temporary file left" '[ -z "$(ls "$work" | grep tmp)" ]'
check "summary on stderr" 'grep -q "31 submissions\|submissions graded" "$work/err"'
check "header" '[ "$(head -1 "$out")" = "student,question,expected,submitted,error,points_awarded,points_possible,feedback,file" ]'
check "LF line endings" '! grep -q $'"'"'\r'"'"' "$out"'
totals=$(grep -c ',total,' "$out")
# 01-ada-correct.yaml is superseded by 22-h-duplicate-student.yaml (ada again)
check "one total row per submission but the superseded one ($totals of $nsub)" '[ "$totals" -eq $((nsub - 1)) ]'
check "rows in byte order of the files" \
    '[ "$(grep ",total," "$out" | sed "s/.*,//" | tr "\n" " ")" = "$(ls "$class"/*.yaml | LC_ALL=C sort | grep -v 01-ada-correct | tr "\n" " ")" ]'
size=$(wc -c <"$out")
check "1 MB strings are not echoed whole ($size bytes)" '[ "$size" -lt 200000 ]'

row() { grep -F -- "$1" "$out" | head -1; }
hasre() { # hasre NAME REGEX: some row matches the extended regular expression
    if grep -Eq -- "$2" "$out"; then ok; else no "$1: no row matches /$2/"; fi
}
has() { # has NAME PREFIX TEXT: the row starting with PREFIX contains TEXT
    local r
    r=$(row "$2")
    if [ -n "$r" ] && [[ "$r" == *"$3"* ]]; then ok; else no "$1: row '$2' lacks '$3' (got: ${r:0:300})"; fi
}

# Right answers, three ways of writing a plan.
has "all right" "ada.lovelace,total," ",13,13,8 of 8 questions right"
has "numeric id, plan as a mapping" "20240017,total," ",13,13,"
has "plan by name" "cy,min-intervention," ',3,3,"correct: fits'
# Each usual mistake, recognised and named.
has "GB vs GiB" "dee,state,2607.7,2800,,0,2," "GB vs GiB"
has "GB vs GiB (activations)" "dee,activations,256.5,275.4,,0,1," "GB vs GiB"
has "reserve" "eli,zero3-selective-memory,137.865,127.86,,0,2," "forgot the framework reserve"
has "reserve (pipeline)" "eli,pipeline-memory,61.2512,51.25,,0,2," "forgot the framework reserve"
has "12 bytes" "fay,state,2607.7,1955.8,,0,2," "12 instead of 16 bytes per parameter"
has "2 bytes" "gus,state,2607.7,326,,0,2," "2 instead of 16 bytes per parameter"
has "in-flight" "hal,pipeline-memory,61.2512,52.86,,0,2," "forgot the in-flight micro-batches on the first pipeline stage"
has "bidirectional" "ivy,tp-comm,16.5599,9.31,,0,1," "used bidirectional link bandwidth"
has "bubble formula" "jon,pipeline-bubble,0.00455729,0.0045366,,0,1," "counted (p-1)/(m+p-1) instead of (p-1)/m"
has "two mistakes" "kim,pipeline-memory," "forgot the framework reserve"
has "two mistakes (GB)" "kim,pipeline-memory," "and GB vs GiB"
has "unexplained number" "max,state,2607.7,1234,,0,2," "no usual mistake gives this number"
has "half marks for more knobs" "lea,min-intervention," ',1.5,3,"half marks'
has "plan fits only without the reserve" "max,min-intervention," "forgot the framework reserve"
has "not answered" "dee,tp-comm," ",0,1,not answered"
# Hostile submissions: a row with the error and zero points each.
has "bad YAML" "class/14-h-bad-yaml.yaml" "YAML syntax error"
hasre "bad YAML total" '^,total,,,"5:1: YAML syntax error.*",0,13,submission rejected.*14-h-bad-yaml.yaml$'
has "alias bomb" "class/15-h-alias-bomb.yaml" "more than 100000 YAML nodes"
has "huge number" "oz,state,2607.7,1e999," "too large for a number"
has "huge plan degree" "oz,min-intervention," "at most 2^53"
has "huge negative number" "oz,tp-comm," "'-1e308"
has "unknown id (did you mean)" "pia,stat,," "unknown question id 'stat' (did you mean 'state'?)"
has "unknown id, zero points" "pia,q99,,42," ",0,0,"
has "unknown ids do not stop the rest" "pia,state,2607.7,2607.7,,2,2," "correct"
has "wrong drill" "quinn,total," "wrong drill"
has "wrong drill, zero points" "quinn,total," ",0,13,"
has "not a mapping" "class/20-h-not-a-mapping.yaml" "a submission is a mapping"
has "YAML 1.1 boolean costs that answer" "sam,baseline-fits,false,no," "is not a boolean in YAML 1.2: write false"
has "duplicate student: the earlier file is superseded" "class/01-ada-correct.yaml" "superseded by"
has "duplicate student: the last file is graded" "ada.lovelace,total," "22-h-duplicate-student.yaml"
has "wrong type" "tia,state," "expected a number"
has "wrong type, others graded" "tia,activations,256.5,256.5,,1,1," "correct"
has "overlap in an answer" "tia,min-intervention," "takes no overlap"
has "deep nesting" "class/24-h-deep-nesting.yaml" "nesting deeper than 64 levels"
has "not UTF-8" "class/25-h-not-utf8.yaml" "not valid UTF-8"
has "empty file" "class/26-h-empty.yaml" "the file is empty"
has "unknown top-level key" "class/28-h-missing-answers.yaml" "did you mean 'answers'?"
has "several documents" "class/29-h-several-documents.yaml" "several YAML documents"
has "1 MB id" "class/30-h-1mb-id.yaml" "student is too long"
has "1 MB answer" "zoe,state," "expected a number"
has "1 MB plan" "zoe,min-intervention," "is too long (1048576 bytes"
has "1 MB answers do not stop the rest" "zoe,activations,256.5,256.5,,1,1," "correct"

# 30 unknown ids: 20 rows, then one row counting the rest.
many=$work/many
mkdir -p "$many"
{ printf 'student: ursula\ndrill: 01-fit-the-model\nanswers:\n  state: 2607.7\n'
  for i in $(seq 1 30); do printf '  extra-%s: %s\n' "$i" "$i"; done; } >"$many/u.yaml"
"$planeval" grade --quiet "$key" "$many" -o "$work/many.csv"
check "unknown ids: 20 rows then a count" \
    '[ "$(grep -c "^ursula,extra-" "$work/many.csv")" -eq 20 ] && grep -q "^ursula,,,,10 more unknown question ids,0,0," "$work/many.csv"'

# Formula neutralisation: no cell of the file starts with = + - @ tab or CR.
bad_cells=$(cells_matching "$out" '^[=+@\\t\\r-]')
check "no cell starts with = + - @ tab or CR${bad_cells:+: $bad_cells}" '[ -z "$bad_cells" ]'
hasre "formula id neutralised" "^\"'=HYPERLINK\(.*,total,,,,0,13,"
hasre "formula answer neutralised" "^\"'=HYPERLINK.*,min-intervention,.*,'=1\+1,"
has "'+' answer neutralised" ",state,2607.7,'+2607.7," "expected a number"
has "'@' answer neutralised" ",activations,256.5,'@SUM(A1:A9)," "expected a number"
has "tab/CR id neutralised" "' =2+3  @x,total," ",2,13,"
has "formula question id neutralised" "pia,'=cmd|" "unknown question id"

# Byte-identical rerun, and the same with one thread.
"$planeval" grade "$key" "$class" -o "$work/again.csv" --quiet 2>/dev/null
check "rerun byte-identical" 'cmp -s "$out" "$work/again.csv"'
"$planeval" grade --threads 1 --quiet "$key" "$class" -o "$work/t1.csv" 2>/dev/null
check "1 thread byte-identical" 'cmp -s "$out" "$work/t1.csv"'
(cd "$work" && "$planeval" grade --quiet "$key" "$class" 2>/dev/null); rc=$?
check "default output out/<name>-grades.csv (rc $rc)" '[ $rc -eq 0 ] && cmp -s "$out" "$work/out/01-fit-the-model-grades.csv"'

# Exit codes and key errors.
"$planeval" grade "$key" 2>/dev/null; rc=$?
check "no submission: usage error 2 (got $rc)" '[ $rc -eq 2 ]'
"$planeval" grade 2>/dev/null; rc=$?
check "no key: usage error 2 (got $rc)" '[ $rc -eq 2 ]'
"$planeval" grade "$key" "$class/01-ada-correct.yaml" "$work/nope.yaml" -o "$work/miss.csv" 2>"$work/err"; rc=$?
check "missing submission file: 2, nothing written (got $rc)" '[ $rc -eq 2 ] && [ ! -e "$work/miss.csv" ]'
"$planeval" grade "$src/scenarios/catalog/models.yaml" "$class/01-ada-correct.yaml" -o "$work/x.csv" 2>"$work/err"; rc=$?
check "bad key: 2, nothing written (got $rc)" '[ $rc -eq 2 ] && [ ! -e "$work/x.csv" ]'
sed '/^questions:/,$d' "$key" >"$work/noq.yaml"
"$planeval" grade "$work/noq.yaml" "$class/01-ada-correct.yaml" -o "$work/x.csv" 2>"$work/err"; rc=$?
check "key without questions: 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "no questions" "$work/err" && [ ! -e "$work/x.csv" ]'
cp "$work/noq.yaml" "$work/invalid-plan.yaml"
printf 'questions:\n  - id: q\n    ask: column\n    plan: dp7-tp1-pp1-cp1-z0-none-mb1-1f1b-v1-sp0\n    column: mem_total_gib\n' >>"$work/invalid-plan.yaml"
"$planeval" grade "$work/invalid-plan.yaml" "$class/01-ada-correct.yaml" -o "$work/x.csv" 2>"$work/err"; rc=$?
check "question on an invalid plan: 2 with FILE:LINE:COL (got $rc)" \
    '[ $rc -eq 2 ] && grep -Eq "invalid-plan.yaml:[0-9]+:[0-9]+: error: question q: plan .* is invalid \(V1" "$work/err"'
"$planeval" --help | grep -q "grade KEY SUBMISSION"; rc=$?
check "--help shows grade" '[ $rc -eq 0 ]'

# The loader's strictness on questions: (FILE:LINE:COL, exit 2).
bad_q() { # bad_q NAME YAML-ITEMS EXPECTED-MESSAGE
    cp "$work/noq.yaml" "$work/q.yaml"
    printf 'questions:\n%s\n' "$2" >>"$work/q.yaml"
    "$planeval" validate "$work/q.yaml" 2>"$work/qerr"; local rc=$?
    if [ $rc -eq 2 ] && grep -Eq "^$work/q.yaml:[0-9]+:[0-9]+: error: .*$3" "$work/qerr"; then ok
    else no "questions: $1: rc $rc, $(cat "$work/qerr")"; fi
}
bad_q "unknown key" "  - { id: a, ask: fits, plan: baseline, pionts: 2 }" "unknown key 'pionts' in questions\[0\] \(did you mean 'points'\?\)"
bad_q "unknown ask" "  - { id: a, ask: fit, plan: baseline }" "unknown value 'fit' \(did you mean 'fits'\?\)"
bad_q "duplicate id" "  - { id: a, ask: fits, plan: baseline }
  - { id: a, ask: comm_bound, plan: baseline }" "duplicate question id 'a'"
bad_q "bad id" "  - { id: Q1, ask: fits, plan: baseline }" "must match \[a-z0-9._-\]\+"
bad_q "no plan" "  - { id: a, ask: fits }" "missing required key 'plan'"
bad_q "no column" "  - { id: a, ask: column, plan: baseline }" "missing required key 'column'"
bad_q "unknown plan" "  - { id: a, ask: fits, plan: basline }" "no plan named 'basline' \(did you mean 'baseline'\?\)"
bad_q "text column" "  - { id: a, ask: column, plan: baseline, column: bound }" "not a numeric column"
bad_q "unknown column" "  - { id: a, ask: column, plan: baseline, column: mem_totl_gib }" "did you mean 'mem_total_gib'"
bad_q "plan on a plan question" "  - { id: a, ask: best_plan, plan: baseline }" "takes no plan"
bad_q "tolerance on yes/no" "  - { id: a, ask: fits, plan: baseline, rel_tol: 0.1 }" "takes no tolerance"
bad_q "both tolerances" "  - { id: a, ask: column, plan: baseline, column: mfu, rel_tol: 0.1, abs_tol: 1 }" "give rel_tol or abs_tol, not both"
bad_q "points range" "  - { id: a, ask: fits, plan: baseline, points: 0 }" "points must be a number from 0.001 to 1e6"
bad_q "empty list" "  []" "questions: empty list"

# Drill 3: comm_bound, the bubble formula on 100 Gb/s, bidirectional NICs,
# a chosen plan graded by its step time.
comm=$src/scenarios/drills/03-comm-budget/100g.yaml
"$planeval" grade "$comm" "$src/tests/grade/comm" -o "$work/comm.csv" 2>"$work/err"; rc=$?
check "drill 3 graded (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
out=$work/comm.csv
has "drill 3 all right" "ana,total," ",8,8,6 of 6 questions right"
has "NIC taken bidirectional" "ben,zero3-dp-comm," "used bidirectional link bandwidth"
has "comm_bound wrong" "ben,zero3-comm-bound,false,true,,0,1," "bound is compute"
has "bubble formula at m = 512" "ben,tp-pp-bubble," "counted (p-1)/(m+p-1) instead of (p-1)/m"
has "slower plan: partial credit" "ben,choose," ',1.89,2,"meets the budgets, but step_time'
has "chosen plan over memory" "cat,choose," ",0,2,does not meet the budgets: memory"

# Drill 4: an MoE model; plans named by canonical text with the
# -ep/-etp tail or by a mapping with ep and etp; the new columns asked.
moe=$src/scenarios/drills/04-moe-236b.yaml
"$planeval" grade "$moe" "$src/tests/grade/moe" -o "$work/moe.csv" 2>"$work/err"; rc=$?
check "drill 4 graded (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
out=$work/moe.csv
has "drill 4 all right" "ana,total," ",15,15,10 of 10 questions right"
has "mem_experts_gib asked" "ana,pp4-ep16-experts," ",2,2,correct"
has "ep_comm_s asked" "ana,ep32-a2a," ",2,2,correct"
has "a plan with its ep as a mapping" "ana,choose," ",3,3,correct"
has "an MoE plan that does not fit" "bob,ep32-flat-fits,false,true,,0,1," "mem_total_gib 131.398"
has "canonical text with the ep tail" "bob,choose," "dp8-tp2-pp4-cp1-z1-full-mb1-1f1b-v1-sp1-ep16-etp1,,2.21,3"

# Drill 2b: rank 1 is a tie; either tied plan is right.
tie=$work/tie
mkdir -p "$tie"
printf 'student: s1\ndrill: 02b-70b-8-nodes\nanswers:\n  best: dp32-tp1-pp1-cp2-z3-none-mb1-1f1b-v1-sp0\n  choose: {dp: 16, cp: 4, zero: 3, micro_batch: 2}\n' >"$tie/s1.yaml"
"$planeval" grade "$src/scenarios/drills/02-choose-parallelism/02b-70b-8-nodes.yaml" "$tie" -o "$work/tie.csv" 2>/dev/null; rc=$?
out=$work/tie.csv
check "drill 2b graded (got $rc)" '[ $rc -eq 0 ]'
has "a plan tied with rank 1 is right" "s1,best," ",2,2,correct: ties with rank 1"
has "the fastest plan as a mapping" "s1,choose," ",3,3,correct"

# The class against schemas/submission.schema.json (independent validator).
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
if command -v node >/dev/null 2>&1 && node -e "require('ajv'); require('js-yaml')" >/dev/null 2>&1; then
    good=("$src"/tests/grade/class/0[1-9]-*.yaml "$src"/tests/grade/class/1[0-3]-*.yaml "$src"/tests/grade/comm/*.yaml)
    refused=("$src"/tests/grade/class/2[038]-*.yaml)
    node - "$src/schemas/submission.schema.json" "${#good[@]}" "${good[@]}" "${refused[@]}" >"$work/schema.out" 2>&1 <<'EOF'
const fs = require('fs'), yaml = require('js-yaml'), Ajv = require('ajv');
const [schemaFile, nGood, ...files] = process.argv.slice(2);
const validate = new Ajv({ allErrors: true }).compile(JSON.parse(fs.readFileSync(schemaFile, 'utf8')));
let bad = 0;
files.forEach((f, i) => {
    const want = i < Number(nGood);
    let got;
    try { got = validate(yaml.load(fs.readFileSync(f, 'utf8'))); } catch (e) { got = false; }
    if (got !== want) { bad++; console.log(`${f}: expected ${want ? 'valid' : 'refused'}`); }
});
process.exit(bad ? 1 : 0);
EOF
    rc=$?
    check "submission schema: good ones valid, bad ones refused ($(cat "$work/schema.out"))" '[ $rc -eq 0 ]'
else
    echo "note: node, ajv or js-yaml missing: submission schema not checked"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
