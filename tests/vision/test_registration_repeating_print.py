"""A board registered by its print whose print repeats (Cheops' pyramid rows): the pose that lays the print best.

With no corner marker found (a far, blurred board), the reader refines the known pose on the board's print
(``PoseRefiner``): first the whole board's shift by phase correlation, then patches. On a far Cheops board the
shift locked onto the pyramid one row off and the patches, on rows that look alike, agreed: the board was read a
row off (own render seed 7401, t2-0029, kept in ``own-cheops7401-t2``: 75 of its 85 spaces wrong; 2 now). Now the
pose refined with the shift and the pose refined without it compete, and the one that lays the print best is
kept (``TableRegistration._usual_pose``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

import vision.table_registration as table_registration
from kept_frames_testkit import read_kept_frame_with_registration
from vision.pose_refine import PoseRefiner

SET = Path(__file__).with_name("own-cheops7401-t2")


def _wrong() -> tuple[int, object]:
    got, truth, reg = read_kept_frame_with_registration(SET, "cheops", "table", "t2-0029")
    wrong = [s for s, r in got.items() if s not in truth.occluded and (r.occluded or dict(r.pieces) != dict(truth.content(s)))]
    return len(wrong), reg


def _shift_refined_only(self, gray, H0):  # the pose as it was chosen before
    got = self.refiner.refine(gray, H0)
    return got[0] if got is not None else self.blurred.find(gray, H0)


def test_a_repeating_print_is_not_registered_a_repeat_off(monkeypatch):
    wrong, reg = _wrong()
    assert not reg.found and reg.usable  # no marker: registered by the print
    assert wrong <= 8
    monkeypatch.setattr(table_registration.TableRegistration, "_usual_pose", _shift_refined_only)
    before, _ = _wrong()
    assert before >= 50


def test_the_best_aligned_pose_wins_and_an_equal_one_is_the_earlier():
    rng = np.random.default_rng(4)
    board = (rng.random((120, 160)) * 255).astype(np.uint8)
    board = cv2.GaussianBlur(board, (0, 0), 2.0)
    refiner = PoseRefiner(cv2.cvtColor(board, cv2.COLOR_GRAY2BGR), 1.0)
    right = np.eye(3)
    off = np.array([[1, 0, 6.0], [0, 1, -4.0], [0, 0, 1]])
    score, i, H = refiner.best_aligned(board, [off, right, right.copy()])
    assert i == 1 and H is not None and score > refiner.alignment(board, off)
