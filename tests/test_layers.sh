#!/usr/bin/env bash
# test_layers.sh PLANEVAL SOURCE_DIR WORKDIR — src/ is layered (src/README.md):
# core <- input <- model <- sweep <- output <- check <- merge <- calibrate <-
# grade <- cli. A module includes headers of its own layer and of the layers
# below it only, and every source file lives in one of those folders. No two
# source files call each other's functions (the file-level call graph of the
# built libraries, from their symbols, has no loop); test_function_length.sh
# keeps every function to 80 lines. Each checker is first run on a made-up
# case it must catch.
. "$(dirname "$0")/testlib.sh"

layers="core input model sweep output check merge calibrate grade cli"
rank_of() { local i=0 l; for l in $layers; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }

# violations TREE: one line per include that reaches up (or out of) the layers
violations() {
    local tree=$1 f layer inc target
    for f in "$tree"/*/*.[ch]; do
        layer=$(basename "$(dirname "$f")")
        grep -o '^#include "[^"]*"' "$f" | sed 's/#include "//; s/"$//' | while read -r inc; do
            target=${inc%%/*}
            [ "$target" = "$inc" ] && { echo "$f: unqualified include \"$inc\""; continue; }
            [ "$(rank_of "$target")" -le "$(rank_of "$layer")" ] \
                || echo "$f: $layer includes $inc (layer $target is above it)"
        done
    done
}

mkdir -p "$work/tree/sweep" "$work/tree/cli"
printf '#include "cli/grade.h"\n' >"$work/tree/sweep/bad.c"
printf '#include "sweep/plans.h"\n' >"$work/tree/cli/fine.c"
check "the checker flags an upward include" \
    '[ "$(violations "$work/tree")" = "$work/tree/sweep/bad.c: sweep includes cli/grade.h (layer cli is above it)" ]'

violations "$src/src" >"$work/violations"
check "no module includes a layer above its own: $(head -3 "$work/violations" | tr '\n' ' ')" \
    '[ ! -s "$work/violations" ]'
# a folder of no layer may hold no C (src/kit: the calibration kit, Python)
strays=$(cd "$src/src" && ls *.c *.h 2>/dev/null; for d in */; do d=${d%/}; [ "$(rank_of "$d")" = 99 ] &&
    ls "$d"/*.c "$d"/*.h >/dev/null 2>&1 && echo "$d/"; done)
check "every source file is in a layer folder (strays: ${strays:-none})" '[ -z "$strays" ]'
for l in $layers; do
    check "layer $l has modules" 'ls "$src/src/$l"/*.c >/dev/null 2>&1'
done

# ------------------------------------------------------------ calls

# call_edges LIB...: "CALLER CALLEE" for each source file of the static
# libraries that calls a function another one defines (layer/file.c.o).
call_edges() {
    local lib layer
    for lib in "$@"; do
        layer=$(basename "$lib" .a)
        layer=${layer#libplaneval_}
        nm -A --defined-only "$lib" | awk -v L="$layer" '$(NF-1) == "T" { split($1, a, ":"); print "T", L "/" a[2], $NF }'
        nm -A --undefined-only "$lib" | awk -v L="$layer" '{ split($1, a, ":"); print "U", L "/" a[2], $NF }'
    done | awk '$1 == "T" { def[$3] = $2; next }
                { use[$2 " " $3] = 1 }
                END { for (k in use) { split(k, b, " ")
                          if ((b[2] in def) && def[b[2]] != b[1]) print b[1], def[b[2]] } }' | sort -u
}

# call_loops LIB...: one line per pair of files calling each other, then
# any longer loop of calls (tsort names its files).
call_loops() {
    call_edges "$@" >"$work/edges"
    awk '{ e[$1 " " $2] = 1 } END { for (k in e) { split(k, b, " ")
             if (b[1] < b[2] && ((b[2] " " b[1]) in e)) print b[1] " and " b[2] " call each other" } }' "$work/edges" | sort
    tsort "$work/edges" 2>&1 >/dev/null | sed -n 's/^tsort: \([^ :]*\.o\)$/loop through \1/p' | sort
}

mkdir -p "$work/calls" "$work/ring"
printf 'int pong(int);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n' >"$work/calls/ping.c"
printf 'int ping(int);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n' >"$work/calls/pong.c"
printf 'int ping(int);\nint serve(void) { return ping(3); }\n' >"$work/calls/serve.c"
printf 'int two(int);\nint one(int n) { return n ? two(n - 1) : 1; }\n' >"$work/ring/one.c"
printf 'int three(int);\nint two(int n) { return n ? three(n - 1) : 2; }\n' >"$work/ring/two.c"
printf 'int one(int);\nint three(int n) { return n ? one(n - 1) : 3; }\n' >"$work/ring/three.c"
(cd "$work/calls" && for f in ping pong serve; do cc -c "$f.c" -o "$f.c.o" || exit 1; done &&
    ar rc libplaneval_made.a ping.c.o pong.c.o serve.c.o &&
    cd "$work/ring" && for f in one two three; do cc -c "$f.c" -o "$f.c.o" || exit 1; done &&
    ar rc libplaneval_ring.a one.c.o two.c.o three.c.o) || no "the made-up libraries build"
check "the checker flags two files calling each other, and not a one-way call" \
    '[ "$(call_loops "$work/calls/libplaneval_made.a" | grep -v "^loop through")" = "made/ping.c.o and made/pong.c.o call each other" ]'
check "the checker flags a loop of three files" \
    '[ "$(call_loops "$work/ring/libplaneval_ring.a" | grep -c "^loop through ring/")" -eq 3 ]'

libs=$(ls "$(dirname "$planeval")"/libplaneval_*.a 2>/dev/null)
check "the layers' libraries are beside the binary" '[ "$(echo "$libs" | wc -w)" -eq "$(echo "$layers" | wc -w)" ]'
call_loops $libs >"$work/loops"
check "no two source files call each other: $(head -3 "$work/loops" | tr '\n' ' ')" \
    '[ ! -s "$work/loops" ]'

finish
