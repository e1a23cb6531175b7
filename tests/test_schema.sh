#!/usr/bin/env bash
# test_schema.sh — validate the repository's YAML against schemas/ with an
# independent validator (tests/schema/validate.js: ajv + js-yaml under node).
#
#   bash tests/test_schema.sh PLANEVAL_BINARY SOURCE_DIR WORKDIR
#
# Runs the schemas' own cases (tests/schema/cases.js), then checks every
# scenario under SOURCE_DIR/scenarios (recursively, except scenarios/catalog/)
# against schemas/scenario.schema.json and every catalog file
# (scenarios/catalog/*.yaml) against schemas/catalog.schema.json. Files
# in tests/bad/*.yaml should be rejected too; any the schema accepts is only
# reported as a note. Prints "N passed, N failed"; exit 1 on a failure, 77
# (skipped) when node, ajv (v6) or js-yaml is missing. PLANEVAL_BINARY and
# WORKDIR are unused: this test depends neither on the build nor on a tree.
set -u

if [ $# -lt 2 ]; then
    echo "usage: bash tests/test_schema.sh PLANEVAL_BINARY SOURCE_DIR [WORKDIR]" >&2
    exit 2
fi
BIN=$1 # unused
SRC=$2
WORK=${3:-}
if [ -n "$WORK" ]; then mkdir -p "$WORK"; fi

if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed (apt-get install nodejs node-ajv node-js-yaml)"
    exit 77
fi
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
if ! node -e "require('ajv'); require('js-yaml')" >/dev/null 2>&1; then
    echo "SKIP: the node modules ajv and js-yaml are missing (apt-get install node-ajv node-js-yaml)"
    exit 77
fi

scenarios=()
while IFS= read -r -d '' f; do scenarios+=("$f"); done < <(
    find "$SRC/scenarios" -path "$SRC/scenarios/catalog" -prune -o \
        -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 2>/dev/null | LC_ALL=C sort -z)
catalogs=()
while IFS= read -r -d '' f; do catalogs+=("$f"); done < <(
    find "$SRC/scenarios/catalog" -maxdepth 1 -type f -name '*.yaml' -print0 2>/dev/null | LC_ALL=C sort -z)
bad=()
while IFS= read -r -d '' f; do bad+=("$f"); done < <(
    find "$SRC/tests/bad" -maxdepth 1 -type f -name '*.yaml' -print0 2>/dev/null | LC_ALL=C sort -z)

node "$SRC/tests/schema/validate.js" --schema-dir "$SRC/schemas" --selftest \
    --catalog "${catalogs[@]}" --scenario "${scenarios[@]}" --bad "${bad[@]}"
status=$?
if [ $status -eq 77 ]; then
    echo "SKIP: validate.js could not load its modules"
fi
exit $status
