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
# The README's test command is the one CI runs, verbatim (.ci/run).
readme_test=$(sed -n '/^# 2\. run the tests/{n;p;}' "$src/README.md")
check "README's test command is .ci/run's" '[ -n "$readme_test" ] && grep -qxF -- "$readme_test" "$src/.ci/run"'
# The README is a tour that links where to read on, the code's map included.
for page in docs/scenarios.md docs/model.md docs/catalog.md docs/validation.md src/README.md; do
    check "README links $page" 'grep -qF "]($page)" "$src/README.md"'
done
# Every relative link of the README and of docs/ names a file that exists.
broken=
for md in "$src/README.md" "$src"/docs/*.md "$src"/docs/design/*.md; do
    for target in $(grep -oE '\]\([^)# ]+' "$md" | sed 's/^](//' | grep -v '^[a-z]*:'); do
        [ -e "$(dirname "$md")/$target" ] || broken="$broken ${md#"$src"/}:$target"
    done
done
check "every relative link resolves:$broken" '[ -z "$broken" ]'
# docs/catalog.md lists every preset of scenarios/catalog/ by name.
unlisted=
for f in "$src"/scenarios/catalog/*.yaml; do
    for name in $(grep -oE '^  [a-z0-9][a-z0-9._-]*:' "$f" | tr -d ' :'); do
        grep -qF "\`$name\`" "$src/docs/catalog.md" || unlisted="$unlisted $name"
    done
done
check "docs/catalog.md lists every preset:$unlisted" '[ -z "$unlisted" ]'
"$planeval" --help >"$work/help"
check "--help points to docs/scenarios.md" 'grep -q "docs/scenarios.md" "$work/help"'

for c in run html merge validate check explain calibrate grade memory collective bubble; do
    check "command $c is in docs/scenarios.md" 'grep -q "planeval $c\b\|\`$c\`" "$doc"'
done
for o in $(grep -oE -- '--[a-z][a-z-]+' "$work/help" | sort -u); do
    check "option $o of --help is in docs/scenarios.md" 'grep -q -- "$o\b" "$doc"'
done

# Every equation id the code cites (P1, M3, F8, V3', M3'', …; the code
# writes primes as ' and '', or as ′ and ″) has its line in docs/model.md (written there
# with ′ and ″).
model=$src/docs/model.md
check "docs/model.md exists" '[ -s "$model" ]'
# (output/ is left out: its SVG paths read like ids)
dirs="$src/src/model $src/src/cli $src/src/sweep $src/src/input $src/src/core $src/src/check $src/src/merge $src/src/calibrate $src/src/grade"
# shellcheck disable=SC2086 # $dirs is a list of folders
ids=$({ grep -rhoE '\b[PVMAFCXBS][0-9]{1,2}\b' $dirs
        grep -rhoE "\b[PVMAFCXBS][0-9]{1,2}(''|')([^s']|\$)" $dirs | sed -E "s/[^A-Z0-9']$//" |
            sed "s/''/″/; s/'/′/"
        grep -rhoE '\b[PVMAFCXBS][0-9]{1,2}(′|″)' $dirs; } 2>/dev/null | sort -u)
check "the sources cite equation ids ($(printf '%s\n' $ids | wc -l))" '[ "$(printf "%s\n" $ids | wc -l)" -ge 90 ]'
# missing_ids FILE — the ids of the sources that FILE does not have
missing_ids() {
    local id
    for id in $ids; do
        grep -qE "(^|[^A-Za-z0-9])$id([^0-9′″]|$)" "$1" || printf ' %s' "$id"
    done
}
missing=$(missing_ids "$model")
check "every equation id of the sources is in docs/model.md:$missing" '[ -z "$missing" ]'
# the check can fail: a page without X12 and M3″ lacks exactly those two
sed 's/X12/X-12/g; s/M3″/M3-2/g' "$model" >"$work/model-without.md"
check "a page without X12 and M3″ is caught ($(missing_ids "$work/model-without.md"))" \
    '[ "$(missing_ids "$work/model-without.md")" = " M3″ X12" ]'

finish
