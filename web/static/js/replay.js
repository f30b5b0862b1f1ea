// The Board page's replay: /board?replay=GAME&step=N steps through a stored game, showing the
// board, the scores and the flag as they were after each step (GET /api/replay/GAME/STEP), drawn
// by the Board page's own renderer (TR.boardView). The address always names the step shown, so
// it can be shared as a link. Without ?replay the page is live and offers a "Replay" button.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const params = new URLSearchParams(location.search);

  if (!params.has("replay")) {
    TR.get("/api/replay").then((d) => {
      const last = d.available && d.games[d.games.length - 1];
      if (!last) return;
      const open = $("#replay-open");
      open.href = "/board?replay=" + last.game_no;
      open.hidden = false;
    }).catch(() => {}); // no answer: no replay button (the live board goes on)
    return;
  }

  document.body.classList.add("replaying");
  const bar = $("#replay");
  const slider = $("#replay-slider");
  let gameNo = null;
  let steps = [];
  let current = -1;
  let token = 0;

  function unavailable() {
    const e = $("#board-empty");
    e.textContent = t("replay.unavailable");
    e.hidden = false;
  }

  function scores(s) {
    const list = clear($("#replay-scores"));
    const names = s.player_names || {};
    for (const p of (s.scores && s.scores.players) || []) {
      const name = names[p.player] && names[p.player] !== p.player ? TR.colour(p.player) + " · " + names[p.player] : TR.colour(p.player);
      list.append(el("li", { dataset: { colour: p.player } },
        el("span", { class: "player-chip", dataset: { colour: p.player } }, el("span", { class: "dot", "aria-hidden": "true" }), name),
        el("b", { text: String(p.total) })));
    }
  }

  async function show(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    const mine = ++token;
    const s = await TR.get("/api/replay/" + gameNo + "/" + i);
    if (mine !== token) return; // a later step was asked for meanwhile
    current = i;
    slider.value = String(i);
    $("#replay-pos").textContent = t("replay.step", { n: i, total: steps.length - 1 });
    const desc = clear($("#replay-desc"));
    desc.append(el("span", { class: s.undone ? "undone" : "", text: (TR.time(s.wall) ? TR.time(s.wall) + " · " : "") + pick(s.description) }));
    if (s.undone) desc.append(" ", el("span", { class: "badge", text: t("replay.undone") }));
    scores(s);
    TR.boardView.show(s);
    document.body.dataset.replayStep = String(i);
    history.replaceState(null, "", "/board?replay=" + gameNo + "&step=" + i);
  }

  async function start() {
    let games;
    try {
      games = (await TR.get("/api/replay")).games;
    } catch (e) {
      unavailable();
      return;
    }
    if (!games || !games.length) { unavailable(); return; }
    const wanted = parseInt(params.get("replay"), 10);
    gameNo = games.some((g) => g.game_no === wanted) ? wanted : games[games.length - 1].game_no;
    const select = clear($("#replay-game"));
    for (const g of games) {
      select.append(el("option", { value: String(g.game_no), selected: g.game_no === gameNo,
        text: t("replay.game", { n: g.game_no }) + " · " + pick(g.game_name) }));
    }
    select.onchange = () => { location.href = "/board?replay=" + select.value; };
    const info = await TR.get("/api/replay/" + gameNo);
    steps = info.steps;
    slider.max = String(Math.max(0, steps.length - 1));
    bar.hidden = false;
    const asked = parseInt(params.get("step"), 10);
    await show(Number.isNaN(asked) ? steps.length - 1 : asked);
  }

  $("#replay-first").onclick = () => show(0);
  $("#replay-prev").onclick = () => show(current - 1);
  $("#replay-next").onclick = () => show(current + 1);
  $("#replay-last").onclick = () => show(steps.length - 1);
  slider.oninput = () => show(parseInt(slider.value, 10));
  document.addEventListener("keydown", (ev) => {
    if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    if (ev.key === "ArrowLeft") show(current - 1);
    else if (ev.key === "ArrowRight") show(current + 1);
  });
  $("#replay-copy").onclick = async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      TR.toast(t("replay.copied"));
    } catch (e) {
      window.prompt(t("replay.copy"), location.href); // no clipboard on a plain-http page: show it to copy
    }
  };
  start().catch((e) => { console.error(e); unavailable(); });
})();
