#!/usr/bin/env bash
# test_layers.sh PLANEVAL SOURCE_DIR WORKDIR — src/ is layered (src/README.md):
# core <- input <- model <- sweep <- output <- cli. A module includes headers
# of its own layer and of the layers below it only, and every source file
# lives in one of those folders. The checker is first run on a made-up tree
# with an upward include, so it is known to catch one.
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
strays=$(cd "$src/src" && ls *.c *.h 2>/dev/null; for d in */; do d=${d%/}; [ "$(rank_of "$d")" = 99 ] && echo "$d/"; done)
check "every source file is in a layer folder (strays: ${strays:-none})" '[ -z "$strays" ]'
for l in $layers; do
    check "layer $l has modules" 'ls "$src/src/$l"/*.c >/dev/null 2>&1'
done
finish
