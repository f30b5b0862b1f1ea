"""Helpers for the dashboard tests (a module with a unique name: test modules import it directly,
never ``conftest``, which pytest loads once per folder under the same name)."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any, Callable

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}
PIN = "2468"
FAST_HASH = "pbkdf2:sha256:2000"  # the real default (scrypt) is tested once in test_web_security
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


class FakeClock:
    def __init__(self, start: float = 1_700_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def wait_for(pred: Callable[[], Any], timeout: float = 5.0, what: str = "condition", step: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class ApiClient:
    """The Flask test client plus the session's CSRF token (what the pages' script does)."""

    def __init__(self, client: Any):
        self.c = client
        self.csrf = client.get("/api/session").get_json()["csrf"]

    def get(self, url: str, **kw: Any) -> Any:
        return self.c.get(url, **kw)

    def post(self, url: str, body: Any = None, *, csrf: bool = True, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        h = dict(headers or {})
        if csrf:
            h["X-CSRF-Token"] = self.csrf
        resp = self.c.post(url, json={} if body is None else body, headers=h, **kw)
        data = resp.get_json(silent=True) or {}
        if "csrf" in data:
            self.csrf = data["csrf"]
        return resp

    def setup_pin(self, pin: str = PIN) -> Any:
        return self.post("/api/pin/setup", {"pin": pin, "confirm": pin})

    def login(self, pin: str = PIN) -> Any:
        return self.post("/api/login", {"pin": pin})


def screenshot(page: Any, name: str) -> Path:
    """A picture of the page for people to look at (test-artifacts/web), never an assertion: when
    Chromium's full-page capture hangs (seen once in a fresh-clone run on a shared machine: 30 s
    waiting after the fonts loaded), the viewport is taken instead, and failing that the test goes
    on with a warning."""
    from playwright.sync_api import Error as PlaywrightError

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    try:
        page.screenshot(path=str(path), full_page=True)
    except PlaywrightError as exc:
        try:
            page.screenshot(path=str(path), timeout=15000)
        except PlaywrightError:
            warnings.warn(f"no screenshot {name}: {exc}", stacklevel=2)
    return path
