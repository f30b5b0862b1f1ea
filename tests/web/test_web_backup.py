"""Backup and restore from the dashboard: admin-only (PIN + CSRF), the archive checked before
anything changes, and the whole round trip in real Chromium against a real ``tableref run``."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tableref.backup import verify_backup
from web.app import create_app
from web_testkit import FAST_HASH, PIN, ApiClient, screenshot, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _post_raw(client: ApiClient, url: str, body: bytes, *, csrf: bool = True) -> Any:
    headers = {"X-CSRF-Token": client.csrf} if csrf else {}
    return client.c.post(url, data=body, headers=headers, content_type="application/gzip")


def _seed(data_dir: Path) -> None:
    (data_dir / "web" / "boards").mkdir(parents=True, exist_ok=True)
    (data_dir / "web" / "boards" / "mine.json").write_text('{"id": "mine"}')
    (data_dir / "tags.json").write_text('{"A1": {"owner": "blue", "kind": "house"}}')


def test_backup_and_restore_need_the_admin_pin_and_the_csrf_token(api: ApiClient, admin: ApiClient) -> None:
    assert api.post("/api/backup").status_code == 401
    assert admin.post("/api/backup", csrf=False).status_code == 403
    assert _post_raw(api, "/api/backup/restore", b"x").status_code == 401
    assert _post_raw(admin, "/api/backup/restore", b"x", csrf=False).status_code == 403
    assert api.get("/api/backup").get_json() == {"restore": False, "max_bytes": 512 * 1024 * 1024}


def test_an_admin_downloads_a_checked_archive_without_the_secrets(admin: ApiClient, data_dir: Path, tmp_path: Path) -> None:
    _seed(data_dir)
    resp = admin.post("/api/backup")
    assert resp.status_code == 200 and resp.mimetype == "application/gzip"
    assert re.search(r'attachment; filename=tableref-backup-table-\d{8}-\d{6}\.tar\.gz', resp.headers["Content-Disposition"])
    archive = tmp_path / "b.tar.gz"
    archive.write_bytes(resp.data)
    names = {e.path for e in verify_backup(archive).files}
    assert {"tags.json", "web/boards/mine.json"} <= names
    assert not names & {"web/secret.key", "web/admin.json"}
    assert not [p for p in data_dir.iterdir() if p.name.startswith(".backup-")]  # no temporary file left behind


def test_this_dashboard_without_a_service_to_restart_refuses_a_restore(admin: ApiClient) -> None:
    resp = _post_raw(admin, "/api/backup/restore", b"anything")
    assert resp.status_code == 501 and "tableref backup restore" in resp.get_json()["error"]["message"]["en"]


@pytest.fixture
def restoring(data_dir: Path, service: Any, clock: Any) -> tuple[ApiClient, list[Path]]:
    handed: list[Path] = []
    app = create_app(service, data_dir=data_dir, clock=clock, config={"PIN_HASH_METHOD": FAST_HASH}, on_restore=handed.append)
    client = ApiClient(app.test_client())
    assert client.setup_pin().status_code == 200
    return client, handed


def test_a_damaged_upload_is_refused_and_a_good_one_is_handed_to_the_service(restoring: tuple[ApiClient, list[Path]],
                                                                          data_dir: Path) -> None:
    client, handed = restoring
    _seed(data_dir)
    good = client.post("/api/backup").data
    for bad in (good[: len(good) // 2], good[:-12], b"\x1f\x8b" + b"\0" * 50):
        resp = _post_raw(client, "/api/backup/restore", bad)
        body = resp.get_json()
        assert resp.status_code == 400 and body["error"]["code"] == "bad_backup", body
        assert "damaged" in body["error"]["message"]["en"] and "没有任何更改" in body["error"]["message"]["zh-Hans"]
    assert handed == [] and not [p for p in data_dir.iterdir() if p.name.startswith(".incoming-")]
    resp = _post_raw(client, "/api/backup/restore", good)
    assert resp.status_code == 202 and resp.get_json()["restarting"] is True
    assert len(handed) == 1 and handed[0].parent == data_dir.resolve()
    assert verify_backup(handed[0]).files  # the service gets the checked file itself


# -- the whole round trip: real service, real browser ----------------------------------------------

def _spawn_run(tmp_path: Path) -> tuple[subprocess.Popen, list[str]]:
    cfg = tmp_path / "table.toml"
    with socket.socket() as s:  # a fixed port: the service comes back on the same one after the restore
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg.write_text('[table]\nname = "Backup table"\ndata_dir = "data"\n[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n'
                   f'[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\nport = {port}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "run", "--config", str(cfg), "--lang", "en"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(tmp_path))
    lines: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return proc, lines


def _url(lines: list[str], after: int = 0) -> str:
    return wait_for(lambda: next((x for x in lines[after:] if re.match(r"^http://127\.0\.0\.1:\d+/$", x)), None), 60,
                    "the dashboard's address")


def _table_name(tmp_path: Path) -> str | None:
    path = tmp_path / "data" / "web" / "settings.json"
    return json.loads(path.read_text()).get("table_name") if path.exists() else None


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/state", timeout=5) as r:
        return json.loads(r.read())


def _field_value(page: Any, selector: str) -> str | None:
    """A form field's value, or None while the page is reloading."""
    try:
        return page.evaluate("(s) => document.querySelector(s)?.value ?? null", selector)
    except Exception:  # the page navigated under the call (the service restarting)
        return None


@pytest.mark.browser
def test_download_then_restore_on_the_settings_page_restarts_the_service_with_the_old_data(browser_page: Any, tmp_path: Path) -> None:
    proc, lines = _spawn_run(tmp_path)
    page = browser_page
    # the damaged upload's 400, and the requests that find the service down while it restarts
    page.expected_errors = ("status of 400", "ERR_CONNECTION_REFUSED", "ERR_EMPTY_RESPONSE", "ERR_CONNECTION_RESET",
                            "Failed to fetch")
    try:
        url = _url(lines)
        page.goto(url + "settings")
        # first visit: choose the admin PIN, which logs this tablet in (the login page's own request)
        page.evaluate("""async (pin) => {
            const r = await fetch('/api/pin/setup', {method: 'POST', credentials: 'same-origin',
              headers: {'Content-Type': 'application/json', 'X-CSRF-Token': TR.csrf}, body: JSON.stringify({pin, confirm: pin})});
            if (!r.ok) throw new Error('pin setup ' + r.status);
        }""", PIN)
        page.goto(url + "settings")
        page.fill("#table_name", "Before the backup")
        page.click("#settings-form button[type=submit]")
        wait_for(lambda: _table_name(tmp_path) == "Before the backup", 10, "the setting saved")
        with page.expect_download() as dl:
            page.click("#backup-download")
        archive = tmp_path / dl.value.suggested_filename
        dl.value.save_as(str(archive))
        assert archive.name.startswith("tableref-backup-before-the-backup-")
        assert "web/settings.json" in {e.path for e in verify_backup(archive).files}
        page.wait_for_selector("#backup-status:has-text('Backup saved as')")
        # the table moves on after the backup
        page.fill("#table_name", "After the backup")
        page.click("#settings-form button[type=submit]")
        wait_for(lambda: _table_name(tmp_path) == "After the backup", 10, "the new setting")
        boot = _state(url)["event_id"] // 10**9
        # a damaged file first: refused on the page, nothing changes
        damaged = tmp_path / "damaged.tar.gz"
        damaged.write_bytes(archive.read_bytes()[:-20])
        page.set_input_files("#backup-file", str(damaged))
        page.click("#backup-restore")
        page.wait_for_selector("#backup-error:has-text('damaged')")
        assert _table_name(tmp_path) == "After the backup" and proc.poll() is None
        # then the good one: the service restarts (same process, exec) and the page reloads with the old data
        page.set_input_files("#backup-file", str(archive))
        with page.expect_navigation(timeout=60000):
            page.click("#backup-restore")
        # polled from here: the page's own polling (wait_for_function) evaluates a string, which the page's CSP
        # refuses once the reloaded page is there, and a slow restart makes it poll
        wait_for(lambda: _field_value(page, "#table_name") == "Before the backup", 30, "the old data on the reloaded page",
                 step=0.2)
        screenshot(page, "settings-backup-restored")
        assert _state(url)["event_id"] // 10**9 == boot + 1 and proc.poll() is None
        assert any(x.startswith("restored backup of 'Before the backup'") for x in lines)
        assert any(x == "starting again" for x in lines)  # --lang en
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
