"""The camera enrolment API (docs/web.md): the dashboard's fake table with a real camera device on
the synthetic camera, so the flow runs the real registration, ``vision.enrolment.enrol`` and
``TableModel.save``. Steps need the admin PIN and the CSRF token; refusals are JSON with a
bilingual message and a specific code; a refused step never changes the model in use."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

pytest.importorskip("hardware.camera")

from hardware.camera import FrameSource, SyntheticCamera  # noqa: E402
from tableref.camera_device import CameraDevice  # noqa: E402
from vision.enrolment import TableModel, enrolment_plan  # noqa: E402
from vision.layout import load_layout  # noqa: E402
from vision.render import Conditions  # noqa: E402
from web.boards import BoardLibrary  # noqa: E402
from web.fake import FakeTableService  # noqa: E402

from web_testkit import PIN, SETUP, ApiClient, wait_for  # noqa: E402

URL = "/api/camera/enrol"


class Coverable(FrameSource):
    """The synthetic camera, or (``covered``) a grey picture with no board in it: a lens cap."""

    def __init__(self, inner: SyntheticCamera):
        super().__init__(clock=inner.clock)
        self.inner = inner
        self.name = inner.name
        self.covered = False

    def _grab(self) -> np.ndarray:
        if self.covered:
            return np.full((720, 960, 3), 96, np.uint8)
        return self.inner.read().image


@pytest.fixture
def rig(data_dir: Path) -> Iterator[Any]:
    layout = load_layout("china-a")
    synthetic = SyntheticCamera(layout, conditions=Conditions(size=(960, 720)), seed=3, noise_sigma=0.0)
    source = Coverable(synthetic)
    device = CameraDevice(source, layout, fps=8.0, model_path=str(data_dir / "table-model.npz"), emulated=True)
    service = FakeTableService(setup=SETUP, geometry=BoardLibrary(data_dir.resolve()).geometry, camera=device)
    service.synthetic, service.source, service.device, service.layout = synthetic, source, device, layout  # type: ignore[attr-defined]
    wait_for(lambda: device.last_registration() is not None, 20, "the camera's first frame")
    yield service
    service.close()


@pytest.fixture
def cam_admin(make_app, rig) -> ApiClient:
    client = ApiClient(make_app(rig).test_client())
    assert client.setup_pin().status_code == 200
    return client


def step(client: ApiClient, name: str) -> Any:
    return client.post(URL, {"step": name})


def test_steps_need_the_admin_pin_and_the_csrf_token(make_app, rig, data_dir: Path) -> None:
    app = make_app(rig)
    admin = ApiClient(app.test_client())
    assert admin.setup_pin().status_code == 200
    stranger = ApiClient(app.test_client())
    r = step(stranger, "empty")
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "pin_required"
    r = stranger.login("0000")
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "wrong_pin"
    assert step(stranger, "empty").status_code == 401
    r = admin.post(URL, {"step": "empty"}, csrf=False)
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "csrf"
    r = admin.post(URL, {"step": "guess"})
    assert r.status_code == 400 and r.get_json()["error"]["field"] == "step"
    # reading where it stands is open, and nothing changed
    st = stranger.get(URL).get_json()
    assert st["available"] and st["step"] == 1 and st["steps"] == 3
    assert {(p["space"], p["owner"], p["kind"]) for p in st["plan"]} == \
        {(s, str(p.owner), p.kind) for s, p in enrolment_plan(rig.layout).items()}
    assert st["model"]["enrolled"] is False and "guesses" in st["model"]["message"]["en"]
    assert not (data_dir / "table-model.npz").exists()
    assert stranger.login(PIN).status_code == 200 and step(stranger, "empty").status_code == 200


def test_a_board_without_its_corner_markers_is_refused_naming_them(cam_admin: ApiClient, rig, data_dir: Path) -> None:
    rig.source.covered = True
    r = step(cam_admin, "empty")
    body = r.get_json()
    assert r.status_code == 409 and body["ok"] is False and body["error"]["code"] == "registration"
    en, zh = body["error"]["message"]["en"], body["error"]["message"]["zh"]
    for corner, cn in (("top-left (marker 0)", "左上"), ("top-right (marker 1)", "右上"),
                       ("bottom-right (marker 2)", "右下"), ("bottom-left (marker 3)", "左下")):
        assert corner in en and cn in zh
    assert "Nothing was saved" in en and "未保存" in zh
    assert [c["seen"] for c in body["data"]["corners"]] == [False] * 4
    assert cam_admin.get(URL).get_json()["step"] == 1
    assert rig.device.status().get("held") is None  # the referee still has the camera
    assert not (data_dir / "table-model.npz").exists()
    assert step(cam_admin, "pieces").get_json()["error"]["code"] == "order"


def test_a_planned_piece_not_found_is_refused_and_the_old_model_stays(cam_admin: ApiClient, rig, data_dir: Path) -> None:
    old_model, old_reader = rig.device.model, rig.device.reader
    assert step(cam_admin, "empty").status_code == 200
    assert cam_admin.get(URL).get_json()["step"] == 2
    assert rig.device.status()["held"]["en"].startswith("camera: enrolling the table")
    plan = enrolment_plan(rig.layout)
    left_out = sorted(plan)[:2]
    for space, piece in plan.items():
        if space not in left_out:
            rig.synthetic.place(space, piece)
    r = step(cam_admin, "pieces")
    body = r.get_json()
    assert r.status_code == 409 and body["error"]["code"] == "pieces"
    msg = body["error"]["message"]
    assert all(s in msg["en"] for s in left_out)
    assert "has not changed" in msg["en"] and all(s in msg["zh"] for s in left_out) and "没有改变" in msg["zh"]
    assert rig.device.model is old_model and rig.device.reader is old_reader
    assert cam_admin.get(URL).get_json()["step"] == 2  # retake
    assert step(cam_admin, "save").get_json()["error"]["code"] == "order"
    assert not (data_dir / "table-model.npz").exists()
    # cancelling gives the camera back to the referee, with the model it had
    assert step(cam_admin, "cancel").status_code == 200
    assert "held" not in rig.device.status() and rig.device.model is old_model


def test_enrolled_model_is_saved_and_the_camera_switches_to_it(cam_admin: ApiClient, rig, data_dir: Path) -> None:
    assert step(cam_admin, "empty").status_code == 200
    plan = enrolment_plan(rig.layout)
    for space, piece in plan.items():
        rig.synthetic.place(space, piece)
    r = step(cam_admin, "pieces")
    assert r.status_code == 200, r.get_json()
    result = r.get_json()["data"]["result"]
    assert result["enrolled"] is True
    assert {(s["owner"], s["kind"]) for s in result["sizes"]} == {(str(p.owner), p.kind) for p in plan.values()}
    assert all(s["enrolled"] for s in result["sizes"])
    assert all(len(c["swatches"]) >= 1 and all(h.startswith("#") and len(h) == 7 for h in c["swatches"]) for c in result["colours"])
    st = cam_admin.get(URL).get_json()
    assert st["step"] == 3 and st["result"]["enrolled"]
    assert not (data_dir / "table-model.npz").exists()  # nothing is written before Save
    for space, piece in plan.items():
        rig.synthetic.remove(space, piece)
    r = step(cam_admin, "save")
    assert r.status_code == 200, r.get_json()
    path = data_dir / "table-model.npz"
    assert path.is_file() and not Path(str(path) + ".tmp").exists()
    saved = TableModel.load(path, rig.layout)
    assert saved.enrolled and saved.sizes.keys() == set(plan.values())
    assert rig.device.model is not None and rig.device.model.enrolled
    wait_for(lambda: getattr(rig.device.reader, "model", None) is rig.device.model, 5, "the camera thread to switch readers")
    cam = cam_admin.get("/api/devices").get_json()["camera"]
    assert cam["model"]["enrolled"] is True and cam["model"]["message"]["en"].startswith("camera: enrolled ")
    assert "held" not in cam
    st = cam_admin.get(URL).get_json()
    assert st["step"] == 1 and st["model"]["enrolled"] is True
    page = cam_admin.get("/devices").get_data(as_text=True)
    assert 'href="/enrol/camera"' in page


def test_without_a_camera_the_api_says_so(admin: ApiClient) -> None:
    assert admin.get(URL).get_json()["available"] is False
    r = step(admin, "empty")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "no_camera"


# -- the page in a real browser ---------------------------------------------------------------------

@pytest.fixture
def camera_server(rig, data_dir: Path) -> Iterator[Any]:
    from web.app import create_app
    from web.server import make_server
    from web_testkit import FAST_HASH

    app = create_app(rig, data_dir=data_dir, initial_pin=PIN, config={"PIN_HASH_METHOD": FAST_HASH, "SSE_KEEPALIVE": 0.5})
    server = make_server(app, "127.0.0.1", 0, threads=16).start()
    assert server.wait_ready(10), "dashboard did not answer"
    yield server
    server.stop()


@pytest.mark.browser
def test_the_page_walks_the_three_steps_with_the_synthetic_camera(camera_server, rig, browser_page, data_dir: Path) -> None:
    from web_testkit import screenshot

    page, base = browser_page, camera_server.url
    page.goto(base + "login?next=/enrol/camera")
    page.fill("#pin", PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(base + "enrol/camera", timeout=5000)
    # step 1: the live picture and the four corner markers
    page.wait_for_selector('#ce-progress[data-step="1"]', timeout=10_000)
    assert page.locator("#ce-progress").text_content() == "Step 1 of 3"
    assert "not enrolled" in page.locator("#ce-model").text_content()
    page.wait_for_function("() => document.querySelectorAll('#ce-markers .marker.ok').length === 4", timeout=10_000)
    page.wait_for_function("() => document.querySelector('#ce-camera-img').naturalWidth > 0", timeout=10_000)
    assert "top left" in page.locator("#ce-markers").text_content()
    screenshot(page, "camera-enrol-1-empty")
    page.click("#ce-capture-empty")
    # step 2: the board drawing with the planned spaces marked and each piece named
    page.wait_for_selector('#ce-progress[data-step="2"]', timeout=10_000)
    assert page.locator("#ce-progress").text_content() == "Step 2 of 3"
    plan = enrolment_plan(rig.layout)
    page.wait_for_function("n => document.querySelectorAll('#ce-board .mark-plan').length === n", arg=len(plan), timeout=5000)
    items = page.locator("#ce-plan li")
    assert items.count() == len(plan)
    for space, piece in plan.items():
        li = page.locator(f'#ce-plan li[data-space="{space}"]')
        assert li.get_attribute("data-owner") == str(piece.owner) and li.get_attribute("data-kind") == piece.kind
    assert "Blue House" in page.locator("#ce-plan").text_content() or "Blue house" in page.locator("#ce-plan").text_content()
    screenshot(page, "camera-enrol-2-plan")
    for space, piece in plan.items():  # the user puts the pieces on the marked spaces
        rig.synthetic.place(space, piece)
    page.click("#ce-capture-pieces")
    # step 3: swatches and sizes, enrolled
    page.wait_for_selector('#ce-progress[data-step="3"]', timeout=10_000)
    assert page.locator("#ce-result-state").get_attribute("data-enrolled") == "true"
    assert page.locator("#ce-sizes tr").count() == len(plan)
    assert page.locator("#ce-colours rect").count() >= 6
    assert page.locator("#ce-sizes").text_content().count("enrolled") == len(plan)
    assert page.locator("#ce-cannot-read").is_hidden()  # a China table close enough: nothing it cannot read
    screenshot(page, "camera-enrol-3-result")
    # what a camera cannot read at its distance is shown in the page's language (vision.readability: as the
    # server says it of a Great Wall table at ~0.5 px/mm; tests/vision/test_token_values_legible.py)
    from scorer.core.types import Message

    said = Message.t("vision.readability.token_values").to_json()

    def with_notice(route) -> None:
        got = route.fetch().json()
        if got.get("result"):
            got["result"]["cannot_read"] = [said]
        route.fulfill(json=got)

    page.route("**/api/camera/enrol", with_notice)
    page.reload()
    page.wait_for_selector('#ce-progress[data-step="3"]', timeout=10_000)
    page.wait_for_selector("#ce-cannot-read li", timeout=5000)
    assert page.locator("#ce-cannot-read").is_visible()
    assert page.locator("#ce-cannot-read li").text_content() == said["en"]
    page.unroute("**/api/camera/enrol")
    for space, piece in plan.items():
        rig.synthetic.remove(space, piece)
    page.click("#ce-save")
    page.wait_for_selector('#ce-progress[data-step="1"]', timeout=10_000)
    page.wait_for_function("() => document.querySelector('#ce-model').dataset.enrolled === 'true'", timeout=5000)
    assert page.locator("#ce-model").text_content().startswith("camera: enrolled ")
    assert "saved" in page.locator("#ce-done").text_content()
    assert (data_dir / "table-model.npz").is_file() and rig.device.model.enrolled
    # the Devices card says so too
    page.goto(base + "devices")
    page.wait_for_function("() => document.querySelector('#camera-model').dataset.enrolled === 'true'", timeout=5000)
    assert page.locator("#camera-model-text").text_content().startswith("camera: enrolled ")
    screenshot(page, "camera-enrol-devices")
