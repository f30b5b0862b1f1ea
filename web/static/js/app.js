// tableref dashboard: what every page shares — the catalogue, the API client (CSRF token,
// PIN prompt on 401), the live event stream (reconnect + replay from Last-Event-ID) and a few
// DOM helpers. No framework; text is always set with textContent, never parsed as HTML.
"use strict";

(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const TR = (window.TR = { boot, lang: boot.lang, csrf: boot.csrf, admin: boot.admin, pinSet: boot.pin_set });

  // ---- text ---------------------------------------------------------------------------------
  TR.t = function (key, vars) {
    let s = boot.t[key];
    if (s === undefined) return "[" + key + "]";
    if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return s;
  };
  TR.pick = function (m) {
    if (!m) return "";
    if (typeof m === "string") return m;
    // Message JSON carries one text per language tag (and "zh" = zh-Hans from older two-language events)
    return m[TR.lang] || (TR.lang.startsWith("zh") && m.zh) || m.en || m.zh || "";
  };
  TR.has = (key) => Object.prototype.hasOwnProperty.call(boot.t, key);
  TR.colour = (c) => (TR.has("colour." + c) ? TR.t("colour." + c) : c);
  // Texts named per game (variant.<game>.<id>, category.<game>.<id>) come first, the shared
  // key (variant.<id>, category.<id>) second: two games may use one id for different things.
  TR.gameKey = function (prefix, id, game, suffix) {
    const tail = id + (suffix || "");
    const keys = game ? [prefix + "." + game + "." + tail, prefix + "." + tail] : [prefix + "." + tail];
    return keys.find(TR.has) || null;
  };
  TR.category = (c, game) => { const k = TR.gameKey("category", c, game); return k ? TR.t(k) : c; };
  TR.kind = (k) => (TR.has("kind." + k) ? TR.t("kind." + k) : k);
  TR.time = function (at) {
    if (!at) return "";
    const d = typeof at === "string" ? new Date(at) : new Date(at * 1000);
    if (isNaN(d.getTime())) return "";
    return d.toLocaleTimeString(TR.lang === "en" ? "en-GB" : TR.lang, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  };

  // ---- DOM ----------------------------------------------------------------------------------
  TR.el = function (tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "dataset") Object.assign(e.dataset, v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  };
  TR.svg = function (tag, attrs, ...children) {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") e.textContent = v;
      else if (k === "class") e.setAttribute("class", v);
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children.flat()) if (c) e.append(c);
    return e;
  };
  TR.$ = (sel, root) => (root || document).querySelector(sel);
  TR.clear = (node) => { while (node.firstChild) node.removeChild(node.firstChild); return node; };

  let toastTimer = null;
  TR.toast = function (text, kind) {
    const t = document.getElementById("toast");
    t.textContent = text;
    t.dataset.kind = kind || "info";
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, kind === "error" ? 7000 : 3500);
  };

  // ---- API ----------------------------------------------------------------------------------
  async function refreshSession() {
    const r = await fetch("/api/session", { credentials: "same-origin", cache: "no-store" });
    const s = await r.json();
    TR.csrf = s.csrf;
    TR.admin = s.admin;
    TR.pinSet = s.pin_set;
    return s;
  }
  TR.refreshSession = refreshSession;

  // Returns {ok, status, data}; on 401 asks for the PIN once and retries; on a stale CSRF token
  // fetches a fresh one and retries once. Refusals are returned, not thrown.
  TR.api = async function (method, url, body, retried) {
    const opts = { method, credentials: "same-origin", cache: "no-store", headers: { "X-CSRF-Token": TR.csrf || "" } };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    let r;
    try {
      r = await fetch(url, opts);
    } catch (err) {
      return { ok: false, status: 0, data: { error: { code: "network", message: { en: TR.t("error.network"), zh: TR.t("error.network") } } } };
    }
    let data = null;
    try { data = await r.json(); } catch (e) { data = {}; }
    const code = data && data.error && data.error.code;
    if (!retried && r.status === 403 && code === "csrf") {
      await refreshSession();
      return TR.api(method, url, body, true);
    }
    if (!retried && r.status === 401 && code === "pin_required") {
      TR.toast(TR.pick(data.error.message), "error");
      const unlocked = await TR.askPin();
      if (unlocked) return TR.api(method, url, body, true);
    }
    return { ok: r.ok && (!data || data.ok !== false), status: r.status, data };
  };
  TR.get = async function (url) {
    const r = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    if (!r.ok) throw new Error(url + " -> " + r.status);
    return r.json();
  };
  TR.errorText = (res) => (res && res.data && res.data.error ? TR.pick(res.data.error.message) : TR.t("error.unknown"));

  // ---- admin PIN ----------------------------------------------------------------------------
  TR.askPin = function () {
    if (!TR.pinSet) {
      location.href = "/login?next=" + encodeURIComponent(location.pathname);
      return Promise.resolve(false);
    }
    const dlg = document.getElementById("pin-dialog");
    const input = document.getElementById("pin-input");
    const err = document.getElementById("pin-error");
    err.textContent = "";
    input.value = "";
    return new Promise((resolve) => {
      const done = (v) => {
        dlg.close();
        form.removeEventListener("submit", onSubmit);
        cancel.removeEventListener("click", onCancel);
        resolve(v);
      };
      const form = document.getElementById("pin-form");
      const cancel = document.getElementById("pin-cancel");
      const onCancel = () => done(false);
      const onSubmit = async (ev) => {
        ev.preventDefault();
        const res = await TR.api("POST", "/api/login", { pin: input.value }, true);
        if (res.ok) {
          TR.csrf = res.data.csrf;
          TR.admin = true;
          markAdmin(true);
          done(true);
        } else {
          err.textContent = TR.errorText(res);
          input.value = "";
          input.focus();
        }
      };
      form.addEventListener("submit", onSubmit);
      cancel.addEventListener("click", onCancel);
      dlg.showModal();
      input.focus();
    });
  };
  function markAdmin(on) {
    document.body.classList.toggle("is-admin", !!on);
  }
  markAdmin(TR.admin);
  // first run (no PIN or no game) or a setup under way: the front page opens the setup wizard
  if (boot.setup_due && boot.page === "scoreboard") location.replace("/setup");
  const logout = document.getElementById("logout");
  if (logout) {
    logout.addEventListener("click", async () => {
      await TR.api("POST", "/api/logout", {});
      location.reload();
    });
  }

  // ---- live stream --------------------------------------------------------------------------
  // handlers: {event(ev), reset(), open()}; `since` is the event id the page's data is at.
  TR.live = function (since, handlers) {
    const badge = document.getElementById("live");
    let last = since;
    let es = null;
    let retryTimer = null;
    badge.hidden = false;
    const setState = (s) => {
      badge.dataset.state = s;
      badge.textContent = TR.t("live." + s);
      document.body.dataset.live = s;
    };
    const connect = () => {
      const url = "/api/stream" + (last !== null && last !== undefined ? "?since=" + encodeURIComponent(last) : "");
      es = new EventSource(url);
      es.onmessage = (m) => {
        let ev;
        try { ev = JSON.parse(m.data); } catch (e) { return; }
        if (typeof ev.id === "number") {
          if (last !== null && ev.id <= last) return; // already seen
          last = ev.id;
        }
        handlers.event && handlers.event(ev);
        document.dispatchEvent(new CustomEvent("tr:event", { detail: ev })); // page-wide listeners (kiosk.js)
      };
      es.addEventListener("hello", (m) => {
        setState("live");
        handlers.open && handlers.open(JSON.parse(m.data));
      });
      es.addEventListener("reset", (m) => {
        const info = JSON.parse(m.data);
        last = info.last_id;
        handlers.reset && handlers.reset(info);
      });
      es.onerror = () => {
        if (es.readyState === EventSource.CLOSED) {
          // The server refused (e.g. 503 when full): the browser gives up, so we retry ourselves.
          setState("offline");
          clearTimeout(retryTimer);
          retryTimer = setTimeout(connect, 3000);
        } else {
          setState("reconnecting"); // the browser reconnects by itself, sending Last-Event-ID
        }
      };
    };
    setState("connecting");
    connect();
    return {
      lastId: () => last,
      close: () => { clearTimeout(retryTimer); if (es) es.close(); },
    };
  };

  // Player names come from the table's settings (snapshot.player_names); the colour is the fallback.
  TR.names = {};
  TR.playerName = function (player) {
    const n = TR.names[player];
    return n && n !== player ? TR.colour(player) + " · " + n : TR.colour(player);
  };
  TR.playerChip = function (player, extra) {
    return TR.el("span", { class: "player-chip " + (extra || ""), dataset: { colour: player } },
      TR.el("span", { class: "dot", "aria-hidden": "true" }), TR.playerName(player));
  };
})();
