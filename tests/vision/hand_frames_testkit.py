"""Rendered frames with a hand over the board, read by a table enrolled as ``tableref vision
render-set`` enrols it (a uniquely named helper module): for the tests of hands read through
(test_hand_margins.py, test_broken_hands.py). A frame is the project's renderer's, its truth known."""

from __future__ import annotations

import functools
from collections import Counter

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.enrolment import enrolment_plan, model_from_photos
from vision.layout import load_layout
from vision.render import Conditions, render
from vision.table_reader import TableReader

PALE_SKIN = (245, 205, 180)


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


@functools.lru_cache(maxsize=2)
def enrolled_reader(board_id: str, table: Conditions, enrolled: tuple[tuple[str, str], ...] = ()) -> TableReader:
    """The table enrolled from its empty board and its enrolment photo (``enrolled``: space, piece
    token; default: ``enrolment_plan``), both as render-set writes them."""
    layout = load_layout(board_id)
    plan = {s: Piece(*t.split(":")) for s, t in enrolled} if enrolled else enrolment_plan(layout)
    empty = jpeg(render(layout, Board(), table).image, 92)
    pieces = jpeg(render(layout, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}), table).image, 92)
    return TableReader(layout, model_from_photos(layout, empty, pieces, plan), classifier=None)


def board_of(cells: dict[str, dict[str, int]]) -> Board:
    """A board from space -> {"owner:kind": count}."""
    return Board.from_counts({s: Counter({Piece(*t.split(":")): n for t, n in c.items()}) for s, c in cells.items()})


def read_through(board_id: str, table: Conditions, frame: Conditions, board: Board, quality: int,
                 enrolled: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """The spaces the hand of ``frame`` covers (the renderer's truth) that the reader did not flag."""
    layout = load_layout(board_id)
    r = render(layout, board, frame)
    reader = enrolled_reader(board_id, table, enrolled)
    reader.reset()
    det = reader.read(jpeg(r.image, quality))
    assert det.registration.usable
    return [s.space for s in det.spaces if s.space in r.truth.occluded and not s.occluded]
