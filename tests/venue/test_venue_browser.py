"""The venue page in a real headless Chromium (TV-sized), against a real mosquitto with real
tables: complete at once, live moves and flags, an offline table greyed with the time since it was
last seen, a broker outage shown on the page and recovered with no table missing, the standings
with a merge by the organiser, retiring a table, and the page in Chinese."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

from mqtt_testkit import poll
from venue_testkit import exchange, finish

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "venue"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def tile(table_id: str) -> str:
    return f"article.tile[data-table='{table_id}']"


def version_shown(page: Any, table_id: str, version: int, seconds: float = 2.0) -> float:
    """Wait until the tile shows this version; how long it took."""
    t0 = time.monotonic()
    page.wait_for_function("([id, v]) => { const t = document.querySelector(`article.tile[data-table='${id}']`);"
                           " return t && t.dataset.version === String(v); }", arg=[table_id, version], timeout=seconds * 1000)
    return time.monotonic() - t0


def test_the_venue_screen_live_through_an_outage(broker_factory, tables, venues, venue_server, browser_page) -> None:
    from web.fake_demo import illegal_move, random_legal_move

    page = browser_page
    broker = broker_factory()
    t1 = tables.runtime(broker.port, "t1", "Table 1", {"blue": "Alice", "green": "Bob"}, url="http://table-1.local:8080/")
    t2 = tables.runtime(broker.port, "t2", "Table 2")
    t3 = tables.fake(broker.port, "t3")
    rng = random.Random(5)
    exchange(t1)
    t3.play(random_legal_move(t3, rng))
    venue = venues(broker.port)
    poll(lambda: len(venue.hall.tiles()) == 3, what="three tables at the venue")
    server = venue_server(venue)

    page.goto(server.url)
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)
    for table_id, rt in (("t1", t1), ("t2", t2), ("t3", t3)):
        version_shown(page, table_id, rt.snapshot()["version"])
    assert page.locator("article.tile").count() == 3
    link = page.locator(tile("t1") + " a.tile-link")
    assert link.get_attribute("href") == "http://table-1.local:8080/" and link.get_attribute("target") == "_blank"
    text = page.inner_text(tile("t1"))
    assert "Table 1" in text and "Alice" in text and "Bob" in text and "round" in text
    assert page.locator(tile("t2") + " a.tile-link").count() == 0  # no address known: not a link
    assert "3 tables · 3 online" in page.inner_text("#venue-count")
    assert float(page.eval_on_selector(".tile-name", "e => parseFloat(getComputedStyle(e).fontSize)")) >= 28  # across the hall

    exchange(t1)
    took = version_shown(page, "t1", t1.snapshot()["version"], 2.0)
    assert took < 1.0, f"the move took {took:.2f} s to reach the page"
    t3.play(illegal_move(t3, rng))
    page.wait_for_selector(tile("t3") + "[data-flag='1'] .tile-mark", timeout=3000)
    assert page.inner_text(tile("t3") + " .tile-flagtext")
    t3.take_back()
    page.wait_for_selector(tile("t3") + "[data-flag='0']", timeout=3000)

    t2.stop()
    page.wait_for_selector(tile("t2") + "[data-online='false']", timeout=3000)
    assert "offline · last seen" in page.inner_text(tile("t2") + " .tile-status")
    assert "3 tables · 2 online" in page.inner_text("#venue-count")
    shot(page, "venue-tiles")

    broker.kill()
    page.wait_for_selector("#broker-banner:not([hidden])", timeout=5000)
    assert "cannot be reached" in page.inner_text("#broker-banner")
    assert page.evaluate("document.body.dataset.broker") == "down" and page.locator("article.tile").count() == 3
    shot(page, "venue-broker-down")
    exchange(t1)
    t3.play(random_legal_move(t3, rng))
    broker.start()
    page.wait_for_selector("#broker-banner[hidden]", state="attached", timeout=10_000)
    version_shown(page, "t1", t1.snapshot()["version"], 10.0)
    version_shown(page, "t3", t3.snapshot()["version"], 10.0)
    assert page.locator("article.tile").count() == 3  # no table missing afterwards
    assert page.get_attribute(tile("t1"), "data-online") == "true" and page.get_attribute(tile("t2"), "data-online") == "false"


def test_standings_merge_and_retire_by_the_organiser(broker_factory, tables, venues, venue_server, browser_page) -> None:
    page = browser_page
    broker = broker_factory()
    t1 = tables.runtime(broker.port, "t1", "Table 1", {"blue": "Alice", "green": "bob"}, url="http://table-1.local:8080/")
    t2 = tables.runtime(broker.port, "t2", "Table 2", {"blue": "Bob", "green": "Carol"})
    venue = venues(broker.port, retire_wait=0.3)
    server = venue_server(venue)
    finish(t1)
    finish(t2)
    poll(lambda: venue.results.count() == 2, what="both games recorded")

    page.goto(server.url + "standings")
    page.wait_for_selector("#standings-rows tr", timeout=5000)
    names = page.eval_on_selector_all("#standings-rows td.left", "els => els.map(e => e.textContent)")
    # "bob" and "Bob" are one player already (shown as whichever game reached the venue first)
    assert sorted(n.lower() for n in names) == ["alice", "bob", "carol"]
    assert page.locator("#games li").count() == 2
    replay = page.locator("#games li a.button")
    assert replay.count() == 1 and replay.get_attribute("href") == "http://table-1.local:8080/board?replay=1"
    assert page.locator(".venue-admin").is_hidden()  # the organiser's tools need the PIN

    page.goto(server.url + "login?next=/standings")
    page.fill("#pin", "2468")
    page.click("#login-form button[type=submit]")
    page.wait_for_url(server.url + "standings", timeout=5000)
    page.wait_for_selector("#merge-from option", state="attached", timeout=5000)
    page.select_option("#merge-from", "Carol")
    page.select_option("#merge-into", "Alice")
    page.click("#merge-form button[type=submit]")
    page.wait_for_function("() => document.querySelectorAll('#standings-rows tr').length === 2", timeout=5000)
    page.wait_for_selector("#merged li", timeout=5000)
    assert "Carol — counts as Alice" in page.inner_text("#merged")
    shot(page, "venue-standings")

    t2.stop()
    page.goto(server.url)
    page.wait_for_selector(tile("t2") + "[data-online='false'] .tile-retire", timeout=5000)
    assert page.locator(tile("t1") + " .tile-retire").count() == 0  # online tables cannot be retired
    page.click(tile("t2") + " .tile-retire")  # the confirmation is accepted by the fixture
    page.wait_for_selector(tile("t2"), state="detached", timeout=5000)
    assert venue.hall.tile("t2") is None
    assert page.locator("article.tile").count() == 1


@pytest.mark.parametrize("page_locale", ["zh-CN"])
def test_the_venue_screen_in_chinese(broker_factory, tables, venues, venue_server, browser_page) -> None:
    page = browser_page
    broker = broker_factory()
    rt = tables.runtime(broker.port, "t1", "一号桌", {"blue": "李娜"})
    venue = venues(broker.port)
    server = venue_server(venue)
    page.goto(server.url)
    page.wait_for_selector("article.tile", timeout=5000)
    assert "全部桌台" in page.inner_text("h1") and "各桌" in page.inner_text(".nav")
    text = page.inner_text("article.tile")
    assert "一号桌" in text and "李娜" in text and "第 1 轮" in text and "中国皇帝" in text
    rt.stop()
    page.wait_for_selector("article.tile[data-online='false']", timeout=5000)
    assert "离线" in page.inner_text(".tile-status")
    shot(page, "venue-zh")


def test_a_wall_screen_turns_its_pages(tmp_path, venue_server, browser_page) -> None:
    """?tv=SECONDS: one screenful of tiles at a time; the page turns by itself."""
    import json

    from tableref.mqtt.link import BrokerSettings
    from tableref.venue.service import VenueService, VenueSettings

    venue = VenueService(VenueSettings(broker=BrokerSettings("127.0.0.1", 1), data_dir=str(tmp_path / "venue")))  # not started
    try:
        for n in range(1, 41):  # what the broker would deliver for 40 tables
            snap = {"game": "china", "version": n, "table": {"name": f"Table {n}"}, "turn": {"active": ["blue"], "round": 1},
                    "scores": {"players": [{"player": c, "total": n % 7} for c in ("blue", "green", "red", "yellow")]}}
            venue.hall.handle(f"t{n}", "state", json.dumps(snap).encode(), True)
            venue.hall.handle(f"t{n}", "status", b"online", True)
        server = venue_server(venue)
        page = browser_page
        page.goto(server.url + "?tv=2")
        page.wait_for_function("() => document.body.dataset.tvPage === '0'", timeout=5000)
        shown = page.locator("article.tile:not([hidden])").count()
        assert 0 < shown < 40 and page.locator(".topbar .nav").is_hidden()
        first = page.eval_on_selector("article.tile:not([hidden])", "e => e.dataset.table")
        assert first == "t1" and "page 1 of" in page.inner_text("#venue-count")
        page.wait_for_function("() => document.body.dataset.tvPage === '1'", timeout=5000)
        assert page.eval_on_selector("article.tile:not([hidden])", "e => e.dataset.table") == f"t{shown + 1}"
        for tile_box in page.eval_on_selector_all("article.tile:not([hidden])", "els => els.map(e => e.getBoundingClientRect().bottom)"):
            assert tile_box <= 1080  # the whole screenful fits
    finally:
        venue.stop()
