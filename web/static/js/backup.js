"use strict";
// Backup and restore on the settings page (docs/web.md "Backup"): both are admin actions, sent
// with the CSRF token; the archive is a download, the restore an upload of the file as it is.
(function () {
  const { t, $ } = TR;
  const errorBox = $("#backup-error");
  const statusBox = $("#backup-status");

  // POST with the CSRF token; on 401 ask for the PIN once, on a stale token refresh it once.
  async function post(url, body, contentType, retried) {
    const headers = { "X-CSRF-Token": TR.csrf || "" };
    if (contentType) headers["Content-Type"] = contentType;
    let r;
    try {
      r = await fetch(url, { method: "POST", credentials: "same-origin", cache: "no-store", headers, body });
    } catch (err) {
      return { ok: false, status: 0, data: { error: { code: "network", message: { en: t("error.network"), zh: t("error.network") } } } };
    }
    if (r.ok && (r.headers.get("Content-Type") || "").startsWith("application/gzip")) return { ok: true, status: r.status, response: r };
    let data = {};
    try { data = await r.json(); } catch (e) { data = {}; }
    const code = data && data.error && data.error.code;
    if (!retried && r.status === 403 && code === "csrf") {
      await TR.refreshSession();
      return post(url, body, contentType, true);
    }
    if (!retried && r.status === 401 && code === "pin_required") {
      if (await TR.askPin()) return post(url, body, contentType, true);
    }
    return { ok: r.ok && data.ok !== false, status: r.status, data };
  }

  function fileName(response) {
    const m = /filename="?([^";]+)"?/.exec(response.headers.get("Content-Disposition") || "");
    return m ? m[1] : "tableref-backup.tar.gz";
  }

  $("#backup-download").addEventListener("click", async (ev) => {
    const button = ev.currentTarget;
    errorBox.textContent = "";
    statusBox.textContent = t("backup.making");
    button.disabled = true;
    try {
      const res = await post("/api/backup");
      if (!res.ok) {
        statusBox.textContent = "";
        errorBox.textContent = TR.errorText(res);
        return;
      }
      const blob = await res.response.blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = fileName(res.response);
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
      statusBox.textContent = t("backup.downloaded", { name: link.download });
    } finally {
      button.disabled = false;
    }
  });

  async function boot() {
    const s = await TR.get("/api/state");
    return Math.floor((s.event_id || 0) / 1e9); // event ids are boot * 10^9 + n (docs/runtime-api.md)
  }

  // after a restore the service starts again: reload once a new boot answers
  async function waitForRestart(before) {
    const deadline = Date.now() + 90000;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      try {
        if ((await boot()) > before) { location.reload(); return; }
      } catch (e) { /* down while it restarts */ }
    }
    statusBox.textContent = t("backup.slow_restart");
  }

  TR.get("/api/backup").then((info) => {
    if (!info.restore) {
      $("#backup-restore-form").hidden = true;
      const note = document.createElement("p");
      note.className = "hint";
      note.textContent = t("backup.no_restore");
      $("#backup-panel").appendChild(note);
    }
  });

  $("#backup-restore-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    errorBox.textContent = "";
    statusBox.textContent = "";
    const file = $("#backup-file").files[0];
    if (!file) { errorBox.textContent = t("backup.choose_file"); return; }
    if (!window.confirm(t("backup.confirm", { name: file.name }))) return;
    const button = $("#backup-restore");
    button.disabled = true;
    statusBox.textContent = t("backup.checking");
    let before = 0;
    try { before = await boot(); } catch (e) { before = 0; }
    const res = await post("/api/backup/restore", file, "application/gzip");
    if (!res.ok) {
      button.disabled = false;
      statusBox.textContent = "";
      errorBox.textContent = TR.errorText(res);
      return;
    }
    statusBox.textContent = TR.pick(res.data.message);
    TR.toast(TR.pick(res.data.message), "ok");
    waitForRestart(before);
  });
})();
