"""Fixtures for the venue: a real mosquitto (tests/mqtt_testkit.py), real tables publishing to it
(the runtime with its event store, or the dashboard's fake table), and venue services."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from mqtt_testkit import broker_factory, listeners  # noqa: F401  (fixtures for the venue tests)
from tableref.mqtt.link import BrokerSettings
from tableref.venue.service import VenueService, VenueSettings
from venue_testkit import FAST, Tables


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    made = Tables(tmp_path)
    yield made
    made.close()


@pytest.fixture
def venues(tmp_path: Path) -> Iterator[Callable[..., VenueService]]:
    made: list[VenueService] = []

    def make(port: int, *, data: str = "venue", **kw: Any) -> VenueService:
        settings = VenueSettings(broker=BrokerSettings("127.0.0.1", port, **FAST), data_dir=str(tmp_path / data),
                                 name="Hall A", **kw)
        made.append(VenueService(settings).start())
        return made[-1]

    yield make
    for v in made:
        v.stop()


# -- a real browser (as tests/web/conftest.py) ------------------------------------------------------

@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    import importlib.util
    import os
    import shutil

    import browser_kit  # one Chromium per test process, shared with tests/web

    if not (os.path.exists(browser_kit.CHROMIUM) or shutil.which("chromium")) or importlib.util.find_spec("playwright") is None:
        reason = "Chromium or playwright is missing (apt-get install chromium; pip install -e '.[dev]')"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("TABLEREF_REQUIRE_BROWSER"):
            pytest.fail(reason)
        pytest.skip(reason)
    yield browser_kit.acquire()
    browser_kit.release()


@pytest.fixture
def page_locale() -> str:
    return "en-GB"


@pytest.fixture
def browser_page(chromium: Any, page_locale: str) -> Iterator[Any]:
    """A fresh context per test (a TV-sized window); console errors fail the test."""
    import browser_kit

    with browser_kit.watched_page(chromium, viewport={"width": 1920, "height": 1080}, locale=page_locale) as page:
        yield page


@pytest.fixture
def venue_server(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """The venue page for a venue service, on waitress on a free port (PIN 2468)."""
    from tableref.venue.web import create_venue_app
    from web.server import make_server

    servers: list[Any] = []

    def serve(venue: VenueService) -> Any:
        app = create_venue_app(venue, data_dir=venue.settings.data_dir, initial_pin="2468",
                               config={"PIN_HASH_METHOD": "pbkdf2:sha256:2000", "SSE_KEEPALIVE": 0.5, "SSE_RETRY_MS": 300})
        server = make_server(app, "127.0.0.1", 0, threads=16).start()
        assert server.wait_ready(10), "the venue page did not answer"
        servers.append(server)
        return server

    yield serve
    for s in servers:
        s.stop()
