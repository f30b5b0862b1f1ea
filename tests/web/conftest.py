"""Fixtures for the dashboard: a fake table with a real China engine, the Flask app, a waitress
server on a free port, and a real headless Chromium (Playwright) for the page tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from web.app import create_app
from web.boards import BoardLibrary
from web.fake import FakeTableService
from web.server import make_server

from web_testkit import CHROMIUM, FAST_HASH, PIN, SETUP, ApiClient, FakeClock


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def service(data_dir: Path) -> FakeTableService:
    return FakeTableService(setup=SETUP, geometry=BoardLibrary(data_dir.resolve()).geometry)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_app(data_dir: Path, clock: FakeClock):
    def build(service: Any, **config: Any):
        cfg = {"PIN_HASH_METHOD": FAST_HASH, "SSE_KEEPALIVE": 0.2, "SSE_RETRY_MS": 300}
        cfg.update(config)
        return create_app(service, data_dir=data_dir, clock=clock, config=cfg)
    return build


@pytest.fixture
def app(make_app, service: FakeTableService):
    return make_app(service)


@pytest.fixture
def api(app) -> ApiClient:
    return ApiClient(app.test_client())


@pytest.fixture
def admin(app) -> ApiClient:
    client = ApiClient(app.test_client())
    assert client.setup_pin().status_code == 200
    return client


# -- a real server --------------------------------------------------------------------------------

@pytest.fixture
def live_server(data_dir: Path, service: FakeTableService) -> Iterator[Any]:
    """Waitress on a free port, the real clock, a short keepalive; stopped after the test."""
    app = create_app(service, data_dir=data_dir, initial_pin=PIN,
                     config={"PIN_HASH_METHOD": FAST_HASH, "SSE_KEEPALIVE": 0.5, "SSE_RETRY_MS": 300})
    server = make_server(app, "127.0.0.1", 0, threads=24).start()
    assert server.wait_ready(10), "dashboard did not answer"
    server.service = service  # type: ignore[attr-defined]
    yield server
    server.stop()


# -- a real browser -------------------------------------------------------------------------------

def browser_missing_reason() -> str | None:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium)"
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[dev]')"
    return None


def _require_browser() -> None:
    reason = browser_missing_reason()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("TABLEREF_REQUIRE_BROWSER"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    _require_browser()
    import browser_kit  # one Chromium per test process, shared with tests/venue

    yield browser_kit.acquire()
    browser_kit.release()


@pytest.fixture
def page_locale() -> str:
    """The browser's language; a test overrides it with ``@pytest.mark.parametrize("page_locale", [...])``."""
    return "en-GB"


@pytest.fixture
def browser_page(chromium: Any, page_locale: str) -> Iterator[Any]:
    """A fresh context (cookies, language) per test; console errors fail the test."""
    import browser_kit

    with browser_kit.watched_page(chromium, viewport={"width": 1280, "height": 800}, locale=page_locale) as page:
        yield page
