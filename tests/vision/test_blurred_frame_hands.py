"""A frame the corner markers show heavily blurred (motion, focus) is looked at again as blurred by
the hand test (``OcclusionFinder.find``'s ``blur``): the smear of a piece's colour reaches further
than ``HALO_MM`` and blur takes print everywhere, so neither makes a hand there; a hand found
otherwise (an arm over the board's edge) still does. Photoreal Ming tune: two frames without a hand,
motion-blurred 7 px, had 46 spaces flagged. Synthetic maps at 1 px per mm. Print lost where its region
shows colour of its own stays a hand's (an arm lying across a far, blurred board): a synthetic band and
the rendered frame it came from."""

from __future__ import annotations

import numpy as np

from vision.foreground import ForegroundMaps
from vision.occlusion import BLURRED_PX, HALO_MM, OcclusionFinder

W, H = 320, 240  # mm = px
SPACES = [((140, 100, 180, 140), np.ones((40, 40), np.uint8)), ((20, 20, 60, 60), np.ones((40, 40), np.uint8))]


def _maps(weak: np.ndarray) -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    return ForegroundMaps(lab=np.zeros((H, W, 3), np.float32), chroma=np.zeros((H, W), np.float32), piece=weak,
                          strict=none, seeds=none, dark=none, weak=weak, weak_chroma=none, noise=2.0)


def _smeared_pieces() -> tuple[np.ndarray, np.ndarray]:
    """Three pieces on space 0 whose colour core is small and whose smear (weak difference) reaches
    ~9 mm along the motion, beyond ``HALO_MM``: 3 pieces' area of unexplained smear."""
    labels = np.full((H, W), -2, np.int16)
    weak = np.zeros((H, W), bool)
    for cx in (148, 160, 172):
        labels[118:122, cx - 1:cx + 2] = 0  # what is left of the piece's colour
        weak[111:130, cx - 4:cx + 5] = True  # its smear along the (vertical) motion
    return labels, weak


def test_a_blurred_frame_s_smears_and_lost_print_make_no_hand() -> None:
    assert HALO_MM < 9.0 and BLURRED_PX <= 7.0
    labels, weak = _smeared_pieces()
    lost = np.zeros((H, W), bool)
    lost[20:60, 20:110] = True  # print the blur took over 3600 mm² of bare board (space 1 and beside it)
    finder = OcclusionFinder(SPACES, (W, H), 1.0, 60.0)
    asked: list[int] = []

    def blur(sigma: float):
        return lambda: (asked.append(1), sigma)[1]

    sharp = finder.find(_maps(weak), labels, lost, blur=blur(1.0))
    assert sharp.spaces == frozenset({0, 1}) and asked == [1]  # not blurred as the markers say: hands, as before
    blurred = finder.find(_maps(weak), labels, lost, blur=blur(7.0))
    assert blurred.spaces == frozenset()
    assert finder.find(_maps(weak), labels, lost).spaces == frozenset({0, 1})  # no blur measure: as before


def test_a_hand_over_the_edge_of_a_blurred_frame_is_still_one() -> None:
    labels, weak = _smeared_pieces()
    arm = np.zeros((H, W), bool)
    arm[132:240, 140:200] = True  # an arm from the board's edge over space 0 (a colour no piece has)
    labels[arm] = -1  # UNKNOWN
    weak = weak | arm
    finder = OcclusionFinder(SPACES, (W, H), 1.0, 60.0)
    found = finder.find(_maps(weak), labels, None, blur=lambda: 7.0)
    assert found.spaces == frozenset({0})


def test_print_lost_under_an_arm_s_faint_colour_is_hidden_not_faded() -> None:
    """A band of print lost across the board (an arm lying over space 0, away from the edge) with a fifth
    of it faint colour: a hand, blurred frame or not. The same band with no colour is blur's (no hand)."""
    labels = np.full((H, W), -2, np.int16)
    lost = np.zeros((H, W), bool)
    lost[105:135, 60:260] = True  # 6000 mm² of print hidden
    finder = OcclusionFinder(SPACES, (W, H), 1.0, 60.0)
    weak = np.zeros((H, W), bool)
    assert finder.find(_maps(weak), labels, lost, blur=lambda: 7.0).spaces == frozenset()
    weak[105:135, 60:260:5] = True  # the arm's faint colour in strips: a fifth of the band
    assert finder.find(_maps(weak), labels, lost, blur=lambda: 1.0).spaces == frozenset({0})
    assert finder.find(_maps(weak), labels, lost, blur=lambda: 7.0).spaces == frozenset({0})


def test_the_blur_is_not_measured_when_no_hand_is_found() -> None:
    labels = np.full((H, W), -2, np.int16)
    asked: list[int] = []
    finder = OcclusionFinder(SPACES, (W, H), 1.0, 60.0)
    assert finder.find(_maps(np.zeros((H, W), bool)), labels, None, blur=lambda: (asked.append(1), 7.0)[1]).spaces == frozenset()
    assert asked == []
