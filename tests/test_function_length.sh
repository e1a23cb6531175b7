#!/usr/bin/env bash
# test_function_length.sh PLANEVAL SOURCE_DIR WORKDIR — no function in src/
# (a .c file's, or a header's inline one) is longer than 80 lines, its
# header's first line to its closing brace: a longer one does
# more than one thing, and reads better as the steps it is made of. The
# checker is first run on a made-up file with an 81-line function, so it is
# known to catch one.
. "$(dirname "$0")/testlib.sh"

limit=80
# too_long FILE...: "FILE:LINE: N lines" for every function over the limit.
# A function body opens with '{' at column 0 (or a header ending in ') {')
# and closes with '}' at column 0; it starts at the last line before it that
# begins at column 0 with a letter (the header's first line).
too_long() {
    awk -v limit="$limit" '
FNR == 1 { infn = 0; top = 0 }
!infn && /^[A-Za-z_]/ && !/^(typedef|struct|enum|union)[ {]/ { top = FNR }
!infn && (/^\{/ || /^[A-Za-z_].*\) \{$/) { infn = 1; start = top ? top : FNR; next }
infn && /^\}/ { n = FNR - start + 1; if (n > limit) print FILENAME ":" start ": " n " lines"; infn = 0; top = 0 }
' "$@"
}

# function N: a function of N lines (a two-line header, the braces, a return)
function_of() {
    printf 'static int f(int x,\n             int y)\n{\n'
    for _ in $(seq 1 $(($1 - 5))); do printf '    x += y;\n'; done
    printf '    return x;\n}\n'
}
function_of 81 >"$work/long.c"
function_of 80 >"$work/short.c"
check "the checker flags an 81-line function" '[ "$(too_long "$work/long.c")" = "$work/long.c:1: 81 lines" ]'
check "and passes an 80-line one" '[ -z "$(too_long "$work/short.c")" ] && [ "$(wc -l <"$work/short.c")" -eq 80 ]'

found=$(too_long "$src"/src/*/*.c "$src"/src/*/*.h)
check "no function over $limit lines${found:+: $found}" '[ -z "$found" ]'
finish
