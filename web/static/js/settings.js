"use strict";
(function () {
  const { t, pick, $ } = TR;
  TR.get("/api/settings").then((s) => {
    $("#table_name").value = s.table_name || "";
    $("#default_language").value = s.default_language || "auto";
  });
  $("#settings-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const res = await TR.api("POST", "/api/settings", { table_name: $("#table_name").value, default_language: $("#default_language").value });
    $("#settings-error").textContent = res.ok ? "" : TR.errorText(res);
    if (res.ok) TR.toast(t("settings.saved"), "ok");
  });
  $("#pin-change-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const res = await TR.api("POST", "/api/pin/change", { old: $("#old_pin").value, new: $("#new_pin").value, confirm: $("#confirm_pin").value });
    $("#pin-change-error").textContent = res.ok ? "" : TR.errorText(res);
    if (res.ok) { TR.csrf = res.data.csrf; TR.toast(t("settings.pin_changed"), "ok"); ev.target.reset(); }
  });
})();
