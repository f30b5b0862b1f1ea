// The first-run wizard: PIN, game/board/players, camera check, marker sheet, camera enrolment,
// sensor board test, start. The server keeps where the setup stands (GET/POST /api/setup), so a
// reload or another tablet resumes it; this page shows the current step and sends the actions.
"use strict";
(function () {
  const { el, svg, t, pick, $, clear } = TR;
  const STEPS = ["pin", "game", "camera", "markers", "enrol", "sensors", "start"];
  const CORNERS = { "top-left": t("cenrol.corner_top_left"), "top-right": t("cenrol.corner_top_right"),
    "bottom-right": t("cenrol.corner_bottom_right"), "bottom-left": t("cenrol.corner_bottom_left") };
  let st = null; // the server's wizard state
  let shown = null; // the step whose panel is on screen
  let leave = null; // stops the shown step's timers and stream
  let games = null;
  let boards = null;
  let lastCamera = null;
  let seen = new Set();

  const STEP_NAMES = { pin: t("setup.step_pin"), game: t("setup.step_game"), camera: t("setup.step_camera"),
    markers: t("setup.step_markers"), enrol: t("setup.step_enrol"), sensors: t("setup.step_sensors"), start: t("setup.step_start") };
  const stepName = (s) => STEP_NAMES[s] || s;
  const cornerText = (c) => t("setup.corner", { corner: CORNERS[c.corner] || t("devices.marker", { id: c.id }), id: c.id });
  const stateText = (s) => (TR.has("state." + s) ? t("state." + s) : s);
  const error = (text) => { $("#wz-error").textContent = text || ""; };

  async function act(body) {
    error("");
    const res = await TR.api("POST", "/api/setup", body);
    if (res.ok && res.data.setup) {
      st = res.data.setup;
      render();
    } else if (!res.ok) {
      error(TR.errorText(res));
    }
    return res;
  }

  // -- the frame: progress, step list, panels, buttons ------------------------------------------------
  function render() {
    const finished = st.status === "done" || st.status === "skipped";
    $("#wz").hidden = finished;
    $("#wz-skip-all").hidden = finished;
    const fin = $("#wz-finished");
    fin.hidden = !finished;
    if (finished) {
      clear(fin).append(el("span", { text: t(st.status === "done" ? "setup.finished_done" : "setup.finished_skipped") }), " ",
        el("button", { type: "button", id: "wz-restart", class: "secondary", text: t("setup.restart"),
          onclick: () => act({ action: "restart" }) }));
      enter(null);
      return;
    }
    $("#wz-progress").textContent = t("setup.progress", { n: st.index, total: st.total, step: stepName(st.step) });
    $("#wz-progress").dataset.step = st.step;
    $("#wz-progress").dataset.index = String(st.index);
    $("#wz-bar").style.width = Math.round((100 * st.done.length) / st.total) + "%";
    const skipped = new Set(Object.entries(st.checks || {}).filter(([, c]) => c && c.skipped).map(([s]) => s));
    for (const li of document.querySelectorAll("#wz-steps li")) {
      const s = li.dataset.step;
      li.classList.toggle("current", s === st.step);
      li.classList.toggle("done", st.done.includes(s) && !skipped.has(s));
      li.classList.toggle("skipped", skipped.has(s));
      li.querySelector("button").toggleAttribute("aria-current", s === st.step);
    }
    $("#wz-back").hidden = st.step === "pin";
    $("#wz-skip-step").hidden = !st.optional.includes(st.step);
    $("#wz-next").hidden = st.step === "game" || st.step === "start" || (st.step === "pin" && !st.pin_set);
    enter(st.step);
  }

  function enter(step) {
    if (shown === step && step !== "pin") return;
    if (leave) { leave(); leave = null; }
    shown = step;
    for (const p of document.querySelectorAll("#wz section[data-step]")) p.hidden = p.dataset.step !== step;
    const fn = { pin: enterPin, game: enterGame, camera: enterCamera, markers: enterMarkers, enrol: enterEnrol,
      sensors: enterSensors, start: enterStart }[step];
    const stop = fn ? fn() : null;
    leave = typeof stop === "function" ? stop : null;
  }

  // -- 1. the admin PIN -----------------------------------------------------------------------------------
  function enterPin() {
    $("#wz-pin-form").hidden = st.pin_set;
    $("#wz-pin-set").hidden = !st.pin_set;
    $("#wz-unlock").hidden = !st.pin_set || TR.admin;
    if (!st.pin_set) $("#wz-pin1").focus();
  }
  $("#wz-pin-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error("");
    const res = await TR.api("POST", "/api/pin/setup", { pin: $("#wz-pin1").value, confirm: $("#wz-pin2").value }, true);
    if (!res.ok) { error(TR.errorText(res)); $("#wz-pin1").value = ""; $("#wz-pin2").value = ""; return; }
    TR.csrf = res.data.csrf;
    TR.admin = true;
    TR.pinSet = true;
    document.body.classList.add("is-admin");
    await act({ action: "complete", step: "pin" });
  });
  $("#wz-unlock").addEventListener("click", async () => {
    if (await TR.askPin()) { $("#wz-unlock").hidden = true; }
  });

  // -- 2. game, board, players (the New game form in setup mode) --------------------------------------
  function enterGame() {
    TR.gameForm.ready.then(() => { if (st.choices) TR.gameForm.set(st.choices); });
  }
  document.addEventListener("tr:gameform", async (e) => {
    $("#new-error").textContent = "";
    const res = await act({ action: "choose", choices: e.detail });
    if (!res.ok) { $("#new-error").textContent = TR.errorText(res); error(""); }
  });

  // -- 3. the camera: live picture and the four corner markers ------------------------------------------
  function enterCamera() {
    let timer = null;
    let stopped = false;
    const img = $("#wz-camera-img");
    async function tick() {
      try {
        lastCamera = await TR.get("/api/setup/camera");
        renderCamera(lastCamera);
        if (lastCamera.available) {
          const probe = new Image();
          probe.onload = () => { if (!stopped) { img.src = probe.src; $("#wz-camera-caption").textContent = t("devices.snapshot_at", { time: TR.time(Date.now() / 1000) }); } };
          probe.onerror = () => { $("#wz-camera-caption").textContent = t("devices.no_picture"); };
          probe.src = "/api/camera.jpg?t=" + Date.now();
        }
      } catch (err) { /* the next tick tries again */ }
      if (!stopped) timer = setTimeout(tick, 1500);
    }
    tick();
    return () => { stopped = true; clearTimeout(timer); };
  }
  function renderCamera(c) {
    $("#wz-camera-none").hidden = c.available;
    $("#wz-camera-live").hidden = !c.available;
    if (!c.available) return;
    const box = clear($("#wz-corners"));
    for (const k of c.corners) {
      box.append(el("span", { class: "marker " + (k.seen ? "ok" : "missing"), dataset: { marker: k.id, corner: k.corner || "", seen: String(k.seen) },
        text: cornerText(k) + " · " + t(k.seen ? "cenrol.found" : "cenrol.missing") }));
    }
    const verdict = $("#wz-camera-verdict");
    const missing = c.corners.filter((k) => !k.seen);
    verdict.dataset.ok = String(c.corners.length > 0 && !missing.length);
    verdict.dataset.missing = missing.map((k) => k.id).join(" ");
    verdict.textContent = !c.corners.length ? t("setup.camera_waiting")
      : missing.length ? t("setup.camera_missing", { corners: missing.map(cornerText).join(", ") }) : t("setup.camera_ok");
    $("#wz-camera-message").textContent = [t("setup.camera_state", { state: stateText(c.state) }), pick(c.message)].filter(Boolean).join(" · ");
  }

  // -- 4. the marker sheet --------------------------------------------------------------------------------
  function enterMarkers() {
    const board = st.sheet_board;
    const q = board ? "?board=" + encodeURIComponent(board) : "";
    $("#wz-sheet-pdf").href = "/setup/markers.pdf" + q;
    $("#wz-sheet-cli").textContent = "tableref vision markers --board " + (board || "china-a") + " --out markers";
    const img = $("#wz-sheet-img");
    $("#wz-sheet-error").textContent = "";
    img.onerror = async () => {
      const r = await fetch("/setup/markers.png" + q);
      let text = "";
      try { text = TR.pick((await r.json()).error.message); } catch (e) { text = t("error.unknown"); }
      $("#wz-sheet-error").textContent = text;
    };
    img.src = "/setup/markers.png" + q;
  }

  // -- 5. camera enrolment (its own page) ------------------------------------------------------------------
  function enterEnrol() {
    const badge = $("#wz-enrol-model");
    const none = $("#wz-enrol-none");
    fetch("/api/camera/enrol", { credentials: "same-origin", cache: "no-store" }).then((r) => r.json()).then((s) => {
      const ok = s && s.available;
      none.hidden = !!ok;
      $("#wz-enrol-link").hidden = !ok;
      if (!ok) none.textContent = s && s.message ? pick(s.message) : t("setup.enrol_none");
      badge.hidden = !(ok && s.model);
      if (ok && s.model) {
        badge.dataset.enrolled = String(!!s.model.enrolled);
        badge.textContent = pick(s.model.message);
      }
    }).catch(() => { none.hidden = false; none.textContent = t("setup.enrol_none"); $("#wz-enrol-link").hidden = true; });
  }

  // -- 6. the sensor board: which space lights up -----------------------------------------------------------
  // "Lit" = spaces whose believed content differs from when the step opened and tags nobody enrolled
  // (the referee's own sensor view, sent with every state event), and a reader's unknown tag announced
  // with its space (devices events). Unsettled readings are left out: a camera just started, or a
  // hand over the board, leaves many spaces unsettled for a moment.
  function contents(board) {
    const out = {};
    for (const [space, rows] of Object.entries(board || {})) {
      out[space] = rows.map((r) => r.owner + ":" + r.kind + ":" + (r.count || 1)).sort().join(",");
    }
    return out;
  }
  function describe(rows) {
    return (rows || []).map((r) => TR.colour(r.owner) + " " + TR.kind(r.kind) + (r.count > 1 ? " ×" + r.count : "")).join(", ");
  }
  function enterSensors() {
    let live = null;
    let closed = false;
    let base = null; // {sensed: {space: key}, unknown: Set}
    let sensors = null;
    const flashes = new Map(); // space -> {label, until}
    let parts = null;
    seen = new Set((st.checks.sensors && st.checks.sensors.seen) || []);

    function lit() {
      const out = new Map();
      if (sensors && base) {
        const now = contents(sensors.sensed);
        for (const space of new Set([...Object.keys(now), ...Object.keys(base.sensed)])) {
          if (now[space] !== base.sensed[space]) out.set(space, describe(sensors.sensed[space]) || t("setup.sensors_removed"));
        }
        for (const u of sensors.unknown || []) {
          if (!base.unknown.has(u.space + "|" + u.tag)) out.set(u.space, t("setup.sensors_tag", { tag: u.tag }));
        }
      }
      const nowMs = Date.now();
      for (const [space, f] of flashes) {
        if (f.until < nowMs) flashes.delete(space);
        else if (!out.has(space)) out.set(space, f.label);
      }
      return out;
    }
    function draw() {
      const spaces = lit();
      for (const s of spaces.keys()) seen.add(s);
      const list = [...spaces.keys()].sort();
      const p = clear($("#wz-lit"));
      p.dataset.lit = list.join(" ");
      if (!list.length) p.textContent = t("setup.sensors_waiting");
      else {
        p.append(t("setup.sensors_lit_label") + " ");
        for (const s of list) p.append(el("span", { class: "lit-space", dataset: { space: s }, text: s }), el("span", { class: "muted", text: spaces.get(s) + " " }));
      }
      const all = [...seen].sort();
      $("#wz-seen").dataset.seen = all.join(" ");
      $("#wz-seen").textContent = all.length ? t("setup.sensors_seen", { spaces: all.join(", ") }) : "";
      if (parts) {
        clear(parts.layers.marks);
        for (const s of list) {
          const sp = parts.at[s];
          if (sp) parts.layers.marks.append(svg("circle", { cx: sp.x, cy: sp.y, r: sp.r + 7, class: "mark-lit", "data-space": s }));
        }
      }
    }
    async function start() {
      const [devs, state] = await Promise.all([TR.get("/api/devices"), TR.get("/api/state")]);
      if (closed) return;
      const sb = devs.sensor_board || { state: "absent" };
      $("#wz-sensor-state").textContent = t("setup.sensor_board_state", { state: stateText(sb.state) });
      $("#wz-sensor-state").dataset.state = sb.state;
      $("#wz-sensor-none").hidden = sb.state !== "absent";
      sensors = state.sensors || null;
      base = { sensed: contents(sensors && sensors.sensed), unknown: new Set(((sensors && sensors.unknown) || []).map((u) => u.space + "|" + u.tag)) };
      const boardId = (st.choices && st.choices.board) || state.board_id;
      if (boardId) {
        try {
          const data = await TR.get("/api/board?id=" + encodeURIComponent(boardId));
          if (!closed) { parts = TR.boardSvg.drawStatic($("#wz-sensor-board"), data.geometry); $("#wz-sensor-board-wrap").hidden = false; }
        } catch (e) { $("#wz-sensor-board-wrap").hidden = true; }
      }
      draw();
      if (closed) return;
      live = TR.live(state.event_id, {
        event: (ev) => {
          if (ev.type === "state" && ev.data && ev.data.sensors) { sensors = ev.data.sensors; draw(); }
          const tag = ev.type === "devices" && ev.data && ev.data.unknown_tag;
          if (tag && tag.space) {
            flashes.set(tag.space, { label: t("setup.sensors_tag", { tag: tag.uid }), until: Date.now() + 5000 });
            draw();
            setTimeout(draw, 5100);
          }
        },
        reset: async () => { const s = await TR.get("/api/state"); sensors = s.sensors || null; draw(); },
      });
    }
    start();
    return () => { closed = true; if (live) live.close(); $("#live").hidden = true; };
  }

  // -- 7. start --------------------------------------------------------------------------------------------
  async function enterStart() {
    if (!games) games = (await TR.get("/api/games")).games;
    const c = st.choices || {};
    if (!boards || boards.game !== c.game) boards = Object.assign((await TR.get("/api/boards?game=" + encodeURIComponent(c.game || "china"))).boards, { game: c.game });
    const dl = clear($("#wz-summary"));
    const g = games.find((x) => x.id === c.game);
    const checks = st.checks || {};
    const row = (key, value, step) => dl.append(el("dt", { text: t(key) }), el("dd", { dataset: { step: step || "" }, text: value }));
    const status = (step, text) => (checks[step] && checks[step].skipped ? t("setup.sum_skipped") : st.done.includes(step) ? text : t("setup.sum_not_done"));
    row("setup.sum_game", g ? pick(g.name) : c.game || "—", "game");
    row("setup.sum_players", (c.players || []).map(TR.colour).join(", ") || "—", "game");
    const b = c.board && boards.find((x) => x.id === c.board);
    if (c.board) row("setup.sum_board", b && b.name ? pick(b.name) + " (" + c.board + ")" : c.board, "game");
    const cam = checks.camera || {};
    const missing = (cam.missing || []).map((id) => {
      const k = (cam.corners || []).find((x) => x.id === id);
      return k ? cornerText(k) : t("devices.marker", { id });
    });
    row("setup.sum_camera", status("camera", cam.available === false ? t("setup.camera_none_short")
      : missing.length ? t("setup.sum_camera_missing", { corners: missing.join(", ") }) : t("setup.sum_camera_ok")), "camera");
    row("setup.sum_markers", status("markers", t("setup.sum_done")), "markers");
    const en = checks.enrol || {};
    row("setup.sum_enrol", status("enrol", en.enrolled ? t("setup.sum_enrolled") : t("setup.sum_nominal")), "enrol");
    const sn = checks.sensors || {};
    row("setup.sum_sensors", status("sensors", (sn.seen || []).length ? t("setup.sum_sensors_seen", { spaces: sn.seen.join(", ") }) : t("setup.sum_sensors_none")), "sensors");
  }
  $("#wz-start-game").addEventListener("click", async () => {
    const res = await act({ action: "start" });
    if (res.ok) {
      TR.toast(pick(res.data.message), "ok");
      setTimeout(() => { location.href = "/"; }, 600);
    }
  });

  // -- navigation -------------------------------------------------------------------------------------------
  async function next() {
    const step = st.step;
    if (step === "pin") {
      if (!TR.admin && !(await TR.askPin())) return;
      await act({ action: "complete", step });
      return;
    }
    let check;
    if (step === "camera" && lastCamera) {
      check = { available: lastCamera.available, corners: lastCamera.corners, missing: lastCamera.missing, registered: lastCamera.registered };
    } else if (step === "markers") {
      check = { board: st.sheet_board || null };
    } else if (step === "enrol") {
      check = { enrolled: $("#wz-enrol-model").dataset.enrolled === "true" };
    } else if (step === "sensors") {
      check = { seen: [...seen].sort() };
    }
    await act(check ? { action: "complete", step, check } : { action: "complete", step });
  }
  $("#wz-next").addEventListener("click", next);
  $("#wz-skip-step").addEventListener("click", () => act({ action: "skip_step", step: st.step }));
  $("#wz-back").addEventListener("click", () => act({ action: "goto", step: STEPS[Math.max(0, STEPS.indexOf(st.step) - 1)] }));
  for (const b of document.querySelectorAll("#wz-steps button")) b.addEventListener("click", () => act({ action: "goto", step: b.dataset.goto }));
  $("#wz-skip-all").addEventListener("click", async () => {
    if (!confirm(t("setup.skip_confirm"))) return;
    const res = await act({ action: "skip" });
    if (res.ok) location.href = "/";
  });

  TR.get("/api/setup").then((s) => { st = s; render(); });
})();
