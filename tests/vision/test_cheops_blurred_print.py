"""A frame more blurred than the empty board: its print lines are no pale pieces (``PlainKinds.board_lightness``).

The plain kinds' brighter look (a white scarab on a pale square shows no colour of its own, only that it is
brighter than the board) measured against the empty board as enrolled. In a frame blurred more than that photo,
the board's dark print lines spread out paler over the squares beside them: "brighter than the board", of a
grey the blurred black scarab's enrolled colour explains. A far board 3 px more blurred than its empty photo
(own render seed 7401, table t4, frame t4-0019, kept in ``own-cheops7401-t4``) read a black scarab on 21 empty
pyramid spaces. Brighter now means brighter than the board both as enrolled and blurred as the frame."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

import vision.plain_kinds as plain_kinds
from kept_frames_testkit import read_kept_frame
from vision.foreground import Foreground

SET = Path(__file__).with_name("own-cheops7401-t4")


def _made_up_on_the_pyramid() -> list[str]:
    got, truth = read_kept_frame(SET, "cheops", "table", "t4-0019")
    return [s for s, r in got.items() if s.startswith("r") and not truth.content(s) and not r.occluded and r.pieces]


def test_a_blurred_frames_print_lines_are_no_pale_scarabs(monkeypatch, look_alone):
    assert len(_made_up_on_the_pyramid()) <= 1  # r4c2 still: a phantom of another kind of evidence
    monkeypatch.setattr(plain_kinds.PlainKinds, "board_lightness", lambda self, blur: None)  # the board as enrolled
    assert len(_made_up_on_the_pyramid()) >= 15


def test_the_board_lightness_is_the_brighter_of_the_board_sharp_and_blurred():
    board = np.full((60, 80, 3), 200, np.uint8)
    board[:, 40:42] = 30  # a dark print line
    kinds = plain_kinds.PlainKinds.__new__(plain_kinds.PlainKinds)
    kinds.reference, kinds.ref_lab, kinds._lightness = board, Foreground.lab_of(board), None
    assert kinds.board_lightness(0.0) is None  # as sharp as the empty board: its own lightness is used
    lightness = kinds.board_lightness(3.0)
    sharp_l = kinds.ref_lab[..., 0]
    assert lightness.shape == sharp_l.shape and (lightness >= sharp_l).all()
    assert lightness[30, 40] > sharp_l[30, 40] + 40  # the line, blurred, is much paler than printed
    blurred_l = Foreground.lab_of(cv2.GaussianBlur(board, (0, 0), 3.0))[..., 0]
    assert np.array_equal(lightness[:, :20], sharp_l[:, :20]) and (blurred_l[:, 36] < sharp_l[:, 36]).all()
    assert kinds.board_lightness(3.0) is lightness  # made once per blur
