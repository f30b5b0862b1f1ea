"""Cheops read by the camera (vision/appearance.py, vision/pale_arm.py): hands that look like the
board are not read through, a pale rim or the board's own white is no white scarab, and the
sizes in mm scale with the board's pixels per mm."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.appearance import AppearanceRead
from vision.plain_kinds import CORE_SHARE, PRESENT
from vision.blurred_kinds import core_kind
from vision.local_light import board_kinds, kind_lut, local_kinds
from vision.hand_evidence import masked
from vision.foreground import Foreground, ForegroundMaps
from vision.layout import load_layout
from vision.pale_arm import pale_arm
from vision.render import Hand, render
from vision.table_reader import TableReader

from test_cheops_camera import CAMERA, _board, enrolled_model  # noqa: E402  (tests/vision is on the path)

SAND = (184, 214, 226)  # BGR: a sand margin
PALE_SKIN = (245, 205, 180)  # RGB: the palest skin tone the renderer draws


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


@pytest.fixture(scope="module")
def reader(cheops):
    return TableReader(cheops, enrolled_model(), classifier=None)


@pytest.mark.parametrize("space, offset, from_deg", [("price-black", (45.0, 0.0), 0.0), ("r11c6", (0.0, 40.0), 90.0)])
def test_a_pale_arm_over_the_margin_is_not_read_through(cheops, reader, space, offset, from_deg):
    """A pale hand beside the board's edge spaces, its arm over the sand margin: every space it
    covers in the picture is reported occluded (it was read through before vision/pale_arm.py)."""
    cx, cy = cheops.space(space).centre
    hand = Hand((cx + offset[0], cy + offset[1]), from_deg, 60.0, rgb=PALE_SKIN)
    r = render(cheops, _board(), dataclasses.replace(CAMERA, seed=23, noise_sigma=10.0, hand=hand))
    assert r.truth.occluded
    reader.reset()
    det = reader.read(r.image)
    through = [s.space for s in det.spaces if s.space in r.truth.occluded and not s.occluded]
    assert through == []


def _sand(h: int, w: int, rng: np.random.Generator, noise: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    ref = np.empty((h, w, 3), np.float32)
    ref[:] = SAND
    frame = ref + rng.normal(0, noise, ref.shape)
    return ref.astype(np.uint8), frame


def _tint(frame: np.ndarray, box: tuple[int, int, int, int], bgr_gain: tuple[float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = box
    out = frame.copy()
    out[y0:y1, x0:x1] *= np.asarray(bgr_gain, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("s", [1.0, 2.0])
def test_pale_arm_is_a_tinted_region_from_the_edge(s):
    """A skin-tinted band (a little redder, a little less blue than the sand) from the board's
    edge is an arm; the same band away from the edge, a small tinted patch at the edge, and a grey
    shadow from the edge are not. The sizes are in mm: the same at 2 px/mm."""
    rng = np.random.default_rng(1)
    h, w = int(300 * s), int(200 * s)
    ref, frame = _sand(h, w, rng)
    busy = np.zeros((h, w), bool)
    skin = (0.93, 0.96, 1.06)
    band = tuple(int(v * s) for v in (80, 0, 130, 150))
    assert pale_arm(_tint(frame, band, skin), ref, busy, s)[int(20 * s), int(100 * s)]
    inner = tuple(int(v * s) for v in (80, 80, 130, 230))
    assert not pale_arm(_tint(frame, inner, skin), ref, busy, s).any()
    small = tuple(int(v * s) for v in (80, 0, 100, 20))
    assert not pale_arm(_tint(frame, small, skin), ref, busy, s).any()
    assert not pale_arm(_tint(frame, band, (0.6, 0.6, 0.6)), ref, busy, s).any()
    assert not pale_arm(np.clip(frame, 0, 255).astype(np.uint8), ref, busy, s).any()


@pytest.mark.parametrize("s", [1.0, 2.0])
def test_pale_skin_beyond_a_sleeve_is_the_arm(s):
    """An arm in a bright sleeve from the board's edge, its pale skin beyond tinted less than ``TINT`` (0.88 of
    it: photoreal Cheops seed 1 t02-000, a forearm over pale price columns, 0.6-0.9, read through over six
    spaces): the skin is the arm too; the same faint tint apart from any arm is not (``ARM_TINT``)."""
    rng = np.random.default_rng(2)
    h, w = int(300 * s), int(200 * s)
    ref, frame = _sand(h, w, rng)
    busy = np.zeros((h, w), bool)
    sleeve = (1.12, 0.86, 1.12)  # magenta
    faint = (0.958, 0.976, 1.036)  # the skin tint above at 0.6 of its strength: 0.88 x TINT here
    upper = tuple(int(v * s) for v in (80, 0, 130, 120))
    lower = tuple(int(v * s) for v in (80, 120, 130, 260))
    arm = pale_arm(_tint(_tint(frame, upper, sleeve).astype(np.float32), lower, faint), ref, busy, s)
    assert arm[int(20 * s), int(105 * s)] and arm[int(220 * s), int(105 * s)]
    alone = tuple(int(v * s) for v in (80, 100, 130, 260))
    assert not pale_arm(_tint(frame, alone, faint), ref, busy, s).any()


def test_a_pale_piece_touching_a_hand_is_unread():
    blobs = np.zeros((50, 50), np.int16)
    blobs[10:20, 10:20] = 4  # space 3's scarab
    blobs[30:40, 30:40] = 8  # space 7's
    seen = AppearanceRead({}, set(), blobs > 0, None, blobs)
    hand = np.zeros((50, 50), bool)
    hand[:, 18:25] = True
    assert seen.touching(hand) == frozenset({3})
    assert seen.touching(np.zeros((50, 50), bool)) == frozenset()


def test_a_piece_near_a_hand_in_the_hand_s_own_colour_is_unread():
    """A pale forearm's lit edge, missed by the hand test, read as white scarabs beside it (photoreal cheops12
    t02-007): a blob within ``SKIN_NEAR_MM`` of the hand in the colour of the hand's inside is unread; one in
    another colour there, or in the hand's colour farther off, is read. 1 px = 1 mm."""
    h, w = 120, 160
    skin, other, board = (200.0, 135.0, 140.0), (200.0, 128.0, 100.0), (215.0, 128.0, 128.0)
    lab = np.empty((h, w, 3), np.float32)
    lab[:] = board
    hand = np.zeros((h, w), bool)
    hand[0:30, :] = True  # an arm across the top
    lab[hand] = skin
    blobs = np.zeros((h, w), np.int16)
    blobs[45:55, 20:30] = 1  # 15 mm below the arm, skin-coloured: its lit edge
    blobs[45:55, 70:80] = 2  # 15 mm below, a piece of another colour
    blobs[95:105, 120:130] = 3  # 65 mm below, skin-coloured
    for v, colour in ((1, skin), (2, other), (3, skin)):
        lab[blobs == v] = colour
    seen = AppearanceRead({}, set(), blobs > 0, None, blobs)
    assert seen.touching(hand, lab, 1.0) == frozenset({0})
    assert seen.touching(hand) == frozenset()  # without the frame's colours: touching only


def _disc(shape: tuple[int, int], c: tuple[int, int], r: float) -> np.ndarray:
    yy, xx = np.mgrid[:shape[0], :shape[1]]
    return (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r


def test_the_kind_in_the_middle_wins_over_a_rim_or_a_shadow():
    """A blurred red scarab shows a pale ring bigger than its red middle: red. A white scarab
    shows a dark crescent (its shadow) beside it: white."""
    shape = (40, 40)
    red, white, black = 0, 1, 2
    kind_of = np.full(shape, -1, np.int8)
    ring = _disc(shape, (20, 20), 12) & ~_disc(shape, (20, 20), 6)
    kind_of[ring] = white
    kind_of[_disc(shape, (20, 20), 6)] = red
    present = {red: [(0.5, kind_of == red)], white: [(1.2, kind_of == white)]}
    assert core_kind(kind_of, present, white, PRESENT, CORE_SHARE) == red
    kind_of = np.full(shape, -1, np.int8)
    kind_of[_disc(shape, (24, 20), 9) & ~_disc(shape, (20, 20), 9)] = black
    kind_of[_disc(shape, (20, 20), 9)] = white
    present = {white: [(1.0, kind_of == white)], black: [(0.6, kind_of == black)]}
    assert core_kind(kind_of, present, white, PRESENT, CORE_SHARE) == white
    assert core_kind(kind_of, present, black, PRESENT, CORE_SHARE) == white


def test_the_boards_own_white_is_no_white_piece():
    """A white margin seen a little duller than enrolled (the light measured on the box fits the
    grey space beside it) is no white scarab; a white scarab on the grey space still is."""
    h, w = 40, 60
    ref = np.empty((h, w, 3), np.uint8)
    ref[:, :20] = (232, 232, 230)  # a white margin
    ref[:, 20:] = (172, 158, 150)  # a grey space
    ref_lab = Foreground.lab_of(ref)
    white = Foreground.lab_of(np.full((1, 1, 3), (236, 238, 238), np.uint8))[0, 0][None, :]
    lut = kind_lut(white.astype(np.float32), np.array([0]), np.array([24.0], np.float32))
    rect = ref.astype(np.float32)
    rect[:, :20] *= 0.85  # the margin duller than enrolled
    rect[15:27, 35:47] = (236, 238, 238)  # a white scarab on the grey space
    rect = rect.astype(np.uint8)
    ref_kind = board_kinds(ref_lab, white.astype(np.float32), np.array([0]), np.array([24.0], np.float32))
    assert (ref_kind[:, :16] == 0).all() and (ref_kind[:, 24:] == -1).all()
    plain = local_kinds(rect, ref, ref_lab, (0, 0, w, h), lut, 2.0)
    assert (plain[:, 2:18] == 0).mean() > 0.5  # without the board's own colours: the margin looks white
    kinds = local_kinds(rect, ref, ref_lab, (0, 0, w, h), lut, 2.0, ref_kind=ref_kind)
    assert not (kinds[:, :18] == 0).any()
    assert (kinds[17:25, 37:45] == 0).all()


def _maps(h: int, w: int) -> ForegroundMaps:
    z = np.zeros((h, w), bool)
    return ForegroundMaps(lab=np.zeros((h, w, 3), np.float32), chroma=np.zeros((h, w), np.float32), piece=z, strict=z, seeds=z, dark=z, weak=z,
                          weak_chroma=z, noise=2.0)


@pytest.mark.parametrize("s", [1.0, 2.0])
def test_lost_print_at_the_edge_scales_with_the_board(s):
    """Print lost 15 mm from the board's edge (within ``LOST_EDGE_MM``) counts as a hand's, at
    1 and 2 px/mm; 60 mm from the edge, with no colour near, it is blur."""
    h, w = int(200 * s), int(200 * s)
    labels = np.full((h, w), -2, np.int16)
    lost = np.zeros((h, w), bool)
    lost[int(15 * s):int(25 * s), int(90 * s):int(110 * s)] = True
    lost[int(60 * s):int(70 * s), int(90 * s):int(110 * s)] = True
    _, _, kept = masked(_maps(h, w), labels, lost, np.zeros((h, w), bool), None, s)
    assert kept[int(20 * s), int(100 * s)]
    assert not kept[int(65 * s), int(100 * s)]
