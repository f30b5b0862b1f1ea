"""The dice tray read by the camera (vision.dice): every face 1-6 on rendered frames with known
truth, turned and seen obliquely; a hand, a die too small to read and a blurred die give their
state, never a guess; the watch turns reads into one roll per landing."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.dice import DiceReader, DiceReading, DiceState, DiceWatch, DieRead, dice_space, die_kinds, die_look
from vision.layout import load_layout
from vision.registration import Registrar
from vision.render import Conditions, Hand, Placement, render

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def layout():
    return load_layout("zhang-yi-sample")


@pytest.fixture(scope="module")
def reader(layout):
    return DiceReader(layout)  # no enrolment: the layout's own artwork, as the renderer draws it


def roll(layout, value: int | None, conditions: Conditions, at: tuple[float, float, float] = (600.0, 602.0, 17.0)):
    """A frame of the tray with one die (``value`` on top; None: the tray empty) and its homography."""
    tray = dice_space(layout)
    kind = die_kinds(layout)[0]
    if value is None:
        r = render(layout, Board(), conditions)
    else:
        board = Board.from_counts({tray.id: {Piece("neutral", kind): 1}})
        r = render(layout, board, conditions, placements=(Placement(tray.id, Piece("neutral", kind), *at, 0.0),),
                   dice=[value])
    return r.image, r.truth.homography


CLEAR = Conditions(size=(1920, 1080), fill=0.95, tilt_deg=12.0, tilt_azimuth_deg=200.0, noise_sigma=2.0,
                   blur_sigma=0.5, jpeg_quality=90, seed=4)


def test_the_layout_says_what_a_die_is(layout):
    look = die_look(layout)
    assert look.kind == "die" and look.size_mm == 16 and look.height_mm == 16 and look.rgb == (245, 245, 240)
    assert dice_space(layout).id == "dice-tray" and die_kinds(layout) == ("die",)


@pytest.mark.parametrize("value", range(1, 7))
def test_every_face_is_read(layout, reader, value):
    img, H = roll(layout, value, replace(CLEAR, seed=value))
    got = reader.read(img, H)
    assert got.state == DiceState.READ, got
    assert got.values == (value,)
    die = got.dice[0]
    assert die.confidence >= 0.999
    assert np.hypot(die.centre_mm[0] - 600, die.centre_mm[1] - 602) < 2.0  # the top face, parallax taken off
    assert 12 <= die.size_mm <= 20


@pytest.mark.parametrize("value,angle,tilt,azimuth", [(2, 33.0, 30.0, 40.0), (3, 71.0, 25.0, 310.0),
                                                       (6, 48.0, 32.0, 130.0), (5, 5.0, 0.0, 0.0)])
def test_turned_dice_seen_obliquely(layout, reader, value, angle, tilt, azimuth):
    c = replace(CLEAR, tilt_deg=tilt, tilt_azimuth_deg=azimuth, seed=20 + value)
    img, H = roll(layout, value, c, (640.0, 590.0, angle))
    got = reader.read(img, H)
    assert got.values == (value,), got


def test_through_its_own_registration(layout):
    img, _ = roll(layout, 4, replace(CLEAR, seed=31))
    reg = Registrar(layout).detect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert reg.usable
    assert DiceReader(layout).read(img, reg.homography).values == (4,)


def test_a_crop_of_the_frame_reads_the_same(layout, reader):
    img, H = roll(layout, 5, replace(CLEAR, seed=32))
    x0, y0 = 900, 400
    got = DiceReader(layout).read(img[y0:, x0:], H, origin=(x0, y0), frame_size=(img.shape[1], img.shape[0]))
    assert got.values == (5,)


def test_an_empty_tray(layout, reader):
    img, H = roll(layout, None, CLEAR)
    got = DiceReader(layout).read(img, H)
    assert got.state == DiceState.EMPTY and got.values == () and got.reason is None


def test_a_hand_over_the_die_is_occluded_not_a_guess(layout):
    tray = dice_space(layout)
    for seed, frm in ((41, 60.0), (42, 250.0)):
        c = replace(CLEAR, seed=seed, hand=Hand((tray.centre[0] + 10, tray.centre[1]), frm, 70.0))
        img, H = roll(layout, 6, c, (610.0, 600.0, 10.0))
        got = DiceReader(layout).read(img, H)
        assert got.state == DiceState.OCCLUDED and got.values == (), got
        assert got.reason.en == "A hand is over the dice tray." and got.reason.zh


def test_the_board_reader_saw_the_hand(layout, reader):
    img, H = roll(layout, 3, replace(CLEAR, seed=43))
    got = DiceReader(layout).read(img, H, occluded=True)
    assert got.state == DiceState.OCCLUDED and got.values == ()


def test_a_die_too_small_in_the_picture_is_unreadable(layout):
    img, H = roll(layout, 2, replace(CLEAR, size=(640, 360), fill=0.6, seed=44))
    got = DiceReader(layout).read(img, H)
    assert got.values == ()
    assert got.state in (DiceState.UNREADABLE, DiceState.EMPTY, DiceState.OCCLUDED)  # never a guess
    if got.state == DiceState.UNREADABLE:
        assert "pixels wide" in got.reason.en and "像素" in got.reason.zh


def test_a_badly_blurred_die_is_unreadable_not_a_guess(layout):
    for seed, value in ((45, 5), (46, 6), (47, 4)):
        img, H = roll(layout, value, replace(CLEAR, blur_sigma=5.0, seed=seed))
        got = DiceReader(layout).read(img, H)
        assert got.values in ((), (value,)), got  # never another value
        assert got.state != DiceState.EMPTY


def test_not_registered(layout, reader):
    img, _ = roll(layout, 3, CLEAR)
    got = reader.read(img, None)
    assert got.state == DiceState.NOT_REGISTERED and got.reason.en and got.reason.zh


def test_the_reason_in_three_languages(layout):
    img, H = roll(layout, 2, replace(CLEAR, size=(640, 360), fill=0.6, seed=44))
    got = DiceReader(layout).read(img, H)
    if got.reason is not None:
        j = got.reason.to_json()
        assert j["en"] and j["zh-Hans"] and j["zh-Hant"]


# -------------------------------------------------------------------------------------- the watch

def reading(state: DiceState, value: int | None = None, where=(600.0, 600.0), at: float = 0.0) -> DiceReading:
    dice = () if state in (DiceState.EMPTY, DiceState.OCCLUDED) else (DieRead(value, 1.0, where, 0.0, 16.0),)
    return DiceReading(state, dice, at=at)


def test_a_landing_is_one_roll():
    w = DiceWatch()
    assert w.update(reading(DiceState.EMPTY)) is None
    assert w.update(reading(DiceState.READ, 4, at=1.0)) is None  # landed: not at rest yet
    r = w.update(reading(DiceState.READ, 4, at=1.25))
    assert r is not None and r.values == (4,) and r.readable and r.at == 1.25
    for t in (1.5, 1.75, 2.0):
        assert w.update(reading(DiceState.READ, 4, at=t)) is None  # lying there: no second roll


def test_a_die_still_rolling_is_not_a_roll():
    w = DiceWatch()
    w.update(reading(DiceState.EMPTY))
    assert w.update(reading(DiceState.READ, 2, (600, 600))) is None
    assert w.update(reading(DiceState.READ, 5, (605, 600))) is None
    assert w.state == DiceState.MOVING
    assert w.update(reading(DiceState.READ, 5, (612, 601))) is None  # moved 7 mm
    assert w.update(reading(DiceState.READ, 5, (612.5, 601))).values == (5,)


def test_the_die_lying_there_when_watching_starts_is_no_roll():
    w = DiceWatch()
    assert w.update(reading(DiceState.READ, 3)) is None
    assert w.update(reading(DiceState.READ, 3)) is None
    assert w.update(reading(DiceState.OCCLUDED)) is None  # picked up ...
    assert w.update(reading(DiceState.READ, 3, (640, 610))) is None
    assert w.update(reading(DiceState.READ, 3, (640, 610))).values == (3,)  # ... and thrown again


def test_a_hand_passing_over_a_lying_die_is_no_new_roll():
    w = DiceWatch()
    w.update(reading(DiceState.EMPTY))
    w.update(reading(DiceState.READ, 6))
    assert w.update(reading(DiceState.READ, 6)).values == (6,)
    assert w.update(reading(DiceState.OCCLUDED)) is None
    assert w.update(reading(DiceState.READ, 6)) is None
    assert w.update(reading(DiceState.READ, 6)) is None


def test_an_unreadable_landing_is_reported_once_without_values():
    w = DiceWatch()
    w.update(reading(DiceState.EMPTY))
    w.update(reading(DiceState.UNREADABLE))
    r = w.update(reading(DiceState.UNREADABLE))
    assert r is not None and r.values == () and not r.readable
    assert w.update(reading(DiceState.UNREADABLE)) is None


# -------------------------------------------------------------------------------------- independence

def test_the_evaluation_generator_shares_no_code_with_the_reader():
    """tools/dice_eval measures the reader on frames it was not tuned on: it imports nothing of the project."""
    project = ("vision", "scorer", "tableref", "hardware", "web", "firmware_bridge", "bench")
    for path in sorted((ROOT / "tools" / "dice_eval").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] in project for n in names), f"{path.name} imports {names}"


def test_the_evaluation_generator_draws_a_roll_with_its_truth():
    import json
    import sys

    sys.path.insert(0, str(ROOT))
    from tools.dice_eval.frames import make_roll, make_table, tray_window

    lay = json.loads((ROOT / "vision" / "layouts" / "zhang-yi-sample.json").read_text("utf-8"))
    table = make_table(lay, 7)
    frame, truth = make_roll(table, 3, value=5, hand=False, empty=False, window=tray_window(table))
    assert truth["value"] == 5 and frame.ndim == 3 and frame.shape[0] > 20
    assert truth["window"][2] - truth["window"][0] == frame.shape[1]
