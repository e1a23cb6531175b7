#!/usr/bin/env bash
# test_issue_numbers.sh PLANEVAL SOURCE_DIR WORKDIR — no file of the
# repository's text names a tracker issue by number (the word "issue", then
# a number, with or without a space, '#' or '-' between): a reader of the repository has no issue tracker, so a
# comment or a page says what a thing is and why, not which issue brought
# it (a public source is cited by its repository, OWNER/REPO#N). The
# folders and files scanned are $scan; the check first runs on a
# made-up tree with one such mention, so it is known to catch one.
. "$(dirname "$0")/testlib.sh"

# Folders and files (relative to SOURCE_DIR) that must not name an issue.
scan="src tests docs README.md schemas scenarios"

# "issue", an optional space, hyphen or '#', then a number; any case. (This
# line and the pattern itself do not match it: no digit follows "issue".)
pattern='issue[ #-]?#?[0-9]+'

# issue_mentions DIR PATH... — "file:line: text" of every mention under DIR
issue_mentions() {
    local dir=$1
    shift
    (cd "$dir" && grep -rnIiE -- "$pattern" "$@" 2>/dev/null)
}

# The check catches a mention: a made-up tree, one clean file, three bad.
fake=$work/fake
mkdir -p "$fake/docs" "$fake/tests"
n=11
printf '# The model\nEvery equation has an id.\n' >"$fake/docs/clean.md"
printf '/* added for issue %s */\n' "$n" >"$fake/tests/bad.c"
printf 'Since Issue #%s the report has two more columns.\n' "$n" >"$fake/docs/bad.md"
printf 'the issue-%s tail\n' "$n" >"$fake/README.md"
found=$(issue_mentions "$fake" docs tests README.md)
check "the check finds all three made-up mentions ($(printf '%s' "$found" | grep -c .) found)" \
    '[ "$(printf "%s" "$found" | grep -c .)" -eq 3 ]'
check "it names the file and line" 'printf "%s" "$found" | grep -q "^tests/bad.c:1:"'
check "a clean file passes" '[ -z "$(issue_mentions "$fake" docs/clean.md)" ]'

# The repository.
for p in $scan; do
    check "$p exists" '[ -e "$src/$p" ]'
done
# shellcheck disable=SC2086 # $scan is a list of paths
found=$(issue_mentions "$src" $scan)
check "no issue number in $scan: $(printf '%s' "$found" | head -5)" '[ -z "$found" ]'

finish
