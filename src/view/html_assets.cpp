#include "view/html_assets.h"

namespace reshardctl {

const std::string_view kPageStyle = R"CSS(
:root { --ink: #1f2a36; --muted: #5b6773; --line: #d9dee4; --panel: #f7f9fb; --hit: #ffe066; --use: #d6ecff; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); }
header { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid var(--line);
         padding: 10px 18px; display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; }
header h1 { font-size: 17px; margin: 0; font-weight: 600; }
header .stats { color: var(--muted); }
header input { font: 13px ui-monospace, monospace; padding: 4px 8px; width: 16em; border: 1px solid #aab4bf; border-radius: 4px; }
header button { font-size: 12px; padding: 3px 8px; }
#search-status { color: var(--muted); font-size: 13px; }
main { padding: 4px 18px 40px; }
h2 { font-size: 15px; margin: 22px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 3px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { border-top: 1px solid var(--line); font-weight: 600; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
code, pre, .mono { font: 12.5px/1.5 ui-monospace, "DejaVu Sans Mono", monospace; }
.note { color: var(--muted); font-size: 13px; }
.graph-box { overflow: auto; max-height: 55vh; border: 1px solid var(--line); background: #fff; }
.graph-box svg { display: block; margin: 0 auto; }
svg.graph .edge { fill: none; stroke: #8d99a6; stroke-width: 1.2; marker-end: url(#arrow); }
svg.graph .node { cursor: pointer; }
svg.graph .node rect { stroke-width: 1.6; }
svg.graph .node.reshard rect { stroke: #7a1a10; stroke-width: 2.4; }
svg.graph .node.cross rect { stroke-dasharray: 5 3; }
svg.graph .node.hit rect { stroke: #e0a800; stroke-width: 4; }
svg.graph text { font: 11px ui-monospace, "DejaVu Sans Mono", monospace; fill: #1f2a36; }
svg.graph .op-detail { fill: #44505c; }
svg.graph text.light { fill: #ffffff; }
.reshard-card { border-left: 8px solid var(--heat); background: var(--panel); padding: 6px 10px; margin: 8px 0; }
.reshard-card .head { font-weight: 600; }
.reshard-card .cost { float: right; font-weight: 600; }
.reshard-card table { margin-top: 4px; }
.ops { border-top: 1px solid var(--line); }
.op { border-bottom: 1px solid #eef1f4; }
.op > summary { list-style: none; cursor: pointer; padding: 1px 6px; display: flex; gap: 10px; white-space: pre; }
.op > summary::-webkit-details-marker { display: none; }
.op > summary::before { content: "\25B8"; color: #9aa5b1; width: 0.8em; flex: none; }
.op[open] > summary::before { content: "\25BE"; }
.op .ln { color: #9aa5b1; min-width: 3.5em; text-align: right; flex: none; }
.op code, .region code { padding-left: calc(var(--d, 0) * 2ch); }
.region { padding: 1px 6px 1px calc(6px + 0.8em + 10px + 3.5em + 10px); color: var(--muted); }
.op.reshard { background: color-mix(in srgb, var(--heat) 45%, #ffffff); }
.op.reshard > summary { font-weight: 600; box-shadow: inset 4px 0 0 #7a1a10; }
.op.hit-def > summary { outline: 2px solid #e0a800; background: var(--hit); }
.op.hit-use > summary { background: var(--use); }
.attrs { padding: 4px 6px 8px 5.5em; }
.attrs th { white-space: nowrap; }
.attrs td { word-break: break-all; }
.compare { width: 100%; table-layout: fixed; }
.compare td { white-space: pre; overflow: hidden; text-overflow: ellipsis; border-bottom: 1px solid #eef1f4; padding: 1px 6px; }
.compare tr.added td.after { background: #dff5e1; }
.compare tr.removed td.before { background: #fbe0e0; }
.compare tr.changed td { background: #fff6d6; }
.compare td.reshard { font-weight: 600; box-shadow: inset 4px 0 0 #7a1a10; }
footer { color: var(--muted); font-size: 12px; padding: 0 18px 24px; }
)CSS";

const std::string_view kPageScript = R"JS(
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("#ops .op"));
  var definedBy = new Map(), usedBy = new Map(), nodesFor = new Map();
  function words(text) { return (text || "").split(" ").filter(function (w) { return w.length > 0; }); }
  rows.forEach(function (row) {
    words(row.dataset.def).forEach(function (name) { definedBy.set(name, row); });
    words(row.dataset.use).forEach(function (name) {
      if (!usedBy.has(name)) usedBy.set(name, []);
      usedBy.get(name).push(row);
    });
  });
  document.querySelectorAll("svg.graph .node").forEach(function (node) {
    nodesFor.set(node.dataset.op, node);
    node.addEventListener("click", function () { openRow(document.getElementById("op" + node.dataset.op)); });
  });
  var input = document.getElementById("search"), status = document.getElementById("search-status");

  function openRow(row) {
    if (!row) return;
    row.open = true;
    row.scrollIntoView({ block: "center" });
  }
  function mark(row, cls) {
    row.classList.add(cls);
    var node = nodesFor.get(row.id.slice(2));
    if (node) node.classList.add("hit");
  }
  function clear() {
    document.querySelectorAll(".hit-def, .hit-use, .hit").forEach(function (e) {
      e.classList.remove("hit-def", "hit-use", "hit");
    });
  }
  function search(query, scroll) {
    clear();
    query = query.trim();
    if (!query) { status.textContent = ""; return; }
    if (query.charAt(0) !== "%") query = "%" + query;
    var def = definedBy.get(query), uses = usedBy.get(query) || [];
    if (!def && uses.length === 0) { status.textContent = "no value " + query + " in the listing"; return; }
    if (def) mark(def, "hit-def");
    uses.forEach(function (row) { mark(row, "hit-use"); });
    status.textContent = query + ": " + (def ? "defined at line " + def.dataset.line : "defined outside the listing") +
        ", " + uses.length + " use" + (uses.length === 1 ? "" : "s");
    if (scroll) (def || uses[0]).scrollIntoView({ block: "center" });
  }
  input.addEventListener("input", function () { search(input.value, true); });
  document.getElementById("expand").addEventListener("click", function () { rows.forEach(function (r) { r.open = true; }); });
  document.getElementById("collapse").addEventListener("click", function () { rows.forEach(function (r) { r.open = false; }); });
  var hash = decodeURIComponent(location.hash || "");
  // A search in the address (page.html#search=%9) marks without scrolling,
  // so the page opens at its summary (and headless screenshots stay whole).
  if (hash.indexOf("#search=") === 0) { input.value = hash.slice(8); search(input.value, false); }

  // What a test reads back from the rendered page: the rows drawn and the
  // reshard rows whose style really differs from a plain op's.
  var plain = rows.filter(function (r) { return !r.classList.contains("reshard"); })[0];
  var plainBackground = plain ? getComputedStyle(plain).backgroundColor : "";
  var highlighted = rows.filter(function (r) {
    return r.classList.contains("reshard") && getComputedStyle(r).backgroundColor !== plainBackground;
  }).length;
  document.body.dataset.renderedOps = String(rows.length);
  document.body.dataset.highlightedReshards = String(highlighted);
  document.body.dataset.graphNodes = String(nodesFor.size);
  document.body.dataset.ready = "1";
})();
)JS";

}  // namespace reshardctl
