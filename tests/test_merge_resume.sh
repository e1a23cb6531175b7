#!/usr/bin/env bash
# test_merge_resume.sh PLANEVAL SOURCE_DIR WORKDIR — nothing silently wrong:
# merge proves that shard reports are all of one sweep, exactly once;
# resume refuses a damaged checkpoint; a signal while a full report is
# written leaves no report, no summary and no temporary file, and a run
# cleans up the temporary files a killed run left.
. "$(dirname "$0")/testlib.sh"

scen=$src/scenarios/drills/02-choose-parallelism/02b-70b-8-nodes.yaml
name=02b-70b-8-nodes
big=$src/tests/bench/gpt3-4096.yaml
bigname=bench-gpt3-4096
# what a run names its temporary files after: this machine's short name
host=$(uname -n | cut -d. -f1 | tr -c 'A-Za-z0-9\n-' '_' | cut -c1-32)

# ------------------------------------------------------------ merge
"$planeval" run --quiet -o "$work/single" "$scen"
for i in 0 1 2; do "$planeval" run --quiet --shard $i/3 -o "$work/sh" "$scen"; done
shard() { echo "$work/sh/$name.shard-$1-of-3.csv"; }
summary() { echo "$work/sh/$name.shard-$1-of-3.summary.csv"; }
merge() { "$planeval" merge --quiet "$@" 2>"$work/err"; }
field() { awk -F, -v k="$2" '$1 == k { print $2 }' "$1"; }

check "summaries carry index_total, top_k and both CRC-32s" \
    '[ "$(field "$(summary 1)" index_total)" = "$(field "$work/single/$name.summary.csv" index_last)" ] &&
     [ "$(field "$(summary 1)" top_k)" = 0 ] && grep -q "^scenario_crc32,[0-9a-f]\{8\}$" "$(summary 1)" &&
     grep -q "^report_crc32,[0-9a-f]\{8\}$" "$(summary 1)"'
merge "$(shard 0)" "$(shard 1)" "$(shard 2)" -o "$work/m.csv"; rc=$?
check "three shards merge (exit $rc) into the single run's report" '[ $rc -eq 0 ] && cmp -s "$work/m.csv" "$work/single/$name.csv"'

# the merged summary is the one run writes, but for the machine's figures
same_summary() { # same_summary A B: equal but for threads, wall_s, plans_per_s
    diff <(grep -v "^threads,\|^wall_s,\|^plans_per_s," "$1") <(grep -v "^threads,\|^wall_s,\|^plans_per_s," "$2") >"$work/summary.diff"
}
check "the merged summary beside it is the single run's (but threads, wall_s, plans_per_s)" \
    'same_summary "$work/single/$name.summary.csv" "$work/m.summary.csv"'
wall_sum=$(for i in 0 1 2; do field "$(summary $i)" wall_s; done | awk '{ s += $1 } END { printf "%.6g", s }')
check "... its wall_s is the shards' added up ($wall_sum), its threads theirs" \
    '[ "$(field "$work/m.summary.csv" wall_s)" = "$wall_sum" ] && [ "$(field "$work/m.summary.csv" threads)" = "$(field "$(summary 0)" threads)" ]'
"$planeval" html --quiet "$work/m.csv" -o "$work/page"
check "... so planeval html of the merged report has the facts and the sweep's counts" \
    'grep -q "80 layers, hidden 8192" "$work/page/m.html" && ! grep -q "no summary beside the report" "$work/page/m.html"'
"$planeval" run --quiet --pareto -o "$work/single-pareto" "$scen"
merge --pareto "$(shard 0)" "$(shard 1)" "$(shard 2)" -o "$work/mp.csv"; rc=$?
check "merge --pareto (exit $rc) writes the report and summary of run --pareto" \
    '[ $rc -eq 0 ] && cmp -s "$work/mp.csv" "$work/single-pareto/$name.csv" &&
     same_summary "$work/single-pareto/$name.summary.csv" "$work/mp.summary.csv"'
mkdir -p "$work/facts" && cp "$work"/sh/* "$work/facts/"
sed -i 's/^fact: reserve,10 GiB per GPU$/fact: reserve,12 GiB per GPU/' "$work/facts/$name.shard-2-of-3.summary.csv"
merge "$work"/facts/$name.shard-*-of-3.csv -o "$work/mf.csv"; rc=$?
check "shards whose summaries' facts differ: exit 2 (got $rc), nothing written" \
    '[ $rc -eq 2 ] && grep -q "shard-2-of-3.summary.csv: error: its facts differ from .*shard-0-of-3.summary.csv.s (.fact: reserve.)" "$work/err" && [ ! -e "$work/mf.csv" ]'
"$planeval" merge "$(shard 0)" "$(shard 1)" "$(shard 2)" -o "$work/merged.txt" 2>"$work/err"; rc=$?
check "-o without .csv: merged (exit $rc), no summary, and stderr says so" \
    '[ $rc -eq 0 ] && cmp -s "$work/merged.txt" "$work/single/$name.csv" && grep -q "does not end in .csv: no summary written" "$work/err"'

for missing in 0 1 2; do
    given=()
    for i in 0 1 2; do [ $i = $missing ] || given+=("$(shard $i)"); done
    rm -f "$work/m.csv"
    merge "${given[@]}" -o "$work/m.csv"; rc=$?
    check "shard $missing of 3 missing: exit 2 (got $rc), the gap named, no report" \
        '[ $rc -eq 2 ] && grep -q "are in no report: shard $missing of 3 is missing" "$work/err" && [ ! -e "$work/m.csv" ]'
done
merge "$(shard 0)" -o "$work/m.csv"; rc=$?
check "shards 1 and 2 of 3 missing: both named" '[ $rc -eq 2 ] && grep -q "shards 1, 2 of 3 are missing" "$work/err"'
merge "$(shard 0)" "$(shard 1)" "$(shard 1)" "$(shard 2)" -o "$work/m.csv"; rc=$?
check "a shard given twice: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "appears twice" "$work/err" && [ ! -e "$work/m.csv" ]'
mkdir -p "$work/copy" && cp "$(shard 1)" "$(summary 1)" "$work/copy/"
merge "$(shard 0)" "$(shard 1)" "$work/copy/$name.shard-1-of-3.csv" "$(shard 2)" -o "$work/m.csv"; rc=$?
check "a copy of a shard under another directory: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "appears twice" "$work/err"'

# a shard cut at a row boundary, and a shard with one cell changed
mkdir -p "$work/cut" && cp "$work"/sh/* "$work/cut/"
head -n 100 "$(shard 1)" >"$work/cut/$name.shard-1-of-3.csv"
merge "$work"/cut/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "a shard cut at a row boundary: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "has 99 rows, its summary says .* were written" "$work/err"'
mkdir -p "$work/edit" && cp "$work"/sh/* "$work/edit/"
awk -F, -v OFS=, 'NR == 5 { $6 = $6 + 1 } { print }' "$(shard 2)" >"$work/edit/$name.shard-2-of-3.csv"
merge "$work"/edit/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "a shard changed after it was written: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "its CRC-32 is" "$work/err"'

# --allow-partial: what is there, and says so
merge --allow-partial "$(shard 0)" "$(shard 2)" -o "$work/p.csv"; rc=$?
rows=$(($(wc -l <"$work/p.csv") - 1))
want=$(($(field "$(summary 0)" rows_written) + $(field "$(summary 2)" rows_written)))
check "--allow-partial merges two of three shards (exit $rc, $rows of $want rows) and warns" \
    '[ $rc -eq 0 ] && [ $rows = $want ] && grep -q "warning: partial merge: plan indices" "$work/err" &&
     grep -q "is a partial merge" "$work/err"'
cp "$work/m.summary.csv" "$work/p.summary.csv"
merge --allow-partial "$(shard 0)" "$(shard 2)" -o "$work/p.csv"; rc=$?
check "... with no summary (its counts are not the sweep's): an old one beside it is removed" \
    '[ $rc -eq 0 ] && [ ! -e "$work/p.summary.csv" ] && grep -q "no summary written beside .*p.csv: a partial merge" "$work/err"'
merge --allow-partial "$(shard 0)" "$(shard 0)" -o "$work/p.csv"; rc=$?
check "--allow-partial still refuses a shard given twice" '[ $rc -eq 2 ]'

# summaries are needed, or --allow-partial
mkdir -p "$work/nosum" && cp "$(shard 0)" "$(shard 1)" "$(shard 2)" "$work/nosum/"
merge "$work"/nosum/*.csv -o "$work/m.csv"; rc=$?
check "reports without summaries: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "no summary beside it" "$work/err"'
merge --allow-partial "$work"/nosum/*.csv -o "$work/m.csv"; rc=$?
check "... merged with --allow-partial, with a warning" '[ $rc -eq 0 ] && grep -q "warning: partial merge: .*no summary" "$work/err" && cmp -s "$work/m.csv" "$work/single/$name.csv"'

# top-K shards need --top K or less on the merge
for i in 0 1 2; do "$planeval" run --quiet --top 20 --shard $i/3 -o "$work/top" "$scen"; done
"$planeval" run --quiet --top 20 -o "$work/top-single" "$scen"
merge "$work"/top/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "top-20 shards merged without --top: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "kept only their best 20 rows" "$work/err"'
merge --top 20 "$work"/top/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "top-20 shards with --top 20 == a top-20 run, summary too" '[ $rc -eq 0 ] && cmp -s "$work/m.csv" "$work/top-single/$name.csv" &&
    same_summary "$work/top-single/$name.summary.csv" "$work/m.summary.csv"'
"$planeval" run --quiet --top 10 --pareto -o "$work/top-pareto" "$scen"
merge --top 10 --pareto "$work"/top/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "... and with --top 10 --pareto, run --top 10 --pareto's report and summary" '[ $rc -eq 0 ] && cmp -s "$work/m.csv" "$work/top-pareto/$name.csv" &&
    same_summary "$work/top-pareto/$name.summary.csv" "$work/m.summary.csv"'

# shards of two scenario texts
sed 's/global_batch: /global_batch:  /' "$scen" >"$work/$name.yaml"
"$planeval" run --quiet --shard 2/3 -o "$work/other" "$work/$name.yaml"
merge "$(shard 0)" "$(shard 1)" "$work/other/$name.shard-2-of-3.csv" -o "$work/m.csv"; rc=$?
check "a shard of another scenario text: exit 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "merge joins the shards of one scenario file" "$work/err"'

# ranking cells parsed strictly; an oversized row is bad input
mkdir -p "$work/formula" && cp "$work"/sh/* "$work/formula/"
awk -F, -v OFS=, 'NR == 2 { $35 = "=1+1" } { print }' "$(shard 0)" >"$work/formula/$name.shard-0-of-3.csv"
check "(the edit hit step_time_s)" 'head -1 "$(shard 0)" | cut -d, -f35 | grep -qx step_time_s'
merge --allow-partial "$work"/formula/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "a step_time_s cell '=1+1': exit 2 (got $rc), named" '[ $rc -eq 2 ] && grep -q "shard-0-of-3.csv:2:35: error: step_time_s: not a number" "$work/err"'
# a number column as the writer never writes it (nan, inf, hexadecimal,
# an overflow), key or not: refused at its cell, as what merge reads it writes
for v in inf nan -inf 0x10 1e999; do
    for col in 35:step_time_s 29:tp_comm_s; do
        awk -F, -v OFS=, -v v="$v" -v c="${col%%:*}" 'NR == 2 { $c = v } { print }' "$(shard 0)" \
            >"$work/formula/$name.shard-0-of-3.csv"
        rm -f "$work/m.csv"
        merge --allow-partial "$work"/formula/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
        check "a ${col#*:} cell '$v': exit 2 (got $rc), named, nothing written" \
            '[ $rc -eq 2 ] && grep -q "shard-0-of-3.csv:2:${col%%:*}: error: ${col#*:}: not a number" "$work/err" && [ ! -e "$work/m.csv" ]'
    done
done
# a negative figure where none can be (all but mem_headroom_gib, budget − total)
awk -F, -v OFS=, 'NR == 2 { $39 = -1 } { print }' "$(shard 0)" >"$work/formula/$name.shard-0-of-3.csv"
rm -f "$work/m.csv"
merge --allow-partial "$work"/formula/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "(the edit hit tokens_per_s)" 'head -1 "$(shard 0)" | cut -d, -f39 | grep -qx tokens_per_s'
check "a tokens_per_s cell '-1': exit 2 (got $rc), named, nothing written" \
    '[ $rc -eq 2 ] && grep -q "shard-0-of-3.csv:2:39: error: tokens_per_s: not a number >= 0: '"'"'-1'"'"'" "$work/err" && [ ! -e "$work/m.csv" ]'
awk -F, -v OFS=, 'NR == 2 { $27 = -1.5 } { print }' "$(shard 0)" >"$work/formula/$name.shard-0-of-3.csv"
merge --allow-partial "$work"/formula/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "a mem_headroom_gib cell '-1.5' is a figure: exit 0 (got $rc)" '[ $rc -eq 0 ]'
rm -f "$work/m.csv"
# a text cell the writer could not have written, passed on by merge
for edit in "38:bound:nan" "82:pipeline_layout:-inf" "82:pipeline_layout:1.1" "66:offload_optimizer:yes"; do
    IFS=: read -r n colname v <<<"$edit"
    check "(column $n is $colname)" 'head -1 "$(shard 0)" | cut -d, -f$n | grep -qx $colname'
    awk -F, -v OFS=, -v c="$n" -v v="$v" 'NR == 2 { $c = v } { print }' "$(shard 0)" >"$work/formula/$name.shard-0-of-3.csv"
    rm -f "$work/m.csv"
    merge --allow-partial "$work"/formula/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
    check "a $colname cell '$v': exit 2 (got $rc), named, nothing written" \
        '[ $rc -eq 2 ] && grep -q "shard-0-of-3.csv:2:$n: error: $colname: " "$work/err" && [ ! -e "$work/m.csv" ]'
done
long=$(head -c 20000 /dev/zero | tr '\0' x)
awk -F, -v OFS=, -v r="$long" 'NR == 2 { $5 = r } { print }' "$(shard 0)" >"$work/formula/$name.shard-0-of-3.csv"
rm -f "$work/m.csv"
merge --allow-partial "$work"/formula/$name.shard-*-of-3.csv -o "$work/m.csv"; rc=$?
check "a 20000-byte cell: exit 2 (got $rc), not 3" '[ $rc -eq 2 ] && grep -q "shard-0-of-3.csv:2:1: error: row longer than a report row" "$work/err" && [ ! -e "$work/m.csv" ]'

# ------------------------------------------------------------ grades CSV
# control characters before a formula start become spaces: the quote that
# neutralises the formula is decided after that, on the text as written
mkdir -p "$work/sub"
printf '%s\n' 'student: "\v=HYPERLINK(\"http://evil.example\",\"x\")"' 'drill: 01-fit-the-model' 'answers:' \
    '  state: "\x1f@SUM(A1:A9)"' '  baseline-fits: "\f+1"' '  min-intervention: "\n-2+3"' \
    '  "\t\r=cmd|'"'"' /C calc'"'"'!A0": 1' >"$work/sub/ctl.yaml"
"$planeval" grade --quiet "$src/scenarios/drills/01-fit-the-model.yaml" "$work/sub" -o "$work/grades.csv"; rc=$?
bad_cells=$(cells_matching "$work/grades.csv" '^[ \\t\\r\\v\\f]*[=+@-]')
check "grades: control characters then = + - @ are neutralised (exit $rc)${bad_cells:+: $bad_cells}" \
    '[ $rc -eq 0 ] && [ -z "$bad_cells" ] && [ $(grep -c "^\"'"'"' =HYPERLINK" "$work/grades.csv") -eq 10 ] &&
     grep -q ",'"'"' @SUM(A1:A9)," "$work/grades.csv" && grep -q ",'"'"' +1," "$work/grades.csv" && grep -q ",'"'"' -2+3," "$work/grades.csv"'

# ------------------------------------------------------------ resume
# a real checkpoint: a top-K run of a big sweep (57.8 M combinations), interrupted
big=$src/tests/bench/gpt3-4096-lists.yaml bigname=bench-gpt3-4096-lists
"$planeval" run --quiet --threads 1 --top 30 -o "$work/ck" "$big" 2>/dev/null & pid=$!
sleep 0.5; kill -INT $pid; wait $pid; rc=$?
ck=$work/ck/$bigname.checkpoint
if [ $rc -ne 130 ] || [ ! -s "$ck" ]; then
    echo "note: the run finished before SIGINT arrived (exit $rc); the damaged-checkpoint cases are skipped"
else
    cp "$ck" "$work/pristine"
    lines=$(wc -l <"$work/pristine")
    damaged=0 refused=0
    try() { # the damaged checkpoint in $ck must be refused with exit 2
        damaged=$((damaged + 1))
        "$planeval" run --quiet --resume --threads 1 --top 30 -o "$work/ck" "$big" 2>"$work/err"
        local got=$?
        if [ $got -eq 2 ] && grep -q "damaged checkpoint" "$work/err" && [ ! -e "$work/ck/$bigname.csv" ]; then
            refused=$((refused + 1))
        else
            echo "FAIL: $1: exit $got: $(head -c 300 "$work/err")"
        fi
    }
    for ((l = 1; l <= lines; l++)); do
        sed "${l}d" "$work/pristine" >"$ck"; try "line $l dropped"
    done
    # a digit changed on every line that has one (the first digit after the key)
    for ((l = 2; l < lines; l++)); do
        awk -v l=$l 'NR == l { if (match($0, /[0-9]/)) { d = substr($0, RSTART, 1); $0 = substr($0, 1, RSTART - 1) (d + 1) % 10 substr($0, RSTART + 1) } } { print }' "$work/pristine" >"$ck"
        cmp -s "$ck" "$work/pristine" || try "a digit changed on line $l"
    done
    head -c -1 "$work/pristine" >"$ck"; try "the last byte cut"
    head -c $(($(wc -c <"$work/pristine") / 2)) "$work/pristine" >"$ck"; try "cut in half"
    { cat "$work/pristine"; echo 12345; } >"$ck"; try "a line appended"
    check "every damaged checkpoint refused with exit 2 ($refused of $damaged)" '[ $refused -eq $damaged ] && [ $damaged -gt 20 ]'
    # forgeries with a valid checksum: the rows kept must be distinct plans of
    # the done prefix [first, next), as many as the counts call for, and the
    # counts must add up to that prefix
    if command -v python3 >/dev/null; then
        # resign SED_SCRIPT: the pristine checkpoint edited, its CRC-32 line redone
        resign() {
            sed '$d' "$work/pristine" | sed "$1" >"$work/body"
            python3 -c 'import sys, zlib; b = open(sys.argv[1], "rb").read(); sys.stdout.buffer.write(b + b"crc32 %08x\n" % zlib.crc32(b))' "$work/body" >"$ck"
        }
        ck_field() { awk -v k="$1" '$1 == k { print $2; exit }' "$work/pristine"; }
        next_index=$(ck_field next) row_line=$(($(grep -n '^rows ' "$work/pristine" | cut -d: -f1) + 1))
        first_row=$(sed -n "${row_line}p" "$work/pristine")
        # a combination of the done prefix that is no plan: a one-index shard that skips it
        skipped_index=
        for ((i = 1; i < 200 && i < next_index; i++)); do
            "$planeval" run --quiet --shard $i/57788640 -o "$work/one" "$big"
            if [ "$(field "$work/one/$bigname.shard-$i-of-57788640.summary.csv" plans_skipped)" = 1 ]; then
                skipped_index=$i; break
            fi
        done
        forged() { # forged WHAT MESSAGE: the re-signed checkpoint in $ck is refused as damaged
            "$planeval" run --quiet --resume --threads 1 --top 30 -o "$work/ck" "$big" 2>"$work/err"; rc=$?
            message=$2
            check "a re-signed checkpoint with $1: exit 2 (got $rc), '$2'" \
                '[ $rc -eq 2 ] && grep -q "damaged checkpoint: $message" "$work/err" && [ ! -e "$work/ck/$bigname.csv" ]'
        }
        resign "$((row_line + 1))s/.*/$first_row/"
        forged "a kept row repeated" "kept row $first_row appears twice"
        resign "${row_line}s/.*/$next_index/"
        forged "a kept row past the done prefix" "kept row $next_index lies outside the plan indices done \[0, $next_index)"
        resign "${row_line}s/.*/$skipped_index/"
        forged "a kept row that is a skipped combination ($skipped_index)" "kept row $skipped_index is not a plan of this sweep"
        rows_kept=$(ck_field rows) evaluated=$(ck_field evaluated)
        resign "${row_line}d; s/^rows $rows_kept\$/rows $((rows_kept - 1))/"
        forged "a kept row dropped" "it keeps $((rows_kept - 1)) rows where its counts call for $rows_kept"
        resign "s/^evaluated $evaluated\$/evaluated $((evaluated + 1))/"
        forged "one plan more evaluated" "its counts (.*) do not add up to the $next_index plan indices done"
        # the same checkpoint as a --status ok run's (its fingerprint covers the
        # statuses kept: xor the low 32 bits of 1 * 0x9e3779b97f4a7c15), with a
        # kept row of an invalid plan, which --status ok would drop unseen
        fingerprint=$(ck_field fingerprint) ok_done=$(awk '$1 == "status" { print $2 }' "$work/pristine")
        invalid_index=
        for ((i = 0; i < 200 && i < next_index; i++)); do
            "$planeval" run --quiet --shard $i/57788640 -o "$work/one" "$big"
            if [ "$(field "$work/one/$bigname.shard-$i-of-57788640.summary.csv" "status: invalid")" = 1 ]; then
                invalid_index=$i; break
            fi
        done
        if [ "$ok_done" -ge "$rows_kept" ] && [ -n "$invalid_index" ]; then
            resign "s/^fingerprint .*/fingerprint $(printf %08x $((0x$fingerprint ^ 0x7f4a7c15)))/; ${row_line}s/.*/$invalid_index/"
            "$planeval" run --quiet --resume --status ok --threads 1 --top 30 -o "$work/ck" "$big" 2>"$work/err"; rc=$?
            check "a re-signed --status ok checkpoint keeping an invalid plan: exit 2 (got $rc), named" \
                '[ $rc -eq 2 ] && grep -q "damaged checkpoint: kept row $invalid_index is of a status this run does not keep (--status)" "$work/err" && [ ! -e "$work/ck/$bigname.csv" ]'
        else
            echo "note: fewer than $rows_kept ok plans done before SIGINT; the --status forgery is skipped"
        fi
        # a kept row swapped for an invalid plan of the done prefix, without
        # --status: every count and row checks out but the statuses, which the
        # counts say are the best 30 (all ok when 30 or more ok plans are done)
        if [ "$ok_done" -ge "$rows_kept" ] && [ -n "$invalid_index" ]; then
            resign "${row_line}s/.*/$invalid_index/"
            forged "a kept row swapped for an invalid plan" \
                "its kept rows are $((rows_kept - 1)) ok, 0 over_time, 0 over_memory, 1 invalid, where the best $rows_kept of its counts are $rows_kept, 0, 0, 0"
        fi
    else
        echo "note: no python3 to re-sign checkpoints; the forged-checkpoint cases are skipped"
    fi
    cp "$work/pristine" "$ck"
    "$planeval" run --quiet --resume --threads 2 --top 30 -o "$work/ck" "$big"; rc=$?
    "$planeval" run --quiet --threads 2 --top 30 -o "$work/ck-ref" "$big"
    check "the intact checkpoint resumes (exit $rc) into the uninterrupted report" '[ $rc -eq 0 ] && cmp -s "$work/ck/$bigname.csv" "$work/ck-ref/$bigname.csv"'
fi

# ------------------------------------------------------------ signals, temporary files
# half of a big sweep, one thread: 77,724 rows, some 0.3 s of writing
big=$src/tests/bench/gpt3-4096.yaml
bigname=bench-gpt3-4096.shard-0-of-2
sig_opts=(--threads 1 --shard 0/2)
# wait (up to 20 s) for a temporary file in DIR; 0 when one appeared
wait_tmp() {
    local i
    for ((i = 0; i < 2000; i++)); do
        ls -A "$1" 2>/dev/null | grep -q '\.tmp\.' && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}
"$planeval" run --quiet "${sig_opts[@]}" -o "$work/ref" "$big"
for sig in INT TERM; do
    out=$work/sig-$sig
    "$planeval" run --quiet "${sig_opts[@]}" -o "$out" "$big" 2>"$work/err" & pid=$!
    if ! wait_tmp "$out" $pid; then
        wait $pid
        echo "note: no temporary report seen before the run ended; SIG$sig case skipped"
        ok; ok; ok
        continue
    fi
    t0=$(date +%s%N)
    kill -$sig $pid; wait $pid; rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    want=$([ $sig = INT ] && echo 130 || echo 143)
    check "SIG$sig while writing the full report: exit $want (got $rc) within 1.5 s (${ms} ms)" '[ $rc -eq $want ] && [ $ms -lt 1500 ]'
    check "... no report, no summary, no temporary file; a checkpoint" \
        '[ ! -e "$out/$bigname.csv" ] && [ ! -e "$out/$bigname.summary.csv" ] && ! ls -A "$out" | grep -q "\.tmp\." && [ -s "$out/$bigname.checkpoint" ]'
    "$planeval" run --quiet --resume "${sig_opts[@]}" -o "$out" "$big"
    check "... resumed: the uninterrupted report, byte for byte, and the same counts" \
        'cmp -s "$out/$bigname.csv" "$work/ref/$bigname.csv" &&
         diff <(grep -v "^wall_s\|^plans_per_s" "$out/$bigname.summary.csv") <(grep -v "^wall_s\|^plans_per_s" "$work/ref/$bigname.summary.csv") >/dev/null'
done
# the same in top-K mode (the checkpoint keeps the best K, the sweep done)
"$planeval" run --quiet "${sig_opts[@]}" --top 60000 -o "$work/topk-ref" "$big"
out=$work/topk
"$planeval" run --quiet "${sig_opts[@]}" --top 60000 -o "$out" "$big" 2>"$work/err" & pid=$!
if wait_tmp "$out" $pid; then
    kill -INT $pid; wait $pid; rc=$?
    check "top-K: SIGINT while writing: exit 130 (got $rc), a checkpoint, no report" \
        '[ $rc -eq 130 ] && grep -q "interrupted after the sweep" "$work/err" && [ -s "$out/$bigname.checkpoint" ] && [ ! -e "$out/$bigname.csv" ]'
    "$planeval" run --quiet --resume "${sig_opts[@]}" --top 60000 -o "$out" "$big"
    check "top-K: resumed into the uninterrupted report" 'cmp -s "$out/$bigname.csv" "$work/topk-ref/$bigname.csv"'
else
    wait $pid; echo "note: no temporary report seen before the top-K run ended; case skipped"; ok; ok
fi

# SIGKILL leaves a temporary file; the next run into the directory removes it
out=$work/killed
"$planeval" run --quiet "${sig_opts[@]}" -o "$out" "$big" & pid=$!
if wait_tmp "$out" $pid; then
    kill -KILL $pid; wait $pid 2>/dev/null
    check "SIGKILL left a temporary file" 'ls -A "$out" | grep -q "^\.$bigname\.csv\.tmp\.$host\.$pid$"'
else
    wait $pid; ok
fi
sleep 0.1 &
dead=$!
wait $dead
touch "$out/.x.csv.tmp.$host.$dead" "$out/.x.csv.tmp.$host.$$" "$out/.x.csv.tmp.other-host.$dead" "$out/x.csv.tmp.$dead"
"$planeval" run --quiet -o "$out" "$src/scenarios/drills/01-fit-the-model.yaml"
check "the next run removed its host's dead temporary files" '! ls -A "$out" | grep -q "^\.$bigname" && [ ! -e "$out/.x.csv.tmp.$host.$dead" ]'
check "... and kept a live process's, another host's and other files" '[ -e "$out/.x.csv.tmp.$host.$$" ] && [ -e "$out/.x.csv.tmp.other-host.$dead" ] && [ -e "$out/x.csv.tmp.$dead" ]'

finish
