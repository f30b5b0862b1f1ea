"""Traditional Chinese in a real Chromium (issue 18): a tablet set to zh-TW reads the scoreboard, a flag
with its rule and fix, the board page and the new-game form in 繁體中文. Screenshots in
test-artifacts/web/ (``*-zh-hant.png``)."""

from __future__ import annotations

import re

import pytest

from scorer.core import i18n
from web_testkit import screenshot

pytestmark = pytest.mark.browser

SIMPLIFIED_ONLY = re.compile(r"[这个们为游戏规则请记板图开结]")  # common characters that differ in Traditional


def open_live(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)


@pytest.mark.parametrize("page_locale", ["zh-TW"])
def test_a_taiwanese_tablet_reads_traditional_chinese(live_server, browser_page):
    page, svc = browser_page, live_server.service
    open_live(page, live_server.url)
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    nav = page.locator('nav a[data-nav="scoreboard"]').text_content()
    assert nav == i18n.catalogue("web", "zh-Hant")["nav.scoreboard"] and nav != i18n.catalogue("web", "zh-Hans")["nav.scoreboard"]
    page.wait_for_selector("article.player")
    breakdown = page.locator("article[data-player='blue'] .breakdown").text_content()
    assert "各國" in breakdown, breakdown
    screenshot(page, "scoreboard-zh-hant")

    svc.play({"type": "place", "player": "red", "pieces": [{"kind": "house", "space": "wei-3"}]})  # out of turn
    page.wait_for_function("() => !document.querySelector('#flag').hidden", timeout=3000)
    banner = page.locator("#flag").text_content()
    assert "現在輪到" in banner or "輪到" in banner, banner
    assert not SIMPLIFIED_ONLY.search(banner), f"Simplified characters in a Traditional flag: {banner}"
    screenshot(page, "flag-zh-hant")

    page.goto(live_server.url + "board")
    page.wait_for_selector('.mark-flag[data-space="wei-3"]')
    assert page.locator('nav a[data-nav="board"]').text_content() == i18n.catalogue("web", "zh-Hant")["nav.board"]
    legend = page.locator("main").text_content()
    assert not SIMPLIFIED_ONLY.search(legend.replace("wei", "")), legend[:300]
    screenshot(page, "board-zh-hant")
    svc.take_back()

    page.goto(live_server.url + "new")
    page.wait_for_selector("#seats select")
    form = page.locator("main").text_content()
    assert i18n.catalogue("web", "zh-Hant")["nav.new"] in form
    assert not SIMPLIFIED_ONLY.search(form), form[:300]
    screenshot(page, "new-game-zh-hant")


@pytest.mark.parametrize("page_locale", ["en-GB"])
def test_the_switcher_offers_every_language(live_server, browser_page):
    page = browser_page
    open_live(page, live_server.url)
    choices = page.locator("[data-lang-choice]")
    assert sorted(choices.nth(i).get_attribute("data-lang-choice") for i in range(choices.count())) == ["zh-Hans", "zh-Hant"]
    page.click('[data-lang-choice="zh-Hant"]')
    page.wait_for_selector('html[lang="zh-Hant"]')
    page.reload()
    assert page.locator("html").get_attribute("lang") == "zh-Hant"  # remembered
    assert page.locator('[data-lang-choice="en"]').count() == 1
