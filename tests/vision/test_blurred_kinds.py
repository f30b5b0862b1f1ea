"""Plain kinds' colours as blur mixes them (vision/blurred_kinds.py), read by the appearance step
of the Cheops layout on synthetic rectified boards (1 px/mm, no camera: no parallax):

* a kind's rim prototype (its colour mixed with the board where it was enrolled) that is the
  board's colour elsewhere must not hide the kind there (photoreal Cheops: green scarabs missed on
  the lower pyramid, whose grey was a green rim's);
* a piece-sized blob whose colour is spread over several kinds' is the piece of the kind in its
  middle; a half-sized one (a pale scarab's shadow) is not named."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scorer.core.types import Piece
from vision.appearance import AppearanceStep
from vision.blurred_kinds import without_rims
from vision.calibration import PX_PER_MM, rectified_size
from vision.enrolment import nominal_model_for
from vision.foreground import Foreground
from vision.layout import load_layout
from vision.table_reader import TableReader

UPPER, LOWER = (205, 205, 205), (150, 150, 150)  # BGR: the board where the kind was enrolled, and elsewhere
BLACK, GREEN, BLUE, RED = (40, 40, 40), (60, 120, 50), (130, 70, 40), (50, 50, 160)


def _lab(bgr) -> np.ndarray:
    return Foreground.lab_of(np.full((9, 9, 3), bgr, np.uint8))[4, 4]


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


def _step(cheops, reference: np.ndarray, colours: dict[str, list[np.ndarray]],
          placed: dict[str, str]) -> AppearanceStep:
    """The appearance step of a table whose empty board is ``reference`` and whose plain kinds
    (``colours``: kind -> Lab prototypes) were enrolled on the spaces ``placed`` names."""
    model = nominal_model_for(cheops, reference, PX_PER_MM, "test")
    model = dataclasses.replace(
        model, enrolled=True,
        kind_colours={f"neutral:{k}": (np.asarray(p, np.float32), 5.0, 1.0) for k, p in colours.items()},
        placed={sid: Piece("neutral", k) for sid, k in placed.items()})
    step = TableReader(cheops, model).appearance
    assert step is not None
    return step


def _disc(img: np.ndarray, centre, radius: float, bgr, sectors=None) -> None:
    """Paint a disc; ``sectors``: colours of equal angular sectors instead of one colour."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    dx, dy = xx - centre[0], yy - centre[1]
    inside = dx ** 2 + dy ** 2 <= radius ** 2
    if sectors is None:
        img[inside] = bgr
        return
    part = ((np.arctan2(dy, dx) + np.pi) / (2 * np.pi) * len(sectors)).astype(int) % len(sectors)
    for k, c in enumerate(sectors):
        img[inside & (part == k)] = c


def _read(step: AppearanceStep, rect: np.ndarray, sid: str, cheops) -> dict:
    counts: dict = {}
    h, w = rect.shape[:2]
    step.kinds.read(rect, 1.0, None, counts, np.zeros((h, w), np.uint8), set(), np.zeros((h, w), np.int16))
    i = [k for k, sp in enumerate(cheops.spaces) if sp.id == sid][0]
    return {p.kind: n for p, n in counts[i].pieces.items()} if i in counts else {}


def test_a_rim_prototype_is_no_colour_of_the_board(cheops):
    w, h = rectified_size(cheops, PX_PER_MM)
    reference = np.full((h, w, 3), UPPER, np.uint8)
    low = cheops.space("r10c5").centre
    reference[int(low[1]) - 40:, :] = LOWER  # the lower rows of the pyramid: a duller grey
    dark = _lab(GREEN)
    rim = _lab(LOWER)  # the green scarab's rim where it was enrolled, on the upper grey: the lower grey's colour
    assert np.array_equal(without_rims(np.stack([dark, rim]), _lab(UPPER)), dark[None])
    step = _step(cheops, reference, {"treasure-green": [dark, rim]}, {"r4c4": "treasure-green"})
    i = [k for k, sp in enumerate(cheops.spaces) if sp.id == "r10c5"][0]
    assert (step.kinds.ref_kind[step.space_of == i] < 0).all()  # the lower grey is not "green": green is evidence there
    rect = reference.copy()
    _disc(rect, low, 9, GREEN)
    assert _read(step, rect, "r10c5", cheops) == {"treasure-green": 1}


@pytest.fixture(scope="module")
def four_kinds(cheops):
    w, h = rectified_size(cheops, PX_PER_MM)
    reference = np.full((h, w, 3), (170, 170, 170), np.uint8)
    kinds = {"treasure-black": BLACK, "treasure-green": GREEN, "treasure-blue": BLUE, "treasure-red": RED}
    placed = {sid: k for sid, k in zip(("r11c1", "r11c3", "r11c5", "r11c7"), kinds)}
    return reference, _step(cheops, reference, {k: [_lab(c)] for k, c in kinds.items()}, placed)


def test_a_piece_in_several_kinds_colours_is_the_kind_in_its_middle(cheops, four_kinds):
    reference, step = four_kinds
    rect = reference.copy()
    centre = cheops.space("r5c3").centre
    _disc(rect, centre, 10, None, sectors=(GREEN, BLUE, RED))  # a whole scarab's worth, no kind PRESENT alone
    _disc(rect, centre, 4, BLACK)
    assert _read(step, rect, "r5c3", cheops) == {"treasure-black": 1}


def test_a_half_sized_mixed_blob_is_not_named(cheops, four_kinds):
    reference, step = four_kinds
    rect = reference.copy()
    centre = cheops.space("r5c3").centre
    _disc(rect, centre, 6.5, None, sectors=(GREEN, BLUE))  # a pale scarab's shadow: under a whole piece
    _disc(rect, centre, 3, BLACK)
    assert _read(step, rect, "r5c3", cheops) == {}
