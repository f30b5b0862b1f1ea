"""The first-run wizard without a browser: its transitions, the state kept in the data folder (a
new app on the same folder resumes), who may act, the game chosen and started through the New
game checks, the camera check's corner report and the marker sheet (true size, detectable)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from web.setup_checks import camera_check, marker_sheet
from web.setup_state import STEPS, SetupStore, WizardRefused, WizardState, choose, complete, goto, is_due, skip

from web_testkit import PIN, ApiClient

CHOICES = {"game": "china", "players": ["blue", "red", "green"], "board": "china-a"}


# -- the transitions (pure) ------------------------------------------------------------------------

def test_the_steps_go_in_order_and_the_pin_and_game_cannot_be_skipped() -> None:
    s = WizardState()
    assert s.step == "pin" and s.index == 1 and len(STEPS) == 7
    with pytest.raises(WizardRefused):
        complete(s, "pin", pin_set=False, now=1.0)
    with pytest.raises(WizardRefused):
        goto(s, "camera", pin_set=False, now=1.0)
    s = complete(s, "pin", pin_set=True, now=2.0)
    assert (s.status, s.step, s.index, s.done) == ("active", "game", 2, ("pin",))
    with pytest.raises(WizardRefused):
        complete(s, "game", pin_set=True, now=3.0)  # nothing chosen
    with pytest.raises(WizardRefused):
        complete(s, "game", pin_set=True, now=3.0, skipped=True)
    with pytest.raises(WizardRefused):
        goto(s, "start", pin_set=True, now=3.0)
    s = choose(s, CHOICES, pin_set=True, now=3.0)
    assert s.step == "camera" and s.choices == CHOICES
    s = complete(s, "camera", pin_set=True, now=4.0, skipped=True)
    s = complete(s, "markers", pin_set=True, now=5.0, check={"board": "china-a"})
    assert s.step == "enrol" and s.checks == {"camera": {"skipped": True}, "markers": {"board": "china-a"}}
    s = goto(s, "game", pin_set=True, now=6.0)  # back: what was done stays done
    assert s.step == "game" and s.done == ("pin", "game", "camera", "markers")
    assert WizardState.from_json(json.loads(json.dumps(s.to_json()))) == s


def test_when_the_wizard_is_due() -> None:
    new, active = WizardState(), WizardState(status="active")
    assert is_due(new, pin_set=False, game_running=True)  # no PIN yet
    assert is_due(new, pin_set=True, game_running=False)  # no game yet
    assert not is_due(new, pin_set=True, game_running=True)  # configured table: not a first run
    assert is_due(active, pin_set=True, game_running=True)  # under way: resumed
    assert not is_due(skip(active, now=1.0), pin_set=False, game_running=False)


def test_the_store_keeps_the_state_and_survives_a_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "web" / "setup.json"
    store = SetupStore(path)
    store.update(lambda s: complete(s, "pin", pin_set=True, now=1.0))
    assert SetupStore(path).get().step == "game"
    with pytest.raises(WizardRefused):
        store.update(lambda s: goto(s, "nowhere", pin_set=True, now=2.0))
    assert SetupStore(path).get().step == "game"  # a refused transition wrote nothing
    path.write_text("{not json")
    assert SetupStore(path).get() == WizardState()


# -- the API ------------------------------------------------------------------------------------------

def post(client: ApiClient, body: dict) -> tuple[int, dict]:
    r = client.post("/api/setup", body)
    return r.status_code, r.get_json()


def test_first_run_then_resumed_by_a_new_app_on_the_same_data(make_app, service, data_dir: Path) -> None:
    app = make_app(service)
    client = ApiClient(app.test_client())
    st = client.get("/api/setup").get_json()
    assert st["due"] and st["status"] == "new" and st["step"] == "pin" and st["total"] == 7 and not st["pin_set"]
    boot = client.get("/").get_data(as_text=True)
    assert '"setup_due": true' in boot
    # before a PIN exists only the PIN step and "skip" are open
    code, body = post(client, {"action": "complete", "step": "pin"})
    assert code == 409 and body["error"]["code"] == "pin_not_set"
    assert post(client, {"action": "goto", "step": "pin"})[0] == 200
    assert client.setup_pin().status_code == 200
    code, body = post(client, {"action": "complete", "step": "pin"})
    assert code == 200 and body["setup"]["step"] == "game" and body["setup"]["index"] == 2
    # a bad choice is refused with the New game checks' reason, and nothing is kept
    code, body = post(client, {"action": "choose", "choices": {"game": "china", "players": ["blue", "blue", "red"]}})
    assert code == 400 and "different colour" in body["error"]["message"]["en"]
    assert client.get("/api/setup").get_json()["choices"] is None
    code, body = post(client, {"action": "choose", "choices": CHOICES})
    assert code == 200 and body["setup"]["step"] == "camera"
    saved = json.loads((data_dir / "web" / "setup.json").read_text())
    assert saved["status"] == "active" and saved["choices"] == CHOICES and saved["step"] == "camera"
    # a restart of the dashboard (a new app on the same folder) resumes at the same step
    other = ApiClient(make_app(service).test_client())
    st = other.get("/api/setup").get_json()
    assert st["step"] == "camera" and st["due"] and st["choices"] == CHOICES and st["done"] == ["pin", "game"]
    # ... and a visitor without the PIN can read it but not move it
    code, body = post(other, {"action": "skip_step", "step": "camera"})
    assert code == 401 and body["error"]["code"] == "pin_required"
    assert other.login(PIN).status_code == 200
    assert post(other, {"action": "skip_step", "step": "camera"})[0] == 200


def test_start_runs_the_chosen_game_and_ends_the_wizard(admin: ApiClient, service) -> None:
    assert post(admin, {"action": "complete", "step": "pin"})[0] == 200
    code, body = post(admin, {"action": "start"})
    assert code == 409 and body["error"]["code"] == "setup_order"
    assert post(admin, {"action": "choose", "choices": dict(CHOICES, players=["red", "violet", "yellow"])})[0] == 200
    for step in ("camera", "markers", "enrol", "sensors"):
        assert post(admin, {"action": "skip_step", "step": step})[0] == 200
    code, body = post(admin, {"action": "start"})
    assert code == 200 and body["ok"] and body["setup"]["status"] == "done" and not body["setup"]["due"]
    snap = service.snapshot()
    assert snap["game"] == "china" and snap["players"] == ["red", "violet", "yellow"] and snap["moves"] == 0
    assert '"setup_due": false' in admin.get("/").get_data(as_text=True)
    code, body = post(admin, {"action": "restart"})
    assert code == 200 and body["setup"]["step"] == "pin" and body["setup"]["choices"]["players"] == ["red", "violet", "yellow"]


def test_skip_is_open_before_the_pin_and_bodies_are_checked(api: ApiClient) -> None:
    code, body = post(api, {"action": "dance"})
    assert code == 400 and body["error"]["field"] == "action"
    code, body = post(api, {"action": "goto"})
    assert code == 409  # no PIN: only the PIN step or skip
    r = api.post("/api/setup", {"action": "skip"}, csrf=False)
    assert r.status_code == 403
    code, body = post(api, {"action": "skip"})
    assert code == 200 and body["setup"]["status"] == "skipped" and not body["setup"]["due"]


# -- the camera check and the marker sheet ---------------------------------------------------------------

def test_camera_check_names_the_missing_corner() -> None:
    registration = {"status": "partial", "found": [1, 2, 3], "missing": [0], "message": {"en": "hidden", "zh": "遮挡"}}
    got = camera_check({"state": "ok", "registration": registration})
    assert got["available"] and got["missing"] == [0] and got["registered"]
    assert got["corners"][0] == {"id": 0, "corner": "top-left", "seen": False}
    assert [c["corner"] for c in got["corners"]] == ["top-left", "top-right", "bottom-right", "bottom-left"]
    live = {"registered": False, "corners": [{"id": 4, "corner": "top-left", "seen": True}, {"id": 5, "corner": "top-right", "seen": False}]}
    got = camera_check({"state": "down", "registration": registration}, {"available": True, "live": live})
    assert got["missing"] == [5] and got["corners"][1]["corner"] == "top-right" and not got["registered"]
    assert camera_check({"state": "absent"})["available"] is False
    assert camera_check(None)["available"] is False


def test_the_marker_sheet_is_true_size_and_its_markers_are_found(api: ApiClient) -> None:
    r = api.get("/setup/markers.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", r.data)
    assert box, "no page size in the PDF"
    w_mm, h_mm = (float(v) / 72 * 25.4 for v in box.groups())
    assert abs(w_mm - 210) < 0.5 and abs(h_mm - 297) < 0.5  # A4, printed at 100 %
    png = api.get("/setup/markers.png?board=china-b")
    assert png.status_code == 200 and png.mimetype == "image/png"
    from PIL import Image

    from vision.layout import load_layout
    from vision.markers import corner_detector

    page = np.array(Image.open(io.BytesIO(marker_sheet(_shipped_layout("china-a"), fmt="png", dpi=150))).convert("L"))
    corners, ids, _ = corner_detector().detectMarkers(page)
    assert sorted(int(i) for i in ids.ravel()) == [m.id for m in load_layout("china-a").markers]
    side_px = float(np.linalg.norm(corners[0].reshape(4, 2)[1] - corners[0].reshape(4, 2)[0]))
    assert abs(side_px / 150 * 25.4 - load_layout("china-a").marker_size) < 1.0  # 34 mm at 150 dpi
    r = api.get("/setup/markers.pdf?board=no-such-board")
    assert r.status_code == 404 and r.get_json()["error"]["field"] == "board"
    assert api.get("/setup/markers.pdf?board=../etc").status_code == 400


def _shipped_layout(board_id: str) -> dict:
    from vision.layout import LAYOUT_DIR

    return json.loads((LAYOUT_DIR / f"{board_id}.json").read_text())
