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


def _camera_table(tmp_path: Path) -> Path:
    """A China table read by the synthetic camera, its dashboard on a free port."""
    cfg = tmp_path / "table.toml"
    cfg.write_text('[game]\nid = "china"\nboard = "china-a"\nplayers = ["blue", "green", "red"]\n'
                   '[devices.camera]\nsource = "synthetic"\nlayout = "china-a"\nfps = 4\n'
                   '[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    return cfg


def _camera_live(proc: Proc) -> str:
    """Waits until ``tableref run`` on ``_camera_table`` serves its dashboard and its camera is live: the URL."""
    url = proc.wait_for(r"^http://127\.0\.0\.1:\d+/$").group(0)
    proc.wait_for(r"\[DEVICE\] camera: live", timeout=60)
    return url


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
    proc = Proc("run", "--config", str(_camera_table(tmp_path)), "--lang", "en", cwd=tmp_path)
    try:
        url = _camera_live(proc)
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


def _thread_ids(pid: int) -> list[int]:
    return sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))


def _tgkill(pid: int, tid: int, sig: int) -> None:
    """``sig`` to one thread of another process (glibc's tgkill(2) wrapper)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.tgkill(pid, tid, sig) != 0:
        raise OSError(ctypes.get_errno(), f"tgkill({pid}, {tid}, {sig})")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread-directed signals through /proc and tgkill(2): Linux")
def test_run_stops_within_2_s_when_the_sigterm_lands_on_another_thread(tmp_path: Path) -> None:
    """The kernel may hand a process's SIGTERM to any thread that does not block it. The service
    used to act on it only if the main thread was interrupted, and sat in its wait until systemd's
    SIGKILL 10 s later; the same wait missed a SIGTERM that came just as it began (the flaky
    test_the_service_answers_is_killed_with_sigkill_and_comes_back)."""
    proc = Proc("run", "--config", str(_camera_table(tmp_path)), "--lang", "en", cwd=tmp_path)
    try:
        _camera_live(proc)
        others = [t for t in _thread_ids(proc.p.pid) if t != proc.p.pid]
        assert others, "the service runs threads besides its main one"
        t0 = time.monotonic()
        _tgkill(proc.p.pid, others[-1], signal.SIGTERM)
        try:
            rc = proc.p.wait(LIMIT + 3)
        except subprocess.TimeoutExpired:
            rc = None
        took = time.monotonic() - t0
    finally:
        proc.kill()
    assert rc == 0 and took < LIMIT, (rc, took, proc.lines[-5:])
    assert any(line.startswith("Scoreboard") for line in proc.lines)


_RACE = r"""
import ctypes, ctypes.util, os, random, signal, sys, threading, time
from tableref.stopper import Stopper

# a POSIX timer that makes the kernel send SIGTERM to this process a few microseconds from now: no
# thread of ours has to run to send it. PyDLL: the calls keep the interpreter's lock, so the main
# thread goes straight on into its wait.
try:
    libc = ctypes.PyDLL(None, use_errno=True)
    libc.timer_create
except AttributeError:  # glibc before 2.34: librt
    libc = ctypes.PyDLL(ctypes.util.find_library("rt"), use_errno=True)

class Sigevent(ctypes.Structure):  # struct sigevent: value, signo, notify, then padding to 64 bytes (or more)
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int), ("pad", ctypes.c_int * 16)]

class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]

class Itimerspec(ctypes.Structure):
    _fields_ = [("interval", Timespec), ("value", Timespec)]

timer = ctypes.c_void_p()
event = Sigevent(None, signal.SIGTERM, 0)  # SIGEV_SIGNAL
assert libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) == 0, ctypes.get_errno()  # CLOCK_MONOTONIC

def sigterm_in(seconds):
    spec = Itimerspec(Timespec(0, 0), Timespec(0, max(1000, int(seconds * 1e9))))
    assert libc.timer_settime(timer, 0, ctypes.byref(spec), None) == 0, ctypes.get_errno()

def busy():  # a thread that wants the interpreter, as the camera and the referee's worker do
    while True:
        pass

threading.Thread(target=busy, daemon=True).start()
progress = [0]

def watch():  # a stop that hangs: say which one and end the process (the main thread cannot)
    last, since = -1, time.monotonic()
    while True:
        time.sleep(0.2)
        if progress[0] != last:
            last, since = progress[0], time.monotonic()
        elif time.monotonic() - since > 3:
            print(f"stop {last}: SIGTERM sent, the main thread still waits 3 s later", flush=True)
            os._exit(3)

threading.Thread(target=watch, daemon=True).start()
random.seed(int(sys.argv[2]))
with Stopper() as stop:
    for i in range(int(sys.argv[1])):
        progress[0] = i
        stop.event.clear()
        sigterm_in(random.uniform(0, 0.0003))  # lands as the main thread starts to wait, or just before
        stop.event.wait()
print("stopped every time", flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a POSIX timer through glibc: Linux")
def test_a_sigterm_that_lands_as_the_main_thread_begins_to_wait_is_not_lost() -> None:
    """``Stopper`` in a real process, 300 stops, each by a SIGTERM the kernel sends within 0.3 ms,
    as the main thread enters ``stop.event.wait()`` while another thread keeps the interpreter busy.
    Before the fix one was lost within 9-56 stops in each of 6 runs (the main thread slept on in its
    wait, as the service did until systemd's SIGKILL); now none is (about 2 s)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", _RACE, "300", "7"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0 and "stopped every time" in res.stdout, res.stdout + res.stderr
