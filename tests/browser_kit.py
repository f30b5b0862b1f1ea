"""One headless Chromium per test process, shared by every browser fixture (tests/web,
tests/venue). Playwright's sync API allows one running instance per thread, so two session
fixtures each starting their own fail as soon as both folders run in one pytest session; here
the first fixture starts it and the last one to let go stops it. A module with a unique name:
``tests/`` is on the path through its conftest."""

from __future__ import annotations

import os
import shutil
from typing import Any

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
