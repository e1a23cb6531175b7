#!/usr/bin/env bash
# test_html_browser.sh PLANEVAL SOURCE_DIR WORKDIR — the HTML report in a
# real browser: headless Chromium renders bundled scenarios' pages to the
# DOM (--dump-dom: the points, the Pareto table and the stacked bars are
# there after the script ran, and the script raised no error) and to a PNG
# screenshot that is not blank (much larger than the screenshot of an empty
# page). Skips (77) where Chromium is not installed.
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
