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
  // A hash that is no valid percent-encoding (#search=%9, as one types it)
  // is taken as written: decodeURIComponent would throw URIError and stop
  // the script.
  var hash = location.hash || "";
  try { hash = decodeURIComponent(hash); } catch (e) { /* kept as written */ }
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
