"""A stop's steps are bounded (tableref.appliance.StopSteps, Runtime.stop, EventStore.close): a step
that blocks is left after its bound and named in the log, the stop goes on, and the whole stop stays
within its budget, so ``tableref run`` is gone within 2 s of SIGTERM (tests/pi/test_signals.py)
instead of being killed by systemd 10 s later. Real threads, real locks, a real runtime and store."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tableref.appliance import STOP_BUDGET, StopSteps
from tableref.runtime import Runtime
from tableref.store import EventStore

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}


def test_a_step_that_blocks_is_left_after_its_bound_named_in_the_log_and_the_next_step_runs(
        caplog: pytest.LogCaptureFixture) -> None:
    held = threading.Lock()
    held.acquire()  # what the step waits for never comes (a lock a stuck thread holds)
    ran: list[str] = []
    steps = StopSteps(budget=2.0)
    t0 = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="tableref.appliance"):
        assert steps.run("dashboard", held.acquire, bound=0.3) is False
        took = time.monotonic() - t0
        assert steps.run("runtime", lambda: ran.append("runtime")) is True
    assert 0.3 <= took < 0.6 and ran == ["runtime"] and steps.overruns == ["dashboard"]
    assert any("stop: dashboard did not end within 0.30 s" in r.getMessage() for r in caplog.records)
    held.release()


def test_every_step_together_stays_within_the_budget() -> None:
    never = threading.Event()
    steps = StopSteps(budget=0.6)
    t0 = time.monotonic()
    for name in ("STOPPING=1", "dashboard", "console", "runtime"):
        steps.run(name, lambda: never.wait(30))  # each would take the rest of the budget and more
    assert time.monotonic() - t0 < 0.8 and steps.left() == 0.0
    # the first took the whole budget; the others were started and given nothing more
    assert steps.overruns == ["STOPPING=1", "dashboard", "console", "runtime"]
    assert STOP_BUDGET < 2.0  # the service's own budget leaves room for the exit within systemd's 2 s


def test_a_step_that_fails_is_logged_and_the_stop_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> None:
        raise OSError("socket gone")

    steps = StopSteps(budget=1.0)
    with caplog.at_level(logging.WARNING, logger="tableref.appliance"):
        assert steps.run("dashboard", broken) is True
        assert steps.run("runtime", lambda: None) is True
    assert any("stop: dashboard failed" in r.getMessage() and "socket gone" in r.getMessage() for r in caplog.records)


class _StuckDevice:
    """A device whose close never returns (a driver stuck in a read): what the runtime must not wait for."""

    name = "camera"

    def __init__(self) -> None:
        self.release = threading.Event()

    def start(self, runtime: Any) -> None:
        pass

    def close(self) -> None:
        self.release.wait(30)

    def status(self) -> dict[str, Any]:
        return {"state": "ok"}


def test_the_runtime_stops_within_its_timeout_when_a_device_does_not_close(tmp_path: Path,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "table.sqlite"
    rt = Runtime(store_path=str(path), game_id="china", setup=SETUP)
    device = _StuckDevice()
    rt.add_device(device)
    rt.start()
    assert rt.declare({"type": "exchange", "player": "blue"}, "test").ok
    t0 = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="tableref.runtime"):
        assert rt.stop(timeout=1.0) is False
    took = time.monotonic() - t0
    device.release.set()
    assert took < 1.3, took
    assert any("device(s) camera did not close" in r.getMessage() for r in caplog.records)
    assert not rt.running and rt.store is not None and rt.store._closed  # the worker ended and the store closed
    again = EventStore(str(path))  # nothing accepted was lost
    try:
        assert [e.type for e in again.events(1)].count("move") == 1
    finally:
        again.close()


def test_the_event_store_closes_only_between_writes_and_waits_for_one_at_most_its_timeout(tmp_path: Path) -> None:
    store = EventStore(str(tmp_path / "table.sqlite"))
    writing, done = threading.Event(), threading.Event()

    def write() -> None:
        with store._lock:  # a write under way holds the store's lock
            writing.set()
            done.wait(10)

    threading.Thread(target=write, daemon=True).start()
    assert writing.wait(5)
    t0 = time.monotonic()
    assert store.close(timeout=0.2) is False
    assert 0.2 <= time.monotonic() - t0 < 0.5 and not store._closed
    done.set()
    assert store.close(timeout=2.0) is True and store._closed
