#!/usr/bin/env bash
# test_cli_refusals.sh PLANEVAL SOURCE_DIR WORKDIR — command lines a careless
# or hostile user may type: empty paths (which would name the root
# directory), an output that is one of the inputs, inputs that are missing or
# directories, numbers that overflow. Each is refused with exit status 2 and
# one clear message, and writes nothing.
. "$(dirname "$0")/testlib.sh"

scen=$src/scenarios/drills/01-fit-the-model.yaml
key=$scen
sub=$src/tests/grade/class/01-ada-correct.yaml

# refused CMD... — exit status 2, a message on stderr, nothing on stdout.
refused() {
    local label=$1
    shift
    "$planeval" "$@" >"$work/out" 2>"$work/err" </dev/null
    local rc=$?
    check "$label: exit 2 (got $rc)" '[ $rc -eq 2 ]'
    check "$label: a message on stderr" '[ -s "$work/err" ]'
    check "$label: nothing on stdout" '[ ! -s "$work/out" ]'
}
says() {
    want_text=$2
    check "$1: stderr says '$2' (got: $(head -c 300 "$work/err"))" 'grep -qF -- "$want_text" "$work/err"'
}

# An empty path is not the current directory, and never "/" (the report
# path is DIR/NAME.csv).
cd "$work" || exit 1
refused "run -o ''" run --quiet -o '' "$scen"
says "run -o ''" "-o needs a path, got ''"
check "run -o '' wrote no /01-fit-the-model.csv" '[ ! -e /01-fit-the-model.csv ]'
refused "check --golden ''" check --golden '' "$scen"
says "check --golden ''" "--golden needs a path, got ''"
refused "run --catalog ''" run --catalog '' -o "$work/o" "$scen"
says "run --catalog ''" "--catalog needs a path, got ''"
refused "html -o ''" html -o '' "$work/none.csv"
says "html -o ''" "-o needs a path, got ''"
refused "grade -o ''" grade "$key" "$sub" -o ''
says "grade -o ''" "-o needs a path, got ''"
refused "grade --gradebook ''" grade "$key" "$sub" -o "$work/g.csv" --gradebook ''
says "grade --gradebook ''" "--gradebook needs a path, got ''"

# An output that is one of the inputs would destroy it.
cp "$sub" "$work/sub.yaml"
refused "grade -o SUBMISSION" grade "$key" "$work/sub.yaml" -o "$work/sub.yaml"
says "grade -o SUBMISSION" "is also an input"
check "grade -o SUBMISSION left the submission alone" 'cmp -s "$sub" "$work/sub.yaml"'
refused "grade -o KEY" grade "$work/sub.yaml" "$sub" -o "$work/sub.yaml"
refused "grade --gradebook = -o" grade "$key" "$sub" -o "$work/g.csv" --gradebook "$work/g.csv"
says "grade --gradebook = -o" "--gradebook"

# merge: shards of one run; the output may not be one of them, a missing
# shard stops the merge before anything is written, a directory is no report.
"$planeval" run --quiet --shard 0/2 -o "$work/sh" "$scen"
"$planeval" run --quiet --shard 1/2 -o "$work/sh" "$scen"
s0=$work/sh/01-fit-the-model.shard-0-of-2.csv s1=$work/sh/01-fit-the-model.shard-1-of-2.csv
cp "$s0" "$work/s0.copy"
refused "merge -o SHARD" merge "$s0" "$s1" -o "$s0"
says "merge -o SHARD" "is also an input"
check "merge -o SHARD left the shard alone" 'cmp -s "$s0" "$work/s0.copy"'
refused "merge of a missing file" merge "$work/nope.csv" -o "$work/m1.csv"
check "merge of a missing file wrote nothing" '[ ! -e "$work/m1.csv" ]'
refused "merge with one input missing" merge "$s0" "$s1" "$work/nope.csv" -o "$work/m2.csv"
check "merge with one input missing wrote nothing" '[ ! -e "$work/m2.csv" ]'
refused "merge of a directory" merge "$work/sh" -o "$work/m3.csv"
says "merge of a directory" "is a directory"
check "merge of a directory wrote nothing" '[ ! -e "$work/m3.csv" ]'
refused "merge without reports" merge -o "$work/m4.csv"
says "merge without reports" "no report given"

# --shard I/N beyond 64 bits is refused, not clamped to 2^64 - 1.
refused "--shard 0/2^64" run --quiet --shard 0/18446744073709551616 -o "$work/big" "$scen"
check "--shard 0/2^64 wrote nothing" '[ ! -e "$work/big" ]'

# html spells long options in full, as every other command.
refused "html --out" html --out "$work/h" "$work/none.csv"
says "html --out" "unknown option '--out'"

# A directory path so long that DIR/NAME.csv would not fit planeval's
# 1024-byte paths is refused, not cut short (a cut path names another
# directory, where the report would go).
long_dir=$work/long
for i in 1 2 3 4 5 6; do long_dir=$long_dir/$(printf 'd%.0s' {1..100}); done
mkdir -p "$long_dir"
refused "run -o (600-byte path)" run --quiet -o "$long_dir/out" "$scen"
says "run -o (600-byte path)" "is too long (at most 512"
check "run -o (600-byte path) wrote no report anywhere" \
    '[ -z "$(find "$work/long" -name "*.csv")" ]'

# check on a sweep of astronomical size: a note on stderr at once (the
# expect: assertions see every plan), not a silent hang.
values=$(seq -s, 1 5000)
printf 'schema: planeval/v1\nname: vast\nmodel: {preset: gpt3-175b}\ncluster: {preset: mi300x-node, nodes: 8}\ntraining: {global_batch: 1536}\nsweep: {tp: [%s], pp: [%s], dp: auto}\n' \
    "$values" "$values" >"$work/vast.yaml"
timeout 3 "$planeval" check "$work/vast.yaml" >/dev/null 2>"$work/err"
says "check of 25 M combinations" "vast: note: 25000000 combinations: check evaluates every plan"

# -o naming a file, not a directory: an I/O error (3) that says so, and
# the file is left alone.
printf 'not a directory\n' >"$work/plain"
"$planeval" run --quiet -o "$work/plain" "$scen" >/dev/null 2>"$work/err"; rc=$?
check "run -o FILE: exit 3 (got $rc)" '[ $rc -eq 3 ]'
says "run -o FILE" "$work/plain: error: is not a directory: cannot write 01-fit-the-model.csv into it"
check "run -o FILE left the file alone" '[ "$(cat "$work/plain")" = "not a directory" ]'

# A class where no submission names a student (every one unreadable) still
# gets its gradebook: the header and a row for the file, named by it.
printf 'not: [a mapping\n' >"$work/unreadable.yaml"
"$planeval" grade "$key" "$work/unreadable.yaml" -o "$work/ug.csv" --gradebook "$work/ub.csv" \
    >/dev/null 2>"$work/err"; rc=$?
check "grade of unreadable work with --gradebook: exit 0 (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
check "its gradebook is the header and the file's row" \
    '[ "$(head -1 "$work/ub.csv")" = "student,points,possible,percent,file,note" ] && [ "$(wc -l <"$work/ub.csv")" -eq 2 ] && grep -q "^unreadable.yaml,0,13,0,$work/unreadable.yaml,\"rejected: " "$work/ub.csv"'

# The same submission twice (as a file and through its directory) would
# supersede itself.
mkdir -p "$work/class" && cp "$sub" "$work/class/a.yaml"
refused "grade SUB SUB" grade "$key" "$work/class/a.yaml" "$work/class" -o "$work/twice.csv"
says "grade SUB SUB" "is given twice"
check "grade SUB SUB wrote nothing" '[ ! -e "$work/twice.csv" ]'

# --resume with a checkpoint that is a FIFO (opening one blocks) or a
# directory: refused at once.
mkdir -p "$work/rs1/01-fit-the-model.checkpoint" "$work/rs2"
mkfifo "$work/rs2/01-fit-the-model.checkpoint"
for d in rs1 rs2; do
    timeout 10 "$planeval" run --quiet --resume -o "$work/$d" "$scen" >/dev/null 2>"$work/err"; rc=$?
    check "--resume, checkpoint $d: exit 2 (got $rc)" '[ $rc -eq 2 ]'
    says "--resume, checkpoint $d" "01-fit-the-model.checkpoint: error: not a regular file"
done

# A report, runs file or priors file that is a FIFO (opening one blocks
# until a writer comes), a directory or a device: bad input (2) at once,
# "not a regular file", and nothing written.
mkdir -p "$work/odd/dir.csv"
mkfifo "$work/odd/fifo.csv"
runs=$work/odd/runs.csv
printf 'scenario,plan,column,value,group\n%s,baseline,step_time_s,10,fit\n' "$scen" >"$runs"
for odd in fifo.csv dir.csv /dev/null; do
    case $odd in /*) p=$odd ;; *) p=$work/odd/$odd ;; esac
    for cmd in html compare merge calibrate check-golden priors; do
        case $cmd in
        html) args=(html --quiet "$p" -o "$work/odd/out") ;;
        compare) args=(compare "$p" -o "$work/odd/out/c.html") ;;
        merge) args=(merge --quiet "$p" -o "$work/odd/out/m.csv") ;;
        calibrate) args=(calibrate "$p" --fit gemm_efficiency) ;;
        priors) args=(calibrate "$runs" --priors "$p") ;;
        check-golden)
            # the golden report of the scenario itself is the odd file
            rm -rf "$work/odd/golden" && mkdir -p "$work/odd/golden"
            [ "$odd" = /dev/null ] && continue
            if [ "$odd" = fifo.csv ]; then mkfifo "$work/odd/golden/01-fit-the-model.csv"
            else mkdir "$work/odd/golden/01-fit-the-model.csv"; fi
            args=(check --quiet --golden "$work/odd/golden" "$scen") ;;
        esac
        # calibrate takes a directory or a path without .csv as a scenario
        [ "$cmd" = calibrate ] && [ "$odd" != fifo.csv ] && continue
        timeout 10 "$planeval" "${args[@]}" >"$work/out" 2>"$work/err" </dev/null; rc=$?
        label="$cmd of $odd"
        if [ "$cmd" = check-golden ]; then
            check "$label: exit 1 or 2, not a hang (got $rc)" '[ $rc -eq 1 ] || [ $rc -eq 2 ]'
        else
            check "$label: exit 2 (got $rc)" '[ $rc -eq 2 ]'
            check "$label: nothing on stdout" '[ ! -s "$work/out" ]'
        fi
        if [ "$cmd" = merge ] && [ "$odd" = dir.csv ]; then says "$label" "is a directory"
        else says "$label" "not a regular file"; fi
        check "$label: wrote nothing" '[ ! -e "$work/odd/out" ]'
    done
done

# explain and calibrate read one scenario: a second path, or words after
# `--`, is a usage error before anything is printed.
refused "explain of two scenarios" explain "$scen" "$scen" --plan baseline
says "explain of two scenarios" "explain takes exactly one scenario"
refused "explain SCENARIO --plan P -- --plan" explain "$scen" --plan baseline -- --plan x
says "explain SCENARIO --plan P -- --plan" "explain takes exactly one scenario"
refused "calibrate SCENARIO - (a second path)" calibrate "$scen" --plan baseline --step-time 10 -
says "calibrate SCENARIO - (a second path)" "calibrate takes exactly one scenario"

# An output that is a device or a FIFO (`-o /dev/null`) is not renamed
# over: as root that would put a regular file in the place of the machine's
# /dev/null. Private nodes here (a FIFO, and a copy of /dev/null where
# mknod is allowed), never the machine's own. Bad input (2) that says so,
# as a directory is, and the node left as it was.
mkdir -p "$work/nodes/run" "$work/nodes/html"
nodes=("$work/nodes/fifo")
mkfifo "$work/nodes/fifo"
mkfifo "$work/nodes/run/01-fit-the-model.csv"
mkfifo "$work/nodes/html/01-fit-the-model.html"
mknod -m 666 "$work/nodes/null" c 1 3 2>/dev/null && nodes+=("$work/nodes/null")
"$planeval" run --quiet -o "$work/nodes/rep" "$scen" >/dev/null 2>&1
# compare needs a run's length (training.tokens)
"$planeval" run --quiet -o "$work/nodes/rep" "$src/scenarios/drills/02-choose-parallelism/02a-7b-one-node.yaml" >/dev/null 2>&1
for node in "${nodes[@]}"; do
    for cmd in grade gradebook merge compare; do
        case $cmd in
        grade) args=(grade --quiet "$key" "$sub" -o "$node") ;;
        gradebook) args=(grade --quiet "$key" "$sub" -o "$work/nodes/g.csv" --gradebook "$node") ;;
        merge) args=(merge --quiet "$s0" "$s1" -o "$node") ;;
        compare) args=(compare "$work/nodes/rep/02a-7b-one-node.csv" -o "$node") ;;
        esac
        timeout 10 "$planeval" "${args[@]}" >"$work/out" 2>"$work/err" </dev/null; rc=$?
        label="$cmd -o ${node##*/}"
        check "$label: exit 2 (got $rc)" '[ $rc -eq 2 ]'
        says "$label" "is a device, a FIFO or a socket, not a regular file"
        check "$label: the node is left as it was" '[ -p "$node" ] || [ -c "$node" ]'
    done
done
# A directory where a file is asked for (`grade -o out/`): bad input (2),
# said at once, nothing written into it.
mkdir -p "$work/nodes/outdir"
for cmd in grade merge compare; do
    case $cmd in
    grade) args=(grade --quiet "$key" "$sub" -o "$work/nodes/outdir") ;;
    merge) args=(merge --quiet "$s0" "$s1" -o "$work/nodes/outdir") ;;
    compare) args=(compare "$work/nodes/rep/02a-7b-one-node.csv" -o "$work/nodes/outdir") ;;
    esac
    timeout 10 "$planeval" "${args[@]}" >"$work/out" 2>"$work/err" </dev/null; rc=$?
    check "$cmd -o DIR: exit 2 (got $rc)" '[ $rc -eq 2 ]'
    says "$cmd -o DIR" "cannot write: it is a directory (give the path of a file in it)"
    check "$cmd -o DIR: nothing written into it" '[ -z "$(ls -A "$work/nodes/outdir")" ]'
    check "$cmd -o DIR: nothing on stdout" '[ ! -s "$work/out" ]'
done
timeout 10 "$planeval" run --quiet -o "$work/nodes/run" "$scen" >/dev/null 2>"$work/err"; rc=$?
check "run into a DIR whose report name is a FIFO: exit 2 (got $rc)" '[ $rc -eq 2 ]'
says "run into a DIR whose report name is a FIFO" "is a device, a FIFO or a socket"
check "run into a DIR whose report name is a FIFO: left as it was" '[ -p "$work/nodes/run/01-fit-the-model.csv" ]'
timeout 10 "$planeval" html --quiet -o "$work/nodes/html" "$work/nodes/rep/01-fit-the-model.csv" >/dev/null 2>"$work/err"; rc=$?
check "html into a DIR whose page name is a FIFO: exit 2 (got $rc)" '[ $rc -eq 2 ]'
check "html into a DIR whose page name is a FIFO: left as it was" '[ -p "$work/nodes/html/01-fit-the-model.html" ]'

# Expert degrees whose products pass 64 bits (V10's ep·etp and tp·cp·dp,
# V14's ep·etp): the plan is invalid, not an overflow (the ASan+UBSan run
# of this test would stop at one).
moe=$src/scenarios/drills/04-moe-236b.yaml
sed -n '1,/^plans:/p' "$moe" | grep -v '^sweep:' >"$work/moe-big.yaml"
printf '  - { name: huge-experts, dp: 4294967296, tp: 4294967296, ep: 4294967296, etp: 4294967296 }\n' >>"$work/moe-big.yaml"
"$planeval" run --quiet -o "$work/moe-big" "$work/moe-big.yaml" >/dev/null 2>"$work/err"; rc=$?
check "MoE plan of 2^32 degrees: exit 0 (got $rc: $(head -c 300 "$work/err"))" '[ $rc -eq 0 ]'
check "MoE plan of 2^32 degrees: invalid, V10 named" 'grep -q "^1,[^,]*,huge-experts,invalid,.*V10: ep\*etp=4294967296\*4294967296" "$work/moe-big/"*.csv'

finish
