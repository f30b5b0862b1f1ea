// Board capture: on a rectified photo of the user's own printed board, place the house sites and
// dragon spaces of each province, draw the roads, type the names, numbers and alliances, and save
// a board file (rules topology) plus a layout (where each space is, in board mm) that pass the
// validators. Everything is in board millimetres: the SVG's viewBox is the board.
"use strict";
(function () {
  const { el, svg, t, pick, $, clear } = TR;
  const COLOURS = ["violet", "yellow", "orange", "green", "red"];
  const SITE_R = 14, DRAGON_R = 26;
  const ROOT = $("#capture-svg");

  let meta = null; // snapshot meta: size_mm, px_per_mm, markers, pieces, players
  let tool = "site";
  let current = 0; // selected province index
  let selected = null; // selected space key
  let roadStart = null;
  let nextKey = 1;
  const model = { provinces: [], spaces: [], roads: [], alliances: [] };
  for (let n = 1; n <= 15; n++) model.alliances.push({ number: n, a: "", b: "" });

  // ---- model helpers ---------------------------------------------------------------------------
  const province = (i) => model.provinces[i];
  const spaceId = (s) => {
    const p = province(s.province);
    const pid = (p && p.id) || "?";
    return s.kind === "dragon" ? pid + "-dragon" : pid + "-" + s.number;
  };
  const byKey = (k) => model.spaces.find((s) => s.key === k);
  function nextNumber(pi) {
    const used = new Set(model.spaces.filter((s) => s.province === pi && s.kind === "site").map((s) => s.number));
    let n = 1;
    while (used.has(n)) n++;
    return n;
  }
  function addSpace(kind, x, y) {
    if (!province(current)) { TR.toast(t("capture.need_province"), "error"); return null; }
    if (kind === "dragon") {
      const old = model.spaces.find((s) => s.province === current && s.kind === "dragon");
      if (old) { old.x = x; old.y = y; return old; }
    }
    const s = { key: nextKey++, province: current, kind, number: kind === "site" ? nextNumber(current) : 0, x, y, r: kind === "site" ? SITE_R : DRAGON_R };
    model.spaces.push(s);
    return s;
  }
  function removeSpace(key) {
    model.spaces = model.spaces.filter((s) => s.key !== key);
    model.roads = model.roads.filter(([a, b]) => a !== key && b !== key);
    if (selected === key) selected = null;
  }
  function toggleRoad(a, b) {
    if (a === b) return;
    const i = model.roads.findIndex(([x, y]) => (x === a && y === b) || (x === b && y === a));
    if (i >= 0) model.roads.splice(i, 1);
    else model.roads.push([a, b]);
  }

  // ---- export ----------------------------------------------------------------------------------
  function boardDoc() {
    const players = [...document.querySelectorAll(".pc:checked")].map((c) => parseInt(c.value, 10));
    const doc = {
      format: "tableref-china-board/1",
      id: $("#board-id").value.trim(),
      side: $("#board-side").value.trim() || "A",
      provisional: $("#board-provisional").checked,
      players,
      provinces: model.provinces.map((p, i) => ({
        id: p.id, name_zh: p.name_zh, pinyin: p.pinyin, colour: p.colour,
        sites: model.spaces.filter((s) => s.province === i && s.kind === "site").sort((a, b) => a.number - b.number).map(spaceId),
        dragon: p.id + "-dragon",
      })),
      alliances: model.alliances.filter((a) => a.a !== "" || a.b !== "").map((a) => ({
        number: a.number, provinces: [a.a, a.b].map((i) => (i === "" ? "" : (province(+i) || {}).id || "")),
      })),
      roads: model.roads.map(([a, b]) => [spaceId(byKey(a)), spaceId(byKey(b))]),
      notes: ["Captured with the tableref dashboard on " + new Date().toISOString().slice(0, 10) + "."],
    };
    const en = $("#board-name-en").value.trim(), zh = $("#board-name-zh").value.trim();
    if (en && zh) doc.name = { en, zh };
    return doc;
  }
  function layoutDoc(board) {
    const round = (v) => Math.round(v * 10) / 10;
    return {
      id: board.id,
      board: board.id,
      game: "china",
      provisional: false,
      generated_by: "tableref dashboard board capture",
      size_mm: meta.size_mm,
      markers: meta.markers,
      roads: board.roads,
      spaces: model.spaces.map((s) => ({
        id: spaceId(s), kind: s.kind, region: (province(s.province) || {}).id, shape: "circle",
        centre_mm: [round(s.x), round(s.y)], radius_mm: round(s.r),
      })),
      pieces: meta.pieces,
      players: meta.players,
    };
  }

  // ---- checks in the page (the server checks again, with the rules validator) -------------------
  function localProblems(board) {
    const out = [];
    if (!/^[a-z0-9][a-z0-9_-]{0,47}$/.test(board.id)) out.push(t("capture.p_id"));
    if (!board.players.length) out.push(t("capture.p_players"));
    if (board.provinces.length !== 9) out.push(t("capture.p_nine", { n: board.provinces.length }));
    const ids = board.provinces.map((p) => p.id);
    board.provinces.forEach((p, i) => {
      if (!/^[a-z][a-z0-9]*$/.test(p.id)) out.push(t("capture.p_province_id", { n: i + 1 }));
      if (!p.name_zh || !p.pinyin) out.push(t("capture.p_names", { id: p.id || i + 1 }));
      if (p.sites.length < 4 || p.sites.length > 8) out.push(t("capture.p_sites", { id: p.id, n: p.sites.length }));
      if (!model.spaces.some((s) => s.province === i && s.kind === "dragon")) out.push(t("capture.p_dragon", { id: p.id }));
    });
    if (new Set(ids).size !== ids.length) out.push(t("capture.p_unique"));
    const touched = new Set(board.roads.flat());
    const lonely = board.provinces.flatMap((p) => p.sites).filter((s) => !touched.has(s));
    if (lonely.length) out.push(t("capture.p_roads", { sites: lonely.join(", ") }));
    const filled = board.alliances.filter((a) => a.provinces[0] && a.provinces[1]);
    if (filled.length !== 15) out.push(t("capture.p_alliances", { n: filled.length }));
    for (const a of board.alliances) if (a.provinces[0] && a.provinces[0] === a.provinces[1]) out.push(t("capture.p_alliance_same", { n: a.number }));
    return out;
  }
  function showProblems(list, serverList) {
    const ul = clear($("#problems"));
    for (const p of list) ul.append(el("li", { class: "problem", text: p }));
    for (const p of serverList || []) ul.append(el("li", { class: "problem server", text: pick(p) }));
    if (!list.length && !(serverList || []).length) ul.append(el("li", { class: "ok-text", text: t("capture.all_good") }));
  }

  // ---- drawing ---------------------------------------------------------------------------------
  function toMm(ev) {
    const pt = ROOT.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const m = ROOT.getScreenCTM().inverse();
    const p = pt.matrixTransform(m);
    return [Math.max(0, Math.min(meta.size_mm[0], p.x)), Math.max(0, Math.min(meta.size_mm[1], p.y))];
  }
  function colourOf(s) {
    const p = province(s.province);
    return p ? p.colour : "none";
  }
  let background = null; // the photo (fetched once, kept as a blob URL) or a blank sheet
  let overlay = null;
  function draw() {
    const [w, h] = meta.size_mm;
    if (!background) {
      clear(ROOT);
      ROOT.setAttribute("viewBox", `0 0 ${w} ${h}`);
      background = meta.photo
        ? svg("image", { href: meta.photo, x: 0, y: 0, width: w, height: h, preserveAspectRatio: "none" })
        : svg("rect", { x: 0, y: 0, width: w, height: h, class: "blank-sheet" });
      overlay = svg("g", { class: "c-overlay" });
      ROOT.append(background, overlay);
    }
    clear(overlay);
    const roads = svg("g", { class: "c-roads" });
    for (const [a, b] of model.roads) {
      const A = byKey(a), B = byKey(b);
      if (A && B) roads.append(svg("line", { x1: A.x, y1: A.y, x2: B.x, y2: B.y, class: "c-road", "data-road": spaceId(A) + "|" + spaceId(B) }));
    }
    overlay.append(roads);
    const spaces = svg("g", { class: "c-spaces" });
    for (const s of model.spaces) {
      const cls = ["c-space", s.kind, s.province === current ? "current" : "", s.key === selected ? "selected" : "", s.key === roadStart ? "road-start" : ""].join(" ");
      spaces.append(svg("g", { class: cls, "data-key": s.key, "data-space": spaceId(s), "data-colour": colourOf(s) },
        svg("circle", { cx: s.x, cy: s.y, r: s.r }),
        svg("text", { x: s.x, y: s.y + 4, text: s.kind === "dragon" ? TR.t("capture.dragon_mark") : String(s.number) })));
    }
    overlay.append(spaces);
    renderProvinces();
    renderInspector();
    showProblems(localProblems(boardDoc()));
  }

  // ---- pointer ---------------------------------------------------------------------------------
  let dragging = null;
  ROOT.addEventListener("pointerdown", (ev) => {
    if (!meta) return;
    const g = ev.target.closest ? ev.target.closest(".c-space") : null;
    const key = g ? parseInt(g.dataset.key, 10) : null;
    const [x, y] = toMm(ev);
    if (tool === "site" || tool === "dragon") {
      if (key !== null && tool === "site") { selected = key; draw(); return; }
      const s = addSpace(tool, x, y);
      if (s) selected = s.key;
    } else if (tool === "road") {
      if (key === null) { roadStart = null; }
      else if (roadStart === null) roadStart = key;
      else { toggleRoad(roadStart, key); roadStart = key; }
    } else if (tool === "move") {
      selected = key;
      if (key !== null) { dragging = key; ROOT.setPointerCapture(ev.pointerId); }
    } else if (tool === "delete") {
      if (key !== null) removeSpace(key);
    }
    draw();
  });
  ROOT.addEventListener("pointermove", (ev) => {
    if (dragging === null) return;
    const s = byKey(dragging);
    if (!s) return;
    [s.x, s.y] = toMm(ev);
    const g = ROOT.querySelector(`.c-space[data-key="${s.key}"]`);
    if (g) { g.querySelector("circle").setAttribute("cx", s.x); g.querySelector("circle").setAttribute("cy", s.y); }
  });
  ROOT.addEventListener("pointerup", () => { if (dragging !== null) { dragging = null; draw(); } });

  function setTool(name) {
    tool = name;
    roadStart = null;
    for (const b of document.querySelectorAll(".tool")) b.classList.toggle("active", b.dataset.tool === name);
    $("#tool-hint").textContent = t("capture.hint_" + name);
    draw();
  }
  for (const b of document.querySelectorAll(".tool")) b.addEventListener("click", () => setTool(b.dataset.tool));

  // ---- inspector -------------------------------------------------------------------------------
  function renderInspector() {
    const s = selected === null ? null : byKey(selected);
    $("#inspector").hidden = !s;
    if (!s) return;
    $("#inspector-id").textContent = spaceId(s);
    $("#inspector-number").disabled = s.kind === "dragon";
    $("#inspector-number").value = s.kind === "dragon" ? "" : s.number;
    $("#inspector-radius").value = Math.round(s.r);
  }
  $("#inspector-number").addEventListener("change", (ev) => {
    const s = byKey(selected);
    const n = parseInt(ev.target.value, 10);
    if (!s || !(n >= 1 && n <= 99)) return;
    if (model.spaces.some((o) => o !== s && o.province === s.province && o.kind === "site" && o.number === n)) {
      TR.toast(t("capture.number_taken", { n }), "error");
      ev.target.value = s.number;
      return;
    }
    s.number = n;
    draw();
  });
  $("#inspector-radius").addEventListener("change", (ev) => {
    const s = byKey(selected);
    const r = parseFloat(ev.target.value);
    if (s && r >= 3 && r <= 80) { s.r = r; draw(); }
  });
  $("#inspector-delete").addEventListener("click", () => { if (selected !== null) { removeSpace(selected); draw(); } });

  // ---- provinces and alliances -------------------------------------------------------------------
  function renderProvinces() {
    const body = $("#provinces");
    // rebuild only the count cells and the selection when the rows already exist
    if (body.children.length === model.provinces.length) {
      [...body.children].forEach((tr, i) => {
        tr.classList.toggle("current", i === current);
        tr.querySelector("input[type=radio]").checked = i === current;
        const sites = model.spaces.filter((s) => s.province === i && s.kind === "site").length;
        const dragon = model.spaces.some((s) => s.province === i && s.kind === "dragon");
        tr.querySelector(".counts").textContent = sites + (dragon ? " + " + TR.t("capture.dragon_short") : "");
      });
      return;
    }
    clear(body);
    model.provinces.forEach((p, i) => {
      const input = (field, cls, attrs) => {
        const e = el("input", Object.assign({ class: cls, value: p[field], "data-field": field, "aria-label": field + " " + (i + 1) }, attrs || {}));
        e.addEventListener("input", () => { p[field] = e.value.trim(); renderAlliances(); draw(); });
        return e;
      };
      const colour = el("select", { "data-field": "colour", "aria-label": "colour " + (i + 1) }, COLOURS.map((c) => el("option", { value: c, text: TR.colour(c) })));
      colour.value = p.colour;
      colour.addEventListener("change", () => { p.colour = colour.value; draw(); });
      const radio = el("input", { type: "radio", name: "current-province", "aria-label": t("capture.select_province") });
      radio.addEventListener("change", () => { current = i; draw(); });
      const tr = el("tr", { dataset: { province: i } },
        el("td", {}, radio), el("td", {}, input("id", "p-id", { size: 6 })), el("td", {}, input("name_zh", "p-zh", { size: 3 })),
        el("td", {}, input("pinyin", "p-pinyin", { size: 6 })), el("td", {}, colour), el("td", { class: "counts" }));
      tr.addEventListener("click", (ev) => { if (ev.target.tagName !== "INPUT" && ev.target.tagName !== "SELECT") { current = i; draw(); } });
      body.append(tr);
    });
    renderProvinces();
  }
  function renderAlliances() {
    const box = clear($("#alliances"));
    for (const a of model.alliances) {
      const sel = (side) => {
        const s = el("select", { "data-alliance": a.number, "data-side": side, "aria-label": t("capture.alliance_n", { n: a.number }) + " " + side },
          el("option", { value: "", text: "—" }),
          model.provinces.map((p, i) => el("option", { value: String(i), text: p.id || "#" + (i + 1) })));
        s.value = a[side];
        s.addEventListener("change", () => { a[side] = s.value; draw(); });
        return s;
      };
      box.append(el("div", { class: "alliance-row" }, el("span", { class: "alliance-no", text: String(a.number) }), sel("a"), el("span", { text: "–" }), sel("b")));
    }
  }
  $("#add-province").addEventListener("click", () => {
    model.provinces.push({ id: "p" + (model.provinces.length + 1), name_zh: "", pinyin: "", colour: "green" });
    current = model.provinces.length - 1;
    clear($("#provinces"));
    renderAlliances();
    draw();
  });

  // ---- templates -------------------------------------------------------------------------------
  async function loadTemplate() {
    const id = $("#template").value;
    model.spaces = [];
    model.roads = [];
    selected = roadStart = null;
    if (!id) {
      model.provinces = [];
      for (const a of model.alliances) { a.a = ""; a.b = ""; }
      clear($("#provinces"));
      renderAlliances();
      draw();
      return;
    }
    const data = await TR.get("/api/board?id=" + encodeURIComponent(id));
    const topo = data.topology;
    model.provinces = topo.provinces.map((p) => ({ id: p.id, name_zh: p.name_zh, pinyin: p.pinyin, colour: p.colour }));
    const index = Object.fromEntries(model.provinces.map((p, i) => [p.id, i]));
    for (const a of model.alliances) {
      const found = topo.alliances.find((x) => x.number === a.number);
      a.a = found ? String(index[found.provinces[0]]) : "";
      a.b = found ? String(index[found.provinces[1]]) : "";
    }
    $("#board-side").value = topo.side;
    for (const c of document.querySelectorAll(".pc")) c.checked = topo.players.includes(parseInt(c.value, 10));
    if ($("#template-positions").checked) {
      const g = data.geometry;
      const sx = meta.size_mm[0] / g.size[0], sy = meta.size_mm[1] / g.size[1];
      const keyOf = {};
      for (const s of g.spaces) {
        const pi = index[s.region];
        if (pi === undefined) continue;
        const sp = { key: nextKey++, province: pi, kind: s.kind === "dragon" ? "dragon" : "site",
          number: s.kind === "dragon" ? 0 : parseInt(s.id.split("-").pop(), 10), x: s.x * sx, y: s.y * sy,
          r: s.r * Math.min(sx, sy) };
        model.spaces.push(sp);
        keyOf[s.id] = sp.key;
      }
      for (const [a, b] of topo.roads) if (keyOf[a] && keyOf[b]) model.roads.push([keyOf[a], keyOf[b]]);
    }
    current = 0;
    clear($("#provinces"));
    renderAlliances();
    draw();
  }
  $("#template-load").addEventListener("click", () => {
    if (model.spaces.length && !confirm(t("capture.replace_confirm"))) return;
    loadTemplate();
  });

  // ---- check and save ----------------------------------------------------------------------------
  async function serverCheck() {
    const board = boardDoc();
    const res = await TR.api("POST", "/api/capture/check", { board, layout: layoutDoc(board) });
    const local = localProblems(board);
    showProblems(local, res.ok ? res.data.problems : [res.data.error ? res.data.error.message : { en: "?", zh: "?" }]);
    return res.ok && res.data.ok && !local.length;
  }
  $("#check").addEventListener("click", serverCheck);
  $("#save").addEventListener("click", async () => {
    const board = boardDoc();
    $("#save-result").textContent = "";
    const res = await TR.api("POST", "/api/capture/save", { board, layout: layoutDoc(board), overwrite: $("#overwrite").checked });
    if (res.ok) {
      $("#save-result").textContent = t("capture.saved", { id: res.data.id });
      $("#save-result").dataset.saved = res.data.id;
      TR.toast(pick(res.data.message), "ok");
    } else {
      const problems = (res.data.error && res.data.error.problems) || [];
      showProblems(localProblems(board), problems.length ? problems : [res.data.error ? res.data.error.message : { en: "?", zh: "?" }]);
      TR.toast(TR.errorText(res), "error");
    }
  });

  // ---- start -------------------------------------------------------------------------------------
  async function photo(available) {
    if (!available) return null;
    const r = await fetch("/api/capture/image", { credentials: "same-origin", cache: "no-store" });
    return r.ok ? URL.createObjectURL(await r.blob()) : null;
  }
  Promise.all([TR.get("/api/capture/snapshot"), TR.get("/api/boards")]).then(async ([m, bs]) => {
    meta = m;
    meta.photo = await photo(m.available);
    meta.available = !!meta.photo;
    $("#no-photo").hidden = m.available;
    const sel = $("#template");
    sel.append(el("option", { value: "", text: t("capture.blank") }));
    for (const b of bs.boards) sel.append(el("option", { value: b.id, text: t("capture.copy_of", { name: pick(b.name) || b.id }) }));
    sel.value = bs.boards.some((b) => b.id === "china-a") ? "china-a" : "";
    renderAlliances();
    loadTemplate().then(() => setTool("site"));
  });
})();
