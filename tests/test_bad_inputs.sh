#!/usr/bin/env bash
# test_bad_inputs.sh — every file of tests/bad/ must be refused the way
# docs/scenarios.md "Loading rules" says: exit status 2, one line on stderr
# per mistake, `FILE:LINE:COL: error: ...`, nothing on stdout, and no report
# written by `run`.
#
#   bash tests/test_bad_inputs.sh PLANEVAL SOURCE_DIR WORKDIR
#
# tests/bad/NAME.yaml is refused with the lines in tests/bad/NAME.expect
# (one per mistake: a file with several mistakes reports them all in one
# pass, in file order), where a leading FILE stands for the path given to
# planeval. A NAME.run-only marker beside them says the refusal is `run`'s
# alone (targets no design meets: found only by evaluating): `validate`
# accepts that file (exit 0) and `run` refuses it with the lines. The "billion laughs"
# file must also be refused in under a second. Exit 0 pass, 1 fail, 77 skip.
set -u

planeval=${1:?usage: test_bad_inputs.sh PLANEVAL SOURCE_DIR WORKDIR}
src=${2:?usage: test_bad_inputs.sh PLANEVAL SOURCE_DIR WORKDIR}
work=${3:?usage: test_bad_inputs.sh PLANEVAL SOURCE_DIR WORKDIR}

if [[ ! -x $planeval ]]; then
    echo "skip: no planeval binary at $planeval"
    exit 77
fi

bad=$src/tests/bad
mkdir -p "$work" || exit 1
passed=0
failed=0

fail() { echo "FAIL $1: $2"; }

now_ns() { date +%s%N; }

shopt -s nullglob
files=("$bad"/*.yaml)
if ((${#files[@]} == 0)); then
    echo "FAIL: no files in $bad"
    exit 1
fi

for f in "${files[@]}"; do
    name=$(basename "$f" .yaml)
    expect_file=$bad/$name.expect
    if [[ ! -f $expect_file ]]; then
        fail "$name" "missing $name.expect"
        failed=$((failed + 1))
        continue
    fi
    expected=$(<"$expect_file")
    if [[ $expected != FILE* ]]; then
        fail "$name" "$name.expect does not start with FILE"
        failed=$((failed + 1))
        continue
    fi
    want=""
    bad_line=0
    while IFS= read -r line; do
        [[ $line == FILE* ]] || bad_line=1
        want+="${want:+$'\n'}$f${line#FILE}"
    done <<<"$expected"
    if ((bad_line)); then
        fail "$name" "a line of $name.expect does not start with FILE"
        failed=$((failed + 1))
        continue
    fi
    want_lines=$(printf '%s\n' "$expected" | wc -l)

    out=$work/$name.stdout
    err=$work/$name.stderr
    start=$(now_ns)
    "$planeval" validate "$f" >"$out" 2>"$err" </dev/null
    status=$?
    elapsed_ms=$((($(now_ns) - start) / 1000000))

    ok=1
    run_only=0
    [[ -f $bad/$name.run-only ]] && run_only=1
    if ((run_only)); then
        ((status == 0)) || { fail "$name" "validate exit status $status, want 0 (run-only)"; ok=0; }
    elif ((status != 2)); then
        fail "$name" "validate exit status $status, want 2"
        ok=0
    fi
    if [[ -s $out ]] && ((!run_only)); then
        fail "$name" "validate wrote to stdout: $(head -c 200 "$out")"
        ok=0
    fi
    if ((run_only)); then
        "$planeval" run -o "$work/out-run-only" "$f" >"$out" 2>"$err" </dev/null
        rm -rf "$work/out-run-only"
    fi
    lines=$(wc -l <"$err")
    got=$(<"$err")
    if ((lines != want_lines)) || [[ $got != "$want" ]]; then
        fail "$name" "stderr differs
  want: $want
  got:  $got"
        ok=0
    fi
    if [[ $name == billion-laughs ]] && ((elapsed_ms >= 1000)); then
        fail "$name" "took ${elapsed_ms} ms, want < 1000 ms"
        ok=0
    fi

    # `run` must refuse the file too and write no report.
    rm -rf "$work/out"
    mkdir -p "$work/out"
    "$planeval" run -o "$work/out" "$f" >"$out" 2>"$err" </dev/null
    status=$?
    if ((status != 2)); then
        fail "$name" "run exit status $status, want 2"
        ok=0
    fi
    if [[ -n $(ls -A "$work/out") ]]; then
        fail "$name" "run wrote $(ls -A "$work/out" | head -3 | tr '\n' ' ')"
        ok=0
    fi
    if ((ok)); then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done

echo "$passed passed, $failed failed"
((failed == 0))
