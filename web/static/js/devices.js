// Devices: camera (live snapshot, markers), sensor board link and counters, card reader, GPIO,
// the optional MQTT publisher.
// The service's devices() JSON is shown generically, so new fields appear without a change here.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const DEVICES = ["camera", "sensor_board", "card_reader", "gpio", "mqtt"];

  function label(key) { return TR.has("field." + key) ? t("field." + key) : key.replace(/_/g, " "); }
  function value(v) {
    if (v === true) return t("value.yes");
    if (v === false) return t("value.no");
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) return v.length ? v.map(value).join(", ") : "—";
    if (typeof v === "number" && v > 1e9 && v < 1e11) return TR.time(v);
    if (typeof v === "number") return String(Math.round(v * 100) / 100);
    return String(v);
  }
  const isMessage = (v) => v && typeof v === "object" && typeof v.en === "string" && (typeof v.zh === "string" || typeof v["zh-Hans"] === "string");
  function kv(dl, obj, prefix) {
    let entries = Object.entries(obj);
    // long groups of counters: show the ones that are not zero, and say the rest are
    const zeros = entries.filter(([, v]) => v === 0);
    const hideZeros = prefix && entries.length > 8 && zeros.length > 0;
    if (hideZeros) entries = entries.filter(([, v]) => v !== 0);
    for (const [k, v] of entries) {
      if (k === "state" && !prefix) continue;
      const name = (prefix ? prefix + " › " : "") + label(k);
      if (isMessage(v)) { dl.append(el("dt", { text: name }), el("dd", { dataset: { field: k }, text: pick(v) })); continue; }
      if (v && typeof v === "object" && !Array.isArray(v)) { kv(dl, v, name); continue; }
      dl.append(el("dt", { text: name }), el("dd", { dataset: { field: k }, text: value(v) }));
    }
    if (hideZeros) dl.append(el("dt", { text: prefix + " › …" }), el("dd", { class: "muted", text: t("devices.others_zero", { n: zeros.length }) }));
  }
  function stateText(s) { return TR.has("state." + s) ? t("state." + s) : s; }

  function render(d) {
    $("#emulated").hidden = !d.emulated;
    for (const name of DEVICES) {
      const info = d[name] || { state: "absent" };
      const card = $("#dev-" + name);
      const st = card.querySelector(".state");
      st.dataset.state = info.state || "unknown";
      st.textContent = stateText(info.state || "unknown");
      // the camera's table model has its own line (with the enrolment link) above the fields
      const shown = name === "camera" && info.model ? Object.fromEntries(Object.entries(info).filter(([k]) => k !== "model")) : info;
      kv(clear($("#kv-" + name)), shown, "");
    }
    const cam = d.camera || {};
    const model = cam.model;
    $("#camera-model").hidden = !model;
    if (model) {
      $("#camera-model").dataset.enrolled = String(!!model.enrolled);
      $("#camera-model-text").textContent = pick(model.message);
    }
    const mk = clear($("#markers"));
    const reg = cam.markers || cam.registration; // {found, expected} or {found, missing}
    if (reg && Array.isArray(reg.found)) {
      const found = new Set(reg.found);
      const all = [...new Set([...(reg.expected || []), ...reg.found, ...(reg.missing || [])])].sort((a, b) => a - b);
      for (const id of all) {
        mk.append(el("span", { class: "marker " + (found.has(id) ? "ok" : "missing"), text: t("devices.marker", { id }) }));
      }
      if (reg.message) mk.append(el("span", { class: "muted", text: pick(reg.message) }));
    }
    $("#raw").textContent = JSON.stringify(d, null, 2);
  }

  let camTimer = null;
  function refreshCamera() {
    const img = $("#camera-img");
    const probe = new Image();
    probe.onload = () => { img.src = probe.src; $("#camera-caption").textContent = t("devices.snapshot_at", { time: TR.time(Date.now() / 1000) }); };
    probe.onerror = () => { $("#camera-caption").textContent = t("devices.no_picture"); };
    probe.src = "/api/camera.jpg?t=" + Date.now();
    camTimer = setTimeout(refreshCamera, 2000);
  }
  async function poll() {
    try { render(await TR.get("/api/devices")); } catch (e) { /* shown by the live badge */ }
    setTimeout(poll, 2000);
  }
  poll();
  refreshCamera();
  TR.live(null, { event: (ev) => { if (ev.type === "devices") TR.get("/api/devices").then(render); } });
  window.addEventListener("pagehide", () => clearTimeout(camTimer));
})();
