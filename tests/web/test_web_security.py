"""Viewing is open; every change needs the admin PIN (hashed, rate-limited), a session and the
CSRF token; inputs are validated; nothing from the network reaches files outside the data folder."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from web_testkit import PIN, ApiClient
from web.app import create_app
from web.security import LoginLimiter, PinStore

CHANGES = [
    ("/api/game/new", {"game": "china", "players": ["red", "blue", "green"]}),
    ("/api/undo", {}),
    ("/api/override", {}),
    ("/api/declare", {"move": {"type": "exchange", "player": "blue"}}),
    ("/api/turn-done", {}),
    ("/api/capture/save", {"board": {"id": "x"}}),
    ("/api/enrol", {"uid": "04A1B2C3", "item": {"owner": "red", "kind": "house"}}),
    ("/api/settings", {"table_name": "x"}),
    ("/api/pin/change", {"old": PIN, "new": "1357", "confirm": "1357"}),
]


def test_viewing_needs_no_pin(api):
    for path in ("/", "/board", "/history", "/api/state", "/api/scores", "/api/history", "/api/devices", "/api/board"):
        assert api.get(path).status_code == 200, path


@pytest.mark.parametrize("path, body", CHANGES)
def test_every_change_needs_the_pin(app, service, path, body):
    client = ApiClient(app.test_client())
    client.setup_pin()
    client.post("/api/logout")
    version = service.snapshot()["version"]
    r = client.post(path, body)
    assert r.status_code == 401, (path, r.get_json())
    assert r.get_json()["error"]["code"] == "pin_required"
    assert r.get_json()["error"]["message"]["zh"]
    assert service.snapshot()["version"] == version
    assert service.undo_requests == 0


@pytest.mark.parametrize("path, body", CHANGES + [("/api/login", {"pin": PIN}), ("/api/logout", {})])
def test_every_change_needs_the_csrf_token(admin, service, path, body):
    version = service.snapshot()["version"]
    r = admin.post(path, body, csrf=False)
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "csrf"
    r = admin.post(path, body, csrf=False, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    assert service.snapshot()["version"] == version


def test_cross_site_origin_is_refused(admin):
    r = admin.post("/api/undo", {}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert admin.post("/api/settings", {"table_name": "ok"}, headers={"Origin": "http://localhost"}).status_code == 200


def test_first_run_pin(api, data_dir):
    assert api.get("/api/session").get_json()["pin_set"] is False
    assert api.post("/api/login", {"pin": "1234"}).get_json()["error"]["code"] == "pin_not_set"
    assert api.post("/api/pin/setup", {"pin": "12", "confirm": "12"}).status_code == 400
    assert api.post("/api/pin/setup", {"pin": "12ab", "confirm": "12ab"}).status_code == 400
    assert api.post("/api/pin/setup", {"pin": "1234", "confirm": "1243"}).get_json()["error"]["field"] == "confirm"
    r = api.setup_pin("123456")
    assert r.status_code == 200 and r.get_json()["admin"] is True
    # only once: afterwards the PIN can only be changed by an admin
    other = ApiClient(api.c.application.test_client())
    assert other.setup_pin("999999").status_code == 409
    path = data_dir / "web" / "admin.json"
    text = path.read_text()
    assert "123456" not in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_pin_is_stored_as_scrypt_by_default(tmp_path):
    store = PinStore(tmp_path / "admin.json")
    store.set_pin("8642")
    doc = json.loads((tmp_path / "admin.json").read_text())
    assert doc["hash"].startswith("scrypt:")
    assert "8642" not in doc["hash"]
    again = PinStore(tmp_path / "admin.json")
    assert again.verify("8642") and not again.verify("8641") and again.epoch == 1


def test_login_logout_and_session_expiry(app, clock):
    a = ApiClient(app.test_client())
    a.setup_pin()
    b = ApiClient(app.test_client())
    assert b.post("/api/undo").status_code == 401
    assert b.login("0000").status_code == 400
    assert b.login().status_code == 200
    assert b.get("/api/session").get_json()["admin"] is True
    assert b.post("/api/logout").status_code == 200
    assert b.post("/api/undo").status_code == 401
    assert b.login().status_code == 200
    clock.advance(12 * 3600 + 1)
    assert b.post("/api/undo").status_code == 401  # the admin session expired


def test_changing_the_pin_logs_out_other_tablets(app):
    a = ApiClient(app.test_client())
    a.setup_pin()
    b = ApiClient(app.test_client())
    b.login()
    assert b.post("/api/settings", {"table_name": "t"}).status_code == 200
    assert a.post("/api/pin/change", {"old": "0000", "new": "1357", "confirm": "1357"}).status_code == 400
    assert a.post("/api/pin/change", {"old": PIN, "new": "1357", "confirm": "1357"}).status_code == 200
    assert a.post("/api/settings", {"table_name": "t"}).status_code == 200
    assert b.post("/api/settings", {"table_name": "t"}).status_code == 401
    assert b.login(PIN).status_code == 400 and b.login("1357").status_code == 200


def test_pin_attempts_are_rate_limited(app, clock):
    ApiClient(app.test_client()).setup_pin()
    c = ApiClient(app.test_client())
    for _ in range(4):
        assert c.login("0000").status_code == 400
    r = c.login("0000")
    assert r.status_code == 400 and r.get_json()["error"]["retry_after"] == 30.0
    r = c.login(PIN)  # even the right PIN is refused while locked
    assert r.status_code == 429 and r.headers["Retry-After"] == "30"
    assert r.get_json()["error"]["message"]["zh"]
    clock.advance(31)
    assert c.login(PIN).status_code == 200


def test_lockout_doubles_and_other_clients_are_not_locked(app, clock):
    ApiClient(app.test_client()).setup_pin()
    c = ApiClient(app.test_client())
    for _ in range(5):
        c.login("0000")
    clock.advance(31)
    assert c.login("0000").status_code == 400
    assert c.login(PIN).status_code == 429  # second strike: 60 s
    clock.advance(31)
    assert c.login(PIN).status_code == 429
    other = ApiClient(app.test_client())
    assert other.post("/api/login", {"pin": PIN}, environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 200
    clock.advance(30)
    assert c.login(PIN).status_code == 200


def test_guessing_from_many_addresses_locks_everyone(clock):
    lim = LoginLimiter(clock, max_failures=5, global_max=10, lockout=30)
    for i in range(10):
        lim.check(f"10.0.0.{i}")
        lim.failure(f"10.0.0.{i}")
    assert lim.wait_for("10.0.0.200") == 30
    clock.advance(30)
    assert lim.wait_for("10.0.0.200") == 0


def test_bad_bodies_get_clear_errors(admin):
    r = admin.c.post("/api/settings", data="{not json", headers={"X-CSRF-Token": admin.csrf, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"]["message"]["zh"]
    r = admin.post("/api/settings", [1, 2])
    assert r.status_code == 400
    r = admin.post("/api/settings", {"table_name": 5})
    err = r.get_json()["error"]
    assert r.status_code == 400 and err["field"] == "table_name" and "table_name" in err["message"]["en"]
    big = {"board": {"id": "x", "notes": ["y" * 1000] * 3000}}
    assert admin.post("/api/capture/check", big).status_code == 413


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("board_id", ["../evil", "..", "a/b", "/etc/passwd", "A", "x" * 60, "china-a", "", ".hidden", "a\\b", "%2e%2e"])
def test_capture_cannot_write_outside_the_data_folder(admin, data_dir, tmp_path, board_id):
    before = _files(tmp_path)
    doc = json.loads((Path(__file__).resolve().parents[2] / "scorer/games/china/boards/china-a.json").read_text())
    doc["id"] = board_id
    r = admin.post("/api/capture/save", {"board": doc, "layout": None})
    assert r.status_code == 400, r.get_json()
    assert _files(tmp_path) == before


def test_language_redirect_is_local_only(api):
    for target, expected in (("/board", "/board"), ("//evil.example/x", "/"), ("http://evil.example/", "/"),
                             ("board", "/"), ("/\\evil.example", "/")):
        r = api.get(f"/lang/zh-Hans?next={target}")
        assert r.status_code == 303 and r.headers["Location"] == expected, target


def test_security_headers(api):
    r = api.get("/")
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"
    set_cookie = r.headers.get("Set-Cookie", "")
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie


def test_initial_pin_for_the_demo(data_dir, service):
    app = create_app(service, data_dir=data_dir, initial_pin="4321", config={"PIN_HASH_METHOD": "pbkdf2:sha256:1000"})
    assert ApiClient(app.test_client()).login("4321").status_code == 200
    # a PIN set later is not replaced by the demo's on the next start
    app2 = create_app(service, data_dir=data_dir, initial_pin="9999", config={"PIN_HASH_METHOD": "pbkdf2:sha256:1000"})
    assert ApiClient(app2.test_client()).login("9999").status_code == 400
