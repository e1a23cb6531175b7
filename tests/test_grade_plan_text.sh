#!/usr/bin/env bash
# test_grade_plan_text.sh PLANEVAL SOURCE_DIR WORKDIR — a plan answer written
# as text is read by the one canonical-text reader (core/canonical.h): a text
# no plan has (sp1 with tp1, -ep1, -etp equal to tp) is a malformed answer,
# which costs that answer only, with the reason in its error cell; the same
# plan written as its real canonical text is marked right.
# Prints "N passed, N failed"; exit 1 on any failure.
. "$(dirname "$0")/testlib.sh"

key=$src/scenarios/drills/01-fit-the-model.yaml
mkdir -p "$work/class"
# answer FILE STUDENT PLAN-TEXT: a submission with two right numbers and a plan
answer() {
    printf 'student: %s\ndrill: 01-fit-the-model\nanswers:\n  state: 2607.7\n  activations: 256.5\n  min-intervention: %s\n' \
        "$2" "$3" >"$work/class/$1.yaml"
}
answer a-sp1-tp1 ann dp64-tp1-pp1-cp1-z3-selective-mb1-1f1b-v1-sp1
answer b-ep1 bea dp64-tp1-pp1-cp1-z3-selective-mb1-1f1b-v1-sp0-ep1
answer c-etp-tp ced dp64-tp1-pp1-cp1-z3-selective-mb1-1f1b-v1-sp0-etp1
answer d-right dan dp64-tp1-pp1-cp1-z3-selective-mb1-1f1b-v1-sp0
out=$work/grades.csv
"$planeval" grade --quiet "$key" "$work/class" -o "$out" 2>"$work/err"; rc=$?
check "grade exits 0 (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'

row() { grep -F -- "$1" "$out" | head -1; }
has() { # has NAME PREFIX TEXT: the row starting with PREFIX contains TEXT
    local r
    r=$(row "$2")
    if [ -n "$r" ] && [[ "$r" == *"$3"* ]]; then ok; else no "$1: row '$2' lacks '$3' (got: ${r:0:300})"; fi
}
has "sp1 with tp1 is not a plan" "ann,min-intervention," "is not a plan (sp1 with tp1: sequence parallelism needs tp > 1"
has "sp1 with tp1 costs that answer" "ann,min-intervention," ",0,3,"
has "the other answers are marked" "ann,state,2607.7,2607.7,,2,2," "correct"
has "-ep1 is not a plan" "bea,min-intervention," "-ep1 at byte 46: ep 1 is the default"
has "-etp equal to tp is not a plan" "ced,min-intervention," "-etp1 at byte 46 equals tp"
has "the same plan written canonically is right" "dan,min-intervention," ',3,3,"correct'
check "exactly the three malformed plan answers score 0" '[ "$(grep -c ",min-intervention,.*,0,3," "$out")" -eq 3 ]'
finish
