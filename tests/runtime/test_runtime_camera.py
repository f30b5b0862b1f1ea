"""The runtime with the synthetic camera (rendered frames read by the vision pipeline) beside the
emulated sensor board: antennas only under Wei and Lu, the camera sees the whole board."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from scorer.core import Piece
from tableref.demo import Demo, build_demo, wait_until

pytest.importorskip("hardware.camera")

H = "house"


def poll(cond: Callable[[], bool], timeout: float = 20.0) -> None:
    assert wait_until(cond, timeout), "condition not met before the deadline"


@pytest.fixture
def demo(tmp_path: Path):
    d = build_demo(tmp_path, settle=0.3, complete_grace=0.4, quiet_timeout=1.5, camera=True, camera_fps=5.0)
    d.runtime.start()
    poll(lambda: d.runtime.devices()["sensor_board"]["state"] == "connected")
    poll(lambda: d.runtime.devices()["camera"]["state"] == "ok", 40)
    yield d
    d.close()


def source_live(d: Demo, name: str) -> bool:
    return any(s["live"] for s in d.runtime.snapshot()["sensors"]["sources"] if s["source"] == name)


@pytest.mark.slow
def test_camera_covers_spaces_without_antennas_and_a_hand_holds_a_move_back(demo: Demo) -> None:
    rt = demo.runtime
    demo.table.put("qi-1", Piece("blue", H))  # no antenna under Qi: only the camera sees it
    poll(lambda: rt.snapshot()["moves"] == 1)
    # a hand over Lu while green puts a house there: RFID reads it at once, but nothing is
    # believed while the camera reports the space covered
    demo.table.hand(("lu-1",))
    poll(lambda: "lu-1" in rt.snapshot()["sensors"]["occluded"])
    demo.table.put("lu-1", Piece("green", H))
    assert not wait_until(lambda: rt.snapshot()["moves"] == 2 or rt.snapshot()["pending"] is not None, 1.5)
    demo.table.hand(())
    poll(lambda: rt.snapshot()["moves"] == 2)
    record = rt.export_record()
    assert [m["pieces"][0]["space"] for m in record["moves"]] == ["qi-1", "lu-1"]
    assert rt.snapshot()["flag"] is None


@pytest.mark.slow
def test_camera_dies_and_play_goes_on_with_the_sensor_board(demo: Demo) -> None:
    rt = demo.runtime
    demo.table.put("chu-1", Piece("blue", H))
    poll(lambda: rt.snapshot()["moves"] == 1)
    demo.table.camera.close()  # the camera dies (every read now fails)
    poll(lambda: not source_live(demo, "camera"))
    poll(lambda: rt.devices()["camera"]["state"] == "down")
    demo.table.put("wei-1", Piece("green", H))  # under an antenna: still refereed
    poll(lambda: rt.snapshot()["moves"] == 2)
    assert rt.snapshot()["flag"] is None  # the spaces nobody sees now are not flagged as empty
    assert "chu-1" not in rt.snapshot()["sensors"]["known"]


@pytest.mark.slow
def test_rfid_decides_identity_and_the_disagreement_is_reported(demo: Demo) -> None:
    rt = demo.runtime
    # a tag under wei-1 that the camera does not see (a piece hidden from it)
    table = demo.table
    uid = table.uids[Piece("blue", H)].pop(0)
    table.emulator.place(table.antenna_of["wei-1"], uid)
    poll(lambda: rt.snapshot()["moves"] == 1)
    poll(lambda: any(d["space"] == "wei-1" for d in rt.snapshot()["sensors"]["disagreements"]))
    d = [d for d in rt.snapshot()["sensors"]["disagreements"] if d["space"] == "wei-1"][0]
    assert d["decided_by"] == "sensor-board" and d["other_source"] == "camera" and d["message"]["zh"]
    assert any(e.type == "devices" and e.data.get("disagreement", {}).get("space") == "wei-1" for e in rt.events().since(0))


@pytest.mark.slow
def test_an_unexpected_error_from_the_camera_shows_it_down_and_it_comes_back(demo: Demo) -> None:
    """Not a camera error the source knows (a driver's bug; the synthetic camera refusing a scene it cannot
    draw): the camera thread goes on, shows the camera down with the reason and reads again once it can."""
    rt = demo.runtime
    camera = demo.table.camera
    real_read = camera.read
    broken = [True]

    def read():
        if broken[0]:
            raise RuntimeError("driver bug")
        return real_read()

    camera.read = read
    poll(lambda: rt.devices()["camera"]["state"] == "down" and "driver bug" in str(rt.devices()["camera"]["last_error"]))
    assert rt.devices()["camera"]["last_error"] == "camera read failed: driver bug"
    broken[0] = False
    poll(lambda: rt.devices()["camera"]["state"] == "ok")
    demo.table.put("qi-1", Piece("blue", H))  # no antenna under Qi: only the camera sees it
    poll(lambda: rt.snapshot()["moves"] == 1)
