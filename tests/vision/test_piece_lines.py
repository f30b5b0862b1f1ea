"""Touching pieces in a line are counted by the line's length (``vision.piece_lines``, used for the heaps
``AppearanceStep`` reads: Cheops' price columns). One piece's length comes from the single pieces the
same frame shows. A frame of the independent photoreal renderer is kept (``photoreal-cheops10-t02``:
columns of 3 and 4 touching scarabs read one short by their area)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

import vision.piece_lines as piece_lines
import vision.plain_kinds as plain_kinds
from kept_frames_testkit import read_kept_frame
from vision.piece_lines import extent_mm, in_line, one_piece_mm

SET = Path(__file__).with_name("photoreal-cheops10-t02")
COLUMNS = ("price-red", "price-blue", "price-green", "price-yellow")


def _line(n: int, d: int = 20, angle: float = 30.0) -> np.ndarray:
    """``n`` touching discs ``d`` px wide in a row turned by ``angle`` degrees (1 px per mm)."""
    img = np.zeros((200, 200), np.uint8)
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    for k in range(n):
        t = (k - (n - 1) / 2) * d
        cv2.circle(img, (int(round(100 + c * t)), int(round(100 + s * t))), d // 2, 1, -1)
    return img > 0


def test_a_line_of_touching_pieces_is_as_long_as_its_pieces_and_one_wide():
    for n in (1, 2, 3, 4):
        length, width = extent_mm(_line(n), 1.0)
        assert abs(length - 20 * n) <= 2 and abs(width - 20) <= 2
        assert in_line(length, width, 20.0) == n


def test_a_pile_wider_than_a_line_is_not_counted_by_its_length():
    pile = _line(3) | _line(3, angle=120.0)
    assert in_line(*extent_mm(pile, 1.0), 20.0) is None


def test_one_piece_is_measured_only_on_enough_single_pieces():
    assert one_piece_mm([21.0, 23.0]) is None
    assert one_piece_mm([21.0, 23.0, 40.0]) == 23.0  # the median: a blob of two touching is one of them


def test_columns_of_touching_scarabs_in_a_photoreal_frame_are_counted():
    got, truth = read_kept_frame(SET, "cheops", "table")
    for space in COLUMNS:
        assert sum(truth.content(space).values()) >= 3, space
        assert dict(got[space].pieces) == dict(truth.content(space)), space


def test_by_their_area_alone_they_are_one_short(monkeypatch):
    monkeypatch.setattr(piece_lines, "MIN_SINGLES", 10 ** 6)  # nor by their bodies' length (the same measure)
    got, truth = read_kept_frame(SET, "cheops", "table")
    short = [s for s in COLUMNS if sum(n for _, n in got[s].pieces) < sum(truth.content(s).values())]
    assert len(short) >= 3  # all four when written


def test_by_their_bodies_length_alone_they_are_counted(monkeypatch):
    """``vision.heap_bodies``: the same columns counted by their bodies' length, the colour's lines left out
    (the yellow column's body reaches the edge of the box looked at: its colour's count stands, one short)."""
    monkeypatch.setattr(plain_kinds.PlainKinds, "_lines", lambda self, counts: None)
    got, truth = read_kept_frame(SET, "cheops", "table")
    assert [s for s in COLUMNS if dict(got[s].pieces) != dict(truth.content(s))] == ["price-yellow"]
