#!/usr/bin/env bash
# test_html_browser.sh PLANEVAL SOURCE_DIR WORKDIR — the HTML report in a
# real browser: headless Chromium renders bundled scenarios' pages to the
# DOM (--dump-dom: the points, the Pareto table and the stacked bars are
# there after the script ran, and the script raised no error) and to a PNG
# screenshot that is not blank (much larger than the screenshot of an empty
# page); as laid out by the browser, every text of every figure lies inside
# its SVG (no label cut off), and the stacked bars are as long as their
# plans' step_time_s and mem_total_gib (an MoE plan's ep_comm_s included);
# a refined page's time bars carry S6's error bars, as long as the interval.
# Skips (77) where Chromium is not installed.
. "$(dirname "$0")/testlib.sh"

browser=
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -z "$browser" ]; then
    echo "SKIP: Chromium is not installed (apt-get install chromium)"
    exit 77
fi
# a throwaway profile; no sandbox (CI runs as root); no GPU on CI machines
export HOME=$work/home
mkdir -p "$HOME"
chrome() { timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --user-data-dir="$work/profile" --enable-logging=stderr --v=0 "$@"; }

printf '<!DOCTYPE html><html><body></body></html>\n' >"$work/empty.html"
chrome --screenshot="$work/empty.png" --window-size=1060,1400 "file://$work/empty.html" 2>/dev/null
empty=$(wc -c <"$work/empty.png" 2>/dev/null || echo 0)

for scen in 02-choose-parallelism/02b-70b-8-nodes 02-choose-parallelism/02a-7b-one-node 03-comm-budget/400g; do
    file=$src/scenarios/drills/$scen.yaml
    "$planeval" run --quiet --html -o "$work/out" "$file"
    name=$(sed -n 's/^name: *//p' "$file")
    page=$work/out/$name.html
    rows=$(awk -F, 'NR > 1 && $4 != "invalid"' "$work/out/$name.csv" | wc -l)
    chrome --dump-dom "file://$page" >"$work/$name.dom" 2>"$work/$name.log"
    drawn=$(grep -o '<use href="#m[cmb]" class="\(ok\|ot\|om\)[^"]*" x="[0-9.]*" y="[0-9.]*" data-x2=' "$work/$name.dom" | wc -l)
    check "$name: the browser's DOM has every point ($drawn of $rows)" '[ "$drawn" -eq "$rows" ] && [ "$rows" -gt 0 ]'
    check "$name: the DOM has the Pareto table" \
        '[ $(sed -n "/<table id=\"pareto\">/,/<\/table>/p" "$work/$name.dom" | grep -c "<tr><td>") -gt 0 ]'
    check "$name: the DOM has stacked bars" '[ $(grep -o "<rect class=\"seg\"" "$work/$name.dom" | wc -l) -gt 0 ]'
    check "$name: no script error" '! grep -q "Uncaught" "$work/$name.log"'
    chrome --screenshot="$work/$name.png" --window-size=1060,1400 "file://$page" 2>/dev/null
    size=$(wc -c <"$work/$name.png" 2>/dev/null || echo 0)
    check "$name: a screenshot that is not blank ($size bytes; an empty page: $empty)" \
        '[ "$size" -gt 20000 ] && [ "$size" -gt $((10 * empty)) ]'
    check "$name: the PNG is a PNG" '[ "$(head -c 8 "$work/$name.png" | od -An -c | tr -d " ")" = "211PNG\\r\\n032\\n" ]'
done
# Measured in the browser (a script appended to a copy of each page): each
# SVG's texts outside its box (both x views of the scatter), and each bar's
# rendered length, a row of bars by its segments' rendered widths.
cat >"$work/measure.js" <<'JS'
(function () {
  function outside(svg) {
    var box = svg.getBoundingClientRect(), out = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
                          r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5))
        out.push(t.textContent.slice(0, 30));
    });
    return out;
  }
  function lengths(svg) {
    var rows = {};
    svg.querySelectorAll('rect.seg').forEach(function (q) {
      var r = q.getBoundingClientRect(), y = Math.round(r.top);
      rows[y] = (rows[y] || 0) + r.width;
    });
    return Object.keys(rows).map(Number).sort(function (a, b) { return a - b; })
      .map(function (y) { return rows[y].toFixed(2); }).join(' ');
  }
  var sc = document.getElementById('sc'), cut = [];
  document.querySelectorAll('svg').forEach(function (s) { cut = cut.concat(outside(s)); });
  if (sc) { document.getElementById('tok').click(); cut = cut.concat(outside(sc)); }
  document.body.setAttribute('data-cut', cut.length + (cut.length ? ': ' + cut.join(' | ') : ''));
  ['bars-time', 'bars-mem'].forEach(function (id) {
    var s = document.getElementById(id);
    if (s) document.body.setAttribute('data-' + id, lengths(s));
  });
})();
JS
measure() { # PAGE NAME: $work/NAME.measured (the DOM after measure.js)
    sed 's|</body></html>|<script src="measure.js"></script></body></html>|' "$1" >"$work/$2.measure.html"
    chrome --window-size=1060,1400 --dump-dom "file://$work/$2.measure.html" >"$work/$2.measured" 2>/dev/null
}
attr() { sed -n "s/.*<body[^>]*$1=\"\\([^\"]*\\)\".*/\\1/p" "$2"; }
# PAGE CSV COLUMN: the spread (largest / smallest) of the bars' lengths over
# the COLUMN of the 10 best drawable rows
spread() {
    paste -d' ' <(attr "data-$4" "$1" | tr ' ' '\n') \
        <(paste -d' ' <(csv_column "$2" status) <(csv_column "$2" "$3") | awk '$1 != "invalid" { print $2 }' | head -10) |
        awk 'NF == 2 && $2 > 0 { r = $1 / $2; n++; if (n == 1 || r < lo) lo = r; if (r > hi) hi = r }
             END { if (n < 2) print "none"; else printf "%.5f\n", hi / lo }'
}
for name in 02b-70b-8-nodes 02a-7b-one-node; do
    measure "$work/out/$name.html" "$name"
    cut=$(attr data-cut "$work/$name.measured")
    check "$name: every text inside its figure (outside: $cut)" '[ "$cut" = 0 ]'
done
# an MoE sweep: canonical texts with long tails, an uneven named plan, a
# step-time budget at the scatter's right edge; ep_comm_s in every bar
cat >"$work/bars.yaml" <<'YAML'
schema: planeval/v1
name: bars-moe
fidelity: refined
model: { preset: mixtral-8x7b }
cluster: { preset: h100-node, nodes: 4 }
training: { global_batch: 256 }
budgets: { step_time_s: 90 }
plans:
  - { name: ep8-uneven, dp: 16, tp: 1, pp: 2, ep: 8, zero: 1, first_stage_layers: 15 }
sweep:
  tp: [1, 2]
  pp: [1, 2]
  dp: auto
  ep: [1, 2, 4, 8]
  etp: [1]
  zero: [1]
  recompute: [selective, full]
  offload_optimizer: [false, true]
  first_stage_layers: [15]
YAML
"$planeval" run --quiet --html -o "$work/bars" "$work/bars.yaml"
measure "$work/bars/bars-moe.html" bars-moe
cut=$(attr data-cut "$work/bars-moe.measured")
check "bars-moe: every text inside its figure, long bar labels too (outside: $cut)" '[ "$cut" = 0 ]'
time_spread=$(spread "$work/bars-moe.measured" "$work/bars/bars-moe.csv" step_time_s bars-time)
check "bars-moe: the time bars' rendered lengths are in proportion to step_time_s (spread $time_spread)" \
    '[ "$time_spread" != none ] && awk -v x="$time_spread" "BEGIN { exit !(x < 1.003) }"'
mem_spread=$(spread "$work/bars-moe.measured" "$work/bars/bars-moe.csv" mem_total_gib bars-mem)
check "bars-moe: the memory bars' rendered lengths are in proportion to mem_total_gib (spread $mem_spread)" \
    '[ "$mem_spread" != none ] && awk -v x="$mem_spread" "BEGIN { exit !(x < 1.003) }"'
check "bars-moe: the browser draws the MoE plans' ep_comm_s segments" \
    'chrome --dump-dom "file://$work/bars/bars-moe.html" 2>/dev/null | grep -q "<title>ep_comm_s = "'
chrome --screenshot="$work/bars-moe.png" --window-size=1060,2900 "file://$work/bars/bars-moe.html" 2>/dev/null
# S6's error bars (docs/model.md §12): on a refined page, one per time bar,
# from step_time_lo_s to step_time_hi_s: as laid out, each bar's ends over its
# bar's length are 1 − δ− and 1 + δ+ (the h100-sxm preset's 0.07162 and
# 0.0483); a textbook page draws none.
cat >"$work/ci.js" <<'JS'
(function () {
  var s = document.getElementById('bars-time'), box = s.getBoundingClientRect(), rows = {}, out = [];
  s.querySelectorAll('rect.seg').forEach(function (q) {
    var r = q.getBoundingClientRect(), y = Math.round(r.top);
    rows[y] = (rows[y] || 0) + r.width;
  });
  var ys = Object.keys(rows).map(Number).sort(function (a, b) { return a - b; });
  s.querySelectorAll('path.ci').forEach(function (c, i) {
    var r = c.getBoundingClientRect(), len = rows[ys[i]];
    out.push(((r.left - box.left) / len).toFixed(4) + ':' + ((r.right - box.left) / len).toFixed(4));
  });
  document.body.setAttribute('data-ci', out.join(' '));
})();
JS
sed 's|</body></html>|<script src="ci.js"></script></body></html>|' "$work/bars/bars-moe.html" >"$work/ci.html"
chrome --window-size=1060,2900 --dump-dom "file://$work/ci.html" >"$work/ci.measured" 2>/dev/null
ci=$(attr data-ci "$work/ci.measured")
n_ci=$(echo "$ci" | wc -w)
n_bars=$(attr data-bars-time "$work/bars-moe.measured" | wc -w)
check "bars-moe: one error bar per time bar ($n_ci of $n_bars)" '[ "$n_ci" -gt 0 ] && [ "$n_ci" -eq "$n_bars" ]'
ends_ok=$(echo "$ci" | tr ' ' '\n' | awk -F: 'NF == 2 { n++; if ($1 < 0.9234 || $1 > 0.9334 || $2 < 1.0433 || $2 > 1.0533) bad++ }
    END { print (n > 0 && bad == 0) ? "yes" : "no" }')
check "bars-moe: the error bars run from step·(1 − δ−) to step·(1 + δ+) as drawn ($(echo "$ci" | cut -c1-60))" \
    '[ "$ends_ok" = yes ]'
check "a textbook page draws no error bar" '! grep -q "<path class=\"ci\"" "$work/out/02b-70b-8-nodes.html"'
# the script at work: hovering a Pareto point shows its plan; the tokens/s
# switch moves the points (a harness script appended to a copy of a page)
sed 's|</body></html>|<script>var u=document.querySelector("#pts use.pf");u.dispatchEvent(new MouseEvent("mouseover",{bubbles:true}));var x=u.getAttribute("x");document.getElementById("tok").click();document.body.setAttribute("data-moved",String(u.getAttribute("x")!==x));</script></body></html>|' \
    "$work/out/02b-70b-8-nodes.html" >"$work/harness.html"
chrome --dump-dom "file://$work/harness.html" >"$work/harness.dom" 2>"$work/harness.log"
check "hovering a Pareto point shows its plan" \
    'grep -A1 "<div id=\"tip\">#[0-9]* dp[0-9]*-tp" "$work/harness.dom" | grep -q ", Pareto</div>"'
check "tokens/s on the x axis moves the points and switches the axis" \
    'grep -q "data-moved=\"true\"" "$work/harness.dom" && grep -q "<svg id=\"sc\"[^>]*class=\"alt\"" "$work/harness.dom"'
check "the harness raised no script error" '! grep -q "Uncaught" "$work/harness.log"'
finish
