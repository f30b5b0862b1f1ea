// History: every event of the game, newest first, live; undo and override for an admin.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const list = $("#history");
  const seen = new Set();

  function typeLabel(type) {
    return TR.has("event." + type) ? t("event." + type) : type;
  }

  function row(h) {
    const li = el("li", { class: "event" + (h.undone ? " undone" : ""), dataset: { type: h.type, id: h.id } },
      el("time", { class: "muted", text: (h.at_text && pick(h.at_text)) || TR.time(h.at) }),
      el("span", { class: "event-type", dataset: { type: h.type }, text: typeLabel(h.type) }),
      el("span", { class: "event-text", text: pick(h.description) || "" }),
      h.actor ? el("span", { class: "event-actor muted", text: h.actor }) : null,
      h.undone ? el("span", { class: "badge", text: t("history.undone") }) : null);
    return li;
  }

  function add(h) {
    if (seen.has(h.id)) return;
    seen.add(h.id);
    list.prepend(row(h));
    $("#history-empty").hidden = true;
  }

  function markUndone() {
    for (const li of list.querySelectorAll('li[data-type="move_accepted"]:not(.undone), li[data-type="override"]:not(.undone)')) {
      li.classList.add("undone");
      li.append(el("span", { class: "badge", text: t("history.undone") }));
      return;
    }
  }

  async function load() {
    const data = await TR.get("/api/history");
    clear(list);
    seen.clear();
    for (const h of data.events) add(h);
    $("#history-empty").hidden = data.events.length > 0;
    const s = await TR.get("/api/state");
    $("#override").disabled = !s.flag;
    return data.event_id;
  }

  load().then((since) => TR.live(since, {
    event: (ev) => {
      if (ev.type === "state") { $("#override").disabled = !ev.data.flag; return; }
      if (ev.type === "devices" || ev.type === "signal") return;
      if (ev.type === "new_game") { clear(list); seen.clear(); }
      if (ev.type === "undo") markUndone();
      const d = ev.data || {};
      add({ id: ev.id, type: ev.type, at: ev.at, at_text: ev.at_text, actor: d.actor, description: d.description });
    },
    reset: () => load(),
  }));

  $("#undo").addEventListener("click", async () => {
    if (!confirm(t("action.undo_confirm"))) return;
    const res = await TR.api("POST", "/api/undo", {});
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "ok" : "error");
  });
  $("#override").addEventListener("click", async () => {
    if (!confirm(t("action.override_confirm"))) return;
    const res = await TR.api("POST", "/api/override", {});
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "ok" : "error");
  });
})();
