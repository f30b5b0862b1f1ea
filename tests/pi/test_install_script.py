"""scripts/install-pi.sh on this Debian machine: its prefix + dry-run mode writes everything under
a folder and prints what it would run as root; the unit it writes passes ``systemd-analyze verify``;
and the real ``tableref`` service, started from that unit's ``ExecStart`` under a supervisor that
honours the unit's [Service] semantics (systemd is not PID 1 in this container, see
unit_supervisor.py), answers, is killed with SIGKILL and comes back, is restarted by its watchdog
when it hangs, and stops cleanly within 2 s."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tableref.config import load_config
from unit_supervisor import Supervisor, Unit, timespan

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-pi.sh"
VENV = Path(sys.executable).absolute().parent.parent if (Path(sys.executable).parent / "tableref").exists() else None
needs_venv = pytest.mark.skipif(VENV is None, reason="the tests' Python has no `tableref` script beside it (not a virtualenv with tableref)")


def install(prefix: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = ["bash", str(SCRIPT), "--prefix", str(prefix), "--dry-run", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if check:
        assert res.returncode == 0, res.stdout + res.stderr
    return res


def root_commands(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    if VENV is None:
        pytest.skip("the tests' Python has no `tableref` script beside it")
    prefix = tmp_path / "root"
    install(prefix, "--venv", str(VENV), "--port", str(free_port()))
    return prefix


@needs_venv
def test_prefix_dry_run_writes_everything_under_the_prefix_and_prints_the_root_commands(tmp_path: Path) -> None:
    prefix = tmp_path / "root"
    res = install(prefix, "--venv", str(VENV), "--port", "8123")
    cmds = root_commands(res.stdout)
    assert "apt-get update" in cmds
    assert "apt-get install -y --no-install-recommends python3-venv python3-pip python3-picamera2 python3-lgpio" in cmds
    assert any(re.match(r"useradd --system --user-group --home-dir /var/lib/tableref .*tableref$", c) for c in cmds) \
        or os.system("getent passwd tableref >/dev/null") == 0
    assert "usermod --append --groups video,gpio,dialout tableref" in cmds
    assert f"chown -R tableref:tableref {prefix}/var/lib/tableref" in cmds
    assert cmds[-2:] == ["systemctl daemon-reload", "systemctl enable --now tableref.service"]
    files = sorted(p.relative_to(prefix).as_posix() for p in prefix.rglob("*") if p.is_file())
    assert files == ["etc/systemd/system/tableref.service", "etc/tableref/table.toml",
                     "var/lib/tableref/table-tags.json", "var/lib/tableref/table-wiring.json"]
    config = load_config(str(prefix / "etc/tableref/table.toml"))  # a valid configuration, data in /var/lib
    assert config.data_dir == str(prefix / "var/lib/tableref") and config.web.port == 8123 and config.web.host == "0.0.0.0"
    assert config.sensor_board.tags == str(prefix / "var/lib/tableref/table-tags.json")
    assert config.camera.source == "picamera2" and config.gpio.pin_factory == "lgpio"
    assert oct((prefix / "etc/tableref/table.toml").stat().st_mode & 0o777) == "0o640"
    unit = Unit.load(prefix / "etc/systemd/system/tableref.service")
    assert unit.argv == [str(VENV / "bin/tableref"), "run", "--config", str(prefix / "etc/tableref/table.toml")]
    assert unit.get("Type") == "notify" and unit.get("Restart") == "on-failure" and timespan(unit.get("WatchdogSec") or "") == 30
    assert unit.get("User") == "tableref" and unit.get("StandardOutput") == "journal"
    assert unit.get("WorkingDirectory") == str(prefix / "var/lib/tableref")


@needs_venv
def test_a_second_install_keeps_the_edited_configuration_and_the_data(installed: Path) -> None:
    cfg = installed / "etc/tableref/table.toml"
    cfg.write_text(cfg.read_text().replace('name = "Table 1"', 'name = "Window table"'))
    (installed / "var/lib/tableref/table1.sqlite").write_bytes(b"games")
    res = install(installed, "--venv", str(VENV))
    assert f"keeping the configuration {cfg}" in res.stdout
    assert load_config(str(cfg)).name == "Window table"
    assert (installed / "var/lib/tableref/table1.sqlite").read_bytes() == b"games"


def test_the_unit_passes_systemd_analyze_verify(installed: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here (Debian: systemd)")
    res = subprocess.run(["systemd-analyze", "verify", str(installed / "etc/systemd/system/tableref.service")],
                         capture_output=True, text=True, timeout=120)
    # verify exits 0 even for a key it ignores; any line it prints is a problem
    assert res.returncode == 0 and res.stdout.strip() == "" and res.stderr.strip() == "", res.stdout + res.stderr


def test_systemd_analyze_verify_would_catch_a_broken_unit(installed: Path, tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here (Debian: systemd)")
    bad = tmp_path / "tableref.service"
    bad.write_text((installed / "etc/systemd/system/tableref.service").read_text().replace("Restart=on-failure", "Restart=sometimes"))
    res = subprocess.run(["systemd-analyze", "verify", str(bad)], capture_output=True, text=True, timeout=120)
    assert "Failed to parse service restart specifier" in res.stderr


def test_uninstall_keeps_configuration_and_data_and_purge_removes_them(installed: Path) -> None:
    (installed / "var/lib/tableref/table1.sqlite").write_bytes(b"games")
    res = install(installed, "--uninstall", "--venv", str(VENV))
    assert root_commands(res.stdout) == ["systemctl disable --now tableref.service", "systemctl daemon-reload"]
    assert not (installed / "etc/systemd/system/tableref.service").exists()
    assert (installed / "etc/tableref/table.toml").exists() and (installed / "var/lib/tableref/table1.sqlite").exists()
    assert "kept the configuration" in res.stdout
    res = install(installed, "--uninstall", "--purge", "--venv", str(VENV))
    assert not (installed / "etc/tableref").exists() and not (installed / "var/lib/tableref").exists()
    if os.system("getent passwd tableref >/dev/null") == 0:
        assert "userdel tableref" in root_commands(res.stdout)


def test_bad_options_are_refused(tmp_path: Path) -> None:
    for args, message in ((["--purge"], "--purge goes with --uninstall"), (["--port", "web"], "--port must be a number"),
                          (["--frobnicate"], "unknown option --frobnicate")):
        res = install(tmp_path / "root", *args, check=False)
        assert res.returncode == 2 and message in res.stderr


# -- the service from the unit, under the supervisor --------------------------------------------------

def for_this_machine(prefix: Path) -> int:
    """What an admin edits in /etc/tableref/table.toml on a machine without the Pi's parts: the synthetic
    camera, the emulated sensor board, mock GPIO, the dashboard on loopback (no mDNS off this machine)."""
    cfg = prefix / "etc/tableref/table.toml"
    port = free_port()
    text = cfg.read_text()
    for old, new in (('port = "auto"', 'port = "emulated"'), ('source = "picamera2"', 'source = "synthetic"'),
                     ('width = 1280', 'width = 960'), ('pin_factory = "lgpio"', 'pin_factory = "mock"'),
                     ('host = "0.0.0.0"', 'host = "127.0.0.1"')):
        assert old in text, old
        text = text.replace(old, new)
    text = re.sub(r"(?m)^port = \d+$", f"port = {port}", text)
    cfg.write_text(text)
    return port


def health(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
        return json.loads(r.read())


def boots(prefix: Path) -> int:
    db = sqlite3.connect(prefix / "var/lib/tableref/table1.sqlite")
    try:
        return int(db.execute("SELECT value FROM meta WHERE key = 'boot'").fetchone()[0])
    finally:
        db.close()


@pytest.fixture
def service(installed: Path, tmp_path: Path):
    port = for_this_machine(installed)
    made: list[Supervisor] = []

    def run(**overrides: str) -> tuple[Supervisor, int]:
        unit = Unit.load(installed / "etc/systemd/system/tableref.service", overrides)
        sup = Supervisor(unit, tmp_path).start()
        made.append(sup)
        return sup, port

    yield run
    for sup in made:
        sup.stop()


def test_the_service_answers_is_killed_with_sigkill_and_comes_back(service, installed: Path) -> None:
    sup, port = service()
    first = sup.wait_for("ready", timeout=90)[0]
    state = health(port)  # READY=1 came once the dashboard answered
    assert state["game"] == "china" and state["table"]["name"] == "Table 1"
    pid = first.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # a crash, a power cut of the process
    sup.wait_for("restart", timeout=30)
    second = sup.wait_for("ready", count=2, timeout=90)[1]
    assert second.pid != pid and second.at - first.at > timespan(sup.unit.get("RestartSec") or "0")
    assert health(port)["game"] == "china" and boots(installed) == 2  # the same store, resumed
    kinds = [e.kind for e in sup.events if e.kind != "watchdog-ping"]
    assert kinds[:5] == ["start", "ready", "exit", "restart", "start"] and sup.events[2].detail == "signal SIGKILL"
    assert "ignored" not in kinds
    took = sup.stop()  # systemctl stop: SIGTERM, within 2 s, and no restart after a clean stop
    assert took < 2.0, took
    assert [e.kind for e in sup.events if e.kind not in ("watchdog-ping",)][-3:] == ["stop", "stopping", "exit"]
    assert sup.events[-1].detail == "code 0"
    journal = (sup.log_path).read_text()
    assert journal.count("table Table 1: game 1 (china)") == 2 and "Scoreboard" in journal


def test_a_hung_service_is_restarted_by_its_watchdog(service) -> None:
    sup, port = service(WatchdogSec="3", TimeoutStopSec="2")  # a drop-in with a short watchdog, to keep the test short
    first = sup.wait_for("ready", timeout=90)[0]
    sup.wait_for("watchdog-ping", count=2, timeout=10)
    assert first.pid is not None
    os.kill(first.pid, signal.SIGSTOP)  # hung: no more pings
    timeout = sup.wait_for("watchdog-timeout", timeout=15)[0]
    assert timeout.pid == first.pid
    last_ping = max(e.at for e in sup.events if e.kind == "watchdog-ping" and e.pid == first.pid)
    assert 3.0 <= timeout.at - last_ping < 4.0
    sup.wait_for("restart", timeout=15)
    second = sup.wait_for("ready", count=2, timeout=90)[1]
    assert second.pid != first.pid and health(port)["game"] == "china"


def test_a_service_that_cannot_start_stops_being_restarted_at_the_start_limit(service, installed: Path) -> None:
    cfg = installed / "etc/tableref/table.toml"
    cfg.write_text(cfg.read_text().replace('players = ["blue", "green", "red", "yellow"]', 'players = ["blue", "blue"]'))
    sup, _port = service(RestartSec="0.2", StartLimitBurst="3", StartLimitIntervalSec="60")
    give_up = sup.wait_for("give-up", timeout=60)[0]
    exits = [e for e in sup.events if e.kind == "exit"]
    assert len(exits) == 3 and all(e.detail == "code 2" for e in exits) and give_up.detail == "start-limit-hit"
    assert "players" in sup.log_path.read_text()  # the reason is in the journal


@pytest.mark.slow
def test_a_prefix_install_makes_a_real_virtualenv_that_sees_the_system_packages(tmp_path: Path) -> None:
    """The whole path without --venv: the virtualenv made with --system-site-packages and this
    checkout installed into it (downloads from PyPI what pip has not cached)."""
    prefix = tmp_path / "root"
    t0 = time.monotonic()
    res = install(prefix, "--no-start")
    venv = prefix / "opt/tableref/venv"
    assert "--system-site-packages" in res.stdout and "systemctl enable tableref.service" in root_commands(res.stdout)
    cfg = (venv / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in cfg
    out = subprocess.run([str(venv / "bin/tableref"), "config", "check", str(prefix / "etc/tableref/table.toml")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout)["table"] == "Table 1"
    print(f"prefix install with a new virtualenv: {time.monotonic() - t0:.0f} s")
