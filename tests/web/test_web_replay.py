"""The Board page's replay in a real headless Chromium, on a real runtime whose event store holds a
game with a flag and an undo: stepping through it shows the board, the scores and the flag as they
were, the address names the step (a shareable link), and the live page offers the replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from replay_rig import SETUP, play_game_with_a_flag_and_an_undo
from tableref.runtime import Runtime
from web_testkit import FAST_HASH, PIN, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def replay_server(tmp_path: Path) -> Iterator[Any]:
    from web.app import create_app
    from web.server import make_server

    store = tmp_path / "table.sqlite"
    play_game_with_a_flag_and_an_undo(store).close()
    rt = Runtime(store_path=str(store), game_id="china", setup=SETUP).start()  # resumes the stored game
    app = create_app(rt, data_dir=tmp_path / "web", initial_pin=PIN, config={"PIN_HASH_METHOD": FAST_HASH, "SSE_KEEPALIVE": 0.5})
    server = make_server(app, "127.0.0.1", 0, threads=12).start()
    assert server.wait_ready(10)
    yield server
    server.stop()
    rt.stop()


def pieces(page: Any) -> list[str]:
    return sorted(page.eval_on_selector_all("[data-pieces]", "els => els.map(e => e.dataset.pieces)"))


def test_stepping_through_a_stored_game(replay_server: Any, browser_page: Any) -> None:
    page, base = browser_page, replay_server.url
    page.goto(base + "board")
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)
    link = page.locator("#replay-open")
    link.wait_for(state="visible", timeout=5000)
    assert link.get_attribute("href") == "/board?replay=1"

    page.goto(base + "board?replay=1&step=2")  # a shared link: the flag step
    page.wait_for_function("() => document.body.dataset.replayStep === '2'", timeout=5000)
    page.wait_for_selector("[data-mark=flag][data-space='qi-2']", timeout=5000)
    assert pieces(page) == ["wei-1"]
    assert page.locator("#flag").is_visible() and "Qi" in page.inner_text("#flag-text")
    assert page.inner_text("#replay-pos") == "step 2 of 6"
    assert page.locator("#replay-scores li").count() == 3
    assert not page.locator("#live").is_visible()  # not live: a replay
    screenshot(page, "board-replay-flag")

    page.click("#replay-next")
    page.wait_for_function("() => document.body.dataset.replayStep === '3'", timeout=5000)
    assert page.locator("#flag").is_hidden() and page.locator("[data-mark=flag]").count() == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.body.dataset.replayStep === '4'", timeout=5000)
    page.wait_for_function("() => document.querySelectorAll('[data-pieces]').length === 2", timeout=5000)
    assert pieces(page) == ["qi-1", "wei-1"] and page.locator("[data-mark=last][data-space='qi-1']").count() == 1
    assert page.url.endswith("/board?replay=1&step=4")  # the address names the step shown

    page.click("#replay-next")
    page.wait_for_function("() => document.body.dataset.replayStep === '5'", timeout=5000)
    page.wait_for_function("() => document.querySelectorAll('[data-pieces]').length === 3", timeout=5000)
    assert "undone later" in page.inner_text("#replay-desc")
    page.click("#replay-last")
    page.wait_for_function("() => document.body.dataset.replayStep === '6'", timeout=5000)
    page.wait_for_function("() => document.querySelectorAll('[data-pieces]').length === 2", timeout=5000)
    page.click("#replay-first")
    page.wait_for_function("() => document.body.dataset.replayStep === '0'", timeout=5000)
    page.wait_for_function("() => document.querySelectorAll('[data-pieces]').length === 0", timeout=5000)
    assert page.inner_text("#replay-desc").endswith("New game: china")
