// Board capture of a game other than China (/capture/<game>): on a rectified photo of the user's
// own board, place every space the game's board kit lists (GET /api/capture/spec), draw areas as
// polygons where the game has them (Zhang Yi), join spaces with typed borders (Ming's transport
// symbols, Zhang Yi's rivers and mountains), fill in what the photo cannot show, and save. The
// kit builds the game's data file and a layout from it on the server (POST /api/capture/check,
// /save). Everything is in board millimetres: the SVG's viewBox is the photo.
"use strict";
(function () {
  const { el, svg, t, pick, $, clear } = TR;
  const game = decodeURIComponent(location.pathname.split("/")[2] || "");
  const ROOT = $("#capture-svg");
  const CLOSE_MM = 8;
  const HINTS = { place: "capture_game.hint_place", area: "capture_game.hint_area", link: "capture_game.hint_link",
    move: "capture_game.hint_move", delete: "capture_game.hint_delete" };

  let meta = null; // the photo: size_mm, markers, photo (blob URL)
  let spec = null;
  let tool = "place";
  let selected = null; // item key
  let linkStart = null;
  let draft = []; // polygon points being drawn
  let added = 0;
  const model = { items: [], groups: {}, links: [], fields: {} };

  const text = (v) => (v === null || v === undefined ? "" : typeof v === "string" ? v : pick(v));
  const byKey = (k) => model.items.find((i) => i.key === k);
  const round = (v) => Math.round(v * 10) / 10;
  function idOf(item) {
    const group = model.groups[item.group] || {};
    return String(item.id || item.key).replace(/\{(\w+)\}/g, (m, k) => {
      const v = k in item.values ? item.values[k] : group[k];
      return v === undefined || v === "" ? "?" : String(v);
    });
  }
  const nextUnplaced = () => model.items.find((i) => !i.placed && i.shape !== "polygon");
  const linkable = (item) => spec.links && spec.links.kinds.includes(item.kind);

  // ---- the capture sent to the server ------------------------------------------------------------
  function capture() {
    const name = { en: $("#cg-name-en").value.trim(), zh: $("#cg-name-zh").value.trim() };
    const fields = {};
    for (const [k, v] of Object.entries(model.fields)) fields[k] = v === "" || v === null ? null : Number(v);
    return {
      template: spec.template, id: spec.fixed_id || $("#cg-id").value.trim(), name: name.en && name.zh ? name : null,
      provisional: $("#cg-provisional").checked, size_mm: meta.size_mm, markers: meta.markers,
      groups: model.groups, fields,
      items: model.items.map((i) => {
        const out = { key: i.key, kind: i.kind, group: i.group, shape: i.shape, values: i.values, placed: !!i.placed };
        if (i.placed) {
          if (i.shape === "polygon") out.points = i.points.map((p) => [round(p[0]), round(p[1])]);
          else Object.assign(out, { x: round(i.x), y: round(i.y) }, i.shape === "circle" ? { r: round(i.r) } : { w: round(i.w), h: round(i.h) });
        }
        return out;
      }),
      links: model.links.map((l) => ({ a: l.a, b: l.b, type: l.type })),
    };
  }

  function localProblems() {
    const out = [];
    if (!spec.fixed_id && !/^[a-z0-9][a-z0-9_-]{0,47}$/.test($("#cg-id").value.trim())) out.push(t("capture.p_id"));
    const open = model.items.filter((i) => !i.placed);
    if (open.length) out.push(t("capture_game.p_unplaced", { n: open.length, ids: open.slice(0, 8).map(idOf).join(", ") + (open.length > 8 ? " …" : "") }));
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
    const p = pt.matrixTransform(ROOT.getScreenCTM().inverse());
    return [Math.max(0, Math.min(meta.size_mm[0], p.x)), Math.max(0, Math.min(meta.size_mm[1], p.y))];
  }
  function centre(i) {
    if (i.shape !== "polygon") return [i.x, i.y];
    const n = i.points.length;
    return [i.points.reduce((a, p) => a + p[0], 0) / n, i.points.reduce((a, p) => a + p[1], 0) / n];
  }
  function shapeOf(i) {
    if (i.shape === "circle") return svg("circle", { cx: i.x, cy: i.y, r: i.r });
    if (i.shape === "rect") return svg("rect", { x: i.x - i.w / 2, y: i.y - i.h / 2, width: i.w, height: i.h });
    return svg("polygon", { points: i.points.map((p) => p.join(",")).join(" ") });
  }
  let background = null;
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
    const items = svg("g", {});
    const order = [...model.items.filter((i) => i.placed)].sort((a, b) => area(b) - area(a)); // small ones on top
    for (const i of order) {
      const flagged = Object.values(i.values).some((v) => v === true);
      const cls = ["cg-item", i.kind, i.key === selected ? "selected" : "", i.key === linkStart ? "link-start" : "", flagged ? "flagged" : ""].join(" ");
      const [cx, cy] = centre(i);
      items.append(svg("g", { class: cls, "data-key": i.key, "data-space": idOf(i) }, shapeOf(i),
        svg("text", { x: cx, y: cy + 2, text: idOf(i) })));
    }
    const links = svg("g", {});
    for (const l of model.links) {
      const a = byKey(l.a), b = byKey(l.b);
      if (!a || !b || !a.placed || !b.placed) continue;
      const [ax, ay] = centre(a), [bx, by] = centre(b);
      links.append(svg("line", { x1: ax, y1: ay, x2: bx, y2: by, class: "cg-link " + l.type, "data-link": l.a + "|" + l.b }));
    }
    overlay.append(items, links);
    if (draft.length) {
      overlay.append(svg("polyline", { points: draft.map((p) => p.join(",")).join(" "), class: "cg-draft" }));
      for (const p of draft) overlay.append(svg("circle", { cx: p[0], cy: p[1], r: 2.5, class: "cg-draft-point" }));
    }
    renderList();
    renderLinks();
    renderInspector();
    showProblems(localProblems());
  }
  function area(i) {
    if (i.shape === "circle") return Math.PI * i.r * i.r;
    if (i.shape === "rect") return i.w * i.h;
    const [x0, x1] = [Math.min(...i.points.map((p) => p[0])), Math.max(...i.points.map((p) => p[0]))];
    const [y0, y1] = [Math.min(...i.points.map((p) => p[1])), Math.max(...i.points.map((p) => p[1]))];
    return (x1 - x0) * (y1 - y0);
  }

  // ---- pointer ---------------------------------------------------------------------------------
  let dragging = null;
  ROOT.addEventListener("pointerdown", (ev) => {
    if (!meta || !spec) return;
    const g = ev.target.closest ? ev.target.closest(".cg-item") : null;
    const key = g ? g.dataset.key : null;
    const [x, y] = toMm(ev);
    if (tool === "place") {
      const target = selected && byKey(selected) && !byKey(selected).placed && byKey(selected).shape !== "polygon" ? byKey(selected) : null;
      if (key !== null && !target) { selected = key; draw(); return; }
      const item = target || nextUnplaced();
      if (!item) { TR.toast(t("capture_game.all_placed"), "ok"); selected = key; draw(); return; }
      Object.assign(item, { x, y, placed: true });
      const next = nextUnplaced();
      selected = next ? next.key : item.key;
    } else if (tool === "area") {
      if (draft.length >= 3 && Math.hypot(x - draft[0][0], y - draft[0][1]) < CLOSE_MM) { closeArea(); return; }
      draft.push([x, y]);
    } else if (tool === "link") {
      const item = key !== null ? byKey(key) : null;
      if (!item || !linkable(item)) linkStart = null;
      else if (linkStart === null) linkStart = key;
      else { toggleLink(linkStart, key); linkStart = key; }
    } else if (tool === "move") {
      selected = key;
      if (key !== null) { dragging = { key, from: [x, y] }; ROOT.setPointerCapture(ev.pointerId); }
    } else if (tool === "delete") {
      if (key !== null) removeItem(key);
    }
    draw();
  });
  ROOT.addEventListener("pointermove", (ev) => {
    if (!dragging) return;
    const i = byKey(dragging.key);
    const [x, y] = toMm(ev);
    const [dx, dy] = [x - dragging.from[0], y - dragging.from[1]];
    dragging.from = [x, y];
    if (i.shape === "polygon") i.points = i.points.map((p) => [p[0] + dx, p[1] + dy]);
    else { i.x += dx; i.y += dy; }
    draw();
  });
  ROOT.addEventListener("pointerup", () => { if (dragging) { dragging = null; draw(); } });

  function closeArea() {
    if (draft.length < 3) return;
    const target = selected && byKey(selected);
    if (target && target.shape === "polygon" && !target.placed) {
      Object.assign(target, { points: draft, placed: true });
    } else if (spec.add) {
      added += 1;
      const item = { key: spec.add.kind + ":new" + added, id: spec.add.id, kind: spec.add.kind, group: null, shape: "polygon",
        points: draft, values: JSON.parse(JSON.stringify(spec.add.values)), placed: true, added: true };
      model.items.push(item);
      selected = item.key;
    }
    draft = [];
    draw();
  }
  function toggleLink(a, b) {
    if (a === b) return;
    const i = model.links.findIndex((l) => (l.a === a && l.b === b) || (l.a === b && l.b === a));
    if (i >= 0) model.links.splice(i, 1);
    else model.links.push({ a, b, type: $("#cg-link-type").value });
  }
  function removeItem(key) {
    const i = byKey(key);
    if (!i) return;
    if (i.added) {
      model.items = model.items.filter((x) => x.key !== key);
      model.links = model.links.filter((l) => l.a !== key && l.b !== key);
    } else i.placed = false;
    if (selected === key) selected = null;
  }

  function setTool(name) {
    tool = name;
    linkStart = null;
    draft = [];
    for (const b of document.querySelectorAll(".tool")) b.classList.toggle("active", b.dataset.tool === name);
    $("#tool-hint").textContent = t(HINTS[name]);
    $("#cg-close").hidden = name !== "area";
    $("#cg-link-type").hidden = name !== "link";
    draw();
  }
  for (const b of document.querySelectorAll(".tool")) b.addEventListener("click", () => setTool(b.dataset.tool));
  $("#cg-close").addEventListener("click", closeArea);

  // ---- side panels -----------------------------------------------------------------------------
  function input(field, value, onChange) {
    const label = text(field.label);
    let e;
    if (field.type === "check") {
      e = el("input", { type: "checkbox", "data-field": field.key, "aria-label": label });
      e.checked = !!value;
      e.addEventListener("change", () => onChange(e.checked));
    } else if (field.type === "select") {
      e = el("select", { "data-field": field.key, "aria-label": label },
        field.options.map((o) => el("option", { value: o.value, text: field.colour ? TR.colour(o.value) : text(o.label) })));
      e.value = value === null || value === undefined ? "" : value;
      e.addEventListener("change", () => onChange(e.value));
    } else {
      e = el("input", { type: field.type === "number" ? "number" : "text", "data-field": field.key, "aria-label": label,
        min: field.min, max: field.max, size: field.type === "number" ? 4 : 10 });
      e.value = value === null || value === undefined ? "" : value;
      e.addEventListener("input", () => onChange(field.type === "number" ? (e.value === "" ? "" : Number(e.value)) : e.value.trim()));
    }
    return e;
  }
  function renderGroups() {
    const panel = $("#cg-groups-panel");
    panel.hidden = !spec.groups.length;
    if (!spec.groups.length) return;
    $("#cg-groups-title").textContent = text(spec.group_label);
    const head = clear($("#cg-groups-head"));
    head.append(el("th", { text: "" }), ...spec.group_fields.map((f) => el("th", { text: text(f.label) })));
    const body = clear($("#cg-groups"));
    for (const g of spec.groups) {
      body.append(el("tr", { dataset: { group: g.key } }, el("td", { text: g.label }),
        ...spec.group_fields.map((f) => el("td", {}, input(f, model.groups[g.key][f.key], (v) => { model.groups[g.key][f.key] = v; draw(); })))));
    }
  }
  function renderList() {
    const box = clear($("#cg-items"));
    const open = model.items.filter((i) => !i.placed).length;
    $("#cg-count").textContent = t("capture_game.count", { placed: model.items.length - open, total: model.items.length });
    for (const i of model.items) {
      box.append(el("button", { type: "button", class: (i.placed ? "" : "unplaced ") + (i.key === selected ? "selected" : ""),
        dataset: { key: i.key }, text: idOf(i), onclick: () => { selected = i.key; draw(); } }));
    }
  }
  function renderLinks() {
    const panel = $("#cg-links-panel");
    panel.hidden = !spec.links;
    if (!spec.links) return;
    const ul = clear($("#cg-links"));
    for (const l of model.links) {
      const a = byKey(l.a), b = byKey(l.b);
      if (!a || !b) continue;
      const type = input({ key: "type", type: "select", options: spec.links.types, label: spec.links.label }, l.type, (v) => { l.type = v; draw(); });
      ul.append(el("li", { dataset: { link: l.a + "|" + l.b } }, idOf(a) + " – " + idOf(b) + " ", type,
        el("button", { type: "button", class: "small secondary", text: "×", "aria-label": t("capture.tool_delete"),
          onclick: () => { model.links = model.links.filter((x) => x !== l); draw(); } })));
    }
  }
  function renderFields() {
    $("#cg-fields-panel").hidden = !spec.fields.length;
    const box = clear($("#cg-fields"));
    for (const f of spec.fields) {
      box.append(el("label", { text: text(f.label) }), input(f, model.fields[f.key], (v) => { model.fields[f.key] = v; }));
    }
  }
  function renderInspector() {
    const i = selected === null ? null : byKey(selected);
    $("#cg-inspector").hidden = !i;
    if (!i) return;
    $("#cg-inspector-id").textContent = idOf(i) + (i.placed ? "" : " — " + t("capture_game.not_placed"));
    const box = clear($("#cg-item-fields"));
    for (const f of (spec.item_fields || {})[i.kind] || []) {
      box.append(el("label", { text: text(f.label) }), input(f, i.values[f.key], (v) => { i.values[f.key] = v; renderList(); }));
    }
    $("#cg-size-r").hidden = i.shape !== "circle";
    $("#cg-size-w").hidden = $("#cg-size-h").hidden = i.shape !== "rect";
    if (i.shape === "circle") $("#cg-r").value = Math.round(i.r);
    if (i.shape === "rect") { $("#cg-w").value = Math.round(i.w); $("#cg-h").value = Math.round(i.h); }
  }
  for (const [id, prop] of [["#cg-r", "r"], ["#cg-w", "w"], ["#cg-h", "h"]]) {
    $(id).addEventListener("change", (ev) => {
      const i = byKey(selected);
      const v = parseFloat(ev.target.value);
      if (i && v >= 2) { i[prop] = v; draw(); }
    });
  }
  $("#cg-remove").addEventListener("click", () => { if (selected !== null) { removeItem(selected); draw(); } });

  // ---- templates ---------------------------------------------------------------------------------
  async function loadSpec(from) {
    spec = await TR.get("/api/capture/spec?game=" + encodeURIComponent(game) + (from ? "&from=" + encodeURIComponent(from) : ""));
    const keep = $("#cg-positions").checked && spec.template_size;
    const [sx, sy] = keep ? [meta.size_mm[0] / spec.template_size[0], meta.size_mm[1] / spec.template_size[1]] : [1, 1];
    model.items = spec.items.map((i) => {
      const item = Object.assign({}, i, { values: Object.assign({}, i.values) });
      item.placed = !!keep && i.placed !== false;
      if (i.shape === "polygon" && i.points) item.points = i.points.map((p) => [p[0] * sx, p[1] * sy]);
      if (i.x !== undefined) { item.x = i.x * sx; item.y = i.y * sy; }
      if (i.r !== undefined) item.r = i.r * Math.min(sx, sy);
      if (i.w !== undefined) { item.w = i.w * sx; item.h = i.h * sy; }
      if (!item.placed && i.shape === "polygon") item.points = item.points || [];
      return item;
    });
    model.groups = Object.fromEntries(spec.groups.map((g) => [g.key, Object.assign({}, g.values)]));
    model.fields = Object.fromEntries(spec.fields.map((f) => [f.key, f.value === null || f.value === undefined ? "" : f.value]));
    model.links = spec.links ? spec.links.list.map((l) => Object.assign({}, l)) : [];
    selected = linkStart = null;
    draft = [];
    $("#cg-rules").replaceChildren(...(spec.rules || []).map((r) => el("li", { text: text(r) })));
    $("#cg-id-field").hidden = !!spec.fixed_id;
    $("#cg-name-en-field").hidden = $("#cg-name-zh-field").hidden = $("#cg-provisional-field").hidden = !spec.data_format;
    $("#cg-fixed").hidden = !spec.fixed_id;
    if (spec.name) { $("#cg-name-en").value = spec.name.en || ""; $("#cg-name-zh").value = spec.name.zh || ""; }
    for (const b of document.querySelectorAll(".tool[data-tool=area]")) b.hidden = !spec.add && !spec.items.some((i) => i.shape === "polygon");
    for (const b of document.querySelectorAll(".tool[data-tool=link]")) b.hidden = !spec.links;
    const types = clear($("#cg-link-type"));
    if (spec.links) for (const o of spec.links.types) types.append(el("option", { value: o.value, text: text(o.label) }));
    $("#cg-links-title").textContent = spec.links ? text(spec.links.label) : "";
    renderGroups();
    renderFields();
    draw();
  }
  $("#cg-load").addEventListener("click", () => {
    if (model.items.some((i) => i.placed) && !confirm(t("capture.replace_confirm"))) return;
    loadSpec($("#cg-template").value);
  });

  // ---- check and save ----------------------------------------------------------------------------
  async function serverCheck() {
    const res = await TR.api("POST", "/api/capture/check", { game, capture: capture() });
    const local = localProblems();
    showProblems(local, res.ok ? res.data.problems : [res.data.error ? res.data.error.message : { en: "?", zh: "?" }]);
    return res.ok && res.data.ok && !local.length;
  }
  $("#check").addEventListener("click", serverCheck);
  $("#save").addEventListener("click", async () => {
    $("#save-result").textContent = "";
    const res = await TR.api("POST", "/api/capture/save", { game, capture: capture(), overwrite: $("#overwrite").checked });
    if (res.ok) {
      $("#save-result").textContent = t("capture.saved", { id: res.data.id });
      $("#save-result").dataset.saved = res.data.id;
      TR.toast(pick(res.data.message), "ok");
    } else {
      const problems = (res.data.error && res.data.error.problems) || [];
      showProblems(localProblems(), problems.length ? problems : [res.data.error ? res.data.error.message : { en: "?", zh: "?" }]);
      TR.toast(TR.errorText(res), "error");
    }
  });

  // ---- start -------------------------------------------------------------------------------------
  async function photo(available) {
    if (!available) return null;
    const r = await fetch("/api/capture/image", { credentials: "same-origin", cache: "no-store" });
    return r.ok ? URL.createObjectURL(await r.blob()) : null;
  }
  Promise.all([TR.get("/api/capture/snapshot?game=" + encodeURIComponent(game)), TR.get("/api/boards?game=" + encodeURIComponent(game)),
    TR.get("/api/games")]).then(async ([m, bs, gs]) => {
    const info = gs.games.find((g) => g.id === game);
    $("#cg-game").textContent = info ? pick(info.name) : game;
    meta = m;
    meta.photo = await photo(m.available);
    $("#no-photo").hidden = !!meta.photo;
    const sel = $("#cg-template");
    for (const b of bs.boards) {
      sel.append(el("option", { value: b.id, text: (pick(b.name) || b.id) + (b.source === "captured" ? " (" + t("new.captured") + ")" : "") }));
    }
    await loadSpec(sel.value);
    if (!meta.photo && spec.template_size) { // no camera: a blank sheet the size of the template board
      meta.size_mm = spec.template_size;
      meta.markers = spec.template_markers || meta.markers;
      await loadSpec(sel.value);
    }
    $("#cg-id").value = spec.id_hint || "";
    setTool("place");
  }).catch((e) => showProblems([String(e)]));
})();
