"""Sensor fusion on Cheops and The Great Wall (issue 14, item 6), as China's and Ming's demos show it:
the synthetic camera reads the whole board and the emulated sensor board the spaces with an antenna
(Cheops: the pyramid; The Great Wall: every section). A hand over a space holds the antenna's reading
back until it leaves; a piece only the antenna reads is a disagreement, decided by the sensor board
and shown with its reason."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("hardware.camera")

from scorer.core import Piece  # noqa: E402
from tableref.demo import Demo, build_game_demo, enrol_camera, game_demo, wait_until  # noqa: E402

N = "neutral"


def started(game: str, tmp_path: Path) -> Demo:
    """The game's demo table with the camera and the sensor board, the camera enrolled first (as the
    demo does: these games' pieces are not read from the layout's nominal looks)."""
    demo = build_game_demo(dataclasses.replace(game_demo(game), enrol=True), tmp_path, settle=0.3, complete_grace=0.4,
                           quiet_timeout=1.5, camera=True, camera_fps=5.0)
    rt = demo.runtime
    rt.start()
    assert wait_until(lambda: rt.devices()["sensor_board"]["state"] == "connected", 20)
    enrol_camera(demo, timeout=60, out=io.StringIO())
    assert wait_until(lambda: rt.devices()["camera"]["state"] == "ok", 40)
    return demo


def disagreement(demo: Demo, space: str) -> dict | None:
    return next((d for d in demo.runtime.snapshot()["sensors"]["disagreements"] if d["space"] == space), None)


@pytest.mark.slow
def test_cheops_a_hand_holds_the_pyramid_back_and_the_antenna_decides_a_disagreement(tmp_path: Path) -> None:
    demo = started("cheops", tmp_path)
    rt, table = demo.runtime, demo.table
    try:
        assert "r11c1" in table.antenna_of and "price-black" not in table.antenna_of  # antennas under the pyramid only
        # blue lays tile A on r11c1 and sells its black treasure, under a hand: the antenna reads the tile
        # at once, but nothing is believed while the camera reports the space covered
        table.hand(("r11c1",))
        assert wait_until(lambda: "r11c1" in rt.snapshot()["sensors"]["occluded"], 20)
        table.take("r11c1", Piece(N, "treasure-black"))
        table.put("r11c1", Piece(N, "family-A"))
        table.put("price-black", Piece(N, "treasure-black"))
        assert not wait_until(lambda: rt.snapshot().get("pending") is not None or rt.snapshot()["moves"], 2.0)
        table.hand(())
        assert wait_until(lambda: rt.snapshot().get("pending") is not None, 20)  # the turn shown, to be declared
        assert rt.snapshot()["flag"] is None
        # a tile's tag under r11c2 that the camera does not see (it still sees the red treasure there)
        uid = table.uids[Piece(N, "family-B")].pop(0)
        table.emulator.place(table.antenna_of["r11c2"], uid)
        assert wait_until(lambda: disagreement(demo, "r11c2") is not None, 20)
        d = disagreement(demo, "r11c2")
        assert d["decided_by"] == "sensor-board" and d["other_source"] == "camera" and d["message"]["zh"]
    finally:
        demo.close()


@pytest.mark.slow
def test_great_wall_a_hand_holds_a_section_back_and_the_antenna_decides_a_disagreement(tmp_path: Path) -> None:
    demo = started("great_wall", tmp_path)
    rt, table = demo.runtime, demo.table
    try:
        # the two tokens revealed beside section 1, under a hand: held back until it leaves
        table.hand(("section-1",))
        assert wait_until(lambda: "section-1" in rt.snapshot()["sensors"]["occluded"], 20)
        table.put("section-1", Piece(N, "token-5"))
        table.put("section-1", Piece(N, "token-3"))
        assert not wait_until(lambda: rt.snapshot()["moves"] or rt.snapshot().get("pending") is not None, 2.0)
        table.hand(())
        assert wait_until(lambda: rt.snapshot()["moves"] == 1, 20)
        assert rt.snapshot()["flag"] is None
        # a token's tag at section 2 that the camera does not see: the sensor board decides, the camera disagrees
        uid = table.uids[Piece(N, "token-4")].pop(0)
        table.emulator.place(table.antenna_of["section-2"], uid)
        assert wait_until(lambda: disagreement(demo, "section-2") is not None, 20)
        d = disagreement(demo, "section-2")
        assert d["decided_by"] == "sensor-board" and d["other_source"] == "camera" and d["message"]["en"]
        # one token of the two due there, left so: flagged with the rule it breaks (not recorded as a reveal)
        assert wait_until(lambda: rt.snapshot()["flag"] is not None, 20)
        assert "reveal.count" in json.dumps(rt.snapshot()["flag"]) and rt.snapshot()["moves"] == 1
    finally:
        demo.close()
