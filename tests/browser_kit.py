"""One headless Chromium per test process, shared by every browser fixture (tests/web,
tests/venue). Playwright's sync API allows one running instance per thread, so two session
fixtures each starting their own fail as soon as both folders run in one pytest session; here
the first fixture starts it and the last one to let go stops it. A module with a unique name:
``tests/`` is on the path through its conftest."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from typing import Any, Iterator

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]

_shared: dict[str, Any] = {"users": 0, "playwright": None, "browser": None}


def acquire() -> Any:
    """The shared browser (started on first use)."""
    if _shared["users"] == 0:
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        try:
            browser = pw.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
                                         args=CHROMIUM_ARGS)
        except Exception:
            pw.stop()
            raise
        _shared.update(playwright=pw, browser=browser)
    _shared["users"] += 1
    return _shared["browser"]


def release() -> None:
    """One user fewer; the last one closes the browser and stops Playwright."""
    _shared["users"] -= 1
    if _shared["users"] == 0:
        _shared["browser"].close()
        _shared["playwright"].stop()
        _shared.update(playwright=None, browser=None)


@contextmanager
def watched_page(browser: Any, *, viewport: dict[str, int], locale: str) -> Iterator[Any]:
    """A fresh context and page; page errors and console errors fail the test on the way out, except the
    ones a test names in ``page.expected_errors``. Dialogs are accepted."""
    context = browser.new_context(viewport=viewport, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("dialog", lambda dialog: dialog.accept())
    page.errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()
    expected = getattr(page, "expected_errors", ())
    unexpected = [e for e in errors if not any(x in e for x in expected)]
    assert not unexpected, "browser errors:\n" + "\n".join(unexpected)
