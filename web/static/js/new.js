// New game: game, players in seating order with their colours, board side, variants.
// The same form is the setup wizard's game step (data-mode="setup"): there the choices are handed
// to the wizard (event "tr:gameform") instead of starting a game, and TR.gameForm.set() restores them.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const setupMode = $("#new-form").dataset.mode === "setup";
  let games = [];
  let boards = {}; // game id -> its boards (GET /api/boards?game=...)
  let running = false;

  function game() { return games.find((g) => g.id === $("#game").value); }

  function seats() {
    const g = game();
    const box = clear($("#seats"));
    for (let i = 0; i < g.max_players; i++) {
      const sel = el("select", { class: "seat", "aria-label": t("new.seat", { n: i + 1 }), dataset: { seat: i + 1 } },
        el("option", { value: "", text: t("new.empty_seat") }),
        g.colours.map((c) => el("option", { value: c, text: TR.colour(c) })));
      if (i < g.min_players) sel.value = g.colours[i];
      sel.addEventListener("change", () => { paintSeat(sel); boardsFor(); neutralFor(); });
      box.append(el("label", { class: "seat-row" }, el("span", { class: "seat-no", text: t("new.seat", { n: i + 1 }) }), sel));
      paintSeat(sel);
    }
  }
  function paintSeat(sel) { sel.dataset.colour = sel.value; }
  function players() { return [...document.querySelectorAll(".seat")].map((s) => s.value).filter(Boolean); }

  function boardsFor() {
    const n = players().length;
    const sel = $("#board");
    const prev = sel.value;
    clear(sel);
    const fit = (boards[game().id] || []).filter((b) => b.players.includes(n));
    for (const b of fit) {
      const name = pick(b.name) || b.id;
      const tags = [b.source === "captured" ? t("new.captured") : null, b.provisional && b.source === "captured" ? t("new.provisional") : null].filter(Boolean);
      sel.append(el("option", { value: b.id, text: name + (tags.length ? " (" + tags.join(", ") + ")" : "") }));
    }
    if (!fit.length) sel.append(el("option", { value: "", text: t("new.no_board", { n }) }));
    if (fit.some((b) => b.id === prev)) sel.value = prev;
    else {
      const def = game().id !== "china" ? (fit[0] || {}).id : n >= 5 ? "china-b" : "china-a";
      if (fit.some((b) => b.id === def)) sel.value = def;
    }
  }

  // 2 players: the spare colour whose pieces stand for the neutral ones (Ming), offered among the colours nobody plays
  function neutralFor() {
    const g = game(), sel = $("#neutral-colour"), prev = sel.value, taken = players();
    const spare = (g.neutral_colours || []).filter((c) => !taken.includes(c));
    $("#neutral-field").hidden = !spare.length || taken.length !== 2;
    clear(sel).append(el("option", { value: "", text: t("new.neutral_none") }),
      ...spare.map((c) => el("option", { value: c, text: TR.colour(c) })));
    if (spare.includes(prev)) sel.value = prev;
  }

  function variants() {
    const g = game();
    const box = clear($("#variants"));
    $("#variants-field").hidden = !g.variants.length;
    for (const v of g.variants) {
      const name = TR.gameKey("variant", v, g.id), help = TR.gameKey("variant", v, g.id, ".help");
      box.append(el("label", { class: "check" }, el("input", { type: "checkbox", value: v, class: "variant" }),
        el("span", {}, el("strong", { text: name ? t(name) : v }),
          help ? el("small", { class: "muted", text: t(help) }) : null)));
    }
    const cards = clear($("#cards"));
    $("#cards-field").hidden = !g.cards.length;
    for (const c of g.cards) cards.append(el("option", { value: c, text: TR.has("cards." + c) ? t("cards." + c) : c }));
    if (g.cards.includes("untracked")) cards.value = "untracked";
    seedField();
    // things the game will not assume for the players (e.g. Zhang Yi's invented sample map)
    const conf = clear($("#confirm-field"));
    const asks = g.confirmations || [];
    conf.hidden = !asks.length;
    for (const c of asks) {
      conf.append(el("label", { class: "check" }, el("input", { type: "checkbox", value: c.key, class: "confirm-item" }),
        el("span", { text: pick(c.text) })));
    }
  }

  // a seed: for tracked cards, and for games that deal the table from one (Cheops' price tables and pyramid)
  function seedField() {
    const deals = !!game().deals;
    $("#seed-field").hidden = !deals && $("#cards").value !== "tracked";
    $("#seed-label").textContent = t(deals ? "new.deal_seed" : "new.seed");
    $("#seed-help").textContent = deals ? t("new.deal_seed_help") : "";
    if (deals && $("#seed").value === "") $("#seed").value = String(Math.floor(Math.random() * 1e6));
  }
  $("#cards").addEventListener("change", seedField);
  $("#game").addEventListener("change", () => { seats(); variants(); boardsFor(); neutralFor(); $("#board-field").hidden = !game().boards; });

  $("#new-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = $("#new-error");
    err.textContent = "";
    const g = game();
    const body = { game: g.id, players: players() };
    if (g.boards && $("#board").value) body.board = $("#board").value;
    const vs = [...document.querySelectorAll(".variant:checked")].map((x) => x.value);
    if (vs.length) body.variants = vs;
    if (!$("#cards-field").hidden) body.cards = $("#cards").value;
    if (!$("#neutral-field").hidden && $("#neutral-colour").value) body.neutral_colour = $("#neutral-colour").value;
    if (!$("#seed-field").hidden && $("#seed").value !== "") body.seed = parseInt($("#seed").value, 10);
    const ok = [...document.querySelectorAll(".confirm-item:checked")].map((x) => x.value);
    if (ok.length) body.confirm = ok;
    if (setupMode) { document.dispatchEvent(new CustomEvent("tr:gameform", { detail: body })); return; }
    if (running && !confirm(t("new.confirm_replace"))) return;
    const res = await TR.api("POST", "/api/game/new", body);
    if (res.ok) {
      TR.toast(pick(res.data.message), "ok");
      setTimeout(() => { location.href = "/"; }, 600);
    } else {
      err.textContent = TR.errorText(res);
    }
  });

  // put earlier choices (a new-game body) back into the form
  function set(body) {
    if (!body || !games.some((g) => g.id === body.game)) return;
    $("#game").value = body.game;
    seats();
    variants();
    document.querySelectorAll(".seat").forEach((sel, i) => { sel.value = body.players[i] || ""; paintSeat(sel); });
    boardsFor();
    $("#board-field").hidden = !game().boards;
    if (body.board && [...$("#board").options].some((o) => o.value === body.board)) $("#board").value = body.board;
    document.querySelectorAll(".variant").forEach((x) => { x.checked = (body.variants || []).includes(x.value); });
    document.querySelectorAll(".confirm-item").forEach((x) => { x.checked = (body.confirm || []).includes(x.value); });
    neutralFor();
    if (body.neutral_colour) $("#neutral-colour").value = body.neutral_colour;
    if (body.cards) $("#cards").value = body.cards;
    seedField();
    if (body.seed !== undefined) $("#seed").value = String(body.seed);
  }

  const ready = Promise.all([TR.get("/api/games"), TR.get("/api/state")]).then(async ([gs, s]) => {
    games = gs.games;
    const lists = await Promise.all(games.filter((g) => g.boards).map((g) => TR.get("/api/boards?game=" + encodeURIComponent(g.id))));
    games.filter((g) => g.boards).forEach((g, i) => { boards[g.id] = lists[i].boards; });
    running = !!s.game && !s.outcome;
    const sel = $("#game");
    for (const g of games) sel.append(el("option", { value: g.id, text: pick(g.name) }));
    if (s.game && games.some((g) => g.id === s.game)) sel.value = s.game;
    seats();
    variants();
    boardsFor();
    neutralFor();
    $("#board-field").hidden = !game().boards;
  });
  TR.gameForm = { ready, set };
})();
