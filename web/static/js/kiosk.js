// The tablet as a kiosk: keep the screen on while a game is being played (Screen Wake Lock API).
// A browser without the API (or one that refuses it: plain http on the local network is not a
// "secure context") gets a visible line saying so and what to do instead. The game's state comes
// from the page's live stream (tr:event, app.js) and a light poll of /api/scores for pages
// without one. The lock is taken again when the tablet wakes or the page becomes visible.
"use strict";
(function () {
  const bar = document.getElementById("wake");
  if (!bar) return;
  const text = document.getElementById("wake-text");
  const supported = !!(navigator.wakeLock && typeof navigator.wakeLock.request === "function");
  const DISMISSED = "tableref.wake.dismissed";
  let wanted = false;
  let lock = null;
  let asking = false;

  function setState(s, message) {
    document.body.dataset.wake = s;
    const fallback = s === "unsupported" || s === "refused";
    if (fallback && message) text.textContent = message;
    bar.dataset.state = s;
    bar.hidden = !(fallback && wanted) || sessionStorage.getItem(DISMISSED) === s;
  }

  async function acquire() {
    if (!wanted || lock || asking || document.visibilityState !== "visible") return;
    if (!supported) {
      // plain http on the local network is not a secure context: the API is not there at all
      setState("unsupported", window.isSecureContext === false ? TR.t("kiosk.wake_insecure") : TR.t("kiosk.wake_unsupported"));
      return;
    }
    asking = true;
    try {
      const l = await navigator.wakeLock.request("screen");
      asking = false;
      if (!wanted) { l.release(); return; }
      lock = l;
      setState("on");
      l.addEventListener("release", () => {
        if (lock === l) lock = null;
        // released by the browser (page hidden, tablet asleep): taken again when visible
        if (wanted && document.body.dataset.wake === "on") setState("released");
      });
    } catch (err) {
      asking = false;
      setState("refused", TR.t("kiosk.wake_refused"));
    }
  }

  function release() {
    const l = lock;
    lock = null;
    if (l) l.release().catch(() => {});
    setState("idle");
  }

  // a game is being played: one is set up and not over
  function follow(game, outcome) {
    wanted = !!game && !outcome;
    if (wanted) acquire(); else release();
  }

  TR.wake = { active: () => !!lock && !lock.released, wanted: () => wanted, supported };

  document.getElementById("wake-dismiss").addEventListener("click", () => {
    sessionStorage.setItem(DISMISSED, document.body.dataset.wake || "");
    bar.hidden = true;
  });
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") acquire(); });
  document.addEventListener("tr:event", (e) => {
    const ev = e.detail;
    if (ev && ev.type === "state" && ev.data) follow(ev.data.game, ev.data.outcome);
  });
  async function poll() {
    try {
      const s = await TR.get("/api/scores");
      follow(s.game, s.outcome);
    } catch (e) { /* the live badge shows a lost connection */ }
    setTimeout(poll, 30000);
  }
  setState("idle");
  poll();
})();
