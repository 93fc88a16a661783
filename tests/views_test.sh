#!/usr/bin/env bash
# Checks of print's views with outside tools, run by ctest (tests/views_tests.cmake).
# Each mode exits 77 (ctest's SKIP_RETURN_CODE) when its tool is not installed.
#   views_test.sh dot TOOL FILE...           every FILE's --emit=dot is valid for `dot -Tsvg`,
#                                             which draws every op node
#   views_test.sh browser TOOL BEFORE AFTER  the --compare page of AFTER, loaded in headless
#                                             Chromium: its script ran, the ops and the
#                                             highlighted reshards are rendered, a search
#                                             from the URL found %9, a screenshot is taken
set -u
mode=$1 tool=$2
shift 2
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check_dot() {
  command -v dot >/dev/null || { echo "graphviz (dot) is not installed: skipped"; exit 77; }
  for file in "$@"; do
    "$tool" print --emit=dot "$file" -o "$work/g.dot" || fail "print --emit=dot $file"
    dot -Tsvg "$work/g.dot" -o "$work/g.svg" 2>"$work/dot.err" || { cat "$work/dot.err"; fail "dot -Tsvg rejected $file"; }
    [ ! -s "$work/dot.err" ] || { cat "$work/dot.err"; fail "dot warned on $file"; }
    nodes=$(grep -cE '^  op[0-9]+ \[' "$work/g.dot")
    drawn=$(grep -cE '<title>op[0-9]+</title>' "$work/g.svg")
    [ "$nodes" -gt 0 ] && [ "$nodes" -eq "$drawn" ] || fail "$file: $nodes op nodes, $drawn drawn"
    echo "ok $file: $drawn ops drawn"
  done
}

find_browser() {
  for name in chromium chromium-browser google-chrome; do
    command -v "$name" >/dev/null && { echo "$name"; return; }
  done
}

check_browser() {
  local before=$1 after=$2 browser
  browser=$(find_browser)
  [ -n "$browser" ] || { echo "no Chromium installed: skipped"; exit 77; }
  "$tool" print --emit=html "$after" --compare "$before" -o "$work/page.html" || fail "print --emit=html"
  local flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
               --disable-component-update --disable-sync --user-data-dir="$work/profile")
  local url="file://$work/page.html#search=%259"
  timeout 60 "$browser" "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/browser.err" ||
    { tail -5 "$work/browser.err"; fail "$browser --dump-dom"; }
  grep -q 'data-ready="1"' "$work/dom.html" || fail "the page's script did not run"
  local ops reshards
  ops=$("$tool" print --brief "$after" | grep -cvE '^ *(then|else|body.*|region.*):$')
  reshards=$("$tool" print --brief "$after" | grep -c ' = dist_op.reshard ')
  for expected in "data-rendered-ops=\"$ops\"" "data-highlighted-reshards=\"$reshards\"" "data-graph-nodes=\"$ops\""; do
    grep -q "$expected" "$work/dom.html" || { grep -o '<body[^>]*>' "$work/dom.html"; fail "rendered page lacks $expected"; }
  done
  grep -qE '<details class="op reshard hit-def"[^>]* id="op9"' "$work/dom.html" || fail "the search for %9 marked no row"
  grep -q '<span id="search-status">%9: defined at line 11, 1 use</span>' "$work/dom.html" || fail "no search status"
  # As one types it, unencoded: %9 is no percent-escape, so it is searched as written.
  timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$work/page.html#search=%9" >"$work/raw.html" \
      2>>"$work/browser.err" || { tail -5 "$work/browser.err"; fail "$browser --dump-dom #search=%9"; }
  grep -q 'data-ready="1"' "$work/raw.html" || fail "#search=%9 stopped the page's script (URIError)"
  grep -q '<span id="search-status">%9: defined at line 11, 1 use</span>' "$work/raw.html" ||
    fail "#search=%9 searched nothing"
  timeout 60 "$browser" "${flags[@]}" --screenshot="$work/page.png" --window-size=1200,900 "$url" \
      >/dev/null 2>>"$work/browser.err" || { tail -5 "$work/browser.err"; fail "$browser --screenshot"; }
  # A PNG of the window's size: signature, then IHDR's width and height.
  [ "$(head -c 8 "$work/page.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
  [ "$(od -An -tu1 -j16 -N8 "$work/page.png" | tr -s ' ')" = " 0 0 4 176 0 0 3 132" ] || fail "the screenshot is not 1200x900"
  [ "$(stat -c %s "$work/page.png")" -gt 20000 ] || fail "the screenshot is nearly empty"
  echo "ok: $ops ops, $reshards highlighted reshards rendered by $browser; search and screenshot work"
}

case $mode in
  dot) check_dot "$@" ;;
  browser) check_browser "$@" ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
