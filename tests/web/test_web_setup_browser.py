"""The first-run wizard end to end in a real headless Chromium.

The English run is the appliance as shipped: the real runtime of ``tableref demo`` (emulated sensor
board on a pseudo-terminal read by the real bridge, the synthetic camera read by the vision
pipeline) with the dashboard on a fresh data folder, so the first visitor is sent to the wizard.
It sets the PIN, is reloaded and resumes, chooses the game, sees the camera's four corner markers,
then one covered by a hand named as missing, opens the marker sheet, leaves for the camera
enrolment page and comes back to the same step, places tags on the emulated sensor board and sees
their spaces light up, and starts the game. The Chinese run does the same steps on the dashboard's
fake table (its reader announces a tag with its space) and skips the wizard.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from scorer.core import Piece
from web_testkit import FAST_HASH, PIN, SETUP, screenshot, wait_for

pytestmark = pytest.mark.browser

UNKNOWN_TAG = "04C0FFEE000102"  # a 7-byte NFC uid nobody enrolled


@pytest.fixture
def appliance(tmp_path: Path) -> Iterator[Any]:
    pytest.importorskip("hardware.camera")
    from tableref.demo import build_demo, wait_until
    from tableref.dashboard import start_dashboard

    demo = build_demo(tmp_path / "table", camera=True, camera_fps=4.0)
    demo.runtime.start()
    try:
        assert wait_until(lambda: demo.runtime.devices()["sensor_board"]["state"] == "connected", 20)
        assert wait_until(lambda: demo.runtime.devices()["camera"]["state"] == "ok", 40)
        dashboard, note = start_dashboard(demo.runtime, host="127.0.0.1", port=0, data_dir=str(tmp_path / "dash"))
        assert dashboard is not None, note
        demo.url = dashboard.url  # type: ignore[attr-defined]
        demo.dash_dir = tmp_path / "dash"  # type: ignore[attr-defined]
        try:
            yield demo
        finally:
            dashboard.stop()
    finally:
        demo.close()


def progress(page, step: str, timeout: float = 10_000) -> str:
    page.wait_for_selector(f'#wz-progress[data-step="{step}"]', timeout=timeout)
    return page.locator("#wz-progress").text_content()


def test_first_run_wizard_on_the_real_runtime(appliance, browser_page) -> None:
    page, demo = browser_page, appliance
    rt, base = demo.runtime, demo.url
    page.set_viewport_size({"width": 768, "height": 1024})  # the tablet, portrait
    # a fresh table: the front page opens the wizard
    page.goto(base)
    page.wait_for_url(base + "setup", timeout=5000)
    assert progress(page, "pin") == "Step 1 of 7: Admin PIN"
    assert page.locator("#wz-pin-form").is_visible() and page.locator("#wz-next").is_hidden()
    screenshot(page, "setup-1-pin")
    page.fill("#wz-pin1", PIN)
    page.fill("#wz-pin2", PIN)
    page.click("#wz-pin-save")
    assert progress(page, "game") == "Step 2 of 7: Game and players"
    # the state is the server's: a reload resumes at the same step, still logged in
    page.reload()
    assert progress(page, "game").startswith("Step 2 of 7")
    assert page.locator('#wz-steps li[data-step="pin"]').get_attribute("class") == "done"
    page.wait_for_selector("#new-form #game option[value='china']", state="attached")
    page.select_option("#game", "china")
    page.select_option('.seat[data-seat="3"]', "red")
    page.wait_for_selector("#board option[value='china-a']", state="attached")
    screenshot(page, "setup-2-game")
    page.click("#new-form #start")
    assert progress(page, "camera") == "Step 3 of 7: Camera"
    assert rt.snapshot()["moves"] == 0 and rt.snapshot()["players"] == list(SETUP["players"])  # nothing started yet

    # the camera: live picture, all four corner markers found ...
    page.wait_for_function("() => document.querySelectorAll('#wz-corners .marker.ok').length === 4", timeout=10_000)
    page.wait_for_function("() => document.querySelector('#wz-camera-img').naturalWidth > 0", timeout=10_000)
    assert page.locator("#wz-camera-verdict").get_attribute("data-ok") == "true"
    assert "All four corner markers found" in page.locator("#wz-camera-verdict").text_content()
    # ... then a hand over the top-left corner: that marker is named as missing
    marker0 = demo.table.camera.layout.markers[0]
    demo.table.camera.hand_over(target=tuple(marker0.centre), from_deg=180.0)
    page.wait_for_selector(f'#wz-camera-verdict[data-missing="{marker0.id}"]', timeout=10_000)
    verdict = page.locator("#wz-camera-verdict").text_content()
    assert verdict.startswith(f"Missing: top left (marker {marker0.id}).")
    assert page.locator(f'#wz-corners .marker.missing[data-marker="{marker0.id}"]').count() == 1
    assert page.locator("#wz-corners .marker.ok").count() == 3
    screenshot(page, "setup-3-camera-marker-missing")
    demo.table.camera.withdraw_hand()
    page.wait_for_selector('#wz-camera-verdict[data-ok="true"]', timeout=10_000)
    screenshot(page, "setup-3-camera-ok")
    page.click("#wz-next")

    # the marker sheet: a preview and the PDF to print
    assert progress(page, "markers").startswith("Step 4 of 7")
    page.wait_for_function("() => document.querySelector('#wz-sheet-img').naturalWidth > 0", timeout=10_000)
    pdf = page.request.get(base.rstrip("/") + page.locator("#wz-sheet-pdf").get_attribute("href"))
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf" and pdf.body().startswith(b"%PDF")
    assert "--board china-a" in page.locator("#wz-sheet-cli").text_content()
    screenshot(page, "setup-4-markers")
    page.click("#wz-next")

    # enrolment is its own page; the wizard resumes at the same step afterwards
    assert progress(page, "enrol").startswith("Step 5 of 7")
    page.wait_for_selector('#wz-enrol-model[data-enrolled="false"]', timeout=5000)
    assert "not enrolled" in page.locator("#wz-enrol-model").text_content()
    page.click("#wz-enrol-link")
    page.wait_for_url(base + "enrol/camera")
    page.wait_for_selector('#ce-progress[data-step="1"]', timeout=10_000)
    page.goto(base)  # the front page sends the way back to the setup under way
    page.wait_for_url(base + "setup")
    assert progress(page, "enrol").startswith("Step 5 of 7")
    page.click("#wz-next")

    # the sensor board: a tag placed on an antenna lights its space up
    assert progress(page, "sensors").startswith("Step 6 of 7")
    page.wait_for_selector('#wz-sensor-state[data-state="connected"]', timeout=5000)
    page.wait_for_selector("#wz-sensor-board .space[data-space='wei-2']", timeout=5000)
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)
    assert page.locator("#wz-lit").text_content() == "Waiting for a tag…"
    table = demo.table
    table.emulator.place(table.antenna_of["wei-2"], UNKNOWN_TAG)
    page.wait_for_selector('#wz-lit[data-lit="wei-2"]', timeout=5000)
    assert f"tag {UNKNOWN_TAG}" in page.locator("#wz-lit").text_content()
    assert page.locator('#wz-sensor-board .mark-lit[data-space="wei-2"]').count() == 1
    screenshot(page, "setup-6-sensors-lit")
    table.emulator.remove(table.antenna_of["wei-2"], UNKNOWN_TAG)
    page.wait_for_selector('#wz-lit[data-lit=""]', timeout=5000)
    assert page.locator("#wz-sensor-board .mark-lit").count() == 0
    # a piece: the space lights up with what the referee now believes is there
    table.put("lu-1", Piece("blue", "house"))
    page.wait_for_selector('#wz-lit[data-lit="lu-1"]', timeout=5000)
    assert "Blue" in page.locator("#wz-lit").text_content()
    table.take("lu-1", Piece("blue", "house"))
    page.wait_for_selector('#wz-lit[data-lit=""]', timeout=8000)
    assert page.locator("#wz-seen").get_attribute("data-seen") == "lu-1 wei-2"
    page.click("#wz-next")

    # start: the summary of what was chosen and checked, then the game
    assert progress(page, "start") == "Step 7 of 7: Start"
    summary = page.locator("#wz-summary")
    page.wait_for_selector('#wz-summary dd[data-step="sensors"]')
    assert summary.locator('dd[data-step="camera"]').text_content() == "all four corner markers found"
    assert summary.locator('dd[data-step="sensors"]').text_content() == "lit up: lu-1, wei-2"
    assert "Blue, Green, Red" in summary.text_content()
    screenshot(page, "setup-7-start")
    game_no = rt.snapshot()["game_no"]
    page.click("#wz-start-game")
    page.wait_for_url(base, timeout=10_000)
    page.wait_for_selector("article.player")
    wait_for(lambda: rt.snapshot()["game_no"] == game_no + 1, 5, "the new game")
    snap = rt.snapshot()
    assert snap["players"] == ["blue", "green", "red"] and snap["moves"] == 0 and snap["board_id"] == "china-a"
    saved = json.loads((demo.dash_dir / "web" / "setup.json").read_text())
    assert saved["status"] == "done"
    page.reload()
    page.wait_for_selector("article.player")
    assert page.url == base  # the wizard does not come back


@pytest.fixture
def fresh_server(data_dir: Path, service) -> Iterator[Any]:
    """The dashboard on the fake table with no PIN yet (a first run)."""
    from web.app import create_app
    from web.server import make_server

    app = create_app(service, data_dir=data_dir, config={"PIN_HASH_METHOD": FAST_HASH, "SSE_KEEPALIVE": 0.5})
    server = make_server(app, "127.0.0.1", 0, threads=16).start()
    assert server.wait_ready(10)
    server.service = service  # type: ignore[attr-defined]
    yield server
    server.stop()


@pytest.mark.parametrize("page_locale", ["zh-CN"])
def test_the_wizard_speaks_chinese_and_can_be_skipped(fresh_server, browser_page, data_dir: Path) -> None:
    page, base, svc = browser_page, fresh_server.url, fresh_server.service
    page.goto(base)
    page.wait_for_url(base + "setup", timeout=5000)
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert progress(page, "pin") == "第 1 步，共 7 步：管理员 PIN"
    assert page.locator("#wz-skip-all").text_content() == "跳过设置"
    page.fill("#wz-pin1", PIN)
    page.fill("#wz-pin2", PIN)
    page.click("#wz-pin-save")
    assert progress(page, "game") == "第 2 步，共 7 步：游戏和玩家"
    page.wait_for_selector("#new-form #game option[value='china']", state="attached")
    page.click("#new-form #start")
    assert progress(page, "camera").startswith("第 3 步")
    page.wait_for_selector('#wz-camera-verdict[data-ok="true"]', timeout=10_000)
    assert page.locator("#wz-camera-verdict").text_content() == "四个角标都已找到：摄像头能看到版图。"
    assert "左上（角标 0）" in page.locator("#wz-corners").text_content()
    page.click("#wz-skip-step")
    assert progress(page, "markers").startswith("第 4 步")
    assert page.locator("#wz-sheet-pdf").text_content() == "打开打印页（PDF）"
    page.click("#wz-skip-step")
    page.click("#wz-skip-step")  # enrol
    assert progress(page, "sensors") == "第 6 步，共 7 步：传感板"
    page.wait_for_selector('#live[data-state="live"]', timeout=10_000)
    svc.present_tag("04A1B2C3D4E5F6", space="wei-1")  # the fake table's reader announces a tag and its space
    page.wait_for_selector('#wz-lit[data-lit="wei-1"]', timeout=5000)
    assert page.locator("#wz-lit").text_content().startswith("亮起：")
    screenshot(page, "setup-6-sensors-zh")
    # the progress list shows the skipped steps as skipped, the done ones as done
    assert "skipped" in page.locator('#wz-steps li[data-step="markers"]').get_attribute("class")
    assert "done" in page.locator('#wz-steps li[data-step="game"]').get_attribute("class")
    page.click("#wz-skip-all")  # the confirmation is accepted by the fixture
    page.wait_for_url(base, timeout=5000)
    page.wait_for_selector("article.player")
    assert json.loads((data_dir / "web" / "setup.json").read_text())["status"] == "skipped"
    page.goto(base + "setup")
    page.wait_for_selector("#wz-restart")
    assert page.locator("#wz-finished").text_content().startswith("已跳过设置。")
    assert svc.snapshot()["moves"] == 0
