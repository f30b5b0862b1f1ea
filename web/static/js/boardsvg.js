// The board drawing shared by the board view and the camera enrolment page: regions, roads,
// alliances and spaces from the board's geometry (GET /api/board), and pieces on a space.
"use strict";
(function () {
  const { svg, t, clear } = TR;

  function regionLabel(r) {
    const own = TR.pick(r.label);
    return own === r.label.en ? r.label.en + " " + (r.label.zh || "") : own + " " + r.label.en;
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

  TR.boardSvg = { drawStatic, drawPiece, regionLabel };
})();
