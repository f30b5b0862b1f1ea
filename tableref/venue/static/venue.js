// The venue screen: one tile per table, live. Starts from GET /api/venue (every table's retained
// state, so a screen opened late is complete at once), then follows the venue's stream: `tile`
// (a table changed), `tile_removed`, `broker` (the venue's link to the broker), `results`.
// Each tile's data-version is set last, after its content (the bench times that attribute).
"use strict";
(function () {
  const { el, t, pick, $, clear } = TR;
  const grid = $("#tiles");
  const tiles = new Map(); // table id -> {data, node}
  let offset = 0; // server clock minus this browser's clock, in seconds
  const params = new URLSearchParams(location.search);
  const tv = params.has("tv"); // ?tv or ?tv=SECONDS: a wall screen that turns its pages (default every 12 s)
  const tvEvery = Math.max(2, parseFloat(params.get("tv")) || 12) * 1000;
  if (tv) document.body.classList.add("tv");

  const serverNow = () => Date.now() / 1000 + offset;
  const collator = new Intl.Collator(TR.lang === "en" ? "en" : "zh", { numeric: true, sensitivity: "base" });

  function ago(seconds) {
    const s = Math.max(0, Math.round(seconds));
    if (s < 60) return t("venue.ago_s", { n: s });
    if (s < 3600) return t("venue.ago_min", { n: Math.floor(s / 60) });
    return t("venue.ago_h", { n: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  }

  function chip(player, name) {
    return el("span", { class: "player-chip", dataset: { colour: player } },
      el("span", { class: "dot", "aria-hidden": "true" }), name ? name : TR.colour(player));
  }

  function statusText(d) {
    if (d.online === false) return d.last_seen ? t("venue.offline_for", { ago: ago(serverNow() - d.last_seen) }) : t("venue.offline_unknown");
    if (d.online === null && d.last_seen) return t("venue.unheard", { ago: ago(serverNow() - d.last_seen) });
    if (!d.dashboard_url) return t("venue.no_dashboard");
    return d.moves !== null && d.moves !== undefined ? t("venue.moves", { n: d.moves }) : "";
  }

  function gameLine(d) {
    if (!d.game) return t("venue.no_game");
    const parts = [d.game_name ? pick(d.game_name) : d.game];
    if (d.over) parts.push(t("venue.over"));
    else if (d.round !== null && d.round !== undefined) parts.push(t("venue.round", { n: d.round }));
    return parts.join(" · ");
  }

  function content(d) {
    const names = {};
    for (const p of d.players || []) names[p.player] = p.name;
    const head = el("div", { class: "tile-head" }, el("span", { class: "tile-name", text: d.name }),
      d.flag ? el("span", { class: "tile-mark", title: t("venue.flag"), text: "⚠" }) : null);
    const parts = [head, el("div", { class: "tile-game", text: gameLine(d) })];
    if (d.over && d.over.winners && d.over.winners.length) {
      parts.push(el("div", { class: "tile-turn" }, t("venue.winner") + " ", d.over.winners.map((w) => chip(w, names[w]))));
    } else if (d.to_play && d.to_play.length) {
      parts.push(el("div", { class: "tile-turn" }, t("venue.to_play") + " ", d.to_play.map((p) => chip(p, names[p]))));
    }
    if (d.players && d.players.length) {
      parts.push(el("ol", { class: "tile-scores" }, d.players.map((p) =>
        el("li", { class: (p.leader ? "leader " : "") + (p.winner ? "winner" : ""), dataset: { colour: p.player } },
          chip(p.player, p.name), el("span", { class: "total", text: String(p.total) })))));
    }
    if (d.flag) parts.push(el("div", { class: "tile-flagtext", text: d.flag.message ? pick(d.flag.message) : t("venue.flag") }));
    parts.push(el("div", { class: "tile-status", text: statusText(d) }));
    return parts;
  }

  async function retire(d) {
    if (!confirm(t("venue.retire_confirm", { name: d.name }))) return;
    const res = await TR.api("POST", "/api/venue/tables/" + encodeURIComponent(d.id) + "/retire", {});
    TR.toast(res.ok ? t("venue.retired", { name: d.name }) : TR.errorText(res), res.ok ? "info" : "error");
  }

  function fill(node, d) {
    clear(node);
    const body = d.dashboard_url
      ? el("a", { class: "tile-link", href: d.dashboard_url, target: "_blank", rel: "noopener", title: t("venue.open_dashboard") }, content(d))
      : el("div", { class: "tile-link" }, content(d));
    node.append(body);
    if (d.online === false) node.append(el("button", { type: "button", class: "tile-retire secondary", text: t("venue.retire"), onclick: () => retire(d) }));
    node.dataset.online = d.online === null || d.online === undefined ? "unknown" : String(d.online);
    node.dataset.flag = d.flag ? "1" : "0";
    node.dataset.over = d.over ? "1" : "0";
    node.dataset.version = d.version === null || d.version === undefined ? "" : String(d.version); // last: "updated"
  }

  function upsert(d) {
    let entry = tiles.get(d.id);
    if (!entry) {
      const node = el("article", { class: "tile", dataset: { table: d.id } });
      entry = { data: d, node };
      tiles.set(d.id, entry);
      const after = [...tiles.values()].filter((e) => e !== entry && e.node.isConnected)
        .find((e) => collator.compare(e.data.name, d.name) > 0);
      grid.insertBefore(node, after ? after.node : null);
    }
    entry.data = d;
    fill(entry.node, d);
  }

  function remove(id) {
    const entry = tiles.get(id);
    if (entry) { entry.node.remove(); tiles.delete(id); }
  }

  function summary() {
    const all = [...tiles.values()];
    const online = all.filter((e) => e.data.online === true).length;
    $("#venue-count").textContent = (all.length ? t("venue.count", { n: all.length, online }) : "")
      + (tv && tvPages > 1 ? " · " + t("venue.page", { n: tvPage + 1, total: tvPages }) : "");
    $("#venue-empty").hidden = all.length > 0;
  }

  function showBroker(b) {
    const banner = $("#broker-banner");
    document.body.dataset.broker = b.state;
    if (b.state === "connected") { banner.hidden = true; return; }
    banner.dataset.state = b.state;
    banner.textContent = b.state === "down" ? t("venue.broker_down", { time: TR.time(b.since) }) : t("venue.broker_connecting");
    banner.hidden = false;
  }

  // offline tiles say for how long; refreshed every 5 s
  setInterval(() => {
    for (const { data, node } of tiles.values()) {
      if (data.online !== true) { const s = node.querySelector(".tile-status"); if (s) s.textContent = statusText(data); }
    }
  }, 5000);

  // TV: one screenful at a time, the page turns every tvEvery ms
  let tvPage = 0;
  let tvPages = 1;
  function paginate(advance) {
    const nodes = [...grid.children];
    nodes.forEach((n) => { n.hidden = false; });
    if (!nodes.length) return;
    const style = getComputedStyle(grid);
    const cols = style.gridTemplateColumns.split(" ").length;
    const rowH = Math.max(...nodes.map((n) => n.offsetHeight)) + (parseFloat(style.rowGap) || 0);
    const rows = Math.max(1, Math.floor((window.innerHeight - grid.getBoundingClientRect().top + window.scrollY) / rowH));
    const per = cols * rows;
    tvPages = Math.max(1, Math.ceil(nodes.length / per));
    tvPage = advance ? (tvPage + 1) % tvPages : Math.min(tvPage, tvPages - 1);
    nodes.forEach((n, i) => { n.hidden = Math.floor(i / per) !== tvPage; });
    document.body.dataset.tvPage = String(tvPage);
    summary();
  }
  if (tv) setInterval(() => paginate(true), tvEvery);

  async function load() {
    const v = await TR.get("/api/venue");
    offset = v.server_time - Date.now() / 1000;
    showBroker(v.broker);
    const ids = new Set(v.tiles.map((d) => d.id));
    for (const id of [...tiles.keys()]) if (!ids.has(id)) remove(id);
    for (const d of v.tiles) upsert(d);
    summary();
    if (tv) paginate(false);
    return v.event_id;
  }

  load().then((since) => TR.live(since, {
    event: (ev) => {
      if (ev.type === "tile") {
        const fresh = !tiles.has(ev.data.id);
        upsert(ev.data);
        if (tv && fresh) paginate(false); else summary();
      }
      else if (ev.type === "tile_removed") { remove(ev.data.id); summary(); }
      else if (ev.type === "broker") showBroker(ev.data);
    },
    reset: () => load(),
  }));
})();
