#!/usr/bin/env bash
# memory_residuals.sh SOURCE_DIR TABLE — the memory library's residuals by
# configuration feature (docs/validation.md "Residuals by configuration"):
# the torchtitan rows (one framework, one metric: max_reserved); TABLE is `planeval check --table scenarios/memory`'s output; each of its
# assertion rows is joined to its file's "as published" provenance (the
# degrees fsdp, tp, pp, cp as the run had them, torch.compile among the
# flags, float8 as the precision) and its model preset, and the rows are
# grouped by each feature: count, mean signed error %, mean |error| %.
# Sourced by no one; tests/test_memory_library.sh runs it and compares its
# output with the block in docs/validation.md.
set -u
src=$1 table=$2
grep -E '^\| [a-z0-9-]+ \| [a-z0-9-]+ \| mem_' "$table" | while IFS='|' read -r _ name _ _ _ _ err _; do
    name=$(echo $name) err=$(echo $err)
    f="$src/scenarios/memory/$name.yaml"
    grep -qx '# source: torchtitan' "$f" || continue
    pub=$(sed -n '/^#   as published:/,/^#   [a-z]*:/p' "$f" | sed '$d' | sed 's/^# *//' | tr '\n' ' ' | tr -s ' ')
    deg() { echo "$pub" | grep -oE "(^|[ ,:])$1 [0-9]+" | grep -oE '[0-9]+$' | head -1; }
    model=$(sed -nE 's/^model: \{ preset: ([a-z0-9.-]+).*/\1/p' "$f")
    compile=no; echo "$pub" | grep -q 'torch\.compile' && compile=yes
    fp8=no; echo "$pub" | grep -qE 'precision float8' && fp8=yes
    asynctp=no; echo "$pub" | grep -q 'async TP' && asynctp=yes
    echo "$err model=$model fsdp=$(deg fsdp) tp=$(deg tp) pp=$(deg pp) cp=$(deg cp) compile=$compile fp8=$fp8 async_tp=$asynctp"
done | awk '
{ e = $1 + 0; for (i = 2; i <= NF; i++) { k = $i; n[k]++; s[k] += e; a[k] += (e < 0 ? -e : e); if (!(k in seen)) { seen[k] = 1; order[++m] = k } } }
END {
    print "| feature | assertions | mean signed error % | mean |error| % |"
    print "|---|---:|---:|---:|"
    for (j = 1; j <= m; j++) { k = order[j]; printf "| %s | %d | %+.2f | %.2f |\n", k, n[k], s[k] / n[k], a[k] / n[k] }
}' | { read -r h; read -r r; echo "$h"; echo "$r"; sort -t'|' -k2,2V; }
