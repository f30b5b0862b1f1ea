"""Scarabs seen by their bodies (what differs from the empty board, shadow and all), where their colour
says too little.

* A scarab whose colour shows on its lit side only (``vision.plain_kinds``' body fallback,
  ``vision.sole_kind.body_kind``). On some photoreal Cheops tables a scarab on a pyramid space shows
  its own colour on a part of its top only: the rest is a highlight or its shaded side. Its colour
  blob is then under ``PRESENT`` of what enrolment measured (a white scarab: 137 px of 320), and the
  space was read empty. Its body still differs from the empty board whole: on a space for one piece,
  the one piece-sized body, told by the kind whose colour holds enough of it, is that kind. One frame
  of the tuning set of seed 1 (``photoreal-cheops1-t02``, frame t02-008, no hand) is kept for it.
* Scarabs in a line on a price table (``vision.heap_bodies``), counted by their bodies' length over
  what one single scarab's body measures in the same frame; the photoreal frame of that is in
  test_piece_lines.py.
* A law on a price table's law box, a space for a law only: a body of a tile's size there is the law
  (``AppearanceStep._sole_tile``); one frame of the seed 10 tuning set (``photoreal-cheops10-t00``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import vision.appearance as appearance
import vision.plain_kinds as plain_kinds
from kept_frames_testkit import read_kept_frame, reads_as_recorded
from scorer.core.types import Piece
from vision.heap_bodies import heap_count, single_length
from vision.piece_lines import one_piece_mm
from vision.sole_kind import body_kind

SET = Path(__file__).with_name("photoreal-cheops1-t02")
FOUND_BY_BODY = ("r4c2", "r6c5", "r9c2", "r9c8", "r10c2", "r10c5")  # blue, blue, red, red, yellow, yellow


def test_the_kind_of_a_body_is_the_colour_that_holds_enough_of_it():
    kind_of = np.full((10, 10), -1, np.int8)
    body = np.zeros((10, 10), bool)
    body[2:8, 2:8] = True
    kind_of[2:5, 2:8] = 3  # the lit top, 18 px of kind 3
    kind_of[7, 2:4] = 1  # 2 px of another kind at the shaded edge
    least = {1: 10.0, 3: 10.0}
    assert body_kind(kind_of, body, [1, 3], least) == 3
    assert body_kind(kind_of, body, [1, 3], {1: 10.0, 3: 20.0}) is None  # too little of it: not said
    kind_of[6, 2:8] = 1  # the other kind nearly as much: neither leads
    kind_of[5, 2:4] = 1
    assert body_kind(kind_of, body, [1, 3], least) is None
    assert body_kind(kind_of, body, [], least) is None


def _read() -> tuple[dict[str, dict | None], object]:
    got, truth = read_kept_frame(SET, "cheops", "table", "t02-008")
    return {s: (None if r.occluded else dict(r.pieces)) for s, r in got.items()}, truth


@reads_as_recorded
def test_scarabs_showing_their_colour_on_a_part_only_are_read_by_their_body(look_alone):
    read, truth = _read()
    assert [s for s in FOUND_BY_BODY if read[s] != dict(truth.content(s))] == []


@reads_as_recorded
def test_without_the_body_they_are_missed_and_with_it_nothing_is_made_up(monkeypatch, look_alone):
    with_body, truth = _read()
    monkeypatch.setattr(plain_kinds.PlainKinds, "_coloured_body", lambda *a, **k: None)
    without, _ = _read()
    changed = [s for s in with_body if with_body[s] != without[s]]
    assert set(FOUND_BY_BODY) <= set(changed)
    assert all(without[s] == {} for s in FOUND_BY_BODY)
    wrong = [s for s in changed if with_body[s] != dict(truth.content(s))]
    # r9c1: a green scarab whose lit top shows white. The brighter look read it white until a blurred frame's
    # "brighter" was measured against the board blurred alike too (test_cheops_blurred_print.py); now its body
    # does: the same reading, no piece made up
    assert wrong == ["r9c1"] and without["r9c1"] == {} and sum(truth.content("r9c1").values()) == 1


def _disc_line(n: int, d: int = 20, width: int = 20) -> np.ndarray:
    """A box (1 px per mm) with ``n`` touching bodies ``d`` long and ``width`` wide in a column."""
    box = np.zeros((40 + n * d, 60), bool)
    for k in range(n):
        box[20 + k * d:20 + (k + 1) * d, 30 - width // 2:30 + width // 2] = True
    return box


def test_a_heap_in_a_line_is_counted_by_its_bodies_length():
    one = _disc_line(1)
    assert single_length([(1.0, one)], 0.45, 1.7, 1.0) == 20.0
    assert one_piece_mm([20.0, 21.0]) is None  # too few singles to say what one measures
    assert one_piece_mm([20.0, 21.0, 19.0]) == 20.0
    for n in (1, 2, 3, 4):
        assert heap_count([(1.0 * n, _disc_line(n))], 20.0, 0.45, 1.7, 1.0) == n
    thin = _disc_line(3, width=6)  # a ruled line of the table's print
    assert heap_count([(3.0, _disc_line(2)), (1.0, thin)], 20.0, 0.45, 1.7, 1.0) == 2


def test_a_heap_the_bodies_cannot_say_is_left_to_the_colour():
    edge = _disc_line(2)
    edge[0, 30] = True  # reaching the box's edge: not a heap's
    assert heap_count([(2.0, edge)], 20.0, 0.45, 1.7, 1.0) is None
    pile = _disc_line(2, width=40)  # twice as wide as one: a pile, whose length says nothing
    assert heap_count([(4.0, pile)], 20.0, 0.45, 1.7, 1.0) is None
    assert heap_count([], 20.0, 0.45, 1.7, 1.0) is None  # no body at all (a white scarab on white paper)
    assert heap_count([(0.2, _disc_line(1))], 20.0, 0.45, 1.7, 1.0) is None  # a speck


LAW_SET = Path(__file__).with_name("photoreal-cheops10-t00")
LAW = Piece("neutral", "law")


@reads_as_recorded
def test_a_law_on_a_law_box_is_read_by_its_body_when_its_face_says_nothing(monkeypatch):
    """A price table's law box holds a law only (rules, laws 4-7): a body of a tile's size there is the law
    (``AppearanceStep._sole_tile``), however its back shows. Without that the law was read as nothing."""
    got, truth = read_kept_frame(LAW_SET, "cheops", "table")
    boxes = [s for s in got if s.endswith("-law")]
    assert truth.content("price-blue-law") == {LAW: 1}
    assert {s: dict(got[s].pieces) for s in boxes} == {s: dict(truth.content(s)) for s in boxes}
    monkeypatch.setattr(appearance.AppearanceStep, "_sole_tile", lambda *a, **k: None)
    got, _ = read_kept_frame(LAW_SET, "cheops", "table")
    assert dict(got["price-blue-law"].pieces) == {}
