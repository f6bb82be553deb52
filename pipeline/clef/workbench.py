"""The Evaluation Workbench (seed 004, "Evaluation Workbench") as one self-contained HTML page.

The Java GUI's panes, in a browser, without Java or a network:

- **controls**: the outcome measure mode (*Span*: boundaries only, Task 1a; *Span&Class*: the same span
  and the same CUI, Task 1b strict; *Class*: only annotations whose span matched, is the CUI right, Task
  1b relaxed), the match mode (*exact* or *overlap*: any shared character), the display (gold, system or
  both) and *Save outcome measures (CSV)*;
- **statistics pane**: one row per classification (*All disorders*, then each CUI), columns TP, FP, FN,
  precision, recall, F; clicking a cell lists the reports behind its value in the **reports pane**;
- **document pane**: picking a report shows its text with the gold and system annotations; an
  annotation found in only one source under the current modes is highlighted (pink, as the Java GUI) as
  a false negative (gold) or false positive (system); hovering or clicking one shows its attributes in
  the **detail pane** (side, CUI, type, pieces, file and line, status in each mode).

Counting follows eval.pl (``pipeline.clef.rules``): TP and FP are counted on predictions and go to the
prediction's CUI row, FN on gold mentions to the gold's CUI row. So *All disorders* gives eval.pl's
numbers: Span + exact = Task 1a strict, Span + overlap = Task 1a relaxed, Span&Class + exact: recall =
Task 1b strict accuracy, Class + exact: precision = Task 1b relaxed accuracy. In Class mode a mention
counts only when its span matched (an exact or overlapping mention of the other side); it is then a TP
or FP (prediction) or FN (gold) by whether that match has the same CUI. A ratio whose denominator is 0
is undefined and shown as such, never as 0 (precision without predictions, recall without gold mentions;
F = 2 TP / (2 TP + FP + FN) as the project's F, undefined only with nothing counted); a classification
with nothing counted under the current modes is listed apart, after the others, not among them as zeros.

The fragment is a deep link, replayed as clicks on the controls when the page opens:
``#outcome=span|spanclass|class&match=exact|overlap&display=gold|system|both&cell=ROW:COLUMN&report=R``
(``ROW`` ``all`` or a CUI as shown, ``COLUMN`` one of tp fp fn p r f), and ``&save=1`` presses Save.

Safety: a Content Security Policy (``default-src 'none'``, the one script allowed by its hash); every
string from the inputs (report names, texts, CUIs, types, file names) reaches the page only inside the
JSON data block, with ``<``, ``>``, ``&`` escaped, and the script puts them on screen with
``textContent`` and ``createTextNode``, never as markup.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.errors import InputError

TEXT_SUFFIX = ".txt"


def read_texts(directory: str | Path) -> dict[str, str]:
    """Every file of the texts directory by name (UTF-8; ``REPORT`` or ``REPORT.txt`` per report)."""
    directory = Path(directory)
    texts: dict[str, str] = {}
    for path in sorted(directory.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        data = path.read_bytes()
        try:
            texts[path.name] = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            raise InputError(str(path), line, f"expected UTF-8 text: {error.reason}") from None
    if not texts:
        raise InputError(str(directory), 0, "no text files: expected one text file per report")
    return texts


def render_workbench(matches: pa.Table, texts: dict[str, str], title: str, signature: str) -> str:
    """The Workbench page of a ``CLEF_MATCHES`` table and the reports' texts, as one HTML string.

    Raises :class:`InputError` for a report without a text (``REPORT`` or ``REPORT.txt``) and for a
    mention whose offsets reach beyond its report's text (at the mention's file and line).
    """
    data = _data(matches, texts)
    payload = _script_json(data)
    script_hash = base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
    policy = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    e = html.escape
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{e(policy)}">\n',
            f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n",
            f'<header><h1>Evaluation Workbench</h1><p class="note">{e(title)}</p>'
            f'<p class="note">{e(signature)}</p></header>\n',
            _CONTROLS,
            '<main><section id="statistics"><h2>Statistics</h2><table id="stats"></table></section>\n'
            '<section id="reports"><h2>Reports</h2><p id="cell-label">Click a cell of the statistics.</p>'
            '<ul id="report-list"></ul></section>\n'
            '<section id="document"><h2 id="doc-title">Document</h2>'
            '<p class="legend"><span class="ann gold">gold</span> <span class="ann system">system</span> '
            '<span class="ann gold system">both</span> <span class="ann miss">in one source only '
            "(FN or FP)</span></p>"
            '<pre id="doc-text"></pre></section>\n'
            '<section id="detail"><h2>Detail</h2><dl id="detail-list"></dl>'
            '<pre id="csv-preview"></pre></section></main>\n',
            f'<script type="application/json" id="data">{payload}</script>\n',
            f"<script>{_SCRIPT}</script>\n</body>\n</html>\n",
        ]
    )


def _data(matches: pa.Table, texts: dict[str, str]) -> dict[str, Any]:
    frame = matches.drop_columns(["pieces"]).to_pandas()
    reports = sorted(set(frame["report"]))
    report_text: list[str] = []
    for report in reports:
        text = texts.get(report, texts.get(report + TEXT_SUFFIX))
        if text is None:
            raise InputError(
                str(report),
                0,
                f"no text for this report: expected a file {report!r} or {report + TEXT_SUFFIX!r} in --texts",
            )
        report_text.append(text)
    report_index = {r: i for i, r in enumerate(reports)}
    lengths = np.array([len(t) for t in report_text], dtype=np.int64)
    rep = frame["report"].map(report_index).to_numpy(dtype=np.int64)
    beyond = frame["end"].to_numpy() > lengths[rep]
    if beyond.any():
        row = int(np.flatnonzero(beyond)[0])
        raise InputError(
            str(frame["file"].iloc[row]),
            int(frame["line"].iloc[row]),
            f"offset {int(frame['end'].iloc[row])} is beyond the text of report "
            f"{frame['report'].iloc[row]!r} "
            f"({int(lengths[rep[row]])} characters)",
        )
    strings, codes = np.unique(
        np.concatenate([frame[c].to_numpy(dtype=object) for c in ("cui", "cui_text", "type", "file")]),
        return_inverse=True,
    )
    codes = codes.reshape(4, len(frame))
    pieces = matches.column("pieces").combine_chunks()
    flat = pc.list_flatten(pieces)
    bounds = np.column_stack(
        [flat.field("start").to_numpy(zero_copy_only=False), flat.field("end").to_numpy(zero_copy_only=False)]
    )
    flags = (
        frame["exact"].to_numpy().astype(np.int64)
        | frame["cui_match"].to_numpy().astype(np.int64) << 1
        | frame["overlap"].to_numpy().astype(np.int64) << 2
        | frame["overlap_cui"].to_numpy().astype(np.int64) << 3
    )
    # Column-wise, as lists numpy writes out: the script rebuilds one record per mention.
    return {
        "reports": reports,
        "texts": report_text,
        "strings": [str(x) for x in strings],
        "system": (frame["side"].to_numpy(dtype=object) == "system").astype(np.int64).tolist(),
        "report": rep.tolist(),
        "cui": codes[0].tolist(),
        "cuiText": codes[1].tolist(),
        "type": codes[2].tolist(),
        "file": codes[3].tolist(),
        "line": frame["line"].to_numpy(dtype=np.int64).tolist(),
        "flags": flags.tolist(),
        "pieceCounts": pc.list_value_length(pieces).to_numpy(zero_copy_only=False).astype(np.int64).tolist(),
        "pieces": bounds.reshape(-1).astype(np.int64).tolist(),
    }


def _script_json(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_CONTROLS = """<nav id="controls">
<fieldset><legend>Outcome</legend>
<label><input type="radio" name="outcome" id="outcome-span" value="span" checked> Span</label>
<label><input type="radio" name="outcome" id="outcome-spanclass" value="spanclass"> Span&amp;Class</label>
<label><input type="radio" name="outcome" id="outcome-class" value="class"> Class</label></fieldset>
<fieldset><legend>MatchMode</legend>
<label><input type="radio" name="match" id="match-exact" value="exact" checked> exact</label>
<label><input type="radio" name="match" id="match-overlap" value="overlap"> overlap</label></fieldset>
<fieldset><legend>Display</legend>
<label><input type="radio" name="display" id="display-gold" value="gold"> gold</label>
<label><input type="radio" name="display" id="display-system" value="system"> system</label>
<label><input type="radio" name="display" id="display-both" value="both" checked> both</label></fieldset>
<button type="button" id="save">Save outcome measures (CSV)</button>
</nav>
"""

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 1em;color:#222}
header h1{font-size:1.3em;margin:.4em 0}.note{color:#555;font-size:.85em;margin:.1em 0;word-break:break-all}
nav#controls{display:flex;gap:1em;align-items:flex-end;flex-wrap:wrap;margin:.5em 0}
fieldset{border:1px solid #bbb;padding:.2em .6em}
main{display:grid;grid-template-columns:minmax(320px,1fr) minmax(200px,.5fr);gap:1em}
section{border:1px solid #ddd;padding:.4em .8em;overflow:auto}
section#statistics{grid-column:1}section#reports{grid-column:2}
section#document{grid-column:1}section#detail{grid-column:2}
h2{font-size:1.05em;margin:.2em 0 .4em}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.15em .5em;text-align:right}
th:first-child,td:first-child{text-align:left}td.cell{cursor:pointer}td.cell:hover{background:#eef}
td.selected{background:#cde;outline:2px solid #58a}td.undefined{color:#777;font-style:italic}
tr.group th{text-align:left;font-weight:normal;font-style:italic;background:#f4f4f4}tr.nothing td{color:#777}
ul#report-list{list-style:none;padding:0;margin:0}ul#report-list button{margin:.1em 0;cursor:pointer}
button.current{font-weight:bold}
pre#doc-text{white-space:pre-wrap;font:13px/1.7 ui-monospace,monospace;margin:0}
.ann{border-bottom:2px solid transparent}.ann.gold{background:#fff2b3}.ann.system{background:#cfe6ff}
.ann.gold.system{background:#d6f5d0}
.ann.miss,.ann.gold.miss,.ann.system.miss,.ann.gold.system.miss{background:#ffc0d0}
.ann{cursor:help}dl#detail-list dt{font-weight:bold}dl#detail-list dd{margin:0 0 .3em 1em}
pre#csv-preview{font-size:.8em;white-space:pre-wrap}
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var S = data.strings;
  // One record per mention: [system?, report, cui, cui as written, type, file, line, flags, pieces, index].
  data.mentions = [];
  for (var i = 0, at = 0; i < data.report.length; i++) {
    var width = 2 * data.pieceCounts[i];
    data.mentions.push([data.system[i], data.report[i], data.cui[i], data.cuiText[i], data.type[i],
                        data.file[i], data.line[i], data.flags[i], data.pieces.slice(at, at + width), i]);
    at += width;
  }
  var state = {outcome: "span", match: "exact", display: "both", cell: null, report: null};
  var COLUMNS = [["tp", "TP"], ["fp", "FP"], ["fn", "FN"], ["p", "Precision"], ["r", "Recall"], ["f", "F"]];
  var EXACT = 1, CUI = 2, OVERLAP = 4, OVERLAP_CUI = 8;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  // A mention's outcome in the current modes: "tp", "fp", "fn", or null when Class mode leaves it out.
  function outcome(m) {
    var flags = m[7], system = m[0] === 1;
    var spanHit = state.match === "exact" ? (flags & EXACT) !== 0 : (flags & OVERLAP) !== 0;
    var classHit = state.match === "exact" ? (flags & CUI) !== 0 : (flags & OVERLAP_CUI) !== 0;
    var hit;
    if (state.outcome === "span") { hit = spanHit; }
    else if (state.outcome === "spanclass") { hit = classHit; }
    else { if (!spanHit) { return null; } hit = classHit; }
    if (system) { return hit ? "tp" : "fp"; }
    return hit ? null : "fn";
  }

  // A ratio whose denominator is 0 is undefined (null), not 0.
  function ratio(a, b) { return b === 0 ? null : a / b; }
  function measures(c) {
    return {tp: c.tp, fp: c.fp, fn: c.fn, p: ratio(c.tp, c.tp + c.fp), r: ratio(c.tp, c.tp + c.fn),
            f: ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn)};
  }
  function counted(row) { return row.tp + row.fp + row.fn > 0; }

  // Rows: "all" then each CUI (as compared, lower-case), with counts and the reports behind each count.
  function statistics() {
    var rows = {all: {tp: 0, fp: 0, fn: 0, reports: {tp: {}, fp: {}, fn: {}}}};
    data.mentions.forEach(function (m) {
      var o = outcome(m);
      var cui = S[m[2]];
      if (!rows[cui]) { rows[cui] = {tp: 0, fp: 0, fn: 0, reports: {tp: {}, fp: {}, fn: {}}}; }
      if (o === null) { return; }
      [rows.all, rows[cui]].forEach(function (row) {
        row[o] += 1;
        row.reports[o][m[1]] = (row.reports[o][m[1]] || 0) + 1;
      });
    });
    return rows;
  }

  // "all", the classifications with something counted, then those with nothing counted.
  function rowNames(rows) {
    var names = Object.keys(rows).filter(function (k) { return k !== "all"; }).sort();
    return ["all"].concat(names.filter(function (k) { return counted(rows[k]); }),
                          names.filter(function (k) { return !counted(rows[k]); }));
  }

  function label(name) { return name === "all" ? "All disorders" : name; }
  function shown(column, value) {
    if (value === null) { return "undefined"; }
    return column.length === 1 ? value.toFixed(3) : String(value);
  }

  function drawStatistics() {
    var rows = statistics();
    var table = document.getElementById("stats");
    clear(table);
    var head = el("tr");
    head.appendChild(el("th", "Classification"));
    COLUMNS.forEach(function (c) { head.appendChild(el("th", c[1])); });
    table.appendChild(head);
    var apart = false;
    rowNames(rows).forEach(function (name) {
      var values = measures(rows[name]);
      if (name !== "all" && !counted(rows[name]) && !apart) {
        apart = true;
        var group = el("tr", null, "group");
        var th = el("th", "Nothing counted under these modes (no measure defined):");
        th.colSpan = COLUMNS.length + 1;
        group.appendChild(th);
        table.appendChild(group);
      }
      var tr = el("tr", null, counted(rows[name]) ? null : "nothing");
      tr.appendChild(el("td", label(name)));
      COLUMNS.forEach(function (c) {
        var td = el("td", shown(c[0], values[c[0]]), values[c[0]] === null ? "cell undefined" : "cell");
        td.id = "cell-" + name + "-" + c[0];
        td.dataset.row = name;
        td.dataset.column = c[0];
        if (state.cell && state.cell.row === name && state.cell.column === c[0]) {
          td.classList.add("selected");
        }
        td.addEventListener("click", function () { state.cell = {row: name, column: c[0]}; drawAll(); });
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    return rows;
  }

  function drawReports(rows) {
    var list = document.getElementById("report-list");
    var caption = document.getElementById("cell-label");
    clear(list);
    if (!state.cell || !rows[state.cell.row]) {
      caption.textContent = "Click a cell of the statistics.";
      return;
    }
    var row = rows[state.cell.row], column = state.cell.column;
    var kinds = column.length === 2 ? [column] : ["tp", "fp", "fn"];
    var behind = {};
    kinds.forEach(function (k) {
      Object.keys(row.reports[k]).forEach(function (r) { behind[r] = (behind[r] || 0) + row.reports[k][r]; });
    });
    var names = Object.keys(behind).map(Number).sort(function (a, b) { return a - b; });
    caption.textContent =
      label(state.cell.row) + ", " + column.toUpperCase() + ": " + names.length + " report(s)";
    names.forEach(function (r) {
      var item = el("li");
      var button = el("button", data.reports[r] + " (" + behind[r] + ")");
      button.type = "button";
      button.id = "report-" + r;
      button.dataset.report = data.reports[r];
      if (state.report === r) { button.classList.add("current"); }
      button.addEventListener("click", function () { state.report = r; drawAll(); });
      button.addEventListener("mouseenter", function () { state.report = r; drawDocument(); });
      item.appendChild(button);
      list.appendChild(item);
    });
  }

  function describe(m) {
    var pieces = [];
    for (var i = 0; i < m[8].length; i += 2) { pieces.push("[" + m[8][i] + ", " + m[8][i + 1] + ")"); }
    var flags = m[7];
    return [
      ["Annotator", m[0] === 1 ? "system" : "gold"],
      ["CUI", S[m[3]]],
      ["Type", S[m[4]]],
      ["Pieces", pieces.join(" ")],
      ["Source", S[m[5]] + ":" + m[6]],
      ["Outcome", (outcome(m) || "not counted").toUpperCase()],
      ["Exact span", (flags & EXACT) ? "yes" : "no"],
      ["Exact span and CUI", (flags & CUI) ? "yes" : "no"],
      ["Overlapping span", (flags & OVERLAP) ? "yes" : "no"],
      ["Overlapping span and CUI", (flags & OVERLAP_CUI) ? "yes" : "no"]
    ];
  }

  function showDetail(ms) {
    var list = document.getElementById("detail-list");
    clear(list);
    ms.forEach(function (m) {
      describe(m).forEach(function (pair) {
        list.appendChild(el("dt", pair[0]));
        list.appendChild(el("dd", pair[1]));
      });
    });
  }

  function drawDocument() {
    var pre = document.getElementById("doc-text");
    var title = document.getElementById("doc-title");
    clear(pre);
    if (state.report === null) { title.textContent = "Document"; return; }
    var r = state.report, text = data.texts[r];
    title.textContent = "Document " + data.reports[r];
    var shownMentions = data.mentions.filter(function (m) {
      if (m[1] !== r) { return false; }
      return state.display === "both" || (state.display === "system") === (m[0] === 1);
    });
    // Cut the text at every piece boundary; each segment knows the mentions covering it.
    var cuts = [0, text.length];
    shownMentions.forEach(function (m) { for (var i = 0; i < m[8].length; i++) { cuts.push(m[8][i]); } });
    cuts.sort(function (a, b) { return a - b; });
    cuts = cuts.filter(function (v, i, a) { return i === 0 || a[i - 1] !== v; });
    for (var c = 0; c + 1 < cuts.length; c++) {
      var a = cuts[c], b = cuts[c + 1];
      var covering = shownMentions.filter(function (m) {
        for (var i = 0; i < m[8].length; i += 2) {
          if (m[8][i] <= a && b <= m[8][i + 1] && a < b) { return true; }
        }
        return false;
      });
      var piece = text.slice(a, b);
      if (covering.length === 0) { pre.appendChild(document.createTextNode(piece)); continue; }
      var span = el("span", piece, "ann");
      var miss = false;
      covering.forEach(function (m) {
        span.classList.add(m[0] === 1 ? "system" : "gold");
        var o = outcome(m);
        if (o === "fp" || o === "fn") { miss = true; }
      });
      if (miss) { span.classList.add("miss"); }
      span.dataset.mentions = covering.map(function (m) { return m[9]; }).join(" ");
      span.title = covering.map(function (m) {
        return describe(m).map(function (p) { return p[0] + ": " + p[1]; }).join("; ");
      }).join("\n");
      (function (ms) {
        span.addEventListener("mouseenter", function () { showDetail(ms); });
        span.addEventListener("click", function () { showDetail(ms); });
      })(covering);
      pre.appendChild(span);
    }
  }

  function csv() {
    var rows = statistics();
    var quote = function (v) {
      v = String(v);
      return /[",\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
    };
    var lines = ["outcome,match,classification,TP,FP,FN,precision,recall,F"];
    rowNames(rows).forEach(function (name) {
      var m = measures(rows[name]);
      // An undefined measure is an empty field.
      var fixed = function (v) { return v === null ? "" : v.toFixed(3); };
      lines.push([state.outcome, state.match, label(name), m.tp, m.fp, m.fn,
                  fixed(m.p), fixed(m.r), fixed(m.f)].map(quote).join(","));
    });
    return lines.join("\n") + "\n";
  }

  function save() {
    var text = csv();
    document.getElementById("csv-preview").textContent = text;
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], {type: "text/csv"}));
    link.download = "outcome-measures-" + state.outcome + "-" + state.match + ".csv";
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
  }

  function drawAll() {
    var rows = drawStatistics();
    drawReports(rows);
    drawDocument();
  }

  ["outcome", "match", "display"].forEach(function (name) {
    Array.prototype.forEach.call(document.querySelectorAll('input[name="' + name + '"]'), function (input) {
      input.addEventListener("change", function () {
        if (input.checked) { state[name] = input.value; drawAll(); }
      });
      if (input.checked) { state[name] = input.value; }
    });
  });
  document.getElementById("save").addEventListener("click", save);
  drawAll();

  // The fragment, replayed as clicks on the controls (a deep link; see the module's doc).
  var params = new URLSearchParams(window.location.hash.slice(1));
  function press(id) { var node = document.getElementById(id); if (node) { node.click(); } }
  ["outcome", "match", "display"].forEach(function (name) {
    if (params.get(name)) { press(name + "-" + params.get(name)); }
  });
  if (params.get("cell")) {
    var at = params.get("cell").lastIndexOf(":");
    press("cell-" + params.get("cell").slice(0, at) + "-" + params.get("cell").slice(at + 1));
  }
  if (params.get("report") !== null) {
    var r = data.reports.indexOf(params.get("report"));
    if (r >= 0) { press("report-" + r); }
  }
  if (params.get("save") === "1") { press("save"); }
})();
"""
