"""Kinds that look alike are enrolled and read as one (vision/piece_looks.py), and Zhang Yi's
counters are read by colour: Qin's near-black ones too, heaps side by side are no hand."""

from __future__ import annotations

from collections import Counter

import pytest

from scorer.core.types import Board, Piece
from vision.enrolment import enrolment_plan, model_from_photos, piece_types
from vision.layout import load_layout
from vision.piece_looks import alike, read_kinds, representatives
from vision.render import Conditions, render
from vision.table_reader import TableReader


def test_zhang_yi_talents_are_read_as_army_counters_and_the_die_is_left_to_the_dice_reader() -> None:
    layout = load_layout("zhang-yi-sample")
    reps = representatives(layout)
    assert reps["talent-bai_qi"] == "army" and reps["army"] == "army" and reps["chit"] == "chit"
    assert read_kinds(layout) == ("army", "chit")
    assert len(alike(layout)["army"]) == 17
    types = piece_types(layout)
    assert len(types) == 14 and Piece("qin", "army") in types and not any(p.kind == "die" for p in types)
    plan = enrolment_plan(layout)
    assert sorted(plan.values(), key=str) == sorted(types, key=str)


def test_china_pieces_all_differ() -> None:
    layout = load_layout("china-a")
    assert set(read_kinds(layout)) == set(layout.pieces)
    assert not alike(layout)


@pytest.fixture(scope="module")
def zhang_yi_reader():
    layout = load_layout("zhang-yi-sample")
    c = Conditions(size=(1280, 720), fill=0.9, seed=4)
    plan = enrolment_plan(layout)
    model = model_from_photos(layout, render(layout, Board(), c).image,
                              render(layout, Board.from_counts({s: Counter({p: 1}) for s, p in plan.items()}), c).image, plan)
    return layout, c, TableReader(layout, model, classifier=None)


def test_qin_counters_are_found_by_darkness(zhang_yi_reader) -> None:
    layout, c, reader = zhang_yi_reader
    assert [reader.colours.owners[i] for i in reader.colours.grey] == ["qin"]
    board = Board.from_counts({"xianyang": Counter({Piece("qin", "army"): 3}), "longxi": Counter({Piece("qin", "army"): 1}),
                               "ying": Counter({Piece("chu", "army"): 2})})
    reader.reset()
    got = {r.space: dict(r.pieces) for r in reader.read(render(layout, board, c).image).spaces if r.pieces}
    assert got == {s: dict(board.pieces(s)) for s in board.spaces()}


def test_crowded_neighbouring_areas_are_heaps_not_a_hand(zhang_yi_reader) -> None:
    layout, c, reader = zhang_yi_reader
    middle = ("luoyang", "xinzheng", "daliang", "taoyi", "yiyang")  # small cells in the middle of the sample map
    owners = ("wei", "han", "zhao", "qi", "chu")
    board = Board.from_counts({s: Counter({Piece(o, "army"): 5}) for s, o in zip(middle, owners)})
    reader.reset()
    d = reader.read(render(layout, board, c).image)
    assert not any(r.occluded for r in d.spaces)
