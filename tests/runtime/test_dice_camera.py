"""A die the camera reads is the Zhang Yi battle's roll (camera declarations): the runtime with a
synthetic camera over the sample map's dice tray. A battle waits for its die; the die lands
showing N and the referee enters exactly one ``roll_die`` N with source camera for the attacker;
under a hand nothing is entered; a die the camera cannot read leaves a note asking for the roll
to be declared on the dashboard, and the dashboard's declaration still works."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import cv2
import pytest

from scorer.core.game import SetupOptions
from tableref.demo import wait_until
from tableref.runtime import Runtime
from tableref.table import TableSettings

pytest.importorskip("hardware.camera")

from hardware.camera import SyntheticCamera  # noqa: E402
from tableref.camera_device import CameraDevice  # noqa: E402
from vision.detection import Detection, Mode  # noqa: E402
from vision.dice import dice_space  # noqa: E402
from vision.layout import load_layout  # noqa: E402
from vision.registration import Registrar  # noqa: E402
from vision.render import Conditions  # noqa: E402

SETUP = {"players": ["red", "blue"], "board": "sample", "sample_map_confirmed": True, "chance": "declared",
         "first_player": "red"}


def poll(cond: Callable[[], bool], timeout: float = 20.0) -> None:
    assert wait_until(cond, timeout), "condition not met before the deadline"


def moves_to_a_battle(seed: int = 2) -> list:
    """Random legal play (chance declared, as at a real table) up to a battle waiting for its die."""
    from scorer.games.zhang_yi.game import GAME
    from scorer.games.zhang_yi.simulate import Table, random_move
    from scorer.games.zhang_yi.state import A_DIE

    rng = random.Random(seed)
    state = GAME.setup(SetupOptions.from_json(SETUP))
    table = Table.deal(rng, 2)
    moves = []
    while state.awaiting != A_DIE:
        move = random_move(state, rng, table)
        state = GAME.apply(state, move)
        moves.append(move)
    return moves


class TrayOnly:
    """The board reader of these tests: it registers the board and reports no space, so the referee
    keeps the engine's board (the armies are not drawn); the camera device reads the tray itself."""

    def __init__(self, layout) -> None:
        self.registrar = Registrar(layout)

    def read(self, frame, at=None, detail=None) -> Detection:
        return Detection(at or 0.0, Mode.COLOUR, self.registrar.update(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)), ())


def start(tmp_path: Path, conditions: Conditions) -> tuple[Runtime, SyntheticCamera]:
    layout = load_layout("zhang-yi-sample")
    cam = SyntheticCamera(layout, conditions=conditions, noise_sigma=1.0, nominal_fps=8.0)
    rt = Runtime(store_path=str(tmp_path / "zhang-yi.sqlite"), game_id="zhang_yi", setup=SETUP,
                 settings=TableSettings(settle=0.2))
    rt.add_device(CameraDevice(cam, layout, reader=TrayOnly(layout), fps=8.0, emulated=True))
    rt.start()
    poll(lambda: rt.devices()["camera"]["state"] == "ok", 30)
    poll(lambda: rt.devices()["camera"].get("dice", {}).get("state") == "empty", 30)

    def play(table) -> None:
        for move in moves_to_a_battle():
            table.session.record_move((move,), "declared", "test", player=getattr(move, "player", None))
        table.step()

    rt.call(play)
    assert rt.snapshot()["turn"]["awaiting"] == "die_roll"
    return rt, cam


def rolls(rt: Runtime) -> list[dict]:
    return [{k: v for k, v in m.items() if k != "at"} for m in rt.export_record()["moves"] if m["type"] == "roll_die"]


SHARP = Conditions(size=(1920, 1080), fill=0.95, tilt_deg=10.0, tilt_azimuth_deg=200.0, blur_sigma=0.4, seed=3)


@pytest.fixture
def table(tmp_path: Path):
    rt, cam = start(tmp_path, SHARP)
    yield rt, cam
    rt.stop()


@pytest.mark.slow
def test_the_die_the_camera_reads_is_the_battles_roll(table) -> None:
    rt, cam = table
    attacker = rt.snapshot()["turn"]["active"][0]
    moves = rt.snapshot()["moves"]
    cam.roll(4, place=(612.0, 598.0, 23.0))
    poll(lambda: rolls(rt))
    assert rolls(rt) == [{"type": "roll_die", "player": attacker, "value": 4, "source": "camera"}]
    poll(lambda: rt.snapshot()["moves"] >= moves + 1)
    assert rt.snapshot()["turn"]["awaiting"] != "die_roll"
    # the die stays in the tray: no second roll; the state of the tray is on the device page
    assert not wait_until(lambda: len(rolls(rt)) > 1, 1.5)
    assert rt.devices()["camera"]["dice"]["values"] == [4]
    assert rt.snapshot()["camera_note"] is None


@pytest.mark.slow
def test_a_hand_over_the_tray_enters_nothing(table) -> None:
    rt, cam = table
    tray = dice_space(cam.layout)
    cam.hand_over(target=(tray.centre[0] + 5, tray.centre[1]), from_deg=80.0, height=70.0)
    cam.roll(2, place=(615.0, 600.0, 40.0))
    poll(lambda: rt.devices()["camera"].get("dice", {}).get("state") == "occluded")
    assert not wait_until(lambda: rolls(rt), 2.0)
    assert rt.snapshot()["turn"]["awaiting"] == "die_roll"
    # the hand goes: the die that landed under it is read
    cam.withdraw_hand()
    poll(lambda: rolls(rt))
    assert [r["value"] for r in rolls(rt)] == [2]


@pytest.mark.slow
def test_an_unreadable_die_asks_for_a_declaration(tmp_path: Path) -> None:
    far = Conditions(size=(1280, 720), fill=0.6, tilt_deg=10.0, tilt_azimuth_deg=200.0, seed=3)  # a die of 9 px
    rt, cam = start(tmp_path, far)
    try:
        cam.roll(6, place=(612.0, 598.0, 23.0))
        poll(lambda: rt.snapshot()["camera_note"] is not None)
        note = rt.snapshot()["camera_note"]["message"]
        assert "declare the roll on the dashboard" in note["en"] and note["zh-Hans"] and note["zh-Hant"]
        assert not rolls(rt)
        player = rt.snapshot()["turn"]["active"][0]
        res = rt.declare({"type": "roll_die", "player": player, "value": 6, "source": "dashboard"}, "dashboard")
        assert res.ok, res.message
        assert [(r["value"], r["source"]) for r in rolls(rt)] == [(6, "dashboard")]
        assert rt.snapshot()["camera_note"] is None
    finally:
        rt.stop()
