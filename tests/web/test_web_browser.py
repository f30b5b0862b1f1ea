"""The pages in a real headless Chromium (Debian's /usr/bin/chromium through Playwright) against
the dashboard served by waitress. Screenshots go to test-artifacts/web/ for a person to look at.

These fail (not skip) in CI when Chromium is missing: see conftest.chromium.
"""

from __future__ import annotations

import json
import time

import pytest

from scorer.games.china.board import board_from_json
from web_testkit import PIN, screenshot, wait_for

pytestmark = pytest.mark.browser


def place(player: str, space: str, kind: str = "house") -> dict:
    return {"type": "place", "player": player, "pieces": [{"kind": kind, "space": space}]}


def open_live(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)


def login(page, base: str, pin: str = PIN) -> None:
    page.goto(base + "login?next=/")
    page.fill("#pin", pin)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(base, timeout=5000)
    assert page.locator("#logout").is_visible()


def within(page, js: str, arg=None, seconds: float = 1.0) -> float:
    """Wait for a condition in the page; return how long it took (fails after ``seconds``)."""
    t0 = time.monotonic()
    page.wait_for_function(js, arg=arg, timeout=seconds * 1000, polling="raf")
    return time.monotonic() - t0


def test_scoreboard_changes_within_a_second_of_a_move(live_server, browser_page):
    page, svc = browser_page, live_server.service
    open_live(page, live_server.url)
    page.wait_for_selector('article.player.active[data-player="blue"]')
    screenshot(page, "scoreboard-start")
    for pl, sp in (("blue", "lu-1"), ("green", "lu-2")):
        t0 = time.monotonic()
        assert svc.play(place(pl, sp)).ok
        nxt = {"blue": "green", "green": "red"}[pl]
        within(page, "p => document.querySelector(`article.player.active[data-player='${p}']`) !== null", nxt,
               seconds=1.0 - (time.monotonic() - t0))
        assert time.monotonic() - t0 < 1.0
    assert svc.play(place("red", "lu-3")).ok
    page.wait_for_selector('article.player.active[data-player="blue"]')
    # blue's house fills Lu: the province scores (blue 4, green 2, red 2)
    t0 = time.monotonic()
    assert svc.play(place("blue", "lu-4")).ok
    within(page, "() => document.querySelector(\"article[data-player='blue'] .total\").textContent === '4'",
           seconds=1.0 - (time.monotonic() - t0))
    elapsed = time.monotonic() - t0
    assert elapsed < 1.0, f"scoreboard took {elapsed:.3f} s"
    assert page.locator("article[data-player='green'] .total").text_content() == "2"
    assert page.locator("article[data-player='blue'] dd[data-category='provinces']").text_content() == "4"
    assert "lu-4" in page.locator("#lastmove").text_content()
    screenshot(page, "scoreboard-after-scoring")
    # the pile runs out (declared), the round is played out: game over, with the winner and why
    assert svc.play({"type": "pile_exhausted"}).ok
    page.wait_for_selector(".badge.warn >> text=last round")
    for pl in ("green", "red"):
        assert svc.play({"type": "exchange", "player": pl}).ok
    within(page, "() => !document.querySelector('#gameover').hidden", seconds=1.0)
    over = page.locator("#gameover")
    assert "Game over" in over.text_content() and "Most points." in over.text_content()
    assert over.locator('.player-chip[data-colour="blue"]').count() == 1
    assert "null" not in over.text_content() and page.locator("#turn").is_hidden()
    assert page.locator('article.player.winner[data-player="blue"]').count() == 1
    screenshot(page, "scoreboard-game-over")


def test_flag_banner_appears_and_clears(live_server, browser_page):
    page, svc = browser_page, live_server.service
    open_live(page, live_server.url)
    assert page.locator("#flag").is_hidden()
    t0 = time.monotonic()
    svc.play(place("red", "wei-3"))  # red plays out of turn
    within(page, "() => !document.querySelector('#flag').hidden", seconds=1.0)
    banner = page.locator("#flag")
    assert "It is blue's turn, not red's." in banner.text_content()
    assert "take back what you placed" in banner.locator(".flag-fix").text_content()
    assert page.locator('#flag .flag-item[data-rule="turn.not_your_turn"]').count() == 1
    assert time.monotonic() - t0 < 1.5
    screenshot(page, "scoreboard-flag")
    page.goto(live_server.url + "board")
    page.wait_for_selector('.mark-flag[data-space="wei-3"]')
    assert page.locator(".ghost-added").count() == 1
    screenshot(page, "board-flag")
    page.goto(live_server.url)
    page.wait_for_selector('#live[data-state="live"]')
    assert not page.locator("#flag").is_hidden()
    svc.take_back()
    within(page, "() => document.querySelector('#flag').hidden", seconds=1.0)
    screenshot(page, "scoreboard-flag-cleared")


def test_an_action_without_the_pin_is_refused(live_server, browser_page):
    page, svc = browser_page, live_server.service
    page.expected_errors = ("401 (UNAUTHORIZED)", "400 (BAD REQUEST)")  # the refusals this test provokes
    svc.play(place("blue", "wei-1"))
    open_live(page, live_server.url + "history")
    page.wait_for_selector('li.event[data-type="move_accepted"]')
    page.click("#undo")
    page.wait_for_selector("#pin-dialog[open]")
    screenshot(page, "history-pin-dialog")
    page.click("#pin-cancel")
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert "admin PIN" in toast.text_content()
    assert svc.undo_requests == 0 and svc.snapshot()["moves"] == 1
    # the API refuses too, whatever the page does
    status = page.evaluate("""async () => (await fetch('/api/undo', {method: 'POST',
        headers: {'X-CSRF-Token': TR.csrf, 'Content-Type': 'application/json'}, body: '{}'})).status""")
    assert status == 401
    # a wrong PIN is refused; the right one unlocks and the undo goes through
    page.click("#undo")
    page.fill("#pin-input", "0000")
    page.click("#pin-ok")
    page.wait_for_function("() => document.querySelector('#pin-error').textContent.includes('Wrong PIN')")
    screenshot(page, "history-wrong-pin")
    assert svc.snapshot()["moves"] == 1
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    wait_for(lambda: svc.snapshot()["moves"] == 0, timeout=5, what="undo after the PIN")
    page.wait_for_selector('li.event[data-type="undo"]')
    page.wait_for_selector('li.event.undone[data-type="move_accepted"]')
    screenshot(page, "history-after-undo")


def test_board_view_draws_the_board_and_the_last_move(live_server, browser_page):
    page, svc = browser_page, live_server.service
    svc.play(place("blue", "wei-1"))
    svc.play({"type": "place", "player": "green", "pieces": [{"kind": "emissary", "space": "wei-dragon"}]})
    open_live(page, live_server.url + "board")
    page.wait_for_selector('.mark-last[data-space="wei-dragon"]')
    geo = json.loads(page.evaluate("async () => JSON.stringify((await (await fetch('/api/board')).json()).geometry)"))
    assert page.locator("g.space").count() == len(geo["spaces"])
    assert page.locator("line.road").count() == len(geo["roads"])
    assert page.locator("g.alliance").count() == 15
    assert page.locator('[data-pieces="wei-1"] rect.piece.house[data-colour="blue"]').count() == 1
    assert page.locator('[data-pieces="wei-dragon"] circle.piece.emissary[data-colour="green"]').count() == 1
    assert page.locator("#badge-provisional").is_visible()
    assert page.locator("#badge-schematic").is_visible() == (geo["source"] == "schematic")
    screenshot(page, "board")
    t0 = time.monotonic()
    svc.play(place("red", "qin-1"))
    within(page, "() => document.querySelector('.mark-last[data-space=\"qin-1\"]') !== null", seconds=1.0)
    assert time.monotonic() - t0 < 1.0


def test_a_tablet_that_lost_its_connection_gets_every_missed_change(live_server, browser_page):
    page, svc = browser_page, live_server.service
    ctx = live_server.app.extensions["tableref"]
    open_live(page, live_server.url + "history")
    page.route("**/api/stream**", lambda route: route.abort("internetdisconnected"))
    ctx.disconnect_streams()
    page.wait_for_function("() => document.querySelector('#live').dataset.state !== 'live'", timeout=5000)
    wait_for(lambda: ctx.streams == 0, what="stream closed")
    missed = [place("blue", "wei-1"), place("green", "wei-2"), place("red", "qin-1"), place("blue", "qin-2")]
    for m in missed:
        assert svc.play(m).ok
    screenshot(page, "history-offline")
    assert page.locator('li.event[data-type="move_accepted"]').count() == 0
    page.unroute("**/api/stream**")
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)
    page.wait_for_function("() => document.querySelectorAll('li.event[data-type=\"move_accepted\"]').length === 4", timeout=5000)
    texts = page.locator('li.event[data-type="move_accepted"] .event-text').all_text_contents()
    assert texts == ["blue: house on qin-2", "red: house on qin-1", "green: house on wei-2", "blue: house on wei-1"]
    ids = page.locator("li.event").evaluate_all("els => els.map(e => e.dataset.id)")
    assert len(ids) == len(set(ids)), "no event shown twice"
    screenshot(page, "history-replayed")


@pytest.mark.parametrize("page_locale", ["zh-CN"])
def test_language_follows_the_browser_and_switches(live_server, browser_page):
    page = browser_page
    open_live(page, live_server.url)
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert page.locator('nav a[data-nav="scoreboard"]').text_content() == "记分板"
    page.wait_for_selector("article.player")
    assert "各国" in page.locator("article[data-player='blue'] .breakdown").text_content()
    assert page.locator("#turn").text_content().startswith("轮到")
    screenshot(page, "scoreboard-zh")
    page.click("#lang-switch")
    page.wait_for_selector('html[lang="en"]')
    page.wait_for_selector("article.player")
    assert page.locator('nav a[data-nav="scoreboard"]').text_content() == "Scoreboard"
    assert "Provinces" in page.locator("article[data-player='blue'] .breakdown").text_content()
    page.reload()
    assert page.locator('nav a[data-nav="board"]').text_content() == "Board"  # remembered
    page.goto(live_server.url + "board")
    page.click("#lang-switch")
    page.wait_for_url("**/board")
    assert page.locator('nav a[data-nav="board"]').text_content() == "版图"
    page.wait_for_selector("g.space")
    screenshot(page, "board-zh")


class PhotoTapper:
    """Taps the capture photo at points given in board mm, as a finger would (raw mouse clicks).
    Where the photo is on screen is read before every tap: the page may have scrolled, and the
    sticky top bar must not be under the finger."""

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


def test_board_capture_saves_a_valid_board_and_a_game_runs_on_it(live_server, browser_page, data_dir):
    page, svc = browser_page, live_server.service
    page.set_viewport_size({"width": 1280, "height": 1000})  # tools and photo in view together
    login(page, live_server.url)
    page.goto(live_server.url + "capture")
    page.wait_for_selector("#provinces tr[data-province='8']")
    page.wait_for_selector("#capture-svg image[href^=\"blob:\"]")
    meta = page.evaluate("async () => (await fetch('/api/capture/snapshot')).json()")
    geo = page.evaluate("async () => (await (await fetch('/api/board?id=china-a')).json()).geometry")
    assert meta["available"] and meta["size_mm"] == geo["size"]
    provinces = page.locator("#provinces tr").evaluate_all("rows => rows.map(r => r.querySelector('.p-id').value)")
    at = {s["id"]: s for s in geo["spaces"]}
    page.fill("#board-id", "kitchen-table")
    page.fill("#board-name-en", "Our China board, side A")
    page.fill("#board-name-zh", "我们的中国版图 A 面")
    page.fill("#provinces tr[data-province='0'] .p-zh", "楚国")  # typed names are kept
    photo = PhotoTapper(page, meta["size_mm"])
    for i, pid in enumerate(provinces):
        page.click(f"#provinces tr[data-province='{i}'] input[type=radio]")
        page.locator(".tool[data-tool='site']").dispatch_event("click")  # no scrolling
        sites = [at[f"{pid}-{k}"] for k in range(1, 5)]  # the first four house sites, where the photo shows them
        for s in sites:
            photo.tap(s["x"], s["y"])
        page.locator(".tool[data-tool='dragon']").dispatch_event("click")  # no scrolling
        photo.tap(at[f"{pid}-dragon"]["x"], at[f"{pid}-dragon"]["y"])
        page.locator(".tool[data-tool='road']").dispatch_event("click")  # no scrolling
        for s in sites:  # 1-2, 2-3, 3-4: the road tool chains from the last site tapped
            photo.tap(s["x"], s["y"])
    assert page.locator("g.c-space").count() == 9 * 5
    roads = page.locator("line.c-road").evaluate_all("ls => ls.map(l => l.dataset.road)")
    assert len(roads) == 9 * 3, " ".join(roads)
    page.click("#check")
    page.wait_for_function("() => document.querySelector('#problems .ok-text') !== null", timeout=5000)
    screenshot(page, "capture-before-save")
    page.click("#save")
    page.wait_for_function("() => document.querySelector('#save-result').dataset.saved === 'kitchen-table'", timeout=5000)
    path = data_dir / "boards" / "kitchen-table.json"
    doc = json.loads(path.read_text())
    board = board_from_json(doc)  # the rules validator accepts it
    assert board.id == "kitchen-table" and board.provisional is False
    assert [len(p.sites) for p in board.provinces] == [4] * 9
    assert doc["provinces"][0]["name_zh"] == "楚国" and doc["name"]["zh"] == "我们的中国版图 A 面"
    layout = json.loads((data_dir / "layouts" / "kitchen-table.json").read_text())
    from vision.layout import layout_from_json

    assert {s.id for s in layout_from_json(layout).spaces} == {s for p in doc["provinces"] for s in p["sites"] + [p["dragon"]]}
    placed = {s["id"]: s["centre_mm"] for s in layout["spaces"]}
    assert abs(placed["qin-2"][0] - at["qin-2"]["x"]) < 2 and abs(placed["qin-2"][1] - at["qin-2"]["y"]) < 2
    # the board is now offered for a new game, and the board view draws it from the captured layout
    page.goto(live_server.url + "new")
    page.wait_for_selector("#board option[value='kitchen-table']", state="attached")
    page.select_option("#board", "kitchen-table")
    page.click("#start")
    page.wait_for_url(live_server.url, timeout=5000)
    assert svc.snapshot()["board_id"] == "kitchen-table"
    page.goto(live_server.url + "board")
    page.wait_for_selector("g.space")
    assert page.locator("g.space").count() == 45
    assert page.locator("#badge-provisional").is_hidden() and page.locator("#badge-schematic").is_hidden()
    screenshot(page, "board-captured")


def test_enrolling_a_presented_tag(live_server, browser_page):
    page, svc = browser_page, live_server.service
    login(page, live_server.url)
    page.goto(live_server.url + "enrol")
    page.wait_for_selector('#live[data-state="live"]')
    assert page.locator("#pending").is_hidden()
    svc.present_tag("04C0FFEE0001", space="wei-1")  # a piece nobody enrolled is put on the board
    page.wait_for_function("() => document.querySelector('#pending-uid').textContent === '04C0FFEE0001'", timeout=3000)
    assert page.locator("#uid").input_value() == "04C0FFEE0001"
    page.select_option("#owner", "violet")
    page.select_option("#kind", "emissary")
    page.click("#enrol-form button[type=submit]")
    page.wait_for_selector("#registry tr >> text=04C0FFEE0001")
    assert svc.registry() == {"04C0FFEE0001": {"owner": "violet", "kind": "emissary"}}
    assert "Violet Emissary" in page.locator("#registry").text_content()
    screenshot(page, "enrol-done")


def test_other_pages_render(live_server, browser_page):
    page, svc = browser_page, live_server.service
    svc.present_tag("04A1B2C3D4E5")
    for path, ready in (("devices", "#camera-img[src]"), ("enrol", "#pending-uid"), ("new", "#seats select"),
                        ("settings", "#table_name"), ("login", "#keypad .key")):
        page.goto(live_server.url + path)
        page.wait_for_selector(ready)
        if path == "devices":
            page.wait_for_function("() => document.querySelector('#camera-img').naturalWidth > 0")
            assert page.locator("#dev-sensor_board .state").text_content() == "connected"
        if path == "enrol":
            assert page.locator("#pending-uid").text_content() == "04A1B2C3D4E5"
        screenshot(page, f"page-{path}")


def test_zhang_yi_starts_from_the_form_once_the_sample_map_is_confirmed(live_server, browser_page):
    page, svc = browser_page, live_server.service
    page.expected_errors = ("400 (BAD REQUEST)",)  # the refusal this test provokes
    login(page, live_server.url)
    page.goto(live_server.url + "new")
    page.wait_for_selector("#game option[value='zhang_yi']", state="attached")
    page.select_option("#game", "zhang_yi")
    box = page.locator("#confirm-field input.confirm-item[value='sample_map_confirmed']")
    assert box.is_visible() and not box.is_checked()
    # its variants are named and explained (the per-game texts), not shown as ids
    tie = page.locator("label.check:has(input.variant[value='tie_attacker_wins'])")
    assert tie.locator("strong").text_content() == "Attacker wins a tie"
    assert "defender" in tie.locator("small").text_content()
    assert "hegemony_after_battle_only" not in page.locator("#variants").text_content()
    page.click("#start")
    page.wait_for_function("() => document.querySelector('#new-error').textContent.includes('sample_map_confirmed')")
    assert svc.snapshot()["game"] == "china"  # refused: nothing started
    box.check()
    screenshot(page, "new-game-zhang-yi")
    page.click("#start")
    page.wait_for_url(live_server.url, timeout=5000)
    snap = svc.snapshot()
    assert snap["game"] == "zhang_yi" and snap["setup"]["sample_map_confirmed"] is True
    # the scoreboard names its categories in the page's language
    first = snap["players"][0]
    breakdown = page.locator(f"article[data-player='{first}'] .breakdown")
    page.wait_for_selector(f"article[data-player='{first}'] .breakdown dt")
    assert "Backed state: power" in breakdown.text_content() and "backed_power" not in breakdown.text_content()
    page.click("#lang-switch")
    page.wait_for_selector('html[lang="zh-Hans"]')
    page.wait_for_selector(f"article[data-player='{first}'] .breakdown dt")
    assert "支持的诸侯：国力" in page.locator(f"article[data-player='{first}'] .breakdown").text_content()
    screenshot(page, "scoreboard-zhang-yi-zh")


def test_ming_two_players_choose_the_colour_of_their_neutral_pieces(live_server, browser_page):
    """The field shows only for two players, offers only the colours nobody plays, and the game
    starts with it in its set-up (the table then renames that colour to neutral)."""
    page, svc = browser_page, live_server.service
    login(page, live_server.url)
    page.goto(live_server.url + "new")
    page.wait_for_selector("#game option[value='ming']", state="attached")
    page.select_option("#game", "ming")
    page.wait_for_selector('.seat[data-seat="3"]')
    seats = page.locator(".seat")
    for i in range(seats.count()):
        seats.nth(i).select_option("")
    page.select_option('.seat[data-seat="1"]', "red")
    page.select_option('.seat[data-seat="2"]', "blue")
    assert page.locator("#neutral-field").is_visible()
    offered = page.locator("#neutral-colour option").evaluate_all("os => os.map(o => o.value)")
    assert offered == ["", "yellow", "green"]  # none, then the spare colours only
    page.select_option('.seat[data-seat="3"]', "yellow")
    assert page.locator("#neutral-field").is_hidden()  # three players: no neutral pieces
    page.select_option('.seat[data-seat="3"]', "")
    page.select_option("#neutral-colour", "green")
    screenshot(page, "new-game-ming-neutral")
    page.click("#start")
    page.wait_for_url(live_server.url, timeout=5000)
    snap = svc.snapshot()
    assert snap["game"] == "ming" and snap["setup"]["neutral_colour"] == "green" and snap["players"] == ["red", "blue"]
    assert snap["setup"]["cards"] == "declared"  # Ming's own card choices (the form used to send only China's)
