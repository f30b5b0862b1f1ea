"""Moves that appeared at once with no change times: the dashboard shows the inferred order and
asks. Confirming (or choosing the order actually played) needs the admin PIN and ends the
provisional state. The real runtime referees observations; the page runs in a real Chromium."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from scorer.core import Piece
from scorer.core.observation import Observation, SpaceReading
from scorer.referee.reconciler import ReconcilerSettings
from tableref.runtime import Runtime
from tableref.table import TableSettings
from web.app import create_app
from web.server import make_server
from web_testkit import FAST_HASH, PIN, ApiClient, screenshot, wait_for

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}
PLAYED = [("red", ("chu-2", "chu-6")), ("blue", ("wei-2",)), ("green", ("qi-1",)), ("red", ("chu-3", "chu-5"))]


class Camera:
    """A source that sees every space of the board (no change times: like a camera back online)."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        board = runtime.call(lambda t: t.session.state.board)
        self.spaces = list(board.sites) + [p.dragon for p in board.provinces]
        self.pieces: dict[str, Piece] = {}

    def show(self) -> None:
        readings = tuple(SpaceReading.of(s, [self.pieces[s]] if s in self.pieces else []) for s in self.spaces)
        self.rt.submit_observation(Observation("camera", self.rt.clock(), readings))


def moves(rt: Runtime) -> list[tuple[str, tuple[str, ...]]]:
    return [(m["player"], tuple(p["space"] for p in m["pieces"])) for m in rt.export_record()["moves"]]


@pytest.fixture
def asked(tmp_path: Path) -> Iterator[Runtime]:
    settings = TableSettings(settle=0.05, reconciler=ReconcilerSettings(complete_grace=0.1, quiet_timeout=2.0))
    rt = Runtime(store_path=str(tmp_path / "t.sqlite"), game_id="china", setup=SETUP, settings=settings).start()
    cam = Camera(rt)
    for owner, space in (("blue", "chu-1"), ("green", "wei-1")):
        cam.pieces[space] = Piece(owner, "house")
        cam.show()
        wait_for(lambda: rt.snapshot().get("moves") == len(cam.pieces) and not rt.snapshot()["pending"], 5, "a move")
    for owner, spaces in PLAYED:  # the camera was off while these were played: it sees them at once
        for space in spaces:
            cam.pieces[space] = Piece(owner, "house")
    deadline = time.monotonic() + 10
    while rt.snapshot().get("moves") != 6 and time.monotonic() < deadline:
        cam.show()
        time.sleep(0.05)
    assert rt.snapshot()["moves"] == 6 and rt.snapshot()["order_check"], rt.snapshot()["order_check"]
    yield rt
    rt.stop()


@pytest.fixture
def order_app(asked: Runtime, tmp_path: Path):
    return create_app(asked, data_dir=tmp_path / "data", initial_pin=PIN, config={"PIN_HASH_METHOD": FAST_HASH})


def played_index(question: dict[str, Any]) -> int | None:
    for alt in question["alternatives"]:
        first = alt["steps"][0]["description"]["en"]
        if "chu-2" in first and "chu-6" in first:
            return alt["index"]
    return None


def test_confirm_needs_the_pin_and_a_known_group(order_app, asked: Runtime) -> None:
    api = ApiClient(order_app.test_client())
    (question,) = api.get("/api/state").get_json()["order_check"]
    assert api.post("/api/order/confirm", {"group": question["group"]}).status_code == 401
    assert api.login().status_code == 200
    assert api.post("/api/order/confirm", {"group": "x"}).status_code == 400
    assert api.post("/api/order/confirm", {"group": question["group"] + 99}).status_code == 409
    ok = api.post("/api/order/confirm", {"group": question["group"]})
    assert ok.status_code == 200, ok.get_json()
    assert api.get("/api/state").get_json()["order_check"] == []
    history = api.get("/api/history").get_json()["events"]
    assert any(e["type"] == "order_confirmed" for e in history)


def test_choose_the_played_order_over_the_api(order_app, asked: Runtime) -> None:
    api = ApiClient(order_app.test_client())
    api.login()
    (question,) = api.get("/api/state").get_json()["order_check"]
    index = played_index(question)
    if index is None:
        assert moves(asked)[2:] == PLAYED  # inferred right: then confirming is all there is to do
        return
    res = api.post("/api/order/choose", {"group": question["group"], "index": index})
    assert res.status_code == 200, res.get_json()
    assert moves(asked)[2:] == PLAYED and api.get("/api/state").get_json()["order_check"] == []


@pytest.mark.browser
def test_the_scoreboard_asks_and_the_played_order_is_chosen(order_app, asked: Runtime, browser_page) -> None:
    server = make_server(order_app, "127.0.0.1", 0, threads=12).start()
    try:
        assert server.wait_ready(10)
        page = browser_page
        page.goto(server.url + "login?next=/")
        page.fill("#pin", PIN)
        page.click("#login-form button[type=submit]")
        page.wait_for_url(server.url, timeout=5000)
        box = page.wait_for_selector("#order-check:not([hidden])", timeout=10_000)
        text = box.inner_text()
        assert "Check the order of these moves" in text and "chu-2" in text and "provisional" in text
        screenshot(page, "order-check")
        (question,) = asked.snapshot()["order_check"]
        index = played_index(question)
        if index is None:
            page.click("#order-check .order-confirm")
        else:
            page.click(f'#order-check .order-alternative[data-index="{index}"] .order-use')
        page.wait_for_selector("#order-check", state="hidden", timeout=5000)
        assert moves(asked)[2:] == PLAYED and asked.snapshot()["order_check"] == []
    finally:
        server.stop()
