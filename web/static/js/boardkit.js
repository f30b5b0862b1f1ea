// The Board page for every game but China (whose drawing is boardsvg.js + board.js): the drawing
// the game's board kit sends (GET /api/board?game=...: regions, border lines, spaces, how each kind
// of piece looks, the legend; docs/boards.md "Drawing") with the pieces of the position, the last
// move ringed and the spaces of a flag marked. Nothing here is specific to one game.
"use strict";
(function () {
  const { svg, el, t, pick, $, clear } = TR;
  let key = null;
  let data = null;
  let parts = null;

  const text = (v) => (v === null || v === undefined ? "" : typeof v === "string" ? v : pick(v));
  const bbox = (pts) => {
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  };
  // The box a space's pieces are laid out in: a rectangle's own box, else a square around the
  // centre that stays inside the space (irregular map areas).
  function spaceBox(sp) {
    if (sp.points && sp.points.length === 4 && new Set(sp.points.map((p) => p[0])).size === 2) return bbox(sp.points);
    if (!sp.points) {
      const a = sp.r * 0.72;
      return [sp.x - a, sp.y - a, sp.x + a, sp.y + a];
    }
    let d = Infinity;
    sp.points.forEach((p, i) => {
      const q = sp.points[(i + 1) % sp.points.length];
      const [dx, dy] = [q[0] - p[0], q[1] - p[1]];
      const t = Math.max(0, Math.min(1, ((sp.x - p[0]) * dx + (sp.y - p[1]) * dy) / (dx * dx + dy * dy || 1)));
      d = Math.min(d, Math.hypot(sp.x - p[0] - t * dx, sp.y - p[1] - t * dy));
    });
    const a = d * 0.7;
    return [sp.x - a, sp.y - a, sp.x + a, sp.y + a];
  }

  // ---- piece styles -----------------------------------------------------------------------------
  function styleOf(g, kind) {
    const styles = g.pieces || {};
    if (styles[kind]) return { style: styles[kind], suffix: "" };
    let best = null;
    for (const k of Object.keys(styles)) {
      if (!k.endsWith("*")) continue;
      const prefix = k.slice(0, -1);
      if (kind.startsWith(prefix) && (!best || prefix.length > best.length)) best = prefix;
    }
    return best ? { style: styles[best + "*"], suffix: kind.slice(best.length) } : { style: { shape: "disc" }, suffix: kind };
  }
  function labelOf(style, suffix) {
    if (style.label === "{suffix}") return suffix;
    return text(style.label);
  }
  const ownerFill = (g, owner) => (g.owners || {})[owner] || "#888";

  // One piece (or a legend icon) centred at (x, y), ``size`` mm across.
  function chip(shape, x, y, size, fill, label, opts) {
    const o = opts || {};
    const h = size / 2;
    const grp = svg("g", { class: "kchip " + shape + (o.ghost ? " ghost" : ""), "data-kind": o.kind || null, "data-colour": o.owner || null });
    if (shape === "tile" || shape === "counter") {
      grp.append(svg("rect", { x: x - h, y: y - h, width: size, height: size, rx: size * 0.12, fill }));
    } else if (shape === "card") {
      grp.append(svg("rect", { x: x - h * 0.66, y: y - h, width: size * 0.66, height: size, rx: size * 0.08, fill }));
    } else if (shape === "pawn") {
      grp.append(svg("circle", { cx: x, cy: y, r: h * 0.9, fill }));
    } else if (shape === "crown") {
      const p = [[-1, 0.8], [-1, -0.4], [-0.5, 0.1], [0, -0.9], [0.5, 0.1], [1, -0.4], [1, 0.8]].map(([a, b]) => (x + a * h) + "," + (y + b * h));
      grp.append(svg("polygon", { points: p.join(" "), fill }));
    } else if (shape === "eye") {
      grp.append(svg("ellipse", { cx: x, cy: y, rx: h, ry: h * 0.55, class: "k-eye" }), svg("circle", { cx: x, cy: y, r: h * 0.28, class: "k-eye-pupil" }));
    } else if (shape === "city") {
      grp.append(svg("rect", { x: x - h * 0.8, y: y - h * 0.8, width: size * 0.8, height: size * 0.8, class: "k-city" }));
    } else if (shape === "cloister") {
      grp.append(svg("circle", { cx: x, cy: y, r: h * 0.85, class: "k-cloister" }));
    } else if (shape.startsWith("line")) {
      grp.append(svg("line", { x1: x - h, y1: y, x2: x + h, y2: y, class: "k-border " + (shape.split("-")[1] || "symbol") }));
    } else {
      grp.append(svg("circle", { cx: x, cy: y, r: h, fill }));
    }
    if (o.ring) grp.append(svg("circle", { cx: x, cy: y, r: h + size * 0.12, class: "k-ring", stroke: o.ring }));
    if (label) {
      const dark = /^#([0-9a-f]{6})/i.exec(fill || "");
      const lum = dark ? [0, 2, 4].reduce((a, i, k) => a + parseInt(dark[1].substr(i, 2), 16) * [0.3, 0.59, 0.11][k], 0) : 255;
      grp.append(svg("text", { x, y: y + size * 0.17, class: "kchip-label" + (lum < 120 ? " light" : ""),
        "font-size": Math.max(3, size * (label.length > 2 ? 0.3 : label.length > 1 ? 0.42 : 0.55)), text: label }));
    }
    return grp;
  }

  // ---- the static drawing ---------------------------------------------------------------------
  function drawStatic(root, g) {
    const [w, h] = g.size;
    root.setAttribute("viewBox", `0 0 ${w} ${h}`);
    clear(root);
    const layers = {};
    for (const name of ["back", "regions", "spaces", "lines", "pieces", "marks", "labels"]) {
      layers[name] = svg("g", { class: "layer-" + name });
      root.append(layers[name]);
    }
    layers.back.append(svg("rect", { x: 0, y: 0, width: w, height: h, fill: g.background || "#e2d6b8", class: "k-back" }));
    for (const r of g.regions || []) {
      if (r.fill && r.fill !== "none") {
        layers.regions.append(svg("polygon", { points: r.polygon.map((p) => p.join(",")).join(" "), fill: r.fill, class: "region k-region", "data-region": r.id }));
      }
      if (r.label) layers.labels.append(svg("text", { x: r.label_at[0], y: r.label_at[1], class: "region-label", text: text(r.label) }));
    }
    const at = {};
    for (const s of g.spaces) at[s.id] = s;
    for (const l of g.lines || []) {
      // a bent line (a quadratic curve bulging sideways by ``bend`` of its length) keeps borders
      // between spaces on one line apart
      const [mx, my] = [(l.a[0] + l.b[0]) / 2, (l.a[1] + l.b[1]) / 2];
      const [dx, dy] = [l.b[0] - l.a[0], l.b[1] - l.a[1]];
      const bend = l.bend || 0;
      const [cx, cy] = [mx - dy * bend, my + dx * bend];
      const grp = svg("g", { class: "k-line", "data-kind": l.kind },
        svg("path", { d: `M${l.a[0]} ${l.a[1]} Q${cx} ${cy} ${l.b[0]} ${l.b[1]}`, fill: "none", class: "k-border " + l.kind }));
      if (l.label) grp.append(svg("text", { x: (mx + cx) / 2, y: (my + cy) / 2 + 2.5, class: "k-line-label", text: text(l.label) }));
      layers.lines.append(grp);
    }
    for (const s of g.spaces) {
      const shape = s.points
        ? svg("polygon", { points: s.points.map((p) => p.join(",")).join(" "), fill: s.fill || null })
        : svg("circle", { cx: s.x, cy: s.y, r: s.r, fill: s.fill || null });
      const grp = svg("g", { class: "space kit-space " + (s.kind || ""), "data-space": s.id, "data-kind": s.kind || "" }, svg("title", { text: s.id }), shape);
      if (s.mark) {
        const b = spaceBox(s);
        grp.append(chip(s.mark, b[2] - 5, b[1] + 5, 8, null, "", {}));
      }
      if (s.label) {
        const b = spaceBox(s);
        layers.labels.append(svg("text", { x: (b[0] + b[2]) / 2, y: s.points ? b[1] - 1 : s.y + s.r + 6, class: "space-label k-space-label", text: text(s.label) }));
      }
      layers.spaces.append(grp);
    }
    const dynamic = [];
    for (const tx of g.texts || []) {
      const node = svg("text", { x: tx.x, y: tx.y, class: "k-text", "text-anchor": tx.anchor || "middle", text: text(tx.label) });
      layers.labels.append(node);
      if (tx.state) dynamic.push({ node, tx });
    }
    return { layers, at, dynamic };
  }

  // ---- pieces ----------------------------------------------------------------------------------
  // Where a space's pieces go: each piece style names a zone (default "main"); a space without
  // that zone uses its own box.
  function place(g, sp, pieces, ghost) {
    const zones = {};
    for (const p of pieces) {
      const { style, suffix } = styleOf(g, p.kind);
      const owned = p.owner && p.owner !== "neutral";
      const zone = (owned && style.owned_zone) || style.zone || "main";
      const count = p.count || 1;
      const fill = style.fill || ownerFill(g, p.owner);
      const base = { shape: style.shape || "disc", fill, style, p, ring: style.ring && owned ? ownerFill(g, p.owner) : null, suffix };
      let items;
      if (style.count === "number") items = [Object.assign({ label: String(count) }, base)];
      else if (style.count === "each") items = Array.from({ length: count }, () => Object.assign({ label: labelOf(style, suffix) }, base));
      else if (style.count === "repeat") {
        items = Array.from({ length: Math.min(count, 6) }, () => Object.assign({ label: "" }, base));
        if (count > 6) items[items.length - 1].label = "×" + count;
      } else {
        items = [Object.assign({ label: labelOf(style, suffix) + (count > 1 ? "×" + count : "") }, base)];
      }
      (zones[zone] = zones[zone] || []).push(...items);
    }
    const out = [];
    for (const [zone, items] of Object.entries(zones)) {
      const [x0, y0, x1, y1] = (sp.zones && sp.zones[zone]) || spaceBox(sp);
      const w = Math.max(4, x1 - x0), h = Math.max(4, y1 - y0);
      const n = items.length;
      const row = (g.arrange || {})[sp.kind] === "row";
      let cols = row ? n : Math.max(1, Math.ceil(Math.sqrt((n * w) / h)));
      let rows = Math.ceil(n / cols);
      let size = Math.min(w / cols, h / rows) * 0.86;
      if (row && size < 8) { cols = Math.ceil(n / 2); rows = 2; size = Math.min(w / cols, h / rows) * 0.86; }
      size = Math.min(size, Math.max(...items.map((i) => i.style.size || 18)));
      const offX = row ? x0 + 2 : x0 + (w - cols * size / 0.86) / 2, offY = y0 + (h - rows * size / 0.86) / 2;
      items.forEach((it, i) => {
        const c = i % cols, r = Math.floor(i / cols);
        const cx = offX + (c + 0.5) * size / 0.86, cy = offY + (r + 0.5) * size / 0.86;
        out.push(chip(it.shape, cx, cy, size, it.fill, it.label, { kind: it.p.kind, owner: it.p.owner, ring: it.ring, ghost }));
      });
    }
    return out;
  }

  function ring(sp, cls, grow, id) {
    const attrs = { class: cls, "data-mark": cls === "mark-last" ? "last" : "flag", "data-space": id };
    if (sp.points) return svg("polygon", Object.assign({ points: sp.points.map((p) => p.join(",")).join(" ") }, attrs));
    return svg("circle", Object.assign({ cx: sp.x, cy: sp.y, r: sp.r + grow }, attrs));
  }

  function drawDynamic(g, p, s) {
    const { layers, at } = p;
    clear(layers.pieces);
    clear(layers.marks);
    for (const [space, pieces] of Object.entries(s.board || {})) {
      const sp = at[space];
      if (!sp) continue;
      const grp = svg("g", { "data-pieces": space });
      for (const c of place(g, sp, pieces, false)) grp.append(c);
      layers.pieces.append(grp);
    }
    for (const id of new Set((s.last_move && s.last_move.spaces) || [])) {
      if (at[id]) layers.marks.append(ring(at[id], "mark-last", 4, id));
    }
    const flag = s.flag;
    if (flag) {
      for (const id of new Set(flag.spaces || [])) if (at[id]) layers.marks.append(ring(at[id], "mark-flag", 7, id));
      const diff = flag.diff || {};
      const added = {};
      for (const a of diff.added || []) (added[a.space] = added[a.space] || []).push(a);
      for (const [space, list] of Object.entries(added)) {
        const sp = at[space];
        if (!sp) continue;
        const grp = svg("g", { class: "ghost-added", "data-space": space });
        for (const c of place(g, sp, list, true)) grp.append(c);
        const b = spaceBox(sp);
        grp.append(svg("path", { d: `M${b[0]} ${b[1]} L${b[2]} ${b[3]} M${b[2]} ${b[1]} L${b[0]} ${b[3]}`, class: "ghost-x" }));
        layers.marks.append(grp);
      }
      for (const r of diff.removed || []) if (at[r.space]) layers.marks.append(ring(at[r.space], "ghost-removed", -2, r.space));
    }
    for (const { node, tx } of p.dynamic) {
      const v = s.state && s.state[tx.state];
      node.textContent = text(tx.label) + (v !== undefined && v !== null ? ": " + v : "");
    }
  }

  // ---- the legend ------------------------------------------------------------------------------
  function legend(g) {
    const box = clear($("#legend-game"));
    const icon = (entry) => {
      const s = svg("svg", { viewBox: "0 0 20 20", class: "icon" });
      s.append(chip(entry.shape, 10, 10, 15, entry.fill || "#888", text(entry.text), {}));
      return s;
    };
    for (const e of g.legend || []) box.append(el("span", { class: "legend-item", dataset: { shape: e.shape } }, icon(e), " ", text(e.label)));
    const mark = (cls, key) => el("span", {}, (() => {
      const s = svg("svg", { viewBox: "0 0 20 20", class: "icon" });
      s.append(svg("circle", { cx: 10, cy: 10, r: 7, class: cls }));
      return s;
    })(), " ", t(key));
    box.append(mark("legend-last", "board.last_move"), mark("legend-flag", "board.flagged"));
  }

  function showLegends(game) {
    const china = $("#legend-china");
    if (china) china.hidden = game;
    $("#legend-game").hidden = !game;
  }

  // ---- the page ----------------------------------------------------------------------------------
  async function render(s, showEmpty) {
    const k = s.game + "|" + (s.board_id || "");
    const root = $("#board");
    if (k !== key) {
      key = k;
      data = null;
      parts = null;
      clear(root);
      const url = "/api/board?game=" + encodeURIComponent(s.game) + (s.board_id ? "&id=" + encodeURIComponent(s.board_id) : "");
      try {
        data = await TR.get(url);
      } catch (e) {
        data = null;
      }
      if (key !== k) return; // another game came meanwhile
      if (data) {
        parts = drawStatic(root, data.geometry);
        legend(data.geometry);
        root.dataset.game = s.game;
        const name = (data.topology && data.topology.name) || s.game_name;
        $("#board-title").textContent = name ? pick(name) : t("nav.board");
      }
    }
    showLegends(true);
    showEmpty(parts ? null : "board.no_drawing");
    const geo = data && data.geometry;
    $("#badge-schematic").hidden = true;
    $("#badge-layout-provisional").hidden = !(geo && geo.provisional_layout);
    $("#badge-provisional").hidden = !(s.provisional_board || (geo && geo.provisional_board));
    if (parts) drawDynamic(geo, parts, s);
  }

  function leave() {
    if (key === null) return;
    key = null;
    data = null;
    parts = null;
    showLegends(false);
  }

  TR.boardKit = { handles: (s) => !!s.game && s.game !== "china", render, leave, chip };
})();
