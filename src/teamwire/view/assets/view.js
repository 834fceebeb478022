// teamwire view: draws the session embedded in #tw-data, only the rows in sight.
// Every text from the session goes into the page with textContent or as an attribute
// value, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("tw-data").textContent);
  var G = data.geometry, rows = data.rows, lanes = data.lanes, kinds = data.kinds;
  var N = rows.length, L = lanes.length;
  var SVG = "http://www.w3.org/2000/svg";
  var GAP_CARD = (G.row - G.card) / 2, TOP = 10;

  // -- indexes -------------------------------------------------------------------------
  var posOf = lanes.map(function () { return []; });
  rows.forEach(function (r, p) { posOf[r.l][r.i] = p; });
  // Vector clocks: vec[p*L+m] is the highest index of lane m known to precede row p.
  var vec = N * L <= 40000000 ? new Int32Array(N * L) : null;
  if (vec) {
    var last = new Int32Array(L).fill(-1);
    for (var p = 0; p < N; p++) {
      var r = rows[p], base = p * L;
      if (last[r.l] >= 0) vec.copyWithin(base, last[r.l] * L, last[r.l] * L + L);
      else vec.fill(-1, base, base + L);
      vec[base + r.l] = r.i;
      var d = r.vc || [];
      for (var k = 0; k < d.length; k += 2) vec[base + d[k]] = d[k + 1];
      last[r.l] = p;
    }
  }
  function precedes(a, b) {
    if (!vec) return b === a + 1 ? !rows[b].u : false;
    return vec[b * L + rows[a].l] >= rows[a].i;
  }
  var pins = new Map(), loose = [];
  data.findings.forEach(function (f) {
    if (f[0] < 0) { loose.push(f); return; }
    if (!pins.has(f[0])) pins.set(f[0], []);
    pins.get(f[0]).push(f);
  });
  var RANK = { error: 0, warning: 1, info: 2 };
  function worst(list) {
    return list.reduce(function (w, f) { return RANK[f[1]] < RANK[w] ? f[1] : w; }, "info");
  }
  var into = new Map(), outOf = new Map();
  data.arrows.forEach(function (a, k) {
    if (!outOf.has(a[0])) outOf.set(a[0], []);
    outOf.get(a[0]).push(k);
    if (!into.has(a[1])) into.set(a[1], []);
    into.get(a[1]).push(k);
  });

  // -- small DOM helpers -------------------------------------------------------------------
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function kindLabel(k) { var v = kinds[k] || kinds.other; return (v[0] ? v[0] + " " : "") + v[1]; }
  function linkTo(p, text) {
    var r = rows[p], a = el("a", "", text);
    a.href = "#" + fragment(p);
    a.addEventListener("click", function (ev) { ev.preventDefault(); select(p, true); });
    return a;
  }
  function fragment(p) { return "m/" + encodeURIComponent(lanes[rows[p].l].name) + "/" + rows[p].i; }
  function rowName(p) { return lanes[rows[p].l].name + " #" + rows[p].i; }

  // -- the frame -------------------------------------------------------------------------
  var bar = el("header"); bar.id = "bar";
  var h1 = el("h1", "", data.title); h1.title = data.title;
  var file = el("span", "file", data.file + " · " + N + " messages · " + L + (L === 1 ? " agent" : " agents") + " · profile " + data.profile);
  var searchBox = el("div"); searchBox.id = "search";
  var input = el("input"); input.type = "search"; input.placeholder = "Search messages  ( / )"; input.setAttribute("aria-label", "Search messages");
  var count = el("span", "count");
  var prev = el("button", "btn", "↑"), next = el("button", "btn", "↓");
  prev.title = "previous match (Shift+Enter)"; next.title = "next match (Enter)";
  searchBox.append(input, prev, next, count);
  var sevs = el("div", "sevs");
  var totals = { error: 0, warning: 0, info: 0 };
  data.findings.forEach(function (f) { totals[f[1]]++; });
  var findingsButton = el("button", "sevbtn" + (data.findings.length ? "" : " none"));
  findingsButton.id = "findings-button";
  if (!data.findings.length) findingsButton.textContent = "✓ no findings";
  ["error", "warning", "info"].forEach(function (s) {
    if (!totals[s]) return;
    var part = el("span", "sev " + s); part.append(el("i"), document.createTextNode(totals[s] + " " + s + (totals[s] === 1 ? "" : s === "info" ? "" : "s")));
    findingsButton.append(part);
  });
  sevs.append(findingsButton);
  bar.append(h1, file, el("span", "grow"), searchBox, sevs);

  var filters = el("div"); filters.id = "filters";
  var typeGroup = el("div", "group"); typeGroup.append(el("span", "name", "Types"));
  var state = { hiddenKinds: new Set(), hiddenLanes: new Set(), query: "", hits: [], hit: -1, selected: -1, panel: "" };
  Object.keys(kinds).forEach(function (k) {
    var c = el("button", "chip tws-k-" + k); c.dataset.kind = k;
    c.append(el("span", "sw"));
    if (kinds[k][0]) c.append(el("span", "zh", kinds[k][0]));
    c.append(document.createTextNode(kinds[k][1]));
    c.title = "show or hide " + kinds[k][1] + " messages";
    c.addEventListener("click", function () { toggle(state.hiddenKinds, k, c); });
    typeGroup.append(c);
  });
  var laneGroup = el("div", "group"); laneGroup.append(el("span", "name", "Agents"));
  lanes.forEach(function (lane, k) {
    var c = el("button", "chip", lane.name); c.dataset.lane = String(k);
    c.title = "show or hide the lane of " + lane.name;
    c.addEventListener("click", function () { toggle(state.hiddenLanes, k, c); });
    laneGroup.append(c);
  });
  var legend = el("div", "legend");
  [["new turn", ""], ["inline", "7 4"], ["tool result", "2 3"]].forEach(function (h) {
    var s = svg("svg", { width: 30, height: 10 });
    s.append(svg("line", { x1: 1, y1: 5, x2: 29, y2: 5, stroke: "#475569", "stroke-width": 1.7, "stroke-dasharray": h[1] }));
    var item = el("span"); item.append(s, document.createTextNode(" " + h[0])); item.title = data.hows[h[0]];
    legend.append(item);
  });
  var unknownNote = el("span", "", "⟦ order unknown"); unknownNote.title = "Bracketed messages of different agents: the transcripts do not tell which came first";
  legend.append(unknownNote);
  filters.append(typeGroup, laneGroup, legend);

  var main = el("div"); main.id = "main";
  var scroller = el("div"); scroller.id = "scroller"; scroller.tabIndex = 0;
  var heads = el("div"); heads.id = "heads";
  var canvas = el("div"); canvas.id = "canvas";
  var links = svg("svg", { id: "links" });
  var cardLayer = el("div"); cardLayer.id = "cards";
  canvas.append(links, cardLayer);
  scroller.append(heads, canvas);
  var detail = el("aside"); detail.id = "detail"; detail.className = "closed";
  main.append(scroller, detail);
  document.body.append(bar, filters, main);

  // -- layout ----------------------------------------------------------------------------
  var visible = [], slotOf = new Int32Array(N), colOf = [], LW = G.lane;
  var shownArrows = [], shownTurns = [], brackets = [];

  function passes(p) {
    var r = rows[p];
    if (state.hiddenLanes.has(r.l)) return false;
    for (var k = 0; k < r.k.length; k++) if (!state.hiddenKinds.has(r.k[k])) return true;
    return false;
  }
  function x0(col) { return G.gutter + col * LW; }
  function centre(col) { return x0(col) + LW / 2; }
  function rowTop(slot) { return TOP + slot * G.row; }
  function middle(slot) { return rowTop(slot) + G.row / 2; }
  // The same curve as teamwire.view.sequence.arrow_path.
  function arrowPath(g, source, start, target, end, cardSource, cardTarget, lw) {
    var laneW = lw || g.lane, cw = laneW - 40, half = cw / 2;
    var c = function (l) { return g.gutter + l * laneW + laneW / 2; };
    var m = function (r) { return g.header + 10 + r * g.row + g.row / 2; };
    var y1 = m(start), y2 = m(end), f = function (v) { return v.toFixed(1); };
    if (source === target) {
      var x = c(source) + (cardSource || cardTarget ? half : 0);
      var reach = 28 + 6 * Math.min(Math.abs(end - start), 8);
      return "M" + f(x) + "," + f(y1) + "C" + f(x + reach) + "," + f(y1) + " " + f(x + reach) + "," + f(y2) + " " + f(x + 2) + "," + f(y2);
    }
    var dir = target > source ? 1 : -1;
    var x1 = c(source) + dir * (cardSource ? half : 0);
    var x2 = c(target) - dir * (cardTarget ? half + 2 : 2);
    if (start === end && !(cardSource || cardTarget)) return "M" + f(x1) + "," + f(y1) + "L" + f(x2) + "," + f(y2);
    var bend = Math.max(24, Math.abs(x2 - x1) / 2.5);
    return "M" + f(x1) + "," + f(y1) + "C" + f(x1 + dir * bend) + "," + f(y1) + " " + f(x2 - dir * bend) + "," + f(y2) + " " + f(x2) + "," + f(y2);
  }

  function relayout() {
    visible = []; slotOf.fill(-1);
    for (var p = 0; p < N; p++) if (passes(p)) { slotOf[p] = visible.length; visible.push(p); }
    colOf = []; var cols = 0;
    for (var l = 0; l < L; l++) colOf.push(state.hiddenLanes.has(l) ? -1 : cols++);
    var room = scroller.clientWidth - G.gutter - 16;
    LW = Math.max(G.lane, Math.min(420, Math.floor(room / Math.max(cols, 1))));
    var width = G.gutter + cols * LW + 16, height = TOP + visible.length * G.row + 40;
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    heads.style.width = width + "px";
    links.setAttribute("width", width); links.setAttribute("height", height);
    links.setAttribute("viewBox", "0 " + G.header + " " + width + " " + height);
    heads.textContent = "";
    lanes.forEach(function (lane, l) {
      if (colOf[l] < 0) return;
      var h = el("div", "head"); h.style.left = (x0(colOf[l]) + 8) + "px"; h.style.width = (LW - 16) + "px";
      h.title = lane.name;
      h.append(el("b", "", lane.name), el("small", "", lane.role || (data.bundle ? "" : "lone conversation")), el("span", "n", posOf[l].length + " msgs"));
      heads.append(h);
    });
    shownArrows = [];
    data.arrows.forEach(function (a, k) {
      var s1 = slotOf[a[0]], s2 = slotOf[a[1]];
      if (s1 >= 0 && s2 >= 0) shownArrows.push([Math.min(s1, s2), Math.max(s1, s2), k]);
    });
    shownTurns = [];
    data.turns.forEach(function (t) {
      if (colOf[t[0]] < 0) return;
      var lo = -1, hi = -1, at = posOf[t[0]];
      for (var i = t[3]; i <= t[4]; i++) {
        var s = slotOf[at[i]];
        if (s < 0) continue;
        if (lo < 0) lo = s;
        hi = s;
      }
      if (lo >= 0) shownTurns.push([lo, hi, t]);
    });
    brackets = [];
    for (var s = 1; s < visible.length; s++) {
      var a = visible[s - 1], b = visible[s];
      if (rows[a].l === rows[b].l || precedes(a, b)) continue;
      var run = brackets[brackets.length - 1];
      if (run && run[1] === s - 1) run[1] = s; else brackets.push([s - 1, s]);
    }
    draw();
  }

  var drawn = false, drawnFirst = -1, drawnLast = -1;
  // Draws the rows in sight (and a few more); a scroll that brings no new row into sight
  // keeps what is drawn.
  function draw(onScroll) {
    var top = scroller.scrollTop - G.header, h = scroller.clientHeight;
    var first = Math.max(0, Math.floor((top - TOP) / G.row) - 4);
    var lastSlot = Math.min(visible.length - 1, Math.ceil((top + h - TOP) / G.row) + 4);
    if (onScroll === true && first >= drawnFirst && lastSlot <= drawnLast) return;
    first = Math.max(0, first - 8); lastSlot = Math.min(visible.length - 1, lastSlot + 8);
    drawnFirst = first; drawnLast = lastSlot;
    cardLayer.textContent = ""; links.textContent = "";
    var hitSet = state.query ? new Set(state.hits) : null;
    for (var s = first; s <= lastSlot; s++) cardLayer.append(card(visible[s], s, hitSet));
    shownTurns.forEach(function (t) {
      if (t[1] < first || t[0] > lastSlot) return;
      var col = colOf[t[2][0]], y1 = rowTop(t[0]) + 4, y2 = rowTop(t[1]) + G.row - 4;
      var bar = svg("rect", { "class": "tws-span", x: x0(col) + 9, y: y1 + G.header, width: 5, height: Math.max(y2 - y1, 4), rx: 2 });
      var tip = svg("title", {});
      tip.textContent = "turn " + (rows[posOf[t[2][0]][t[2][3]]].tn + 1) + " of " + lanes[t[2][0]].name + ": messages " + t[2][3] + "–" + t[2][4] + (t[2][5] ? "" : " (not ended)");
      bar.append(tip);
      links.append(bar);
    });
    brackets.forEach(function (b) {
      if (b[1] < first || b[0] > lastSlot) return;
      var x = G.gutter - 16, y1 = middle(b[0]) - 8 + G.header, y2 = middle(b[1]) + 8 + G.header;
      var g = svg("g", { "class": "tws-gap" });
      var tip = svg("title", {}); tip.textContent = "The order of these messages across lanes is not known from the transcripts";
      g.append(tip, svg("path", { d: "M" + (x + 6) + "," + y1 + "H" + x + "V" + y2 + "H" + (x + 6) }));
      var t = svg("text", { "class": "tws-gap-text", "text-anchor": "middle", transform: "translate(" + (x - 5) + "," + ((y1 + y2) / 2) + ") rotate(-90)" });
      t.textContent = "order unknown";
      g.append(t);
      links.append(g);
    });
    shownArrows.forEach(function (v) {
      if (v[1] < first || v[0] > lastSlot) return;
      var a = data.arrows[v[2]], ra = rows[a[0]], rb = rows[a[1]];
      var d = arrowPath(G, colOf[ra.l], slotOf[a[0]], colOf[rb.l], slotOf[a[1]], true, true, LW);
      var cls = "tws-arrow tws-k-" + a[2] + (a[3] ? " tws-how-" + a[3].replace(" ", "-") : "") + (a[5] ? " tws-against" : "");
      var path = svg("path", { "class": cls, d: d, "marker-end": "url(#tws-head-" + a[2] + ")" });
      var tip = svg("title", {});
      tip.textContent = kindLabel(a[2]) + " · " + rowName(a[0]) + " → " + rowName(a[1]) + (a[3] ? " · " + a[3] : "") + (a[5] ? " · drawn against the order: the transcripts contradict each other" : "");
      path.append(tip);
      path.dataset.from = String(a[0]); path.dataset.to = String(a[1]);
      links.append(path);
    });
    if (!drawn) {
      drawn = true; document.body.dataset.ready = "1";
      if (window.performance && performance.mark) performance.mark("teamwire-drawn");
    }
  }

  function card(p, slot, hitSet) {
    var r = rows[p], col = colOf[r.l], k = r.k[0];
    var proto = k !== "other";
    var c = el("div", "card tws-k-" + k + (proto ? " proto" : " plain") + (p === state.selected ? " sel" : "") + (hitSet && hitSet.has(p) ? " hit" : ""));
    c.style.left = (x0(col) + 20) + "px"; c.style.top = (rowTop(slot) + GAP_CARD) + "px";
    c.style.width = (LW - 40) + "px"; c.style.height = G.card + "px";
    c.dataset.pos = String(p); c.id = "row-" + p;
    var topLine = el("div", "top");
    topLine.append(el("span", "t", r.t), el("span", "p", r.p || ""));
    var found = pins.get(p);
    if (found) {
      var sev = worst(found), pin = el("button", "pin " + sev, found.length > 1 ? String(found.length) : "!");
      pin.title = found.map(function (f) { return f[2] + " " + f[1] + ": " + f[3]; }).join("\n");
      pin.setAttribute("aria-label", found.length + " finding" + (found.length > 1 ? "s" : "") + " on " + rowName(p));
      pin.addEventListener("click", function (ev) { ev.stopPropagation(); select(p, false, "findings"); });
      topLine.append(pin);
    }
    if (r.h && (into.has(p) || r.h !== "tool result")) {
      var how = el("span", "how", r.h === "new turn" ? "▶ new turn" : r.h === "inline" ? "↳ inline" : "↩ tool result");
      how.title = data.hows[r.h];
      topLine.append(how);
    }
    topLine.append(el("span", "idx", "#" + r.i));
    c.append(topLine, el("div", "v", r.v || "(empty)"));
    c.addEventListener("click", function () { select(p, false); });
    return c;
  }

  // -- details -----------------------------------------------------------------------------
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function showDetail(p, focus) {
    var r = rows[p];
    detail.className = ""; detail.textContent = ""; state.panel = "message";
    var close = el("button", "close", "×"); close.title = "close"; close.addEventListener("click", closeDetail);
    var head = el("h2"); head.append(el("span", "badge tws-k-" + r.k[0], r.t));
    var sub = el("div", "sub", lanes[r.l].name + " · message " + r.i + " · " + r.r + (r.tn !== undefined ? " · turn " + (r.tn + 1) : ""));
    var self = el("a", "", "link to this message"); self.href = "#" + fragment(p);
    sub.append(document.createTextNode(" · "), self);
    detail.append(close, head, sub);
    var found = pins.get(p) || [];
    var findBox = el("section"); findBox.id = "detail-findings";
    if (found.length) {
      findBox.append(el("h3", "", "Findings"));
      found.forEach(function (f) { findBox.append(findingItem(f, false)); });
      detail.append(findBox);
    }
    if (r.e || r.h) {
      detail.append(el("h3", "", "Delivery"));
      var kv = el("div", "kv");
      if (r.e) { kv.append(el("span", "", "from"), el("span", "", r.e[0]), el("span", "", "id"), el("span", "", r.e[1])); }
      if (r.e && r.e[2]) kv.append(el("span", "", "answers"), el("span", "", r.e[2]));
      if (r.h) kv.append(el("span", "", "arrived as"), el("span", "", r.h + " — " + data.hows[r.h]));
      (into.get(p) || []).forEach(function (k) {
        var a = data.arrows[k], cell = el("span");
        cell.append(linkTo(a[0], rowName(a[0])), document.createTextNode(a[4] === null ? " (its output)" : " (tool call " + (a[4] + 1) + ")"));
        kv.append(el("span", "", "sent by"), cell);
      });
      detail.append(kv);
    }
    var sends = outOf.get(p) || [];
    if (sends.length) {
      detail.append(el("h3", "", "Sent"));
      sends.forEach(function (k) {
        var a = data.arrows[k], line = el("div");
        line.append(el("span", "badge tws-k-" + a[2], kindLabel(a[2])), document.createTextNode(" → "), linkTo(a[1], rowName(a[1])), document.createTextNode(" · " + (a[3] || "delivered") + (a[5] ? " · against the order" : "")));
        detail.append(line);
      });
    }
    detail.append(el("h3", "", "Content"));
    var text = r.x !== undefined ? r.x : r.v;
    detail.append(text ? el("pre", "", text) : el("div", "empty", "no text"));
    if (r.c) {
      detail.append(el("h3", "", "Tool calls"));
      r.c.forEach(function (c) {
        var box = el("details"); box.open = r.c.length <= 3;
        box.append(el("summary", "", c[1] + (c[0] ? "  · " + c[0] : "")), el("pre", "", pretty(c[2])));
        var result = findResult(r.l, r.i, c[0]);
        if (result >= 0) {
          var back = el("div"); back.style.padding = "4px 10px 8px";
          back.append(document.createTextNode("result: "), linkTo(result, rowName(result)));
          box.append(back);
        }
        detail.append(box);
      });
    }
    if (r.ci) {
      var caller = findCall(r.l, r.i, r.ci);
      var line = el("div"); line.style.marginTop = "10px";
      line.append(document.createTextNode("result of call " + r.ci + (caller >= 0 ? " in " : "")));
      if (caller >= 0) line.append(linkTo(caller, rowName(caller)));
      detail.append(line);
    }
    if (focus === "findings" && found.length) findBox.scrollIntoView({ block: "nearest" });
  }
  function findResult(l, i, id) {
    var at = posOf[l];
    for (var j = i + 1; j < at.length && id; j++) if (rows[at[j]].ci === id) return at[j];
    return -1;
  }
  function findCall(l, i, id) {
    var at = posOf[l];
    for (var j = i - 1; j >= 0; j--) {
      var c = rows[at[j]].c;
      if (c && c.some(function (x) { return x[0] === id; })) return at[j];
    }
    return -1;
  }
  function findingItem(f, go) {
    var box = el("div", "finding " + f[1] + (go && f[0] >= 0 ? " go" : ""));
    box.append(el("span", "code", f[2]), el("span", "dot " + f[1]), document.createTextNode(f[1] + ": " + f[3]));
    if (f[4]) box.append(el("div", "ptr", f[4]));
    if (go && f[0] >= 0) {
      box.append(el("div", "ptr", "at " + rowName(f[0])));
      box.addEventListener("click", function () { select(f[0], true, "findings"); });
    }
    return box;
  }
  function showFindings() {
    detail.className = ""; detail.textContent = ""; state.panel = "findings";
    var close = el("button", "close", "×"); close.addEventListener("click", closeDetail);
    detail.append(close, el("h2", "", "Findings of teamwire lint"), el("div", "sub", data.findings.length + " on " + data.file + " (profile " + data.profile + ")"));
    if (!data.findings.length) detail.append(el("div", "empty", "teamwire lint finds nothing to report."));
    data.findings.forEach(function (f) { detail.append(findingItem(f, true)); });
  }
  function closeDetail() { detail.className = "closed"; state.panel = ""; state.selected = -1; relayout(); }

  function select(p, scroll, focus) {
    if (!passes(p)) {
      state.hiddenLanes.delete(rows[p].l);
      rows[p].k.forEach(function (k) { state.hiddenKinds.delete(k); });
      syncChips();
      relayout();
    }
    var wasClosed = detail.className === "closed";
    state.selected = p;
    showDetail(p, focus);
    if (wasClosed) relayout();
    try { history.replaceState(null, "", "#" + fragment(p)); } catch (e) { /* a sandboxed frame */ }
    var slot = slotOf[p];
    var y = G.header + rowTop(slot);
    if (scroll || y < scroller.scrollTop + G.header || y + G.row > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = Math.max(0, y - scroller.clientHeight / 3);
    }
    draw();
  }

  // -- filters and search ----------------------------------------------------------------
  function toggle(set, key, chip) {
    if (set.has(key)) set.delete(key); else set.add(key);
    chip.classList.toggle("off", set.has(key));
    if (state.query) search(state.query);
    relayout();
  }
  function syncChips() {
    typeGroup.querySelectorAll(".chip").forEach(function (c) { c.classList.toggle("off", state.hiddenKinds.has(c.dataset.kind)); });
    laneGroup.querySelectorAll(".chip").forEach(function (c) { c.classList.toggle("off", state.hiddenLanes.has(Number(c.dataset.lane))); });
  }
  var haystack = null;
  function hay(p) {
    if (!haystack) haystack = new Array(N);
    var h = haystack[p];
    if (h === undefined) {
      var r = rows[p];
      h = [lanes[r.l].name, r.t, r.p, r.x !== undefined ? r.x : r.v, r.e ? r.e.join(" ") : "", (r.c || []).map(function (c) { return c.join(" "); }).join(" ")].join("\n").toLowerCase();
      haystack[p] = h;
    }
    return h;
  }
  function search(q) {
    state.query = q; state.hits = []; state.hit = -1;
    var needle = q.trim().toLowerCase();
    if (needle) for (var s = 0; s < visible.length; s++) if (hay(visible[s]).indexOf(needle) >= 0) state.hits.push(visible[s]);
    if (!needle) state.query = "";
    count.textContent = needle ? (state.hits.length ? state.hits.length + " found" : "none found") : "";
    draw();
  }
  function step(by) {
    if (!state.hits.length) return;
    state.hit = (state.hit + by + state.hits.length) % state.hits.length;
    count.textContent = (state.hit + 1) + " of " + state.hits.length;
    select(state.hits[state.hit], true);
  }
  var timer = 0;
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(function () { search(input.value); }, 120); });
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { clearTimeout(timer); if (state.query !== input.value) search(input.value); step(ev.shiftKey ? -1 : 1); ev.preventDefault(); }
    if (ev.key === "Escape") { input.value = ""; search(""); }
  });
  prev.addEventListener("click", function () { step(-1); });
  next.addEventListener("click", function () { step(1); });
  findingsButton.title = "list the findings of teamwire lint";
  findingsButton.addEventListener("click", showFindings);
  document.addEventListener("keydown", function (ev) {
    if (ev.target === input) return;
    if (ev.key === "/") { input.focus(); ev.preventDefault(); }
    if ((ev.key === "j" || ev.key === "k") && visible.length) {
      var s = state.selected >= 0 ? slotOf[state.selected] : -1;
      s = Math.max(0, Math.min(visible.length - 1, s + (ev.key === "j" ? 1 : -1)));
      select(visible[s], false);
    }
    if (ev.key === "Escape" && detail.className !== "closed") closeDetail();
  });

  // -- scrolling and links ---------------------------------------------------------------
  var pending = false;
  scroller.addEventListener("scroll", function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(true); });
  });
  window.addEventListener("resize", function () { relayout(); });
  function fromHash() {
    var m = /^#m\/([^/]*)\/(\d+)$/.exec(location.hash);
    if (!m) return false;
    var name; try { name = decodeURIComponent(m[1]); } catch (e) { return false; }
    var l = lanes.findIndex(function (lane) { return lane.name === name; });
    var p = l >= 0 ? posOf[l][Number(m[2])] : undefined;
    if (p === undefined) return false;
    select(p, true);
    return true;
  }
  window.addEventListener("hashchange", fromHash);
  relayout();
  fromHash();
  window.teamwireView = {
    arrowPath: arrowPath, select: select, state: state, precedes: precedes,
    visible: function () { return visible.slice(); }, brackets: function () { return brackets.map(function (b) { return b.slice(); }); },
    relayout: relayout, draw: function () { draw(true); }
  };
})();
