"""A heap counted by its bodies' length holds at least what its colour counted (``plain_kinds.HEAP_AT_LEAST_COLOUR``).

Cheops' sold scarabs lie in a line on their price table, one per printed entry. ``vision.heap_bodies`` counts such a
line by its body's length over one single scarab's body (shadow and blur included). A line of n is n - 1 entry
pitches and one body long, and a body is longer than a pitch, so a full line came out one short. The photoreal
Cheops tuning split's frame t00-003 (committed under evalsets/, no hand): its red and green lines of 4 and its black
line of 3 were counted right by colour and read 3, 3 and 2 after the body count."""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.plain_kinds as plain_kinds
from kept_frames_testkit import read_kept_frame

SET = Path(__file__).resolve().parents[2] / "evalsets" / "photoreal-cheops" / "tune"
LINES = {"price-red": 4, "price-green": 4, "price-black": 3}


def _counts(got) -> dict[str, int]:
    return {s: sum(n for _, n in got[s].pieces) for s in LINES}


@pytest.fixture(scope="module")
def with_colour():
    return read_kept_frame(SET, "cheops", "table", "t00-003")


def test_lines_are_read_whole(with_colour):
    got, truth = with_colour
    assert {s: sum(truth.content(s).values()) for s in LINES} == LINES
    assert _counts(got) == LINES


def test_by_their_bodies_alone_they_are_one_short(monkeypatch):
    monkeypatch.setattr(plain_kinds, "HEAP_AT_LEAST_COLOUR", False)
    got, _ = read_kept_frame(SET, "cheops", "table", "t00-003")
    assert _counts(got) == {s: n - 1 for s, n in LINES.items()}
