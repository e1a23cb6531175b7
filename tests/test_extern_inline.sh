#!/usr/bin/env bash
# test_extern_inline.sh PLANEVAL SOURCE_DIR WORKDIR — every non-static
# `inline` function a header in src/ defines has one `extern inline`
# declaration in a .c file. C17 (6.7.4) gives an inline definition no
# external symbol of its own: an optimised build inlines every call and
# links, but a Debug build (the ASan+UBSan suite's) calls it and fails to
# link without the external definition that the `extern inline` line makes.
# The checker is first run on a made-up tree missing one, so it is known to
# catch it.
. "$(dirname "$0")/testlib.sh"

# missing DIR: the names of inline functions defined in DIR's headers with no
# `extern inline` declaration in DIR's .c files, one a line.
missing() {
    local defined declared
    defined=$(find "$1" -name '*.h' -exec grep -hE '^inline [^(]*\b[a-z_0-9]+\(' {} + |
        sed -E 's/^([^(]*[^a-z_0-9])?([a-z_0-9]+)\(.*/\2/' | LC_ALL=C sort -u)
    declared=$(find "$1" -name '*.c' -exec grep -hE '^extern inline [^(]*\b[a-z_0-9]+\(' {} + |
        sed -E 's/^([^(]*[^a-z_0-9])?([a-z_0-9]+)\(.*/\2/' | LC_ALL=C sort -u)
    LC_ALL=C comm -23 <(printf '%s\n' "$defined") <(printf '%s\n' "$declared") | grep -v '^$'
}

mkdir -p "$work/fake"
cat >"$work/fake/a.h" <<'C'
inline double kept_twice(double x) { return 2.0 * x; }
inline double forgotten(double x) { return x; }
static inline double private_one(double x) { return x; }
C
printf '#include "a.h"\nextern inline double kept_twice(double x);\n' >"$work/fake/a.c"
check "the checker names the one without extern inline ($(missing "$work/fake" | tr '\n' ' '))" \
    '[ "$(missing "$work/fake")" = forgotten ]'
n=$(find "$src/src" -name '*.h' -exec grep -hcE '^inline ' {} + | awk '{ s += $1 } END { print s }')
check "src/ headers define inline functions to check ($n)" '[ "$n" -gt 20 ]'
check "every inline function in src/ has its extern inline ($(missing "$src/src" | tr '\n' ' '))" \
    '[ -z "$(missing "$src/src")" ]'
finish
