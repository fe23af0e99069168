// The atlas' enhancements of its index: sorting by a column, filtering by
// status and literature, and a search by code in any spelling, pre-filled
// from the address (index.html?q=.137 or #q=.137; also status=, lit= and
// sort=COLUMN or sort=-COLUMN). The table reads
// without them. Nothing is loaded from elsewhere.
"use strict";

// The canonical spelling of an octal code, as src/code.rs prints it
// (0.137, 4.0u, 0.1F), or null when the text is no code. Spaces around it
// are dropped (the Rust parser refuses them; a search box need not).
function octalCanonical(text) {
  var s = String(text).trim();
  if (s === "") return null;
  if (s.toLowerCase() === "grundy") return "4.0u";
  var unequal = false;
  var last = s.charAt(s.length - 1);
  if (s.length > 1 && (last === "u" || last === "U")) {
    unequal = true;
    s = s.slice(0, -1);
  }
  if (!/^[0-9A-Fa-f]*\.[0-9A-Fa-f]*$/.test(s)) return null;
  var point = s.indexOf(".");
  var before = s.slice(0, point).replace(/^0+/, "");
  var after = s.slice(point + 1).toUpperCase();
  if (after === "") return null;
  var lead = { "": 0, "4": 4, "8": 8, "c": 12, "C": 12 }[before];
  if (lead === undefined) return null;
  var digits = after.replace(/0+$/, "");
  if (unequal && (lead & 4) === 0 && !/[4-7C-F]/.test(digits)) return null;
  return "048C".charAt(lead / 4) + "." + (digits === "" ? "0" : digits) + (unequal ? "u" : "");
}

(function () {
  var table = document.getElementById("classes");
  var form = document.getElementById("controls");
  if (!table || !form) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var q = document.getElementById("q");
  var status = document.getElementById("status");
  var lit = document.getElementById("lit");
  var shown = document.getElementById("shown");
  form.hidden = false;

  function apply() {
    var text = q.value.trim();
    var want = text === "" ? "" : octalCanonical(text);
    var n = 0;
    rows.forEach(function (tr) {
      var ok = (!status.value || tr.getAttribute("data-status") === status.value) &&
        (!lit.value || tr.getAttribute("data-lit") === lit.value) &&
        (want === "" || (want !== null &&
          (" " + tr.getAttribute("data-codes") + " ").indexOf(" " + want + " ") >= 0));
      tr.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = want === null
      ? "“" + text + "” is not an octal code"
      : n + " of " + rows.length + " classes" + (want ? " (" + want + ")" : "");
  }

  // The address: ?q=…&status=…&lit=… or the same after #.
  var params = new URLSearchParams((location.search || location.hash).slice(1));
  if (params.get("q") !== null) q.value = params.get("q");
  [[status, "status"], [lit, "lit"]].forEach(function (p) {
    var v = params.get(p[1]);
    if (v !== null && Array.prototype.some.call(p[0].options, function (o) { return o.value === v; })) {
      p[0].value = v;
    }
  });

  // Sorting: numbers by their plain value (data-v), empty cells last.
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  heads.forEach(function (th, col) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var numeric = th.getAttribute("data-type") === "n";
      var key = function (tr) {
        var td = tr.cells[col];
        var v = td.hasAttribute("data-v") ? td.getAttribute("data-v") : td.textContent;
        return numeric ? (v === "" ? null : Number(v)) : v;
      };
      var order = rows.map(function (tr, i) { return [key(tr), i, tr]; });
      order.sort(function (a, b) {
        if (a[0] === null || b[0] === null) {
          return a[0] === b[0] ? a[1] - b[1] : (a[0] === null ? 1 : -1);
        }
        var c = numeric ? a[0] - b[0] : (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
        return (up ? c : -c) || a[1] - b[1];
      });
      order.forEach(function (o) { body.appendChild(o[2]); });
    });
  });

  // ?sort=period sorts by that column, ?sort=-period the other way.
  var by = params.get("sort");
  if (by) {
    var desc = by.charAt(0) === "-";
    var name = desc ? by.slice(1) : by;
    heads.forEach(function (th) {
      if (th.textContent === name) {
        th.firstChild.click();
        if (desc) th.firstChild.click();
      }
    });
  }

  q.addEventListener("input", apply);
  status.addEventListener("change", apply);
  lit.addEventListener("change", apply);
  apply();
})();
