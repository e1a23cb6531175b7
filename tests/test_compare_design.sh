#!/usr/bin/env bash
# test_compare_design.sh PLANEVAL SOURCE_DIR WORKDIR — `planeval compare` on
# a design sweep's report (docs/sweeps.md "Comparing designs"): a report
# whose design-axis columns vary (here cluster and nodes: two cluster types
# at three sizes) is split into its designs, one line each naming its axis
# values, with the design's first ok row in rank order as its best plan
# (checked against the report by column name, independently of compare);
# the cluster type's own link numbers are not a further axis; the Pareto
# front of cost, days and headroom over every design (recomputed here);
# designs and a report of one design compared together; the HTML page (a
# design column, one line per cluster type through its sizes in order of
# gpus, a legend, the front) read in headless Chromium's DOM.
. "$(dirname "$0")/testlib.sh"

cat >"$work/two.yaml" <<'EOF2'
schema: planeval/v1
name: two
fidelity: refined
model: { preset: llama3-70b }
training: { global_batch: 1024, tokens: 15e12 }
sweep:
  cluster: [h100-node, b200-node]
  nodes: [8, 16, 32]
  tp: [4, 8]
  pp: auto
  dp: auto
  zero: 1
  recompute: [none, selective]
EOF2
"$planeval" run --quiet -o "$work/out" "$work/two.yaml"; rc=$?
report=$work/out/two.csv
check "the design sweep runs (exit $rc)" '[ $rc -eq 0 ] && [ -s "$report" ]'
"$planeval" compare "$report" >"$work/text" 2>"$work/err"; rc=$?
check "compare exits 0 (got $rc: $(head -c 200 "$work/err"))" '[ $rc -eq 0 ]'
check "one line per design: two types at three sizes" \
    '[ "$(grep -cE "^(yes|no) +two +cluster=" "$work/text")" -eq 6 ]'
check "the type's link numbers are not named as an axis" '! grep -q "intra_node" "$work/text"'
# expected lines: per (cluster, nodes) the first ok row in file (rank) order
python3 - "$report" >"$work/want" <<'EOF2'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["rank"]) for r in rows] == list(range(1, len(rows) + 1))
best = {}
for r in rows:
    if r["status"] == "ok":
        best.setdefault((r["cluster"], int(r["nodes"])), r)
pts = {k: (float(r["cost"]), float(r["effective_train_days"]), float(r["mem_headroom_gib"]))
       for k, r in best.items()}
def dominated(k):
    a = pts[k]
    return any(b[0] <= a[0] and b[1] <= a[1] and b[2] >= a[2] and b != a
               for j, b in pts.items() if j != k)
for k in sorted(best, key=lambda k: (k[0], float(best[k]["gpus"]))):
    r = best[k]
    print("%s cluster=%s nodes=%d %s %.4g %.4g %s" % (
        "no" if dominated(k) else "yes", k[0], k[1], r["gpus"],
        float(r["effective_train_days"]), float(r["cost"]), r["plan"]))
EOF2
awk '$2 == "two" { print $1, $3, $4, $5, $6, $7, $NF }' "$work/text" >"$work/got"
check "each design's line is its first ok row: gpus, days, cost, plan; the front as recomputed ($(diff "$work/want" "$work/got" | head -3 | tr '\n' ' '))" \
    '[ -s "$work/want" ] && diff -q "$work/want" "$work/got" >/dev/null'
check "the front is not every design" 'grep -q "^no " "$work/got" && grep -q "^yes " "$work/got"'

# a report of one design beside the sweep: compared together, no design named
sed -e 's/^name: two/name: one-h100/' -e '/  cluster: \[/d' -e '/  nodes: \[/d' \
    -e 's/^training:/cluster: { preset: h100-node, nodes: 64 }\ntraining:/' "$work/two.yaml" \
    >"$work/one.yaml"
"$planeval" run --quiet -o "$work/out" "$work/one.yaml"
"$planeval" compare "$report" "$work/out/one-h100.csv" >"$work/both" 2>"$work/err"; rc=$?
check "a sweep and a one-design report together: exit 0, 7 lines (got $rc: $(head -c 200 "$work/err"))" \
    '[ $rc -eq 0 ] && [ "$(grep -cE "^(yes|no) " "$work/both")" -eq 7 ]'
check "the one-design report's line names no design" 'grep -qE "^(yes|no) +one-h100 +- " "$work/both"'

"$planeval" compare "$report" -o "$work/page/compare.html" >/dev/null 2>"$work/err"; rc=$?
page=$work/page/compare.html
check "the page is written (exit $rc)" '[ $rc -eq 0 ] && [ -s "$page" ]'
browser=
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -n "$browser" ]; then
    export HOME=$work/home
    mkdir -p "$HOME"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/profile" --dump-dom "file://$page" >"$work/dom" 2>/dev/null
    fronts=$(grep -c "^yes " "$work/got")
    dom_series=$(grep -o '<polyline class="series"' "$work/dom" | wc -l)
    check "in Chromium: one series per cluster type (got $dom_series)" '[ "$dom_series" -eq 2 ]'
    # each series: three points, x... in order of gpus: days fall as the cluster grows
    falls=$(grep -o '<polyline class="series"[^>]*points="[^"]*"' "$work/dom" | sed 's/.*points="//; s/"$//' |
        awk '{ n = split($0, p, " "); ok = n == 3; for (i = 2; i <= n; i++) { split(p[i-1], a, ","); split(p[i], b, ","); if (b[2] + 0 < a[2] + 0) ok = 0 } print ok }' | tr -d '\n')
    check "in Chromium: each series has its three sizes in order of gpus, days falling (y grows down: $falls)" '[ "$falls" = "11" ]'
    check "in Chromium: the legend names both types" \
        'grep -q "<text class=\"lg\"[^>]*>cluster=h100-node</text>" "$work/dom" && grep -q "<text class=\"lg\"[^>]*>cluster=b200-node</text>" "$work/dom"'
    dom_front=$(grep -o '<circle class="pt pf"' "$work/dom" | wc -l)
    front_pts=$(grep -o '<polyline class="front" points="[^"]*"' "$work/dom" | sed 's/.*points="//; s/"$//' | wc -w)
    check "in Chromium: the front's points are the text's yes lines ($dom_front outlined, $front_pts on the line, want $fronts)" \
        '[ "$dom_front" -eq "$fronts" ] && [ "$front_pts" -eq "$fronts" ]'
    check "in Chromium: the table names each design" \
        '[ "$(grep -o "<td class=\"t\">cluster=[a-z0-9-]* nodes=[0-9]*</td>" "$work/dom" | wc -l)" -eq 6 ]'
else
    echo "SKIP: Chromium is not installed (apt-get install chromium); the page is checked without a browser"
fi
finish
