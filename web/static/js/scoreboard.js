// Scoreboard: players in their colours, totals and breakdown, who is to play, laps of the score
// track, the current flag (rule + fix), game over with winner and tie-break. Re-rendered from
// every `state` event.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  let snap = null;

  function renderFlag(flag, alert) {
    const box = $("#flag");
    const list = clear($("#flag-list"));
    if (!flag) { box.hidden = true; document.body.classList.remove("flagged"); return; }
    for (const v of flag.violations || []) {
      const item = el("li", { class: "flag-item", dataset: { rule: v.rule } },
        el("div", { class: "flag-rule", text: pick(v.message) }));
      if (v.fix) item.append(el("div", { class: "flag-fix" }, el("strong", { text: t("flag.fix") + " " }), pick(v.fix)));
      const spaces = v.spaces && v.spaces.length ? v.spaces : [];
      if (spaces.length) item.append(el("div", { class: "flag-spaces muted", text: t("flag.spaces", { spaces: spaces.join(", ") }) }));
      item.append(el("div", { class: "flag-code muted", text: v.rule }));
      list.append(item);
    }
    if (!(flag.violations || []).length && flag.message) {
      const item = el("li", { class: "flag-item" }, el("div", { class: "flag-rule", text: pick(flag.message) }));
      if (flag.fix) item.append(el("div", { class: "flag-fix" }, el("strong", { text: t("flag.fix") + " " }), pick(flag.fix)));
      if ((flag.spaces || []).length) item.append(el("div", { class: "flag-spaces muted", text: t("flag.spaces", { spaces: flag.spaces.join(", ") }) }));
      list.append(item);
    }
    if (alert && alert.silenced) list.append(el("li", { class: "muted", text: t("score.alert_silenced") }));
    box.hidden = false;
    document.body.classList.add("flagged");
  }

  function renderGameOver(s) {
    const box = clear($("#gameover"));
    const o = s.outcome;
    if (!o) { box.hidden = true; return; }
    const names = (o.winners || []).map((w) => TR.playerChip(w));
    box.append(...[
      el("div", { class: "gameover-title", text: t("over.title") }),
      el("div", { class: "gameover-winner" }, el("span", { text: t(o.winners.length > 1 ? "over.winners" : "over.winner") + " " }), names),
      el("div", { class: "gameover-reason", text: pick(o.reason) }),
      o.tiebreak_used ? el("div", { class: "badge", text: t("over.tiebreak") }) : null,
      renderResults(s),
    ].filter(Boolean));
    box.hidden = false;
  }

  // The results leave the table: BG Stats' import link (fetched once per state version) and the
  // downloads of the record and the event log.
  let bgstats = { version: null, url: null };
  function renderResults(s) {
    const link = el("a", { id: "send-bgstats", class: "button primary", href: bgstats.url || "#", target: "_blank", rel: "noopener",
      title: t("results.bgstats_help"), text: t("results.bgstats") });
    link.hidden = !bgstats.url || bgstats.version !== s.version;
    if (bgstats.version !== s.version) {
      bgstats = { version: s.version, url: null };
      TR.api("GET", "/api/export/bgstats").then((res) => {
        if (!res.ok || bgstats.version !== s.version) return;
        bgstats.url = res.data.url;
        const a = $("#send-bgstats");
        if (a) { a.href = res.data.url; a.hidden = false; }
      });
    }
    return el("div", { class: "results row" },
      el("span", { class: "results-title muted", text: t("results.title") }), link,
      el("a", { id: "download-record", class: "button secondary", href: "/api/export/record", download: "", text: t("results.record") }),
      el("a", { id: "download-csv", class: "button secondary", href: "/api/export/csv", download: "", text: t("results.csv") }));
  }

  function renderUndoWait(s) {
    const box = clear($("#undo-wait"));
    if (!s.undo_wait) { box.hidden = true; return; }
    box.append(el("strong", { text: t("score.undo_wait") + " " }), el("span", { text: pick(s.undo_wait.message) }));
    box.hidden = false;
  }

  // Moves that appeared at once (a sensor offline, the referee restarted) whose order the sensors
  // could not tell: the inferred order, provisional until confirmed, and the other possible orders.
  function stepList(steps) {
    return el("ol", { class: "order-steps" }, ...steps.map((st) => el("li", {}, st.player ? TR.playerChip(st.player) : null,
      el("span", { text: " " + pick(st.description) }))));
  }
  async function orderAction(url, body) {
    const res = await TR.api("POST", url, body);
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "ok" : "error");
  }
  function renderOrderCheck(s) {
    const box = clear($("#order-check"));
    const questions = s.order_check || [];
    box.hidden = questions.length === 0;
    for (const q of questions) {
      const part = el("div", { class: "order-question", dataset: { group: q.group } },
        el("div", { class: "flag-head", text: t("order.title") }),
        el("p", { text: pick(q.message) }),
        el("p", { class: "muted", text: t("order.provisional", { n: q.recorded }) }),
        el("strong", { text: t("order.inferred") }), stepList(q.steps),
        el("button", { type: "button", class: "primary order-confirm", onclick: () => orderAction("/api/order/confirm", { group: q.group }),
          text: t("order.confirm") }));
      for (const alt of q.alternatives) {
        part.append(el("div", { class: "order-alternative", dataset: { index: alt.index } },
          el("strong", { text: t("order.instead") }), stepList(alt.steps),
          el("button", { type: "button", class: "secondary order-use",
            onclick: () => orderAction("/api/order/choose", { group: q.group, index: alt.index }), text: t("order.use") })));
      }
      box.append(part);
    }
  }

  function renderTurn(s) {
    const box = clear($("#turn"));
    box.hidden = !s.turn || !!s.outcome;
    if (box.hidden) return;
    const active = s.turn.active || [];
    const parts = [el("span", { class: "turn-label", text: t("turn.to_play") })];
    for (const p of active) parts.push(TR.playerChip(p, "big"));
    if (s.turn.round) parts.push(el("span", { class: "turn-round muted", text: t("turn.round", { n: s.turn.round }) }));
    if (s.turn.phase === "last_round") parts.push(el("span", { class: "badge warn", text: t("turn.last_round") }));
    if (s.turn.awaiting && s.turn.awaiting !== "move" && s.turn.awaiting !== "none") {
      parts.push(el("span", { class: "badge", text: TR.has("awaiting." + s.turn.awaiting) ? t("awaiting." + s.turn.awaiting) : s.turn.awaiting }));
    }
    if (s.turn.prompt) parts.push(el("span", { class: "turn-prompt", text: pick(s.turn.prompt) }));
    box.append(...parts);
  }

  function renderPlayers(s) {
    const box = clear($("#players"));
    const scores = s.scores || { players: [], categories: [] };
    const active = new Set((s.turn && s.turn.active) || []);
    const winners = new Set((s.outcome && s.outcome.winners) || []);
    const supply = (s.state && s.state.supply) || {};
    const lap = (s.state && s.state.lap) || 50;
    // piece kinds nobody has (a variant that is off) are not worth a line
    const kinds = new Set();
    for (const sup of Object.values(supply)) for (const [k, n] of Object.entries(sup || {})) if (n) kinds.add(k);
    for (const p of scores.players) {
      const laps = p.laps || 0;
      const card = el("article", {
        class: "player" + (active.has(p.player) ? " active" : "") + (winners.has(p.player) ? " winner" : ""),
        dataset: { colour: p.player, player: p.player },
      });
      const head = el("header", { class: "player-head" },
        el("span", { class: "player-name", text: TR.playerName(p.player) }),
        active.has(p.player) ? el("span", { class: "to-play", text: t("turn.badge") }) : null,
        winners.has(p.player) ? el("span", { class: "to-play", text: t("over.badge") }) : null);
      const total = el("div", { class: "total", dataset: { total: p.total } }, String(p.total));
      const track = el("div", { class: "track", title: t("score.track_help", { lap }) },
        el("span", { text: t("score.track", { pos: p.total % lap }) }),
        laps ? el("span", { class: "laps", text: t("score.laps", { n: laps }) }) : null);
      const rows = el("dl", { class: "breakdown" });
      for (const c of scores.categories || Object.keys(p.breakdown || {})) {
        rows.append(el("dt", { text: TR.category(c, scores.game || s.game) }), el("dd", { dataset: { category: c }, text: String((p.breakdown || {})[c] ?? 0) }));
      }
      card.append(head, total, track, rows);
      const sup = supply[p.player];
      if (sup) {
        const left = Object.entries(sup).filter(([k, n]) => n !== null && n !== undefined && kinds.has(k))
          .map(([k, n]) => TR.kind(k) + " " + n).join(" · ");
        card.append(el("div", { class: "supply muted", text: t("score.supply", { left }) }));
      }
      box.append(card);
    }
  }

  function renderUnder(s) {
    const pend = clear($("#pending"));
    if (s.pending && s.pending.description) {
      pend.append(el("span", { class: "muted", text: t("score.pending") + " " }), el("span", { text: pick(s.pending.description) }));
    }
    pend.hidden = !(s.pending && s.pending.description);
    // the camera saw dice land but could not read them: the roll is to be declared here
    const note = clear($("#camera-note"));
    if (s.camera_note && s.camera_note.message) note.append(el("span", { text: pick(s.camera_note.message) }));
    note.hidden = !(s.camera_note && s.camera_note.message);
    const lm = clear($("#lastmove"));
    if (s.last_move) {
      lm.append(el("span", { class: "muted", text: t("score.last_move") + " " }), el("span", { text: pick(s.last_move.description) }));
    }
    const notes = s.scores && s.scores.not_checked ? s.scores.not_checked : [];
    const list = clear($("#notes-list"));
    for (const n of notes) list.append(el("li", { text: pick(n.message) }));
    $("#notes").hidden = notes.length === 0;
    $("#provisional").hidden = !(s.provisional_board || (s.scores && s.scores.provisional_data));
    const decl = $("#declare");
    const canDeclare = s.game === "china" && !s.outcome && s.turn && (s.turn.active || []).length === 1;
    decl.hidden = !canDeclare;
    if (canDeclare) $("#declare-exchange").textContent = t("declare.exchange", { player: TR.colour(s.turn.active[0]) });
  }

  function render(s) {
    snap = s;
    TR.names = s.player_names || {};
    document.body.dataset.version = s.version ?? "";
    const none = !s.game;
    $("#nogame").hidden = !none;
    renderFlag(s.flag, s.alert);
    if (none) { clear($("#players")); clear($("#turn")); $("#gameover").hidden = true; return; }
    renderUndoWait(s);
    renderOrderCheck(s);
    renderGameOver(s);
    renderTurn(s);
    renderPlayers(s);
    renderUnder(s);
  }

  async function declare(move) {
    const res = await TR.api("POST", "/api/declare", { move });
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "ok" : "error");
  }
  $("#declare-exchange").addEventListener("click", () => {
    if (snap && snap.turn && snap.turn.active.length) declare({ type: "exchange", player: snap.turn.active[0] });
  });
  $("#declare-pile").addEventListener("click", () => {
    if (confirm(t("declare.pile_confirm"))) declare({ type: "pile_exhausted" });
  });
  $("#flag-override").addEventListener("click", async () => {
    if (!confirm(t("action.override_confirm"))) return;
    const res = await TR.api("POST", "/api/override", {});
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "ok" : "error");
  });

  async function load() {
    const s = await TR.get("/api/state");
    render(s);
    return s.event_id;
  }
  load().then((since) => {
    TR.live(since, {
      event: (ev) => {
        if (ev.type === "state") render(ev.data);
        else if (ev.type === "signal" && ev.data && ev.data.message) TR.toast(pick(ev.data.message), ev.data.ok === false ? "error" : "ok");
      },
      reset: () => load(),
    });
  });
})();
