"""The results of a finished game leave the table from the dashboard: the "Send to BG Stats" link
(Board Game Stats' createPlay format) and the downloads of the JSON record and the CSV. The
dashboard runs on the real runtime over a real event store holding a finished China game; the
page is checked in a real headless Chromium."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from scorer.records import load_record, parse_record, replay
from tableref.bgstats import CREATE_PLAY
from tableref.runtime import Runtime
from tableref.table import TableSettings
from web.app import create_app
from web.server import make_server
from web_testkit import FAST_HASH, PIN, ApiClient, screenshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from test_bgstats import COMPLETE, finished_store  # noqa: E402  (one helper for both suites)

SETUP = {"players": ["blue", "green", "red", "violet"]}
NAMES = (("violet", "Mei"),)


@pytest.fixture
def finished_runtime(tmp_path: Path) -> Iterator[Runtime]:
    store = finished_store(tmp_path / "table.sqlite")
    rt = Runtime(store_path=str(store), game_id="china", setup=SETUP,
                 settings=TableSettings(name="Café 3", player_names=NAMES))
    rt.start()
    yield rt
    rt.stop()


@pytest.fixture
def results_app(finished_runtime: Runtime, tmp_path: Path):
    return create_app(finished_runtime, data_dir=tmp_path / "data", initial_pin=PIN, config={"PIN_HASH_METHOD": FAST_HASH})


def decoded(url: str) -> Any:
    assert url.startswith(CREATE_PLAY)
    (data,) = parse_qs(urlsplit(url).query)["data"]
    return json.loads(data)


def test_bgstats_json_and_link_from_the_api(results_app, finished_runtime: Runtime) -> None:
    api = ApiClient(results_app.test_client())
    resp = api.get("/api/export/bgstats")
    assert resp.status_code == 200
    body = resp.get_json()
    assert decoded(body["url"]) == body["play"] == finished_runtime.export_bgstats("en")
    play = body["play"]
    assert play["location"] == "Café 3" and {p["name"] for p in play["players"]} >= {"Mei", "blue"}
    assert sum(p["winner"] for p in play["players"]) >= 1 and play["players"][0]["rank"] == 1
    zh = api.get("/api/export/bgstats", headers={"Accept-Language": "zh-CN"}).get_json()["play"]
    assert "裁判" in zh["comments"]


def test_record_and_csv_downloads(results_app) -> None:
    api = ApiClient(results_app.test_client())
    rec = api.get("/api/export/record")
    assert rec.status_code == 200 and rec.mimetype == "application/json"
    assert rec.headers["Content-Disposition"] == 'attachment; filename="china-1.json"'
    result = replay(parse_record(json.loads(rec.data)))
    original = load_record(str(COMPLETE))
    assert result.ok and result.record.game.score(result.state) == original.game.score(replay(original).state)
    out = api.get("/api/export/csv")
    assert out.status_code == 200 and out.mimetype == "text/csv"
    assert out.headers["Content-Disposition"] == 'attachment; filename="china-1.csv"'
    rows = list(csv.reader(io.StringIO(out.data.decode("utf-8"))))
    assert [r[2] for r in rows[1:]].count("move") == len(original.moves)


def test_bgstats_of_a_game_in_progress_is_a_409(app) -> None:
    api = ApiClient(app.test_client())  # the fake table: a game that has just started
    resp = api.get("/api/export/bgstats")
    assert resp.status_code == 409 and resp.get_json()["error"]["code"] == "not_finished"


@pytest.mark.browser
def test_the_scoreboard_of_a_finished_game_offers_bgstats_and_the_downloads(results_app, finished_runtime, browser_page) -> None:
    server = make_server(results_app, "127.0.0.1", 0, threads=12).start()
    try:
        assert server.wait_ready(10)
        page = browser_page
        page.goto(server.url)
        page.wait_for_selector("#gameover:not([hidden])", timeout=10_000)
        link = page.wait_for_selector("#send-bgstats:not([hidden])", timeout=5000)
        assert link.inner_text() == "Send to BG Stats"
        play = decoded(link.get_attribute("href"))
        assert play == finished_runtime.export_bgstats("en")
        assert [p["sourcePlayerId"] for p in play["players"] if p["startPlayer"]] == ["blue"]
        with page.expect_download() as got:
            page.click("#download-record")
        path = got.value.path()
        assert got.value.suggested_filename == "china-1.json"
        assert replay(parse_record(json.loads(Path(path).read_text("utf-8")))).ok
        with page.expect_download() as got:
            page.click("#download-csv")
        assert got.value.suggested_filename == "china-1.csv"
        assert Path(got.value.path()).read_text("utf-8").startswith("seq,wall,type")
        screenshot(page, "results-finished-game")
    finally:
        server.stop()
