"""What enrolment learns of a plain kind's colour (vision/kind_colours.py): from the piece, never
from its shadow, when blur parts a pale piece's lit top from the shadow beside it."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.core.types import Piece
from vision.foreground import Foreground
from vision.kind_colours import learn_kind_colours, shadow_like
from vision.layout import load_layout

BOARD_BGR = (120, 140, 130)  # a dull grey-green square, darker than a white scarab


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


def _photos(cheops, sid: str) -> tuple[np.ndarray, np.ndarray]:
    """The empty board and the enrolment photo with a white scarab on ``sid`` (1 px/mm): its lit top
    a small bright disc, its shadow a bigger dimmed patch of the board lying more on the space,
    a gap of bare board between them (as blur and the 2 px opening leave them)."""
    w, h = (int(round(v)) for v in cheops.size)
    reference = np.zeros((h, w, 3), np.uint8)
    reference[:] = BOARD_BGR
    rect = reference.copy()
    cx, cy = cheops.space(sid).centre
    yy, xx = np.mgrid[0:h, 0:w]
    top = (xx - (cx - 9)) ** 2 + (yy - (cy - 9)) ** 2 <= 5 ** 2
    rect[top] = (225, 228, 226)
    shadow = (np.abs(xx - (cx + 4)) <= 7) & (np.abs(yy - (cy + 4)) <= 7)
    rect[shadow] = (np.asarray(BOARD_BGR) * 0.45).astype(np.uint8)
    return rect, reference


def test_white_kind_is_learned_from_its_lit_top_not_its_shadow(cheops):
    sid = next(sp.id for sp in cheops.spaces if sp.kind == "pyramid")
    rect, reference = _photos(cheops, sid)
    got = learn_kind_colours(cheops, {}, rect, reference, {sid: Piece("neutral", "treasure-white")})
    protos = got["neutral:treasure-white"][0]
    board_l = float(Foreground.lab_of(reference)[0, 0, 0])
    assert protos[:, 0].min() > board_l  # the white top's lightness, no grey of its shadow


def test_shadow_is_the_board_dimmed():
    ref = np.array([[150.0, 118.0, 135.0]] * 4)
    lab = np.array([[90.0, 121.0, 132.0],  # the board, darker, its hue kept: a shadow
                    [200.0, 127.0, 130.0],  # brighter: a pale piece
                    [100.0, 160.0, 140.0],  # darker but red: a red piece's shaded side
                    [150.0, 118.0, 135.0]])  # the board itself: not darker
    assert shadow_like(lab, ref).tolist() == [True, False, False, False]
