// Board view: an SVG drawn from the board's geometry (a layout, or a schematic computed from the
// topology), with the pieces of the accepted position, the last move marked and the spaces of
// the current flag highlighted.
"use strict";
(function () {
  const { el, svg, t, pick, $, clear } = TR;
  let geo = null;
  let boardId = null;
  let snap = null;

  function regionLabel(r) {
    if (TR.lang === "zh-Hans") return r.label.zh + " " + r.label.en;
    return r.label.en + " " + r.label.zh;
  }

  function drawStatic(root, g) {
    const [w, h] = g.size;
    root.setAttribute("viewBox", `0 0 ${w} ${h}`);
    clear(root);
    const layers = {};
    for (const name of ["regions", "roads", "alliances", "spaces", "pieces", "marks", "labels"]) {
      layers[name] = svg("g", { class: "layer-" + name });
      root.append(layers[name]);
    }
    for (const r of g.regions) {
      layers.regions.append(
        svg("polygon", { points: r.polygon.map((p) => p.join(",")).join(" "), fill: r.fill, class: "region", "data-region": r.id }));
      layers.labels.append(svg("text", { x: r.label_at[0], y: r.label_at[1], class: "region-label", text: regionLabel(r) }));
    }
    const at = {};
    for (const s of g.spaces) at[s.id] = s;
    for (const [a, b] of g.roads) {
      if (!at[a] || !at[b]) continue;
      layers.roads.append(svg("line", { x1: at[a].x, y1: at[a].y, x2: at[b].x, y2: at[b].y, class: "road" }));
    }
    for (const a of g.alliances || []) {
      layers.alliances.append(svg("g", { class: "alliance", "data-alliance": a.number },
        svg("title", { text: t("board.alliance_title", { n: a.number, a: a.provinces[0], b: a.provinces[1] }) }),
        svg("circle", { cx: a.x, cy: a.y, r: 9 }),
        svg("text", { x: a.x, y: a.y + 4, text: String(a.number) })));
    }
    for (const s of g.spaces) {
      const shape = s.points
        ? svg("polygon", { points: s.points.map((p) => p.join(",")).join(" ") })
        : svg("circle", { cx: s.x, cy: s.y, r: s.r });
      const label = s.kind === "dragon" ? t("board.dragon_mark") : s.id.split("-").pop();
      layers.spaces.append(svg("g", { class: "space " + s.kind, "data-space": s.id },
        svg("title", { text: s.id }), shape,
        svg("text", { x: s.x, y: s.kind === "dragon" ? s.y - s.r + 12 : s.y + s.r + 9, class: "space-label", text: label })));
    }
    return { layers, at };
  }

  function drawPiece(group, s, piece, i, n, ghost) {
    const colour = piece.owner;
    const cls = "piece " + piece.kind + (ghost ? " ghost" : "");
    if (piece.kind === "emissary") {
      const count = piece.count || 1;
      for (let k = 0; k < count; k++) {
        const ang = (2 * Math.PI * (i + k)) / Math.max(n, 1) - Math.PI / 2;
        const rr = s.r * 0.55;
        group.append(svg("circle", { cx: s.x + rr * Math.cos(ang), cy: s.y + 4 + rr * Math.sin(ang), r: Math.max(4, s.r * 0.22), class: cls, "data-colour": colour }));
      }
      return count;
    }
    if (piece.kind === "fortress") {
      const a = s.r * 0.95;
      group.append(svg("rect", { x: s.x - a, y: s.y - a, width: 2 * a, height: 2 * a, class: cls, "data-colour": colour }));
      return 1;
    }
    const a = s.r * 0.62;
    group.append(svg("rect", { x: s.x - a, y: s.y - a, width: 2 * a, height: 2 * a, rx: 2, class: cls, "data-colour": colour }));
    return 1;
  }

  function drawDynamic(parts, s) {
    const { layers, at } = parts;
    clear(layers.pieces);
    clear(layers.marks);
    const board = s.board || {};
    for (const [space, pieces] of Object.entries(board)) {
      const sp = at[space];
      if (!sp) continue;
      const g = svg("g", { "data-pieces": space });
      const n = pieces.filter((p) => p.kind === "emissary").reduce((a, p) => a + (p.count || 1), 0);
      let i = 0;
      const order = [...pieces].sort((a, b) => (a.kind === "fortress" ? -1 : b.kind === "fortress" ? 1 : 0));
      for (const p of order) i += p.kind === "emissary" ? drawPiece(g, sp, p, i, n, false) : (drawPiece(g, sp, p, 0, 1, false), 0);
      if (n > 0) g.append(svg("text", { x: sp.x + sp.r * 0.9, y: sp.y + sp.r * 0.9, class: "count", text: "×" + n }));
      layers.pieces.append(g);
    }
    const last = (s.last_move && s.last_move.spaces) || [];
    for (const id of new Set(last)) {
      const sp = at[id];
      if (sp) layers.marks.append(svg("circle", { cx: sp.x, cy: sp.y, r: sp.r + 5, class: "mark-last", "data-mark": "last", "data-space": id }));
    }
    const flag = s.flag;
    if (flag) {
      for (const id of new Set(flag.spaces || [])) {
        const sp = at[id];
        if (sp) layers.marks.append(svg("circle", { cx: sp.x, cy: sp.y, r: sp.r + 8, class: "mark-flag", "data-mark": "flag", "data-space": id }));
      }
      const diff = flag.diff || {};
      for (const a of diff.added || []) {
        const sp = at[a.space];
        if (!sp) continue;
        const g = svg("g", { class: "ghost-added" });
        drawPiece(g, sp, a, 0, 1, true);
        g.append(svg("path", { d: `M${sp.x - 9} ${sp.y - 9} L${sp.x + 9} ${sp.y + 9} M${sp.x + 9} ${sp.y - 9} L${sp.x - 9} ${sp.y + 9}`, class: "ghost-x" }));
        layers.marks.append(g);
      }
      for (const r of diff.removed || []) {
        const sp = at[r.space];
        if (sp) layers.marks.append(svg("circle", { cx: sp.x, cy: sp.y, r: sp.r * 0.7, class: "ghost-removed" }));
      }
    }
  }

  let parts = null;
  function showEmpty(key) {
    const e = $("#board-empty");
    e.hidden = !key;
    if (key) e.textContent = t(key);
  }
  async function render(s) {
    snap = s;
    const f = $("#flag");
    if (s.flag) {
      const items = (s.flag.violations || []).length ? s.flag.violations : [s.flag];
      $("#flag-text").textContent = items.map((v) => pick(v.message) + (v.fix ? " — " + pick(v.fix) : "")).join(" · ");
      f.hidden = false;
    } else f.hidden = true;
    if (!s.game || !s.board_id) {
      clear($("#board")); parts = null; geo = null; boardId = null;
      showEmpty(s.game ? "board.no_drawing" : "score.no_game");
      return;
    }
    if (s.board_id !== boardId) {
      boardId = s.board_id;
      parts = null;
      clear($("#board"));
      let data = null;
      try {
        data = await TR.get("/api/board?id=" + encodeURIComponent(boardId));
      } catch (e) {
        data = null;
      }
      if (data) {
        geo = data.geometry;
        parts = drawStatic($("#board"), geo);
        $("#badge-schematic").hidden = geo.source !== "schematic";
        $("#badge-layout-provisional").hidden = !(geo.source === "layout" && geo.provisional_layout);
        $("#board-title").textContent = pick((data.topology && data.topology.name) || { en: boardId, zh: boardId });
      }
    }
    showEmpty(parts ? null : "board.no_drawing");
    $("#badge-provisional").hidden = !(s.provisional_board || (geo && geo.provisional_board));
    if (snap === s && parts) drawDynamic(parts, s);
    document.body.dataset.version = s.version ?? "";
  }

  let queue = Promise.resolve();
  const enqueue = (s) => { queue = queue.then(() => render(s)).catch((e) => console.error(e)); };
  async function load() {
    const s = await TR.get("/api/state");
    enqueue(s);
    return s.event_id;
  }
  load().then((since) => TR.live(since, {
    event: (ev) => { if (ev.type === "state") enqueue(ev.data); },
    reset: () => load(),
  }));
})();
