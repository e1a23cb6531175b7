#!/usr/bin/env bash
# test_docs.sh PLANEVAL SOURCE_DIR WORKDIR — the interface is documented in
# the repository: README, --help, the sources and the
# schemas point to docs/scenarios.md and docs/model.md, never to a spec
# outside the repository; every command and long option of `planeval --help`
# is in docs/scenarios.md. (tests/unit/test_docs.c checks every key and
# report column.)
. "$(dirname "$0")/testlib.sh"

doc=$src/docs/scenarios.md
check "docs/scenarios.md exists" '[ -s "$doc" ]'

outside=$(grep -rnE '\.\./shared|(^|[^/])interface\.md' "$src/README.md" "$src/src" "$src/schemas" \
    "$src/docs" "$src/scenarios" 2>/dev/null | head -5)
check "no reference to a spec outside the repository: $outside" '[ -z "$outside" ]'
bare=$(grep -rnoE '.{0,20}model\.md' "$src/README.md" "$src/src" "$src/schemas" "$src/scenarios" 2>/dev/null |
    grep -v 'docs/model\.md' | head -5)
check "model.md is cited as docs/model.md: $bare" '[ -z "$bare" ]'

check "README points to docs/scenarios.md" 'grep -q "docs/scenarios.md" "$src/README.md"'
"$planeval" --help >"$work/help"
check "--help points to docs/scenarios.md" 'grep -q "docs/scenarios.md" "$work/help"'

for c in run html merge validate check explain calibrate grade memory collective bubble; do
    check "command $c is in docs/scenarios.md" 'grep -q "planeval $c\b\|\`$c\`" "$doc"'
done
for o in $(grep -oE -- '--[a-z][a-z-]+' "$work/help" | sort -u); do
    check "option $o of --help is in docs/scenarios.md" 'grep -q -- "$o\b" "$doc"'
done

finish
