"""Zhang Yi's army counters read by their printed values 1-4 (vision/counted_values.py): the layout
declares the counters and what each counts as, the renderer shows a strength by the fewest counters,
enrolment learns each value from one counter per state, and the reader reports the sum as that many
``army`` pieces -- or leaves the area unread when a value is not sure, never guessing."""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.counted_values import (MIN_FRAME_PX_PER_MM, ValueBook, as_counters, as_units, counters_for, fewest,
                                   frame_scale, value_kinds)
from vision.enrolment import enrolment_plan, model_from_photos
from vision.errors import LayoutError
from vision.layout import LAYOUT_DIR, layout_from_json, load_layout
from vision.render import Conditions, render
from vision.table_reader import TableReader

VALUES = {"army-1": 1, "army-2": 2, "army-3": 3, "army-4": 4}


@pytest.fixture(scope="module")
def layout():
    return load_layout("zhang-yi-sample")


def test_a_strength_is_shown_by_the_fewest_counters() -> None:
    assert fewest(7, (1, 2, 3, 4)) == ((4, 3),)
    assert set(fewest(6, (1, 2, 3, 4))) == {(4, 2), (3, 3)}
    assert set(fewest(9, (1, 2, 3, 4))) == {(4, 4, 1), (4, 3, 2), (3, 3, 3)}
    assert fewest(1, (1, 2, 3, 4)) == ((1,),)
    assert fewest(0, (1, 2, 3, 4)) == ()
    assert fewest(5, (3, 4)) == ()  # cannot be shown


def test_the_layout_declares_the_value_counters(layout) -> None:
    assert value_kinds(layout) == {k: ("army", n) for k, n in VALUES.items()}
    assert counters_for(layout) == {"army": tuple(VALUES.items())}
    spec = layout.pieces["army-3"]
    assert spec.printed and spec.on_owner_colour and spec.face_label == "3" and not spec.with_motif
    assert layout.pieces["talent-bai_qi"].with_motif and layout.pieces["army"].counts_as is None
    assert all(k in layout.holds["area"] and k in layout.holds["city"] for k in VALUES)


@pytest.mark.parametrize("change, message", [
    (lambda p: p["army-3"]["counts_as"].update(kind="nothing"), "not a plain piece kind"),
    (lambda p: p["army-3"]["counts_as"].update(kind="talent-bai_qi"), "not a plain piece kind"),
    (lambda p: p["army-3"].update(size_mm=[20, 20]), "needs its footprint"),
    (lambda p: p["army-3"].pop("face"), "needs its footprint"),
])
def test_a_counter_must_look_like_what_it_counts_as(change, message) -> None:
    data = json.loads((LAYOUT_DIR / "zhang-yi-sample.json").read_text("utf-8"))
    bad = copy.deepcopy(data)
    change(bad["pieces"])
    with pytest.raises(LayoutError, match=message):
        layout_from_json(bad)


def test_the_renderer_shows_strength_by_counters_and_the_truth_keeps_it(layout) -> None:
    board = Board.from_counts({"xianyang": Counter({Piece("qin", "army"): 7}),
                               "linzi": Counter({Piece("qi", "army"): 6, Piece("qi", "talent-tian_dan"): 1}),
                               "ying": Counter({Piece("chu", "army"): 1})})
    shown = as_counters(layout, board, seed=3)
    assert shown.pieces("xianyang") == Counter({Piece("qin", "army-4"): 1, Piece("qin", "army-3"): 1})
    assert sum(shown.pieces("linzi").values()) == 3 and shown.pieces("linzi")[Piece("qi", "talent-tian_dan")] == 1
    assert shown.pieces("ying") == Counter({Piece("chu", "army-1"): 1})
    for s in board.spaces():  # back to strength: the game's pieces
        assert as_units(layout, shown.pieces(s)) == board.pieces(s)
    assert as_counters(layout, board, seed=3).as_dict() == shown.as_dict()  # an unchanged army keeps its counters
    r = render(layout, board, Conditions(seed=3))
    assert r.truth.board.as_dict() == board.as_dict()
    assert Counter(p.piece.kind for p in r.truth.placements if p.space == "xianyang") == {"army-4": 1, "army-3": 1}


@pytest.fixture(scope="module")
def reader(layout):
    c = Conditions(size=(960, 720), fill=0.95, seed=5)  # the demo's camera: straight above, 0.95 frame px per board mm
    plan = enrolment_plan(layout)
    model = model_from_photos(layout, render(layout, Board(), c).image,
                              render(layout, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}), c).image, plan)
    return c, TableReader(layout, model, classifier=None)


def test_enrolment_learns_every_value_and_every_state_colour_from_the_counters(layout, reader) -> None:
    _, r = reader
    assert {k.split(":", 1)[1] for k in r.model.faces if ":army-" in k} == set(VALUES)
    assert set(layout.players) <= set(r.model.colours)
    assert all(r.model.sizes[Piece(o, "army")].enrolled for o in layout.players)
    assert ValueBook(layout, r.model.faces).kinds() == tuple(VALUES)


def test_the_reader_reports_the_sum_of_the_values_as_army(layout, reader) -> None:
    c, r = reader
    board = Board.from_counts({
        "xianyang": Counter({Piece("qin", "army"): 9}), "longxi": Counter({Piece("qin", "army"): 2}),
        "ying": Counter({Piece("chu", "army"): 6}), "handan": Counter({Piece("zhao", "army"): 3}),
        "linzi": Counter({Piece("qi", "army"): 5, Piece("qi", "talent-tian_dan"): 1}),
        "daliang": Counter({Piece("wei", "army"): 4}), "ji": Counter({Piece("yan", "army"): 1})})
    r.reset()
    frame = render(layout, board, replace(c, seed=11))
    d = r.read(frame.image)
    got = {s.space: dict(s.pieces) for s in d.spaces if s.pieces or s.occluded or s.unsure}
    assert got == {s: dict(board.pieces(s)) for s in board.spaces()}
    counters = [p for p in frame.truth.placements if p.piece.kind in VALUES]
    read = [x for x in r.faces.last_counters if x.value.kind is not None]
    assert len(read) == len(counters) >= 10  # every army counter's value read (and the talent told by its face)


def test_a_value_not_sure_leaves_the_area_unread(layout, reader) -> None:
    c, r = reader
    blank = np.full((53, 53, 3), (40, 60, 200), np.uint8)  # a counter's colour without print
    assert ValueBook(layout, r.model.faces).match(blank, tuple(VALUES)).kind is None
    # a camera too far away for the digits: the areas with army are unread, the others still read
    far = replace(c, fill=0.55, seed=12)
    board = Board.from_counts({"xianyang": Counter({Piece("qin", "army"): 3}), "ying": Counter({Piece("chu", "army"): 5})})
    frame = render(layout, board, far)
    r.reset()
    d = r.read(frame.image)
    assert d.registration.usable
    assert frame_scale(d.registration.homography, layout.space("ying").centre) < MIN_FRAME_PX_PER_MM
    by = {s.space: s for s in d.spaces}
    assert by["xianyang"].unsure and by["ying"].unsure and not by["xianyang"].pieces  # seen, not read: no hand
    assert not any(s.occluded or s.unsure for s in d.spaces if s.space not in board.spaces())


def test_a_detail_frame_reads_the_values_the_watched_frame_is_too_coarse_for(layout, reader) -> None:
    """``read(frame, detail=...)``: the watched frame too coarse for the digits, the same view at a
    higher resolution (a camera's still, taken only when the board is read) reads them."""
    c, r = reader
    board = Board.from_counts({"xianyang": Counter({Piece("qin", "army"): 3}), "ying": Counter({Piece("chu", "army"): 5})})
    far = replace(c, fill=0.55, seed=12)
    big = render(layout, board, replace(far, size=(c.size[0] * 3, c.size[1] * 3))).image
    watched = cv2.resize(big, c.size, interpolation=cv2.INTER_AREA)
    taken = []

    def still() -> np.ndarray:
        taken.append(1)
        return big

    r.reset()
    d = r.read(watched, detail=still)
    assert d.registration.usable and frame_scale(d.registration.homography, layout.space("ying").centre) < MIN_FRAME_PX_PER_MM
    got = {s.space: dict(s.pieces) for s in d.spaces if s.pieces or s.occluded or s.unsure}
    assert got == {s: dict(board.pieces(s)) for s in board.spaces()}
    assert taken == [1]  # the still taken once, for the whole read
    r.reset()  # without it: unread, as above
    d = r.read(watched)
    assert {s.space for s in d.spaces if s.unsure} == {"xianyang", "ying"} and not d.occluded
