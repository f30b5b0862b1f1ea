"""Board capture of a game other than China, end to end in a real headless Chromium: Cheops on
the fake table's rectified photo (drawn from the shipped layout), spaces placed and moved by
taps, the eye spaces and a scarab colour changed, checked, saved; the files pass the game's
validator and the layout validator; a game then starts on the captured board and the Board page
draws it from the captured layout. Zhang Yi's areas and rivers; The Great Wall's mat placed section by
section and one section dragged (it replaces the shipped mat); Ming's spaces, a province's colour and
name and a border's transport symbol; a capture with a space missing is refused and writes nothing.
Screenshots in test-artifacts/web/capture-*.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.data_files import kind_of
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
    # started from the form, with the deal number it offers (Cheops' set-up deals the price tables and the pyramid)
    assert page.locator("#seed-field").is_visible() and page.locator("#seed").input_value() != ""
    assert page.locator("#seed-label").text_content() == "Deal number"
    page.fill("#seed", "4")
    page.click("#start")
    page.wait_for_url(live_server.url, timeout=5000)
    snap = live_server.service.snapshot()
    assert snap["setup"]["seed"] == 4
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


# -- The Great Wall and Ming Dynasty ------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def shipped_layout(name: str) -> dict:
    return json.loads((ROOT / "vision" / "layouts" / f"{name}.json").read_text())


def centre_of(space: dict) -> tuple[float, float]:
    """A layout space's centre in mm: a circle's centre, a polygon's box centre."""
    if "centre_mm" in space:
        return tuple(space["centre_mm"])
    xs, ys = [p[0] for p in space["points_mm"]], [p[1] for p in space["points_mm"]]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def drag(page, photo: Tapper, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A press at ``start`` (mm), moved in steps to ``end``, released: the move tool's drag. Both ends must be in
    view together (the photo is scrolled for the start only)."""
    photo.tap(*start)  # brings the start into view; with the move tool a tap selects and drops in place
    box = photo.svg.bounding_box()
    scale = box["width"] / photo.size_mm[0]
    page.mouse.move(box["x"] + start[0] * scale, box["y"] + start[1] * scale)
    page.mouse.down()
    page.mouse.move(box["x"] + end[0] * scale, box["y"] + end[1] * scale, steps=8)
    page.mouse.up()


def open_capture(page, live_server, game: str, first_key: str) -> dict:
    """Logged in as the admin, the capture page of ``game`` on the fake table's photo; the photo's size and markers."""
    page.set_viewport_size({"width": 1280, "height": 1100})
    page.goto(live_server.url + "login?next=/")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(live_server.url, timeout=5000)
    page.goto(live_server.url + f"capture/{game}")
    page.wait_for_selector("#capture-svg image[href^=\"blob:\"]")
    page.wait_for_selector(f'.cg-item[data-key="{first_key}"]')
    return page.evaluate(f"async () => (await fetch('/api/capture/snapshot?game={game}')).json()")


def check_on_server(page) -> None:
    """The Check button, answered by the server with no problem (the page shows "all good" before the
    server answers when nothing is missing locally, so the answer itself is read)."""
    with page.expect_response("**/api/capture/check") as answer:
        page.click("#check")
    body = answer.value.json()
    assert body["ok"] is True and body["problems"] == [], body["problems"]
    page.wait_for_function("() => document.querySelector('#problems .ok-text') !== null", timeout=5000)


def polygon_box(page, selector: str) -> list[float]:
    """The box (mm) of the points of the first polygon under ``selector`` as the page drew it."""
    pts = page.locator(selector).first.get_attribute("points").split()
    xs, ys = zip(*((float(a), float(b)) for a, b in (p.split(",") for p in pts)))
    return [min(xs), min(ys), max(xs), max(ys)]


def test_great_wall_capture_replaces_the_mat_and_a_game_runs_on_it(live_server, browser_page, data_dir):
    """The mat placed section by section by taps on the photo, one section dragged elsewhere; the saved
    layout replaces the shipped mat (no data file), the Board page draws it and a game is played on it."""
    page, svc = browser_page, live_server.service
    assert svc.new_game({"game": "great_wall", "players": ["blue", "red", "green"], "seed": 1}, actor="test").ok
    meta = open_capture(page, live_server, "great_wall", "section-1")
    shipped = shipped_layout("great-wall")
    assert meta["available"] and meta["size_mm"] == shipped["size_mm"]
    assert page.locator("#cg-id-field").is_hidden() and page.locator("#cg-fixed").is_visible()  # the mat has one id
    # start from an empty photo (the template's positions not kept) and place the four sections by taps
    page.locator("#cg-positions").set_checked(False)
    page.click("#cg-load")  # the "replace what is placed?" question is answered yes
    page.wait_for_function("() => document.querySelectorAll('g.cg-item').length === 0")
    at = {s["id"]: centre_of(s) for s in shipped["spaces"]}
    photo = Tapper(page, meta["size_mm"])
    page.locator(".tool[data-tool='place']").dispatch_event("click")
    for sid in ("section-1", "section-2", "section-3", "section-4"):
        photo.tap(*at[sid])  # each tap places the next section not on the photo yet
    assert page.locator("g.cg-item").count() == 4 and page.locator("#cg-items button.unplaced").count() == 0
    # section 3 lies 40 mm further right and 5 mm lower on this table: dragged there with the move tool
    dx, dy = 40.0, 5.0
    x3, y3 = at["section-3"]
    page.locator(".tool[data-tool='move']").dispatch_event("click")
    drag(page, photo, (x3 + 150, y3), (x3 + 150 + dx, y3 + dy))
    check_on_server(page)
    screenshot(page, "capture-great-wall-before-save")
    page.click("#save")
    page.wait_for_function("() => document.querySelector('#save-result').dataset.saved === 'great-wall'", timeout=5000)
    # a layout-only game: the table's mat under the shipped id, no data file
    assert not (data_dir / "boards").exists()
    doc = json.loads((data_dir / "layouts" / "great-wall.json").read_text())
    layout = layout_from_json(doc)  # the layout validator
    assert layout.id == "great-wall" and layout.provisional is False and layout.marker_size >= 50
    for sid, (x, y) in at.items():
        cx, cy = layout.space(sid).centre
        ex, ey = (x + dx, y + dy) if sid == "section-3" else (x, y)
        assert abs(cx - ex) < 2 and abs(cy - ey) < 2, (sid, (cx, cy), (ex, ey))
    row = next(r for r in doc["regions"] if r["id"] == "section-3-row")  # the cards' row went with its section
    shipped3 = next(s for s in shipped["spaces"] if s["id"] == "section-3")
    assert min(p[0] for p in row["polygon"]) > min(p[0] for p in shipped3["points_mm"]) + dx
    assert doc["pieces"]["dragon"].get("crosswise") is True  # what the camera knows of the cards is kept
    # this table's mat is now the one the next capture starts from
    spec = page.evaluate("async () => (await fetch('/api/capture/spec?game=great_wall')).json()")
    moved = next(i for i in spec["items"] if i["key"] == "section-3")
    assert abs(moved["x"] - (x3 + dx)) < 2 and abs(moved["y"] - (y3 + dy)) < 2
    # a new game on the captured mat, a move played on the moved section; the Board page draws both
    res = page.evaluate("""async () => (await TR.api('POST', '/api/game/new',
        {game: 'great_wall', players: ['blue', 'red', 'green'], seed: 1})).status""")
    assert res == 200 and svc.snapshot()["game"] == "great_wall"
    for move in ({"type": "reveal", "section": "section-1", "tokens": [1, 1]}, {"type": "reveal", "section": "section-2", "tokens": [2, 2]},
                 {"type": "reveal", "section": "section-3", "tokens": [2, 2]},
                 {"type": "play", "player": "blue", "section": "section-3", "cards": ["wall"]}):
        assert svc.play(move).ok, move
    assert not svc.flag_raised
    page.goto(live_server.url + "board")
    page.wait_for_selector('.mark-last[data-space="section-3"]', timeout=10_000)
    assert page.locator("#badge-layout-provisional").is_hidden()  # the captured mat, not the invented one
    x0, y0, x1, y1 = polygon_box(page, 'g.kit-space[data-space="section-3"] polygon')
    s0, t0, s1, t1 = polygon_box(page, 'g.kit-space[data-space="section-2"] polygon')
    assert abs(x0 - (s0 + dx)) < 2 and abs(y0 - (t1 + 10 + dy)) < 2 and abs(x1 - (s1 + dx)) < 2
    card = page.locator('[data-pieces="section-3"] .kchip[data-kind="wall"]').first.bounding_box()
    drawn = page.locator('g.kit-space[data-space="section-3"]').bounding_box()
    assert drawn["x"] <= card["x"] and card["x"] + card["width"] <= drawn["x"] + drawn["width"] + 1  # on the moved section
    screenshot(page, "capture-great-wall-board")


def test_great_wall_capture_with_a_section_missing_is_refused(live_server, browser_page, data_dir):
    page, svc = browser_page, live_server.service
    assert svc.new_game({"game": "great_wall", "players": ["blue", "red"], "seed": 1}, actor="test").ok
    page.expected_errors = ("status of 400",)  # the refused save
    meta = open_capture(page, live_server, "great_wall", "section-2")
    x, y = centre_of(next(s for s in shipped_layout("great-wall")["spaces"] if s["id"] == "section-2"))
    page.locator(".tool[data-tool='delete']").dispatch_event("click")
    Tapper(page, meta["size_mm"]).tap(x + 150, y)
    assert "unplaced" in page.locator('#cg-items button[data-key="section-2"]').get_attribute("class")
    page.click("#save")
    page.wait_for_selector("#problems .problem.server", timeout=5000)
    assert "section-2" in page.locator("#problems .problem.server").first.text_content()
    assert page.locator("#save-result").get_attribute("data-saved") is None
    assert not (data_dir / "layouts").exists()  # nothing written: the shipped mat stays


MING_SYMBOL = ("p1d1", "p1d2", "junk")  # this copy's border p1d1-p1d2 shows a junk (the shipped layout: a horse)


def test_ming_capture_saves_a_valid_board_and_a_game_runs_on_it(live_server, browser_page, data_dir):
    """Ming's spaces from the template's positions, a district redrawn as a polygon and its cloister
    placed again by taps, a province's colour and names and a border's transport symbol changed; the
    files pass Ming's validator and the layout validator, the prince stays one per player, and a game
    is played on the captured board, drawn from the captured layout."""
    page, svc = browser_page, live_server.service
    assert svc.new_game({"game": "ming", "players": ["yellow", "green", "blue"], "seed": 2}, actor="test").ok
    meta = open_capture(page, live_server, "ming", "p1d1")
    shipped = shipped_layout("ming-provisional")
    assert meta["available"] and meta["size_mm"] == shipped["size_mm"]
    assert page.locator("g.cg-item").count() == len(shipped["spaces"]) == 60  # 18 districts x 3, 6 province spaces
    page.fill("#cg-id", "kitchen-ming")
    page.fill("#cg-name-en", "Our Ming board")
    page.fill("#cg-name-zh", "我们的大明版图")
    # province p1 is orange on this copy (and p6, orange on the shipped board, red), and has a name
    row = '#cg-groups tr[data-group="p1"]'
    shown = page.locator(f'{row} select[data-field="colour"] option').all_text_contents()
    assert shown == ["Red", "Yellow", "Green", "Blue", "Purple", "Orange"], shown  # every colour named in the page's language
    page.select_option(f'{row} select[data-field="colour"]', "orange")
    page.select_option('#cg-groups tr[data-group="p6"] select[data-field="colour"]', "red")
    page.fill(f'{row} input[data-field="name_en"]', "Zhili")
    page.fill(f'{row} input[data-field="name_zh"]', "直隶")
    # the border p1d1-p1d2 shows another transport symbol
    a, b, symbol = MING_SYMBOL
    page.select_option(f'#cg-links li[data-link="{a}|{b}"] select', symbol)
    # district p2d2 and its cloister are taken off the photo and placed again: the district as a rectangle
    # drawn by taps (three corners, then the first again to close it), the cloister 5 mm further right
    at = {s["id"]: s for s in shipped["spaces"]}
    x0, y0, x1, y1 = (f(p[i] for p in at["p2d2"]["points_mm"]) for f, i in ((min, 0), (min, 1), (max, 0), (max, 1)))
    cx, cy = at["p2d2-cloister"]["centre_mm"]
    photo = Tapper(page, meta["size_mm"])
    page.locator(".tool[data-tool='delete']").dispatch_event("click")
    photo.tap(cx, cy)  # the cloister lies on top of its district
    photo.tap((x0 + x1) / 2, y1 - 15)
    for key in ("p2d2", "p2d2-cloister"):
        assert "unplaced" in page.locator(f'#cg-items button[data-key="{key}"]').get_attribute("class")
    corners = [(x0 + 2, y0 + 2), (x1 - 2, y0 + 2), (x1 - 2, y1 - 2), (x0 + 2, y1 - 2)]
    page.click('#cg-items button[data-key="p2d2"]')
    page.locator(".tool[data-tool='area']").dispatch_event("click")
    for x, y in corners + [corners[0]]:
        photo.tap(x, y)
    page.wait_for_selector('g.cg-item[data-key="p2d2"] polygon')
    page.locator(".tool[data-tool='place']").dispatch_event("click")
    page.click('#cg-items button[data-key="p2d2-cloister"]')
    photo.tap(cx + 5, cy)
    assert page.locator("#cg-items button.unplaced").count() == 0
    check_on_server(page)
    screenshot(page, "capture-ming-before-save")
    page.click("#save")
    page.wait_for_function("() => document.querySelector('#save-result').dataset.saved === 'kitchen-ming'", timeout=5000)
    doc = json.loads((data_dir / "boards" / "kitchen-ming.json").read_text())
    kind = kind_of(doc)
    board = kind.from_json(doc, "kitchen-ming")  # Ming's own validator (tableref boards validate)
    assert kind.game == "ming" and board.provisional is False
    p1 = doc["provinces"][0]
    assert p1["colour"] == "orange" and doc["provinces"][5]["colour"] == "red"
    assert p1["name"] == {"en": "Zhili", "zh": "直隶"} and doc["name"]["zh"] == "我们的大明版图"
    assert {"a": a, "b": b, "symbol": symbol} in doc["borders"] and len(doc["borders"]) == 32
    ldoc = json.loads((data_dir / "layouts" / "kitchen-ming.json").read_text())
    layout = layout_from_json(ldoc)  # the layout validator
    assert set(layout.space_ids) == set(at) and layout.marker_size >= 50
    assert ldoc["pieces"]["prince"]["per_owner"] == 1 and ldoc["holds"] == shipped["holds"]  # one prince a player
    drawn = ldoc["spaces"][[s["id"] for s in ldoc["spaces"]].index("p2d2")]["points_mm"]
    assert len(drawn) == 4 and all(abs(p[0] - q[0]) < 1.5 and abs(p[1] - q[1]) < 1.5 for p, q in zip(drawn, corners))
    assert abs(layout.space("p2d2-cloister").centre[0] - (cx + 5)) < 1.5
    # a game on the captured board, from the New game form's board list; a prince placed in the redrawn district
    page.goto(live_server.url + "new")
    page.wait_for_selector("#game option[value='ming']", state="attached")
    page.select_option("#game", "ming")
    page.wait_for_selector("#board option[value='kitchen-ming']", state="attached")
    page.select_option("#board", "kitchen-ming")
    res = page.evaluate("""async () => (await TR.api('POST', '/api/game/new',
        {game: 'ming', players: ['yellow', 'green', 'blue'], board: document.querySelector('#board').value, seed: 2})).status""")
    assert res == 200
    assert svc.snapshot()["game"] == "ming" and Path(svc.snapshot()["board_id"]).stem == "kitchen-ming"
    assert svc.state.board.provinces[0].colour == "orange"  # the engine plays on the captured data file
    for move in ({"type": "place_prince", "player": "yellow", "district": "p2d2"},
                 {"type": "place_prince", "player": "green", "district": "p1d1"},
                 {"type": "place_prince", "player": "blue", "district": "p4d3"},
                 {"type": "place_family", "player": "yellow", "province": "p1"}):
        assert svc.play(move).ok, move
    page.goto(live_server.url + "board")
    page.wait_for_selector('.mark-last[data-space="province-space-p1"]', timeout=10_000)
    assert page.locator("#board-title").text_content() == "Our Ming board"
    assert page.locator("#badge-provisional").is_hidden() and page.locator("#badge-layout-provisional").is_hidden()
    assert page.locator('g.kit-space[data-space="p2d2"] polygon').get_attribute("points").count(",") == 4
    assert page.locator('[data-pieces="p2d2"] .kchip[data-kind="prince"]').count() == 1
    labels = page.locator(".k-line-label").all_text_contents()
    assert labels.count("junk") == sum(1 for b_ in doc["borders"] if b_["symbol"] == "junk")  # the changed symbol drawn
    screenshot(page, "capture-ming-board")


def test_ming_capture_with_a_space_missing_names_it_and_writes_nothing(live_server, browser_page, data_dir):
    page, svc = browser_page, live_server.service
    assert svc.new_game({"game": "ming", "players": ["yellow", "green"], "seed": 2}, actor="test").ok
    page.expected_errors = ("status of 400",)  # the refused save
    meta = open_capture(page, live_server, "ming", "province-space-p5")
    page.fill("#cg-id", "kitchen-ming")
    x, y = centre_of(next(s for s in shipped_layout("ming-provisional")["spaces"] if s["id"] == "province-space-p5"))
    page.locator(".tool[data-tool='delete']").dispatch_event("click")
    Tapper(page, meta["size_mm"]).tap(x, y)
    page.click("#save")
    page.wait_for_selector("#problems .problem.server", timeout=5000)
    assert "province-space-p5" in " ".join(page.locator("#problems .problem.server").all_text_contents())
    assert page.locator("#save-result").get_attribute("data-saved") is None
    assert not (data_dir / "boards").exists() and not (data_dir / "layouts").exists()


def test_ming_board_page_draws_a_captured_provinces_colour_and_name(live_server, browser_page, data_dir):
    """A captured board whose province p1 is orange and named Zhili (built as the capture page sends it):
    the Board page tints p1 orange and writes its name, as it does for the shipped board."""
    from scorer.games.ming.boardkit import PROVINCE_HEX
    from test_web_board_kits import shipped_capture

    lib = BoardLibrary(data_dir.resolve())
    capture = shipped_capture(lib, "ming", "kitchen-ming")
    capture["groups"]["p1"].update(colour="orange", name_en="Zhili", name_zh="直隶")
    capture["groups"]["p6"]["colour"] = "red"
    lib.save_capture(*lib.build_capture("ming", capture), game="ming")
    svc = live_server.service
    assert svc.new_game({"game": "ming", "players": ["yellow", "green"], "seed": 2,
                         "board": lib.setup_ref("kitchen-ming", "ming")}, actor="test").ok
    page = browser_page
    page.goto(live_server.url + "board")
    page.wait_for_selector('g.kit-space[data-space="p1d1"]', timeout=10_000)
    assert page.locator("#board-title").text_content() == "Our board"  # the captured board is the one drawn
    labels = page.locator(".region-label").all_text_contents()
    region = page.locator('polygon.k-region[data-region="province-p1"]')
    assert region.count() == 1 and region.get_attribute("fill") == PROVINCE_HEX["orange"] and "Zhili" in labels, labels
