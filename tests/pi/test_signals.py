"""Every long-running command stops within 2 s of SIGINT (Ctrl-C) or SIGTERM (how systemd stops a
service), with nothing it accepted lost: real processes, real signals, the time to exit measured."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 2.0  # seconds from the signal to the process gone


class Proc:
    """A ``tableref`` subprocess whose output lines are read on a thread."""

    def __init__(self, *args: str, cwd: Path, stdin: bool = False) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        self.p = subprocess.Popen([sys.executable, "-m", "tableref", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, text=True, env=env, cwd=str(cwd))
        self.lines: list[str] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        rx = re.compile(pattern)
        with self._cond:
            assert self._cond.wait_for(lambda: any(rx.search(x) for x in self.lines), timeout), "\n".join(self.lines[-30:])
            return next(m for x in self.lines if (m := rx.search(x)))

    def stop_with(self, sig: int) -> tuple[int, float]:
        """Send ``sig``; the exit code and the seconds until the process was gone."""
        t0 = time.monotonic()
        self.p.send_signal(sig)
        try:
            rc = self.p.wait(LIMIT + 10)
        finally:
            if self.p.poll() is None:
                self.p.kill()
        took = time.monotonic() - t0
        print(f"{' '.join(self.p.args[3:5])}: exit {rc} {took:.2f} s after {signal.Signals(sig).name}")  # shown with -s
        return rc, took

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_demo_stops_mid_game_within_2_s_and_keeps_every_accepted_move(tmp_path: Path, sig: int) -> None:
    proc = Proc("demo", "--port", "0", "--lang", "en", "--data-dir", str(tmp_path / "demo"), cwd=tmp_path)
    try:
        proc.wait_for(r"^\[MOVE\] #\d+", timeout=90)  # the scripted game is under way (it lasts ~90 s)
        time.sleep(0.3)
        rc, took = proc.stop_with(sig)
    finally:
        proc.kill()
    assert rc == 0 and took < LIMIT, (rc, took, proc.lines[-5:])
    assert any(line.startswith("stopped: game 1") for line in proc.lines)  # --lang en
    assert not any("GAME OVER" in line for line in proc.lines)  # it really stopped mid-game
    printed = [int(m.group(1)) for line in proc.lines if (m := re.match(r"^\[MOVE\] #(\d+)", line))]
    db = sqlite3.connect(tmp_path / "demo" / "demo.sqlite")
    stored = {seq for (seq,) in db.execute("SELECT seq FROM events WHERE type = 'move'")}
    db.close()
    assert printed and set(printed) <= stored  # every move announced is in the store


def _sse_client(url: str, opened: threading.Event) -> None:
    """A dashboard tab: an open event stream (the server must end it to stop in time)."""
    try:
        with urllib.request.urlopen(url + "api/stream", timeout=30) as r:
            opened.set()
            while r.read(1):
                pass
    except OSError:
        pass


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_run_with_the_camera_and_an_open_dashboard_stops_within_2_s(tmp_path: Path, sig: int) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[game]\nid = "china"\nboard = "china-a"\nplayers = ["blue", "green", "red"]\n'
                   '[devices.camera]\nsource = "synthetic"\nlayout = "china-a"\nfps = 4\n'
                   '[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    proc = Proc("run", "--config", str(cfg), "--lang", "en", cwd=tmp_path)
    try:
        url = proc.wait_for(r"^http://127\.0\.0\.1:\d+/$").group(0)
        proc.wait_for(r"\[DEVICE\] camera: live", timeout=60)
        opened = threading.Event()
        threading.Thread(target=_sse_client, args=(url, opened), daemon=True).start()
        assert opened.wait(10)
        rc, took = proc.stop_with(sig)
    finally:
        proc.kill()
    assert rc == 0 and took < LIMIT, (rc, took, proc.lines[-5:])
    assert any(line.startswith("Scoreboard") for line in proc.lines)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_emulated_sensor_board_stops_within_2_s_while_it_waits_for_commands(tmp_path: Path, sig: int) -> None:
    proc = Proc("emulate", "sensor-board", "--antennas", "4", cwd=tmp_path, stdin=True)
    try:
        proc.wait_for(r"^/dev/pts/\d+$", timeout=30)
        assert proc.p.stdin is not None
        proc.p.stdin.write("place 1 04AABBCC\n")
        proc.p.stdin.flush()
        time.sleep(0.3)
        rc, took = proc.stop_with(sig)
    finally:
        proc.kill()
    assert rc == 0 and took < LIMIT, (rc, took, proc.lines[-5:])
