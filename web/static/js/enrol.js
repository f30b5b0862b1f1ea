// Tag enrolment: present a piece or card to a reader; the page shows the unknown tag; say what it is.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const OWNERS = ["blue", "green", "violet", "red", "yellow", "neutral"];

  function describe(item) {
    if (item.card) return t("enrol.card") + ": " + TR.colour(item.card);
    return TR.colour(item.owner) + " " + TR.kind(item.kind);
  }

  function render(info) {
    const p = info.pending;
    $("#pending").hidden = !p;
    $("#pending-none").hidden = !!p;
    if (p) {
      $("#pending-uid").textContent = p.uid;
      $("#pending-where").textContent = [p.source, p.space].filter(Boolean).join(" · ");
      if (!$("#uid").value || $("#uid").dataset.auto === "1") { $("#uid").value = p.uid; $("#uid").dataset.auto = "1"; }
    }
    const kind = $("#kind");
    if (!kind.options.length) {
      for (const k of info.pieces || []) kind.append(el("option", { value: k, text: TR.kind(k) }));
      for (const o of OWNERS) $("#owner").append(el("option", { value: o, text: TR.colour(o) }));
      for (const c of info.cards || []) $("#card").append(el("option", { value: c, text: TR.colour(c) }));
    }
    const body = clear($("#registry"));
    for (const r of info.registry || []) body.append(el("tr", {}, el("td", {}, el("code", { text: r.uid })), el("td", { text: describe(r.item) })));
  }

  for (const r of document.querySelectorAll('input[name="type"]')) {
    r.addEventListener("change", () => {
      const card = document.querySelector('input[name="type"]:checked').value === "card";
      $("#card-fields").hidden = !card;
      $("#piece-fields").hidden = card;
    });
  }
  $("#uid").addEventListener("input", () => { $("#uid").dataset.auto = "0"; });

  $("#enrol-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const type = document.querySelector('input[name="type"]:checked').value;
    const item = type === "card" ? { card: $("#card").value } : { owner: $("#owner").value, kind: $("#kind").value };
    const res = await TR.api("POST", "/api/enrol", { uid: $("#uid").value.trim(), item });
    $("#enrol-error").textContent = res.ok ? "" : TR.errorText(res);
    if (res.ok) { TR.toast(pick(res.data.message), "ok"); $("#uid").value = ""; load(); }
  });

  async function load() {
    try { render(await TR.get("/api/enrol")); }
    catch (e) { $("#pending-none").textContent = t("enrol.unsupported"); }
  }
  load();
  TR.live(null, { event: (ev) => { if (ev.type === "devices") load(); } });
})();
