"""The second look (vision/second_look.py): where the learned network reads a space empty that one
player's colour covers, colour counting's reading is taken, when it is one piece of a kind the space
holds; nothing else the network read changes, and nothing under a hand is looked at."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from classifier_testkit import AlteredClassifier
from scorer.core.types import Board, Piece
from vision.counting import SpaceCount
from vision.render import Conditions, render
from vision.render_conditions import Hand
from vision.second_look import MIN_CONFIDENCE, SHARE, adopt, missed_spaces
from vision.space_classifier import SpaceClassifier
from vision.table_reader import TableReader

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=14.0, tilt_azimuth_deg=30.0,
                    blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=21)
HOUSE, EMISSARY = Piece("blue", "house"), Piece("blue", "emissary")


def _mask(n: int) -> tuple[tuple[int, int, int, int], np.ndarray]:
    return (0, 0, n, n), np.ones((n, n), np.uint8)


def test_a_space_read_empty_under_a_players_colour_is_looked_at_again():
    labels = np.full((10, 10), -2, np.int16)
    labels[:, :2] = 1  # owner 1 covers 20 % of space 0 (more than SHARE)
    empty = {0: SpaceCount(Counter(), 0.99), 1: SpaceCount(Counter(), 0.99), 2: SpaceCount(Counter({HOUSE: 1}), 0.9)}
    assert SHARE < 0.2
    masks = [_mask(10), ((0, 0, 10, 10), np.pad(np.ones((8, 8), np.uint8), ((0, 2), (2, 0)))), _mask(10)]
    # space 1: the colour lies outside its outline; space 2: already read; a neutral owner (0) never counts
    assert missed_spaces(empty, [True, True, True], labels, masks, [1]) == [0]
    assert missed_spaces(empty, [True, True, True], labels, masks, [2]) == []
    # a counting head (a heap of emissaries) is not second-guessed
    assert missed_spaces(empty, [False, True, True], labels, masks, [1]) == []


def test_only_one_held_piece_counted_surely_replaces_the_networks_empty():
    counts = {i: SpaceCount(Counter(), 0.99) for i in range(5)}
    counted = {0: SpaceCount(Counter({HOUSE: 1}), MIN_CONFIDENCE + 0.1),
               1: SpaceCount(Counter({HOUSE: 1}), MIN_CONFIDENCE - 0.1),  # unsure
               2: SpaceCount(Counter({EMISSARY: 1}), 0.9),  # an emissary on a site: not held there
               3: SpaceCount(Counter({HOUSE: 1, Piece("neutral", "fortress"): 1}), 0.9),  # two pieces
               4: SpaceCount(Counter({HOUSE: 1}), 0.9)}
    holds = [frozenset({"house", "fortress"})] * 5
    out = adopt(counts, counted, [0, 1, 2, 3], holds)
    assert out[0] is counted[0]
    assert all(out[i] is counts[i] for i in (1, 2, 3, 4))  # 4: not a candidate


class _Blind(AlteredClassifier):
    """The committed classifier, made to read every site empty (as the network did for one
    photoreal table's blurred dark blue houses)."""

    def alter(self, kind: str, out: np.ndarray) -> np.ndarray:
        if kind == "site":
            out = np.zeros_like(out)
            out[:, self.heads["site"].classes.index(())] = 20.0
        return out


@pytest.fixture(scope="module")
def table(china_layout, tmp_path_factory, enrolled_table):
    return enrolled_table(china_layout, CAMERA, tmp_path_factory.mktemp("table"))


def test_houses_the_network_misses_are_read_by_counting(china_layout, table):
    sites = [s.id for s in china_layout.spaces if s.kind == "site"][3:11]
    board = Board.from_counts({s: Counter({Piece(c, "house"): 1})
                               for s, c in zip(sites, ["red", "blue", "green", "yellow", "violet"] * 2)})
    frame = render(china_layout, board, dataclasses.replace(CAMERA, seed=40)).image
    det = TableReader(china_layout, table, classifier=_Blind(SpaceClassifier.load(layout=china_layout))).read(frame)
    got = {s.space: dict(s.pieces) for s in det.spaces if s.pieces}
    assert got == {s: {p: 1 for p in board.pieces(s)} for s in sites}


def test_nothing_under_a_hand_is_looked_at_again(china_layout, table):
    sites = [s.id for s in china_layout.spaces if s.kind == "site"]
    board = Board.from_counts({s: Counter({Piece(c, "house"): 1})
                               for s, c in zip(sites, ["red", "blue", "green", "yellow", "violet"] * 20)})
    x, y = china_layout.size[0] / 2, china_layout.size[1] / 2
    frame = render(china_layout, board, dataclasses.replace(CAMERA, seed=41, hand=Hand((x, y), 100.0, 60.0)))
    det = TableReader(china_layout, table, classifier=_Blind(SpaceClassifier.load(layout=china_layout))).read(frame.image)
    hidden = set(frame.truth.occluded)
    assert hidden, "the hand covers some spaces"
    for s in det.spaces:
        if s.space in hidden:
            assert s.occluded or not s.pieces, f"{s.space} read through the hand: {s.pieces}"


def test_a_house_put_down_is_read_by_counting_in_a_partial_read_too(china_layout, table):
    site = [s.id for s in china_layout.spaces if s.kind == "site"][7]
    camera = dataclasses.replace(CAMERA, seed=42)
    reader = TableReader(china_layout, table, classifier=_Blind(SpaceClassifier.load(layout=china_layout)))
    first = reader.read(render(china_layout, Board.from_counts({}), camera).image, at=0.0)
    assert not any(s.pieces for s in first.spaces)
    board = Board.from_counts({site: Counter({HOUSE: 1})})
    then = reader.read(render(china_layout, board, camera).image, at=1.0)
    assert then.partial, "one piece put down: only the spaces near it are read again"
    assert {s.space: dict(s.pieces) for s in then.spaces if s.pieces} == {site: {HOUSE: 1}}
