// Board capture: one tab per game with a board kit (GET /api/games, "capture"); China's page is
// /capture, every other game's /capture/<game>.
"use strict";
(function () {
  const { el, pick, $ } = TR;
  const nav = $("#capture-games");
  if (!nav) return;
  const here = location.pathname.split("/")[2] || "china";
  TR.get("/api/games").then((d) => {
    for (const g of d.games.filter((x) => x.capture)) {
      const href = g.id === "china" ? "/capture" : "/capture/" + encodeURIComponent(g.id);
      nav.append(el("a", { href, class: "chip" + (g.id === here ? " active" : ""), "data-game": g.id, text: pick(g.name) }));
    }
  }).catch(() => {});
})();
