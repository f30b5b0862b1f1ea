"""The real runtime (worker thread, store, bus, devices) with the emulated sensor board on a
pseudo-terminal, mock GPIO pins and the card-reader twin: scripted play, the cable pulled, a
board reboot, wire faults and a fast burst of moves."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from scorer.core import Piece
from tableref.demo import Demo, build_demo, wait_until

H = "house"


def poll(cond: Callable[[], bool], timeout: float = 15.0) -> None:
    assert wait_until(cond, timeout), "condition not met before the deadline"


@pytest.fixture
def demo(tmp_path: Path):
    d = build_demo(tmp_path, settle=0.15, complete_grace=0.3, quiet_timeout=1.0, camera=False)
    d.runtime.start()
    poll(lambda: d.runtime.devices()["sensor_board"]["state"] == "connected")
    yield d
    d.close()


def moves(d: Demo) -> list[dict[str, Any]]:
    return d.runtime.export_record()["moves"]


def stored_types(d: Demo) -> list[str]:
    db = sqlite3.connect(str(d.data_dir / "demo.sqlite"))
    try:
        return [r[0] for r in db.execute("SELECT type FROM events ORDER BY id")]
    finally:
        db.close()


def put(d: Demo, space: str, owner: str, kind: str = H) -> None:
    d.table.put(space, Piece(owner, kind))


def test_cable_pulled_while_play_goes_on(demo: Demo) -> None:
    rt = demo.runtime
    put(demo, "wei-1", "blue")
    poll(lambda: rt.snapshot()["moves"] == 1)
    demo.table.emulator.unplug()
    poll(lambda: rt.devices()["sensor_board"]["state"] != "connected")
    poll(lambda: not any(s["live"] for s in rt.snapshot()["sensors"]["sources"] if s["source"] == "sensor-board"))
    put(demo, "wei-2", "green")  # placed while the cable is out: nobody can see it yet
    put(demo, "wei-3", "green")
    assert rt.snapshot()["moves"] == 1 and rt.snapshot()["flag"] is None
    demo.table.emulator.replug()
    poll(lambda: rt.snapshot()["moves"] == 2)
    assert moves(demo)[1]["pieces"] == [{"kind": "house", "space": "wei-2"}, {"kind": "house", "space": "wei-3"}]
    assert stored_types(demo).count("device") >= 2  # down, then up again


def test_sensor_board_reboot_mid_move_loses_nothing(demo: Demo) -> None:
    rt = demo.runtime
    put(demo, "wei-1", "blue")
    demo.table.emulator.reboot()
    poll(lambda: rt.snapshot()["moves"] == 1)
    put(demo, "wei-2", "green")
    put(demo, "wei-3", "green")
    poll(lambda: rt.snapshot()["moves"] == 2)
    assert rt.snapshot()["flag"] is None


def test_wire_faults_do_not_change_what_is_refereed(demo: Demo) -> None:
    rt = demo.runtime
    em = demo.table.emulator
    em.inject("garbage", n=40)
    em.inject("flip", count=2)
    em.inject("drop", count=1)
    put(demo, "wei-1", "blue")
    poll(lambda: rt.snapshot()["moves"] == 1)
    em.inject("duplicate", count=3)
    put(demo, "wei-2", "green")
    put(demo, "wei-3", "green")
    poll(lambda: rt.snapshot()["moves"] == 2)
    assert [m["player"] for m in moves(demo)] == ["blue", "green"]
    assert rt.snapshot()["flag"] is None


def test_a_fast_burst_of_moves_is_read_in_order(demo: Demo) -> None:
    rt = demo.runtime
    burst = [
        ("blue", ["wei-1"]),
        ("green", ["wei-2", "wei-3"]),
        ("red", ["qi-1"]),
        ("blue", ["lu-1"]),
        ("green", ["lu-2", "lu-3"]),
        ("red", ["qi-2", "qi-3"]),
    ]
    for owner, spaces in burst:
        for s in spaces:
            put(demo, s, owner)
        time.sleep(0.02)  # players faster than the settle time
    poll(lambda: rt.snapshot()["moves"] == len(burst), timeout=20)
    got = [(m["player"], sorted(p["space"] for p in m["pieces"])) for m in moves(demo)]
    # turns in seating order, every turn exactly one of the burst's groups; which of a player's two
    # groups came first is only knowable when their tags arrived in different observations (they
    # usually do: ties go to the pieces that appeared first), so it is not asserted here
    assert [p for p, _ in got] == [p for p, _ in burst]
    assert sorted(got) == sorted((p, sorted(s)) for p, s in burst)
    assert "flag_raised" not in stored_types(demo)


def test_buttons_and_alert_through_mock_gpio(demo: Demo) -> None:
    rt = demo.runtime
    factory = demo.gpio.factory
    demo.gpio.press("turn_done")  # nothing on the table: blue exchanged a card
    poll(lambda: rt.snapshot()["moves"] == 1)
    assert moves(demo)[0] == {"type": "exchange", "player": "blue", "at": moves(demo)[0]["at"]}
    before = len(factory.pin(23).states)
    put(demo, "wei-1", "red")  # not red's turn
    poll(lambda: rt.snapshot()["flag"] is not None)
    poll(lambda: True in [s.state for s in factory.pin(23).states[before:]] and
         False in [s.state for s in factory.pin(23).states[before:]])
    demo.gpio.press("confirm")  # silences the buzzer
    poll(lambda: rt.snapshot()["alert"]["silenced"])
    poll(lambda: factory.pin(24).state is False)
    demo.table.take("wei-1", Piece("red", H))
    poll(lambda: rt.snapshot()["flag"] is None)
    poll(lambda: factory.pin(23).state is False)
    assert rt.devices()["gpio"]["presses"]["turn_done"] == 1
