"""A pale arm the light correction took for light (``vision.bright_bands``). Fresh photoreal Cheops seed 95, frame
t02-001 (kept beside the tests: its table's photos and the frame): a long bare arm across the pyramid, blurred. Over
the pyramid's slate fill the arm raises the light ratio evenly in all three channels, wider than the light field's
median: the field divided it out, the spaces under it looked bare, and eight were read through the arm."""

from __future__ import annotations

from pathlib import Path

import vision.bright_bands as bright_bands
from kept_frames_testkit import read_kept_frame, reads_as_recorded

SET = Path(__file__).resolve().parent / "photoreal-cheops95-t02"
UNDER_THE_ARM = ("r7c4", "r7c5", "r7c6", "r8c4", "r8c5", "r8c6", "r9c6", "r9c7")  # read through before


def _read():
    return read_kept_frame(SET, "cheops", "table", "t02-001")


def _read_through(got, truth) -> list[str]:
    return sorted(s for s in truth.occluded if not got[s].occluded)


def test_no_space_under_the_arm_is_read():
    got, truth = _read()
    assert set(UNDER_THE_ARM) <= truth.occluded
    assert _read_through(got, truth) == []


@reads_as_recorded
def test_without_the_band_test_the_arm_was_read_through(monkeypatch):
    monkeypatch.setattr(bright_bands, "BAND_SHARE", 0.0)
    got, truth = _read()
    assert set(_read_through(got, truth)) >= set(UNDER_THE_ARM) - {"r7c6"}
