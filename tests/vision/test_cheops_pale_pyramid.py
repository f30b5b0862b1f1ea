"""White scarabs on a pale pyramid (``vision.appearance``: a second look by lightness at one-piece
spaces where nothing was found by colour difference).

On a table of the independent photoreal renderer (``tools/photoreal``, Cheops seed 3, a tuning set)
whose pyramid squares are pale grey-green, a white scarab's top is 14-25 L brighter than its square:
under the Lab distance's threshold (lightness weighs half there), so every one of them was read as
empty. One frame of that table, with the table's empty and enrolment photos, is kept here
(``photoreal-cheops3-t00``); the project's own renderer does not make this case (its white scarabs
on a pale print differ by their shading, or vanish into the print's colour altogether).
"""

from __future__ import annotations

from pathlib import Path

import vision.local_light as local_light
from kept_frames_testkit import read_kept_frame
from scorer.core.types import Piece

SET = Path(__file__).with_name("photoreal-cheops3-t00")
WHITE = Piece("neutral", "treasure-white")


def _read() -> tuple[dict[str, dict | None], object]:
    got, truth = read_kept_frame(SET, "cheops", "table")
    return {s: (None if r.occluded else dict(r.pieces)) for s, r in got.items()}, truth


def _on_pyramid(truth) -> list[str]:
    return [s for s in truth.pieces if s.startswith("r") and truth.content(s)[WHITE]]


def test_white_scarabs_on_a_pale_pyramid_are_read_and_none_is_made_up():
    read, truth = _read()
    whites = _on_pyramid(truth)
    assert len(whites) >= 8
    assert [s for s in whites if read[s] != {WHITE: 1}] == []
    made_up = [s for s, r in read.items() if r and r.get(WHITE, 0) > truth.content(s)[WHITE]]
    assert made_up == []


def test_by_colour_difference_alone_they_are_missed(monkeypatch):
    """The frame needs the second look: without it all but one of these scarabs are missed."""
    monkeypatch.setattr(local_light, "BRIGHTER_MIN", 1e9)
    read, truth = _read()
    whites = _on_pyramid(truth)
    assert len([s for s in whites if read[s] == {WHITE: 1}]) <= 1
