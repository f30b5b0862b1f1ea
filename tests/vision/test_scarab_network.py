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
        self.crops = {"pyramid": CropSpec(56.0, 48)}
        self.owners = tuple(owners)
        self.source = "scripted"
        self.answer, self.p, self.shown = answer, p, 0

    def forward(self, kind: str, blob: np.ndarray) -> np.ndarray:
        head = self.heads[kind]
        k = head.classes.index(self.answer)
        others = (1 - self.p) / (len(head.classes) - 1)
        row = np.log(np.full(len(head.classes), others))
        row[k] = np.log(self.p)
        self.shown += len(blob)
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
    assert set(scarab_heads(cheops)) == {"pyramid"}  # the eye spaces hold tiles only
    assert scarab_heads(load_layout("china-a")) == {}


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
    assert script.shown == 0


def test_a_network_made_for_other_pieces_is_refused_and_the_reader_reads_by_look(scene, tmp_path, caplog):
    reader, *_ = scene
    with pytest.raises(ClassifierError, match="owners"):
        _net(reader, Scripted(reader.layout, owners=("red", "neutral")))
    with caplog.at_level(logging.WARNING):
        assert ScarabNetwork.for_reader(reader.layout, reader.space_masks, reader.model.reference, reader.s,
                                        reader.colours, tmp_path / "none") is None
    assert "scarabs read by colour alone" in caplog.text and "none" in caplog.text
