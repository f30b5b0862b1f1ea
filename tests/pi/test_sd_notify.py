"""sd_notify without libsystemd: real unix datagram sockets, as systemd's NOTIFY_SOCKET is, and the
real ``tableref run`` telling it READY=1, feeding the watchdog and saying STOPPING=1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tableref.sd_notify import Notifier, Watchdog

ROOT = Path(__file__).resolve().parents[2]


class NotifySocket:
    """What systemd listens on: a bound AF_UNIX datagram socket; keeps every message with its arrival time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + path[1:] if path.startswith("@") else path)
        self.sock.settimeout(0.2)
        self.messages: list[tuple[float, dict[str, str]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            fields = dict(line.split("=", 1) for line in data.decode().split("\n") if line)
            self.messages.append((time.monotonic(), fields))

    def wait(self, key: str, value: str | None = None, timeout: float = 10.0, count: int = 1) -> list[float]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            hits = [t for t, m in list(self.messages) if key in m and (value is None or m[key] == value)]
            if len(hits) >= count:
                return hits
            time.sleep(0.01)
        raise AssertionError(f"no {count} x {key}={value} within {timeout} s; got {self.messages}")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(1)
        self.sock.close()


@pytest.fixture
def notify_socket(tmp_path: Path):
    sock = NotifySocket(str(tmp_path / "notify.sock"))
    yield sock
    sock.close()


def test_ready_watchdog_status_and_stopping_arrive_as_datagrams(notify_socket: NotifySocket) -> None:
    n = Notifier({"NOTIFY_SOCKET": notify_socket.path})
    assert n.enabled and n.ready("serving") and n.ping() and n.status("3 moves") and n.stopping()
    notify_socket.wait("STOPPING", "1")
    messages = [m for _, m in notify_socket.messages]
    assert messages[0] == {"READY": "1", "MAINPID": str(os.getpid()), "STATUS": "serving"}
    assert messages[1:] == [{"WATCHDOG": "1"}, {"STATUS": "3 moves"}, {"STOPPING": "1"}]


def test_an_abstract_namespace_socket_works_too(tmp_path: Path) -> None:
    name = f"@tableref-test-{os.getpid()}-{time.monotonic_ns()}"
    sock = NotifySocket(name)
    try:
        assert Notifier({"NOTIFY_SOCKET": name}).ready()
        sock.wait("READY", "1")
    finally:
        sock.close()


def test_without_systemd_nothing_is_sent_and_nothing_fails() -> None:
    n = Notifier({})
    assert not n.enabled and not n.ready() and not n.ping() and n.watchdog_interval is None
    assert not Watchdog(n, lambda: True, interval=0.01).start().pings


@pytest.mark.allow_error_logs
def test_a_socket_that_went_away_is_a_warning_not_a_crash(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}).ready() is False
    assert "sd_notify" in caplog.text


@pytest.mark.parametrize("env, interval", [
    ({"WATCHDOG_USEC": "30000000"}, 15.0),
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}, 15.0),
    ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),  # meant for another process
    ({"WATCHDOG_USEC": "0"}, None),
    ({"WATCHDOG_USEC": "soon"}, None),
])
def test_the_watchdog_interval_is_half_of_watchdog_usec_when_meant_for_us(env: dict[str, str], interval: float | None) -> None:
    assert Notifier(dict(env, NOTIFY_SOCKET="/x")).watchdog_interval == interval


def test_the_watchdog_pings_only_while_healthy(notify_socket: NotifySocket) -> None:
    healthy = threading.Event()
    healthy.set()
    dog = Watchdog(Notifier({"NOTIFY_SOCKET": notify_socket.path}), healthy.is_set, interval=0.05).start()
    try:
        notify_socket.wait("WATCHDOG", "1", count=3, timeout=5)
        healthy.clear()
        time.sleep(0.1)  # a ping already under way may still arrive
        before = len(notify_socket.messages)
        time.sleep(0.4)
        assert len(notify_socket.messages) == before and dog.skipped >= 5
        healthy.set()
        notify_socket.wait("WATCHDOG", "1", count=before + 2, timeout=5)
    finally:
        dog.close()


def test_the_service_says_ready_once_the_dashboard_answers_feeds_the_watchdog_and_says_stopping(
        tmp_path: Path, notify_socket: NotifySocket) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n[gpio]\npin_factory = "mock"\n'
                   '[web]\nhost = "127.0.0.1"\nport = 0\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT), NOTIFY_SOCKET=notify_socket.path, WATCHDOG_USEC="400000")
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "run", "--config", str(cfg), "--lang", "en"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(tmp_path))
    try:
        notify_socket.wait("READY", "1", timeout=60)
        ready = next(m for _, m in notify_socket.messages if "READY" in m)
        assert ready["MAINPID"] == str(proc.pid) and ready["STATUS"].startswith("table table: game 1 (china)")
        assert proc.stdout is not None
        url = next(line.strip() for line in proc.stdout if line.startswith("http://"))
        with urllib.request.urlopen(url + "api/health", timeout=5) as r:  # READY means it answers
            assert r.status == 200
        pings = notify_socket.wait("WATCHDOG", "1", count=5, timeout=10)
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        assert max(gaps) < 0.4, gaps  # every half WATCHDOG_USEC, well inside the timeout
        proc.terminate()
        assert proc.wait(10) == 0
        notify_socket.wait("STOPPING", "1", timeout=2)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_restore_from_the_dashboard_is_a_reload_for_systemd_not_a_stop(tmp_path: Path, notify_socket: NotifySocket) -> None:
    """After STOPPING=1 systemd would kill the process that comes back; a restore says RELOADING=1,
    and the same PID says READY=1 again once it serves the restored data."""
    import http.cookiejar
    import json
    import socket as _socket

    from tableref.backup import create_backup

    with _socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\nname = "Reload"\ndata_dir = "data"\n[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n'
                   f'[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\nport = {port}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT), NOTIFY_SOCKET=notify_socket.path, WATCHDOG_USEC="2000000")
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "run", "--config", str(cfg), "--lang", "en"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env, cwd=str(tmp_path))
    try:
        notify_socket.wait("READY", "1", timeout=60)
        base = f"http://127.0.0.1:{port}"
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def call(method: str, path: str, body: bytes | None = None, ctype: str = "application/json") -> dict:
            csrf = json.loads(opener.open(base + "/api/session", timeout=5).read())["csrf"]
            req = urllib.request.Request(base + path, data=body, method=method, headers={"X-CSRF-Token": csrf, "Content-Type": ctype})
            with opener.open(req, timeout=20) as r:
                return json.loads(r.read())

        call("POST", "/api/pin/setup", json.dumps({"pin": "2468", "confirm": "2468"}).encode())
        create_backup(tmp_path / "data", tmp_path / "b.tar.gz", table="Reload")  # taken while the service runs
        answer = call("POST", "/api/backup/restore", (tmp_path / "b.tar.gz").read_bytes(), "application/gzip")
        assert answer["restarting"] is True
        notify_socket.wait("READY", "1", count=2, timeout=60)
        fields = [m for _, m in notify_socket.messages if "WATCHDOG" not in m]
        assert [sorted(k for k in m if k in ("READY", "RELOADING", "STOPPING")) for m in fields] == [["READY"], ["RELOADING"], ["READY"]]
        assert fields[0]["MAINPID"] == fields[2]["MAINPID"] == str(proc.pid) and proc.poll() is None
        with urllib.request.urlopen(base + "/api/state", timeout=5) as r:
            assert json.loads(r.read())["event_id"] // 10**9 == 2  # a new boot of the same store
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_closing_the_watchdog_does_not_wait_out_a_slow_health_check_and_no_ping_follows(notify_socket: NotifySocket) -> None:
    """A health check asks the referee's worker (up to 5 s under load): a stop must not wait for it."""
    checking, answer = threading.Event(), threading.Event()

    def slow_check() -> bool:
        checking.set()
        answer.wait(10)
        return True

    dog = Watchdog(Notifier({"NOTIFY_SOCKET": notify_socket.path}), slow_check, interval=0.05).start()
    assert checking.wait(5)
    t0 = time.monotonic()
    dog.close(timeout=0.2)
    assert time.monotonic() - t0 < 0.5
    answer.set()  # the check ends after the stop: STOPPING=1 may already be sent, so no WATCHDOG=1 now
    time.sleep(0.3)
    assert not any("WATCHDOG" in m for _, m in notify_socket.messages) and dog.pings == 0
