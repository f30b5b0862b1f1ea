"""Cheops' pyramid scarabs asked of a network as well as of their colour (vision/scarab_network.py): what
the network is asked, and when its answer replaces the look's. The rule runs on a rendered Cheops board
with a scripted network (its outputs chosen by the test), so each case says one thing; the committed
network on a kept photoreal frame is in test_scarab_network_photoreal.py."""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np
import pytest

from scorer.core.types import Board, Piece
from vision.counting import SpaceCount
from vision.layout import load_layout
from vision.render import render
from vision.scarab_network import SURE_TO_ADD, SURE_TO_RECOLOUR, ScarabNetwork, scarab_heads
from vision.space_classifier import STAND_IN, ClassifierError, Head
from vision.space_crops import CropSpec
from vision.table_reader import TableReader

N = "neutral"
WHITE, RED, FAMILY = Piece(N, "treasure-white"), Piece(N, "treasure-red"), Piece(N, "family-A")


@pytest.fixture(scope="module")
def cheops():
    return load_layout("cheops")


class Scripted:
    """A stand-in for the committed network: every crop gets ``answer`` (a class of the head) with
    probability ``p``; the crops it was shown are counted."""

    def __init__(self, layout, answer: tuple[Piece, ...] = (), p: float = 0.99, owners=("neutral",)):
        self.heads = scarab_heads(layout)
        self.crops = {"pyramid": CropSpec(56.0, 48), "dot": CropSpec(40.0, 40)}
        self.owners = tuple(owners)
        self.source = "scripted"
        self.answer, self.p, self.shown = answer, p, Counter()

    def forward(self, kind: str, blob: np.ndarray) -> np.ndarray:
        """``answer`` (a class of the head) at ``p``; nothing where the head has no such class."""
        head = self.heads[kind]
        self.shown[kind] += len(blob)
        k = head.classes.index(self.answer) if self.answer in head.classes else 0
        others = (1 - self.p) / (len(head.classes) - 1)
        row = np.log(np.full(len(head.classes), others))
        row[k] = np.log(self.p)
        return np.tile(row, (len(blob), 1)).astype(np.float32)


@pytest.fixture(scope="module")
def scene(cheops):
    """A rendered Cheops board: a red scarab on r5c3, a family tile on r5c4, nothing on r3c2 (nothing differs there from the empty board); the reader's
    view of it (the nominal model: no enrolment needed for the rule)."""
    board = Board.from_counts({"r5c3": Counter({RED: 1}), "r5c4": Counter({FAMILY: 1})})
    reader = TableReader(cheops, None, classifier=None, scarab_network=None)
    _, corrected, maps = reader.board_view(render(cheops, board).image)
    assert corrected is not None and maps is not None
    idx = {sp.id: i for i, sp in enumerate(cheops.spaces)}
    return reader, corrected, maps, idx


def _net(reader, script) -> ScarabNetwork:
    return ScarabNetwork(reader.layout, script, reader.space_masks, reader.model.reference, reader.s, reader.colours)


def test_the_pyramid_is_one_choice_of_a_scarab_nothing_or_a_tile(cheops):
    head = scarab_heads(cheops)["pyramid"]
    assert head.mode == "single" and head.classes[0] == () and head.classes[-1] == (STAND_IN,)
    assert {p.kind for c in head.classes[1:-1] for p in c} == {f"treasure-{c}" for c in
                                                              ("red", "blue", "green", "yellow", "white", "black")}
    assert head.target([FAMILY]) == head.target([Piece(N, "neighbour")]) == [len(head.classes) - 1]
    assert head.target([WHITE, RED]) is None  # two scarabs on a pyramid space: not a sample
    assert Head.from_json(head.to_json()) == head
    assert "eye" not in scarab_heads(cheops)  # the eye spaces hold tiles only
    assert scarab_heads(load_layout("china-a")) == {}


def test_the_dots_are_one_choice_and_the_price_columns_left_to_the_look(cheops):
    heads = scarab_heads(cheops)
    assert set(heads) == {"pyramid", "dot"}  # price columns hold several: the look counts them
    dot = heads["dot"]
    assert dot.mode == "single" and dot.classes[0] == () and len(dot.classes) == 7 and not dot.stands_in
    assert Head.from_json(dot.to_json()) == dot


def test_a_scarab_the_look_missed_is_read_where_the_network_is_sure(scene):
    reader, corrected, maps, idx = scene
    i = idx["r5c3"]
    empty = {i: SpaceCount(Counter(), 1.0)}
    out = _net(reader, Scripted(reader.layout, (WHITE,), SURE_TO_ADD + 0.01)).apply(empty, corrected, maps, [i])
    assert out[i].pieces == Counter({WHITE: 1})
    assert _net(reader, Scripted(reader.layout, (WHITE,), SURE_TO_ADD - 0.01)).apply(empty, corrected, maps, [i]) == empty


def test_a_scarab_the_look_read_is_recoloured_only_when_the_network_is_surer_still(scene):
    reader, corrected, maps, idx = scene
    i = idx["r5c3"]
    look = {i: SpaceCount(Counter({RED: 1}), 0.8)}
    out = _net(reader, Scripted(reader.layout, (WHITE,), SURE_TO_RECOLOUR + 0.005)).apply(look, corrected, maps, [i])
    assert out[i].pieces == Counter({WHITE: 1})
    assert _net(reader, Scripted(reader.layout, (WHITE,), SURE_TO_RECOLOUR - 0.005)).apply(
        look, corrected, maps, [i]) == look


def test_the_network_never_takes_a_scarab_away_nor_reads_a_tile(scene):
    reader, corrected, maps, idx = scene
    i = idx["r5c3"]
    look = {i: SpaceCount(Counter({RED: 1}), 0.8)}
    assert _net(reader, Scripted(reader.layout, (), 0.999)).apply(look, corrected, maps, [i]) == look
    assert _net(reader, Scripted(reader.layout, (STAND_IN,), 0.999)).apply(look, corrected, maps, [i]) == look
    empty = {i: SpaceCount(Counter(), 1.0)}
    assert _net(reader, Scripted(reader.layout, (STAND_IN,), 0.999)).apply(empty, corrected, maps, [i]) == empty


def test_a_tile_a_bare_space_and_a_space_not_read_are_not_asked(scene):
    reader, corrected, maps, idx = scene
    tile, bare, unread = idx["r5c4"], idx["r3c2"], idx["r5c3"]
    script = Scripted(reader.layout, (WHITE,), 0.99)
    look = {tile: SpaceCount(Counter({FAMILY: 1}), 0.9), bare: SpaceCount(Counter(), 1.0)}  # r5c3 left unread
    assert _net(reader, script).apply(look, corrected, maps, [tile, bare, unread]) == look
    assert script.shown["pyramid"] == 0


def test_a_network_made_for_other_pieces_is_refused_and_the_reader_reads_by_look(scene, tmp_path, caplog):
    reader, *_ = scene
    with pytest.raises(ClassifierError, match="owners"):
        _net(reader, Scripted(reader.layout, owners=("red", "neutral")))
    with caplog.at_level(logging.WARNING):
        assert ScarabNetwork.for_reader(reader.layout, reader.space_masks, reader.model.reference, reader.s,
                                        reader.colours, tmp_path / "none") is None
    assert "scarabs read by colour alone" in caplog.text and "none" in caplog.text


def test_a_dot_is_asked_even_bare_and_takes_only_its_own_colour(scene):
    reader, corrected, maps, idx = scene
    i = idx["dot-red"]
    empty = {i: SpaceCount(Counter(), 1.0)}
    own = Scripted(reader.layout, (RED,), 0.99)
    assert _net(reader, own).apply(empty, corrected, maps, [i])[i].pieces == Counter({RED: 1})
    assert own.shown["dot"] == 1
    assert _net(reader, Scripted(reader.layout, (WHITE,), 0.999)).apply(empty, corrected, maps, [i]) == empty


def test_a_part_of_the_board_that_cuts_a_dot_crop_is_read_whole(scene):
    """A partial read (a scarab moved) looks at a part of the board; a dot's crop reaching beyond it
    would be padded and read otherwise than in the whole board: the reader reads it whole."""
    reader, corrected, maps, idx = scene
    net = _net(reader, Scripted(reader.layout))
    i = idx["dot-red"]
    assert net.fits([i], (0, 0), corrected.shape)
    x, y = (int(v * reader.s) for v in reader.layout.spaces[i].centre)
    assert not net.fits([i], (x - 15, y - 15), (30, 30))  # the dot and 3 mm round it
    assert net.fits([idx["r5c3"]], (0, 0), (1, 1))  # pyramid spaces are asked only where something differs
