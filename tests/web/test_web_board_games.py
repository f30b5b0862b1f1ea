"""The Board page of Cheops, The Great Wall, Ming and Zhang Yi in a real headless Chromium: each
game's board drawn from its board kit (scorer/core/boardkit.py) and its layout, with the pieces of
the position, the last move ringed, a flagged space marked and that game's legend, in English and
in Chinese. Screenshots go to test-artifacts/web/board-<game>[-zh].png."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from web.boards import BoardLibrary
from web.fake import FakeTableService
from web_testkit import screenshot

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Scene:
    setup: dict[str, Any]
    legal: tuple[dict[str, Any], ...]  # played in order: the last one is "the last move"
    last: str  # a space the last move touched
    illegal: dict[str, Any]  # raises the flag
    flagged: str  # a space the flag names
    piece: tuple[str, str]  # (space, piece kind) drawn from the position
    legend_en: str  # a text of this game's legend, in English and in Chinese
    legend_zh: str


def turn(player: str, tile: str, space: str) -> dict[str, Any]:
    return {"type": "turn", "player": player, "steps": [{"do": "place", "tile": tile, "space": space, "sell": True}],
            "draws": [{"stack": 0}]}


SCENES = {
    "cheops": Scene(
        setup={"players": ["blue", "red", "green"], "seed": 4},
        legal=(turn("blue", "A", "r11c1"), turn("red", "A", "r11c3")),
        last="r11c3", illegal=turn("green", "A", "r10c1"), flagged="r10c1", piece=("r11c1", "family-A"),
        legend_en="Neighbour tile", legend_zh="邻居板块"),
    "great_wall": Scene(
        setup={"players": ["blue", "red", "green"], "seed": 1},
        legal=({"type": "reveal", "section": "section-1", "tokens": [1, 1]}, {"type": "reveal", "section": "section-2", "tokens": [2, 2]},
               {"type": "reveal", "section": "section-3", "tokens": [2, 2]}, {"type": "play", "player": "blue", "section": "section-1", "cards": ["wall"]}),
        last="section-1", illegal={"type": "play", "player": "green", "section": "section-2", "cards": ["gate"]}, flagged="section-2",
        piece=("section-1", "wall"), legend_en="Token and its value", legend_zh="标记及其数值"),
    "ming": Scene(
        setup={"players": ["yellow", "green", "blue"], "seed": 2},
        legal=({"type": "place_prince", "player": "yellow", "district": "p1d1"}, {"type": "place_prince", "player": "green", "district": "p2d2"},
               {"type": "place_prince", "player": "blue", "district": "p4d3"}, {"type": "place_family", "player": "yellow", "province": "p1"},
               {"type": "place_family", "player": "green", "province": "p3"}),
        last="province-space-p3", illegal={"type": "place_family", "player": "yellow", "province": "p6"}, flagged="province-space-p6",
        piece=("p2d2", "prince"), legend_en="Prince", legend_zh="太子"),
    "zhang_yi": Scene(
        setup={"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True, "seed": 3},
        legal=({"type": "draw_talent", "player": "red", "talent": "yue_yi", "source": "dashboard"},
               {"type": "place_talent", "player": "red", "talent": "yue_yi", "area": "shanggu"}),
        last="shanggu", illegal={"type": "place_talent", "player": "blue", "talent": "sun_bin", "area": "ji"}, flagged="ji",
        piece=("shanggu", "talent-yue_yi"), legend_en="River border", legend_zh="河流边界"),
}


@pytest.fixture(params=sorted(SCENES))
def game(request) -> str:
    return request.param


@pytest.fixture
def service(data_dir: Path, game: str) -> FakeTableService:
    """The dashboard's fake table running ``game`` (overrides conftest's China table)."""
    return FakeTableService(setup=SCENES[game].setup, game=game, geometry=BoardLibrary(data_dir.resolve()).geometry)


def test_board_page_draws_each_game(live_server, browser_page, game):
    page, svc, scene = browser_page, live_server.service, SCENES[game]
    for move in scene.legal:
        assert svc.play(move).ok, move
    res = svc.play(scene.illegal)
    assert svc.flag_raised, res.message.en
    page.goto(live_server.url + "board")
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)
    page.wait_for_selector(f'.mark-flag[data-space="{scene.flagged}"]', timeout=10_000)
    page.wait_for_selector(f'.mark-last[data-space="{scene.last}"]')
    geo = page.evaluate(f"async () => (await (await fetch('/api/board?game={game}')).json()).geometry")
    assert page.locator("g.kit-space").count() == len(geo["spaces"])
    space, kind = scene.piece
    assert page.locator(f'[data-pieces="{space}"] .kchip[data-kind="{kind}"]').count() >= 1
    assert page.locator("#board-empty").is_hidden()  # no "There is no board drawing for this game yet"
    assert page.locator("#legend-china").is_hidden() and page.locator("#legend-game").is_visible()
    legend = page.locator("#legend-game").text_content()
    assert scene.legend_en in legend and "Emissary" not in legend, legend
    assert page.locator("#badge-layout-provisional").is_visible()  # the shipped layouts are invented
    screenshot(page, f"board-{game}")
    # in Chinese: the page's texts and the kit's texts (legend, labels) follow the language
    page.goto(live_server.url + "lang/zh-Hans?next=/board")
    page.wait_for_selector(f'.mark-flag[data-space="{scene.flagged}"]', timeout=10_000)
    assert page.locator('nav a[data-nav="board"]').text_content() == "版图"
    assert scene.legend_zh in page.locator("#legend-game").text_content()
    screenshot(page, f"board-{game}-zh")
    # the flag clears when the pieces are taken back; the drawing follows live
    svc.take_back()
    page.wait_for_function("() => document.querySelector('.mark-flag') === null", timeout=5000)
