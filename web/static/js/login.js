// Log in with the admin PIN (or choose it on first run), then go back where we came from.
"use strict";
(function () {
  const { el, $ } = TR;
  const form = $("#login-form");
  const pin = $("#pin");
  const next = (() => {
    const n = new URLSearchParams(location.search).get("next") || "/";
    return n.startsWith("/") && !n.startsWith("//") ? n : "/";
  })();
  const pad = $("#keypad");
  if (pad) {
    for (const k of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "✓"]) {
      pad.append(el("button", { type: k === "✓" ? "submit" : "button", class: "key", text: k, onclick: () => {
        if (k === "⌫") pin.value = pin.value.slice(0, -1);
        else if (k !== "✓" && pin.value.length < 12) pin.value += k;
      } }));
    }
  }
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const setup = form.dataset.mode === "setup";
    const res = setup
      ? await TR.api("POST", "/api/pin/setup", { pin: pin.value, confirm: $("#confirm").value }, true)
      : await TR.api("POST", "/api/login", { pin: pin.value }, true);
    if (res.ok) { location.href = next; return; }
    $("#login-error").textContent = TR.errorText(res);
    pin.value = "";
    pin.focus();
  });
  pin.focus();
})();
