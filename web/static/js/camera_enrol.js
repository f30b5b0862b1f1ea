// Camera enrolment: the camera learns this table in three steps (empty board photo, one piece of
// each type on the marked spaces, result + save). The server keeps the session
// (GET/POST /api/camera/enrol); this page shows where it stands and sends the steps.
"use strict";
(function () {
  const { el, svg, t, pick, $, clear } = TR;
  let status = null;
  let drawnBoard = null;
  let busy = false;

  const pieceName = (p) => TR.colour(p.owner) + " " + TR.kind(p.kind);
  const CORNERS = { "top-left": t("cenrol.corner_top_left"), "top-right": t("cenrol.corner_top_right"),
    "bottom-right": t("cenrol.corner_bottom_right"), "bottom-left": t("cenrol.corner_bottom_left") };
  const cornerName = (c) => CORNERS[c] || c;

  function renderModel(model) {
    const badge = $("#ce-model");
    if (!model) { badge.hidden = true; return; }
    badge.hidden = false;
    badge.dataset.enrolled = String(!!model.enrolled);
    badge.textContent = pick(model.message);
  }

  function renderMarkers(live) {
    const mk = clear($("#ce-markers"));
    if (!live) return;
    for (const c of live.corners || []) {
      mk.append(el("span", { class: "marker " + (c.seen ? "ok" : "missing"), dataset: { marker: c.id, seen: String(c.seen) },
        text: cornerName(c.corner) + " · " + t("devices.marker", { id: c.id }) + " · " + (c.seen ? t("cenrol.found") : t("cenrol.missing")) }));
    }
    if (live.message) mk.append(el("span", { class: "muted", text: pick(live.message) }));
  }

  async function drawPlan(plan, boardId) {
    if (drawnBoard !== boardId) {
      const data = await TR.get("/api/board?id=" + encodeURIComponent(boardId));
      drawnBoard = boardId;
      $("#ce-board").__parts = TR.boardSvg.drawStatic($("#ce-board"), data.geometry);
    }
    const parts = $("#ce-board").__parts;
    clear(parts.layers.pieces);
    clear(parts.layers.marks);
    const list = clear($("#ce-plan"));
    plan.forEach((p, i) => {
      const sp = parts.at[p.space];
      const n = String(i + 1);
      list.append(el("li", { dataset: { space: p.space, owner: p.owner, kind: p.kind } },
        el("strong", { text: pieceName(p) }), " ", el("code", { text: p.space })));
      if (!sp) return;
      const g = svg("g", { "data-plan": p.space });
      TR.boardSvg.drawPiece(g, sp, { owner: p.owner, kind: p.kind, count: 1 }, 0, 1, false);
      parts.layers.pieces.append(g);
      parts.layers.marks.append(svg("circle", { cx: sp.x, cy: sp.y, r: sp.r + 6, class: "mark-plan", "data-space": p.space }));
      const bx = sp.x + sp.r + 2, by = sp.y - sp.r - 2;
      parts.layers.marks.append(svg("g", { class: "plan-number" },
        svg("circle", { cx: bx, cy: by, r: 9, class: "plan-number-bg" }),
        svg("text", { x: bx, y: by + 4, class: "plan-number", text: n })));
    });
  }

  function renderResult(r) {
    const st = $("#ce-result-state");
    st.dataset.enrolled = String(!!r.enrolled);
    st.textContent = r.enrolled ? t("cenrol.result_enrolled") : t("cenrol.result_nominal");
    const warn = clear($("#ce-cannot-read"));  // what this camera, at this distance, will not read
    for (const m of r.cannot_read || []) warn.append(el("li", { text: pick(m) }));
    warn.hidden = !(r.cannot_read || []).length;
    const cols = clear($("#ce-colours"));
    for (const c of r.colours || []) {
      const sw = svg("svg", { viewBox: `0 0 ${c.swatches.length * 26} 24`, width: c.swatches.length * 26, height: 24, "aria-hidden": "true" });
      c.swatches.forEach((hex, i) => sw.append(svg("rect", { x: i * 26 + 1, y: 1, width: 24, height: 22, rx: 4, fill: hex, "data-hex": hex })));
      cols.append(el("div", { class: "ce-colour", dataset: { owner: c.owner } }, sw, el("span", { text: TR.colour(c.owner) })));
    }
    const body = clear($("#ce-sizes"));
    for (const s of r.sizes || []) {
      body.append(el("tr", { dataset: { owner: s.owner, kind: s.kind } },
        el("td", {}, TR.el("span", { class: "player-chip", dataset: { colour: s.owner } }, el("span", { class: "dot", "aria-hidden": "true" }), pieceName(s))),
        el("td", { text: String(Math.round(s.area_mm2)) }),
        el("td", { text: s.nominal_mm2 === null ? "—" : String(Math.round(s.nominal_mm2)) }),
        el("td", { class: s.enrolled ? "ok-text" : "muted", text: s.enrolled ? t("cenrol.enrolled") : t("cenrol.nominal") })));
    }
  }

  async function render(s) {
    status = s;
    renderModel(s.model);
    if (!s.available) {
      $("#ce-flow").hidden = true;
      const u = $("#ce-unavailable");
      u.hidden = false;
      u.textContent = s.message ? pick(s.message) : t("cenrol.unavailable");
      return;
    }
    $("#ce-flow").hidden = false;
    $("#ce-unavailable").hidden = true;
    const step = s.step;
    $("#ce-progress").dataset.step = String(step);
    $("#ce-progress").textContent = t("cenrol.progress", { n: step, total: s.steps });
    for (const li of document.querySelectorAll("#ce-steps li")) {
      const n = Number(li.dataset.step);
      li.classList.toggle("current", n === step);
      li.classList.toggle("done", n < step);
    }
    for (const n of [1, 2, 3]) $("#ce-step" + n).hidden = n !== step;
    renderMarkers(s.live);
    if (step === 2) await drawPlan(s.plan, s.layout);
    if (step === 3 && s.result) renderResult(s.result);
  }

  async function load() {
    try { await render(await TR.get("/api/camera/enrol")); }
    catch (e) { $("#ce-unavailable").hidden = false; $("#ce-unavailable").textContent = t("cenrol.unavailable"); }
  }

  async function send(step, button) {
    if (busy) return;
    busy = true;
    const buttons = document.querySelectorAll("#ce-flow button");
    for (const b of buttons) b.disabled = true;
    const label = button ? button.textContent : "";
    if (button) button.textContent = t("cenrol.working");
    $("#ce-error").textContent = "";
    $("#ce-done").textContent = "";
    try {
      const res = await TR.api("POST", "/api/camera/enrol", { step });
      if (res.ok) {
        if (step === "save") $("#ce-done").textContent = pick(res.data.message);
        TR.toast(pick(res.data.message), "ok");
      } else {
        $("#ce-error").textContent = TR.errorText(res);
        $("#ce-error").dataset.code = (res.data && res.data.error && res.data.error.code) || "";
      }
      await load();
    } finally {
      if (button) button.textContent = label;
      for (const b of buttons) b.disabled = false;
      busy = false;
    }
  }

  $("#ce-capture-empty").addEventListener("click", (ev) => send("empty", ev.currentTarget));
  $("#ce-capture-pieces").addEventListener("click", (ev) => send("pieces", ev.currentTarget));
  $("#ce-retake").addEventListener("click", () => { $("#ce-step3").hidden = true; $("#ce-step2").hidden = false;
    $("#ce-progress").textContent = t("cenrol.progress", { n: 2, total: 3 }); drawPlan(status.plan, status.layout); });
  $("#ce-save").addEventListener("click", (ev) => send("save", ev.currentTarget));
  $("#ce-cancel").addEventListener("click", (ev) => send("cancel", ev.currentTarget));
  $("#ce-restart").addEventListener("click", (ev) => send("cancel", ev.currentTarget));

  // the live picture and corner markers while on step 1
  let camTimer = null;
  function refreshCamera() {
    if (status && status.step === 1 && status.available) {
      const img = $("#ce-camera-img");
      const probe = new Image();
      probe.onload = () => { img.src = probe.src; $("#ce-camera-caption").textContent = t("devices.snapshot_at", { time: TR.time(Date.now() / 1000) }); };
      probe.onerror = () => { $("#ce-camera-caption").textContent = t("devices.no_picture"); };
      probe.src = "/api/camera.jpg?t=" + Date.now();
      if (!busy) TR.get("/api/camera/enrol").then((s) => { if (!busy && s.step === 1) { status = s; renderMarkers(s.live); renderModel(s.model); } }).catch(() => {});
    }
    camTimer = setTimeout(refreshCamera, 1500);
  }
  load().then(refreshCamera);
  TR.live(null, { event: (ev) => { if (ev.type === "devices" && ev.data && ev.data.camera_enrolment && !busy) load(); } });
  window.addEventListener("pagehide", () => clearTimeout(camTimer));
})();
