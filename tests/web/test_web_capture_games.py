"""Board capture of a game other than China, end to end in a real headless Chromium: Cheops on
the fake table's rectified photo (drawn from the shipped layout), spaces placed and moved by
taps, the eye spaces and a scarab colour changed, checked, saved; the files pass the game's
validator and the layout validator; a game then starts on the captured board and the Board page
draws it from the captured layout. Screenshots in test-artifacts/web/capture-cheops-*.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.games.cheops.data import board_from_json
from vision.layout import layout_from_json
from web.boards import BoardLibrary
from web.fake import FakeTableService
from web_testkit import PIN, screenshot

pytestmark = pytest.mark.browser

SETUP = {"players": ["blue", "red", "green"], "seed": 4}


@pytest.fixture
def service(data_dir: Path) -> FakeTableService:
    return FakeTableService(setup=SETUP, game="cheops", geometry=BoardLibrary(data_dir.resolve()).geometry)


class Tapper:
    """Taps the capture photo at board mm, bringing the point into view first (as PhotoTapper in
    test_web_browser.py)."""

    def __init__(self, page, size_mm):
        self.page, self.size_mm = page, size_mm
        self.svg = page.locator("#capture-svg")
        self.top = page.locator(".topbar").bounding_box()["height"] + 5
        self.height = page.viewport_size["height"] - 5

    def tap(self, x_mm: float, y_mm: float) -> None:
        for _ in range(3):
            box = self.svg.bounding_box()
            scale = box["width"] / self.size_mm[0]
            x, y = box["x"] + x_mm * scale, box["y"] + y_mm * scale
            if self.top <= y <= self.height:
                self.page.mouse.click(x, y)
                return
            self.page.evaluate("dy => window.scrollBy(0, dy)", y - (self.top + self.height) / 2)
        raise AssertionError(f"cannot bring ({x_mm}, {y_mm}) mm of the photo into view")


def test_cheops_capture_saves_valid_files_and_a_game_runs_on_them(live_server, browser_page, data_dir):
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 1100})
    page.goto(live_server.url + "login?next=/")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(live_server.url, timeout=5000)
    page.goto(live_server.url + "capture")  # China's page offers the other games as tabs
    page.wait_for_selector('#capture-games a[data-game="cheops"]')
    page.click('#capture-games a[data-game="cheops"]')
    page.wait_for_url("**/capture/cheops")
    page.wait_for_selector("#capture-svg image[href^=\"blob:\"]")
    page.wait_for_selector('.cg-item[data-key="r11c1"]')
    meta = page.evaluate("async () => (await fetch('/api/capture/snapshot?game=cheops')).json()")
    layout0 = json.loads((Path(__file__).resolve().parents[2] / "vision/layouts/cheops.json").read_text())
    assert meta["available"] and meta["size_mm"] == layout0["size_mm"]
    assert page.locator("g.cg-item").count() == 85  # 66 pyramid spaces, 6 x (dot, table, law), the market price field
    page.fill("#cg-id", "kitchen-cheops")
    page.fill("#cg-name-en", "Our Cheops board")
    page.fill("#cg-name-zh", "我们的胡夫版图")
    # the eye spaces as printed on this copy: r6c3 has none, r9c5 has one
    for space, eye in (("r6c3", False), ("r9c5", True)):
        page.click(f'#cg-items button[data-key="{space}"]')
        box = page.locator('#cg-item-fields input[data-field="eye"]')
        box.set_checked(eye)
    # the sixth scarab colour is grey on this copy
    page.fill('#cg-groups tr[data-group="c6"] input[data-field="id"]', "grey")
    page.fill('#cg-groups tr[data-group="c6"] input[data-field="zh"]', "灰")
    # r11c1 is taken off and placed again, 6 mm further right, by taps on the photo
    at = {s["id"]: s for s in layout0["spaces"]}
    x, y = (sum(p[i] for p in at["r11c1"]["points_mm"]) / 4 for i in (0, 1))
    photo = Tapper(page, meta["size_mm"])
    page.locator(".tool[data-tool='delete']").dispatch_event("click")
    photo.tap(x, y)
    assert "unplaced" in page.locator('#cg-items button[data-key="r11c1"]').get_attribute("class")
    page.locator(".tool[data-tool='place']").dispatch_event("click")
    page.click('#cg-items button[data-key="r11c1"]')
    photo.tap(x + 6, y)
    page.click("#check")
    page.wait_for_function("() => document.querySelector('#problems .ok-text') !== null", timeout=5000)
    screenshot(page, "capture-cheops-before-save")
    page.click("#save")
    page.wait_for_function("() => document.querySelector('#save-result').dataset.saved === 'kitchen-cheops'", timeout=5000)
    doc = json.loads((data_dir / "boards" / "kitchen-cheops.json").read_text())
    board = board_from_json(doc)  # the game's own validator
    assert board.provisional is False and "r9c5" in board.eye_spaces and "r6c3" not in board.eye_spaces
    assert board.colours[-1] == "grey" and doc["name"]["zh"] == "我们的胡夫版图"
    layout = layout_from_json(json.loads((data_dir / "layouts" / "kitchen-cheops.json").read_text()))  # the layout validator
    assert {"dot-grey", "price-grey", "price-grey-law"} <= set(layout.space_ids)
    assert layout.marker_size >= 50
    cx, cy = layout.space("r11c1").centre
    assert abs(cx - (x + 6)) < 2 and abs(cy - y) < 2
    # a game on the captured board: offered under New game, drawn from the captured layout
    page.goto(live_server.url + "new")
    page.wait_for_selector("#game option[value='cheops']", state="attached")
    page.select_option("#game", "cheops")
    page.wait_for_selector("#board option[value='kitchen-cheops']", state="attached")
    page.select_option("#board", "kitchen-cheops")
    # started with a seed (the form offers no seed for Cheops, whose set-up deals the price tables and the pyramid)
    res = page.evaluate("""async () => (await TR.api('POST', '/api/game/new',
        {game: 'cheops', players: ['blue', 'red', 'green'], board: document.querySelector('#board').value, seed: 4})).status""")
    assert res == 200
    snap = live_server.service.snapshot()
    assert snap["game"] == "cheops" and snap["board_id"].endswith("kitchen-cheops.json")
    page.goto(live_server.url + "board")
    page.wait_for_selector('g.kit-space[data-space="dot-grey"]', timeout=10_000)
    assert page.locator("#badge-provisional").is_hidden() and page.locator("#badge-layout-provisional").is_hidden()
    assert page.locator("#board-title").text_content() == "Our Cheops board"
    screenshot(page, "capture-cheops-board")


def test_zhang_yi_capture_draws_an_area_and_a_river(live_server, browser_page, data_dir):
    """The polygon and border tools: an area drawn by taps, named, joined to a neighbour by a
    river border; the saved map passes Zhang Yi's validator and plays."""
    page, svc = browser_page, live_server.service
    assert svc.new_game({"game": "zhang_yi", "players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True},
                        actor="test").ok
    page.set_viewport_size({"width": 1280, "height": 1100})
    page.goto(live_server.url + "login?next=/")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(live_server.url, timeout=5000)
    page.goto(live_server.url + "capture/zhang_yi")
    page.wait_for_selector("#capture-svg image[href^=\"blob:\"]")
    page.wait_for_selector('.cg-item[data-key="area:longxi"]')
    meta = page.evaluate("async () => (await fetch('/api/capture/snapshot?game=zhang_yi')).json()")
    photo = Tapper(page, meta["size_mm"])
    page.fill("#cg-id", "our-map")
    # a new area drawn in the dice tray's free corner: three corners, then back to the first
    page.locator(".tool[data-tool='area']").dispatch_event("click")
    for x, y in ((600, 600), (680, 600), (640, 640), (600, 600)):
        photo.tap(x, y)
    page.wait_for_selector('.cg-item[data-key="area:new1"]')
    page.fill('#cg-item-fields input[data-field="id"]', "hexi")
    page.fill('#cg-item-fields input[data-field="name_zh"]', "河西")
    page.fill('#cg-item-fields input[data-field="name_en"]', "Hexi")
    # a river border from the new area to Longxi
    longxi = json.loads((Path(__file__).resolve().parents[2] / "vision/layouts/zhang-yi-sample.json").read_text())
    lx, ly = next((sum(p[0] for p in s["points_mm"]) / len(s["points_mm"]), sum(p[1] for p in s["points_mm"]) / len(s["points_mm"]))
                  for s in longxi["spaces"] if s["id"] == "longxi")
    page.locator(".tool[data-tool='link']").dispatch_event("click")
    page.select_option("#cg-link-type", "river")
    photo.tap(640, 615)
    photo.tap(lx, ly)
    page.wait_for_selector('#cg-links li[data-link="area:new1|area:longxi"]')
    page.click("#check")
    page.wait_for_function("() => document.querySelector('#problems .ok-text') !== null", timeout=5000)
    screenshot(page, "capture-zhang-yi")
    page.click("#save")
    page.wait_for_function("() => document.querySelector('#save-result').dataset.saved === 'our-map'", timeout=5000)
    from scorer.games.zhang_yi.board import map_from_json

    gmap = map_from_json(json.loads((data_dir / "boards" / "our-map.json").read_text()))
    assert gmap.sample is False and gmap.area("hexi").label.en == "Hexi"
    assert gmap.border_type[(gmap.area_index["hexi"], gmap.area_index["longxi"])] == "river"
    layout = layout_from_json(json.loads((data_dir / "layouts" / "our-map.json").read_text()))
    assert len(layout.space("hexi").polygon) == 3 and layout.marker_size >= 50
