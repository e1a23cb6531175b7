#!/usr/bin/env bash
# test_step_figures.sh PLANEVAL SOURCE_DIR WORKDIR — figures that must not
# mislead: explain's A8 is the one M5 adds on each stage it shows (uneven
# stages too); bubble_fraction is docs/model.md §7's; bound names what sets
# the step (docs/model.md §8 S3).
. "$(dirname "$0")/testlib.sh"

# a8_and_m5 SCENARIO PLAN STAGE — "A8 M5-term" of that stage: explain's A8
# result and the A7/A8 term M5 adds (A7 is 0 off stage 0)
a8_and_m5() {
    "$planeval" explain "$1" --plan "$2" | awk -v st="(stage $3)" '
        /^[A-Z]/ { eq = $1; here = index($0, st) > 0; n = 0; next }
        here && eq == "A8" && ++n == 2 { a8 = $2 }
        here && eq == "M5" && ++n == 1 { split($0, t, " \\+ "); m5 = t[6] }
        END { print a8 + 0, m5 + 0 }'
}
for c in "dense-frameworks uneven-1f1b 3" "moe-fp8-offload moe-uneven 15"; do
    set -- $c
    read -r a8 m5 < <(a8_and_m5 "$src/tests/freeze/scenarios/$1.yaml" "$2" "$3")
    check "$2: explain's A8 on the last stage ($a8) is M5's ($m5), not 0" \
        '[ "$a8" = "$m5" ] && [ "$a8" != 0 ]'
done
read -r a8 m5 < <(a8_and_m5 "$src/tests/freeze/scenarios/dense-frameworks.yaml" uneven-1f1b 0)
check "uneven-1f1b: stage 0 carries no A8 ($a8, M5 $m5)" '[ "$a8" = 0 ] && [ "$m5" = 0 ]'

finish
