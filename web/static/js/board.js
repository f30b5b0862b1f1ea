// Board view: an SVG drawn from the board's geometry (a layout, or a schematic computed from the
// topology), with the pieces of the accepted position, the last move marked and the spaces of
// the current flag highlighted.
"use strict";
(function () {
  const { svg, t, pick, $, clear } = TR;
  let geo = null;
  let boardId = null;
  let snap = null;

  const { drawStatic, drawPiece } = TR.boardSvg;

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
    if (TR.boardKit && TR.boardKit.handles(s)) { // every game but China: drawn from its board kit (boardkit.js)
      if (boardId !== null || parts) { clear($("#board")); parts = null; geo = null; boardId = null; }
      await TR.boardKit.render(s, showEmpty);
      document.body.dataset.version = s.version ?? "";
      return;
    }
    if (TR.boardKit) TR.boardKit.leave();
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
  TR.boardView = { show: enqueue }; // the replay (replay.js) draws its steps through the same renderer
  if (!new URLSearchParams(location.search).has("replay")) {
    load().then((since) => TR.live(since, {
      event: (ev) => { if (ev.type === "state") enqueue(ev.data); },
      reset: () => load(),
    }));
  }
})();
