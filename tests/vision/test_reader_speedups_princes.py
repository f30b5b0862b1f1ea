"""The reader's partial read gives what a full read of the same frame gives on Ming, whose princes (one
per owner, layout ``per_owner``) are placed over the whole board (``piece_sets.allocate``): a prince
taken from a space read again may now stand best on a space kept from the last read, and one put down
may take the prince a kept space had (``vision.limited_pieces``). The frames differ only where the
piece moved (the same sensor noise elsewhere), so a kept space reads as it did."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from ming_table_testkit import CAMERA, enrolled_ming
from scorer.core.types import Board, Piece
from vision.layout import load_layout
from vision.piece_sets import Kind, allocate, options
from vision.render import render, without_piece
from vision.table_reader import TableReader

RED_PRINCE = Piece("red", "prince")


@pytest.fixture(scope="module")
def ming():
    return load_layout("ming-provisional")


@pytest.fixture(scope="module")
def table(ming):
    return enrolled_ming(ming)


def _read(det) -> dict[str, dict[Piece, int]]:
    return {s.space: dict(s.pieces) for s in det.spaces if s.pieces}


def _two_princes(ming, a: str, b: str):
    """A board (as ``scenes.random_board`` draws them, with no notion of the rules) with a red prince
    in two districts far apart, its frame with fixed sensor noise, and a function noising another
    rendering of it the same way."""
    board = Board.from_counts({a: Counter({RED_PRINCE: 1}), b: Counter({RED_PRINCE: 1}),
                               "p3d2": Counter({Piece("blue", "family"): 2})})
    first = render(ming, board, dataclasses.replace(CAMERA, noise_sigma=0.0, jpeg_quality=None, seed=40))
    noise = np.random.default_rng(0).normal(0, 3.0, first.image.shape)
    return first, lambda img: np.clip(img + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("a, b", [("p1d1", "p6d3"), ("p2d2", "p6d1")])
def test_a_prince_taken_away_goes_to_a_kept_space_as_in_a_full_read(ming, table, a, b):
    first, noisy = _two_princes(ming, a, b)
    reader = TableReader(ming, table, classifier=None)
    seen = _read(reader.read(noisy(first.image)))
    placed = [s for s, p in seen.items() if RED_PRINCE in p]
    assert len(placed) == 1, seen  # one prince an owner: the other district reads two family members
    other = b if placed[0] == a else a
    gone = next(pl for pl in first.truth.placements if pl.space == placed[0] and pl.piece == RED_PRINCE)
    after = noisy(without_piece(ming, first, gone))
    det = reader.read(after)
    full = TableReader(ming, table, classifier=None).read(after)
    assert det.partial is not None and full.partial is None
    assert _read(det) == _read(full), (_read(det), _read(full))
    assert _read(full)[other] == {RED_PRINCE: 1}  # what the partial read had to see: the kept district's prince


@pytest.mark.parametrize("a, b", [("p1d1", "p6d3"), ("p2d2", "p6d1")])
def test_a_prince_put_down_is_placed_over_the_whole_board_as_in_a_full_read(ming, table, a, b):
    first, noisy = _two_princes(ming, a, b)
    for put in (a, b):
        piece = next(pl for pl in first.truth.placements if pl.space == put and pl.piece == RED_PRINCE)
        reader = TableReader(ming, table, classifier=None)
        reader.read(noisy(without_piece(ming, first, piece)))
        det = reader.read(noisy(first.image))
        full = TableReader(ming, table, classifier=None).read(noisy(first.image))
        assert det.partial is not None
        assert _read(det) == _read(full), (put, _read(det), _read(full))


def test_allocation_keys_are_allocations_choices():
    from vision.piece_sets import allocate_keys

    fam, prince = Piece("red", "family"), Piece("red", "prince")
    kinds = [Kind(fam, 300.0, 90.0, 0.0, 20, False), Kind(prince, 560.0, 200.0, 0.0, 10, True)]
    per_space = {0: options(kinds, 560.0, 1), 1: options(kinds, 590.0, 1), 2: options(kinds, 300.0, 1)}
    for budget in (0, 1, 2):
        keys = allocate_keys(per_space, [budget])
        assert {sp: per_space[sp][k] for sp, k in keys.items()} == allocate(per_space, [budget])
