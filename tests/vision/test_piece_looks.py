"""Kinds that look alike are counted as one (vision/piece_looks.py), and Zhang Yi's counters are read
by colour: Qin's near-black ones too, heaps side by side are no hand; its talent counters (their
state's colour, their name printed on them) are counted with the army counters and then told by their
face (vision/counted_faces.py), learned from one of each at enrolment."""

from __future__ import annotations

from collections import Counter

import pytest

from scorer.core.types import Board, Piece
from vision.enrolment import enrolment_plan, enrolment_types, model_from_photos, piece_types
from vision.layout import load_layout
from vision.piece_looks import alike, face_kinds, read_kinds, representatives
from vision.render import Conditions, render
from vision.table_reader import TableReader


def test_zhang_yi_talents_are_counted_as_army_counters_enrolled_for_their_faces_and_the_die_is_left_to_the_dice_reader() -> None:
    layout = load_layout("zhang-yi-sample")
    reps = representatives(layout)
    assert reps["talent-bai_qi"] == "army" and reps["army"] == "army" and reps["chit"] == "chit"
    assert read_kinds(layout) == ("army", "chit")
    assert len(alike(layout)["army"]) == 21  # the army counters 1-4 and the 16 talents
    assert set(face_kinds(layout)) == {k for k in layout.pieces if k.startswith(("talent-", "army-"))}
    spec = layout.pieces["talent-tian_dan"]
    assert spec.printed and spec.on_owner_colour and spec.face_label == "Tian Dan" and spec.owned_by == ("qi",)
    assert layout.pieces["talent-jing_ke"].owned_by == ()  # the assassin: no state, never on the map
    types = piece_types(layout)
    assert len(types) == 14 and Piece("qin", "army") in types and not any(p.kind == "die" for p in types)
    # each state's army counter shows a value, the values in turn (vision/counted_values.py), and one
    # counter of each talent (with its state) besides, for its face; not the assassin
    enrolled = enrolment_types(layout)
    armies = [p for p in enrolled if p.kind.startswith("army")]
    assert [str(p.owner) for p in armies] == list(layout.players)
    assert [p.kind for p in armies] == ["army-1", "army-2", "army-3", "army-4", "army-1", "army-2", "army-3"]
    extra = [p for p in enrolled if p not in types and p not in armies]
    assert len(extra) == 15 and Piece("qi", "talent-tian_dan") in extra and not any(p.kind == "talent-jing_ke" for p in extra)
    assert len(enrolled) == len(armies) + 7 + 15  # and a chit per state
    plan = enrolment_plan(layout)
    assert sorted(plan.values(), key=str) == sorted(enrolled, key=str)


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


def test_talent_counters_are_told_by_their_printed_face(zhang_yi_reader) -> None:
    layout, c, reader = zhang_yi_reader
    # the talents' faces, the army counters' values and the talents' prints as values are read (counted_values)
    assert reader.faces is not None and len(reader.model.faces) == 15 + 7 + 15
    board = Board.from_counts({
        "linzi": Counter({Piece("qi", "army"): 3, Piece("qi", "talent-tian_dan"): 1}),
        "jimo": Counter({Piece("qi", "army"): 1, Piece("qi", "talent-sun_bin"): 1}),
        "xianyang": Counter({Piece("qin", "army"): 2, Piece("qin", "talent-bai_qi"): 1, Piece("qin", "talent-li_si"): 1}),
        "ying": Counter({Piece("chu", "talent-chunshen_jun"): 1}),
        "handan": Counter({Piece("zhao", "army"): 4})})
    reader.reset()
    got = {r.space: dict(r.pieces) for r in reader.read(render(layout, board, c).image).spaces if r.pieces or r.occluded}
    assert got == {s: dict(board.pieces(s)) for s in board.spaces()}
