// Standings across the venue's finished games (per player, optionally per game), the games
// themselves with a link to their replay on the table's dashboard, and for the organiser (admin
// PIN): merging two spellings of a player, importing an exported game record, deleting a result.
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const filter = $("#game-filter");
  let gameNames = {};

  const gameName = (id) => (gameNames[id] ? pick(gameNames[id]) : id);

  function syncFilter(ids) {
    const have = new Set([...filter.options].map((o) => o.value));
    for (const id of ids) if (!have.has(id)) filter.append(el("option", { value: id, text: gameName(id) }));
  }

  async function loadStandings() {
    const game = filter.value;
    const s = await TR.get("/api/venue/standings" + (game ? "?game=" + encodeURIComponent(game) : ""));
    gameNames = Object.assign(gameNames, s.game_names || {});
    syncFilter(s.games);
    const body = clear($("#standings-rows"));
    for (const r of s.rows) {
      body.append(el("tr", { dataset: { player: r.key } },
        el("td", { text: String(r.place) }), el("td", { class: "left", text: r.name }), el("td", { text: String(r.games) }),
        el("td", { text: String(r.wins) }), el("td", { text: r.avg_rank.toFixed(2) }), el("td", { text: String(r.points) }),
        el("td", { text: r.avg_points.toFixed(1) })));
    }
    $("#standings").hidden = !s.rows.length;
    $("#standings-empty").hidden = s.rows.length > 0;
  }

  async function remove(g) {
    if (!confirm(t("standings.delete_confirm"))) return;
    const res = await TR.api("POST", "/api/venue/results/" + g.id + "/delete", {});
    if (!res.ok) TR.toast(TR.errorText(res), "error");
  }

  async function loadGames() {
    const game = filter.value;
    const data = await TR.get("/api/venue/games?limit=100" + (game ? "&game=" + encodeURIComponent(game) : ""));
    const list = clear($("#games"));
    for (const g of data.games) {
      const seats = [...g.players].sort((a, b) => a.rank - b.rank).map((p) =>
        el("span", { class: "result-seat" + (p.winner ? " winner" : "") },
          el("span", { class: "player-chip", dataset: { colour: p.colour } }, el("span", { class: "dot", "aria-hidden": "true" }),
            p.player || p.name || TR.colour(p.colour) + " (" + t("standings.unnamed") + ")"),
          el("b", { text: String(p.score) }), el("span", { class: "muted", text: "#" + p.rank })));
      list.append(el("li", { dataset: { game: String(g.id) } },
        el("span", { class: "muted", text: (g.finished_text && TR.pick(g.finished_text)) || g.finished }),
        el("b", { text: g.table }), el("span", { text: gameName(g.game) }), seats,
        el("span", { class: "actions" },
          g.replay_url ? el("a", { class: "button secondary", href: g.replay_url, target: "_blank", rel: "noopener", text: t("standings.replay") }) : null,
          TR.admin ? el("button", { type: "button", class: "secondary", text: t("standings.delete"), onclick: () => remove(g) }) : null)));
    }
  }

  async function loadPlayers() {
    if (!TR.admin) return;
    const data = await TR.get("/api/venue/players");
    const from = clear($("#merge-from"));
    const into = clear($("#merge-into"));
    const merged = clear($("#merged"));
    for (const p of data.players) {
      const label = p.name + " (" + p.games + ")";
      if (p.merged_into) {
        merged.append(el("li", {}, p.name + " — " + t("standings.merged_into", { name: p.merged_into }),
          el("button", { type: "button", class: "secondary", text: t("standings.unmerge"), onclick: async () => {
            const res = await TR.api("POST", "/api/venue/players/unmerge", { name: p.name });
            if (!res.ok) TR.toast(TR.errorText(res), "error");
          } })));
      } else {
        from.append(el("option", { value: p.name, text: label }));
        into.append(el("option", { value: p.name, text: label }));
      }
    }
  }

  const refresh = () => Promise.all([loadStandings(), loadGames(), loadPlayers()]).catch((e) => console.error(e));

  filter.addEventListener("change", refresh);
  $("#merge-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const res = await TR.api("POST", "/api/venue/players/merge", { from: $("#merge-from").value, into: $("#merge-into").value });
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "info" : "error");
  });
  $("#import-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = $("#import-file").files[0];
    if (!file) return;
    let record;
    try { record = JSON.parse(await file.text()); } catch (e) { TR.toast(t("standings.bad_file"), "error"); return; }
    const names = {};
    for (const part of $("#import-names").value.split(/[,，]/)) {
      const [colour, ...rest] = part.split("=");
      if (colour.trim() && rest.join("=").trim()) names[colour.trim()] = rest.join("=").trim();
    }
    const body = { record, names };
    if ($("#import-table").value.trim()) body.table = $("#import-table").value.trim();
    if ($("#import-date").value) body.finished = $("#import-date").value;
    const res = await TR.api("POST", "/api/venue/results/import", body);
    TR.toast(res.ok ? pick(res.data.message) : TR.errorText(res), res.ok ? "info" : "error");
  });

  refresh().then(() => TR.live(null, {
    event: (ev) => { if (ev.type === "results") refresh(); },
    reset: refresh,
  }));
})();
