"""Which card a dragon lies on, read by the camera (``vision.card_rows.covered_card``, reported in
``SpaceResult.seen`` as ``covers <owner>:<kind>``): the card whose index shows above it."""

from __future__ import annotations

from collections import Counter

import pytest

from scorer.core.observation import covers_fact
from scorer.core.types import Board, Piece
from vision.card_reader import CardReader
from vision.card_rows import card_row, covered_card
from vision.layout import load_layout
from vision.render import Conditions, render

CARDS = {Piece("blue", "wall"): 1, Piece("red", "gate"): 1, Piece("yellow", "tower"): 1, Piece("green", "soldier"): 1,
         Piece("blue", "noble"): 1}


@pytest.fixture(scope="module")
def layout():
    return load_layout("great-wall")


def _under(layout, placements, space: str) -> list[str]:
    """The cards the dragons lie on, from where the renderer laid them (its truth)."""
    row = card_row(layout, space)
    ups = sorted((p for p in placements if p.space == space and p.piece.kind not in ("dragon",)
                  and not p.piece.kind.startswith("token")), key=lambda p: p.x)
    lefts = [p.x - row.card_w / 2 for p in ups]
    ends = lefts[1:] + [float("inf")]
    middles = [left + min(end - left, row.card_w) / 2 for left, end in zip(lefts, ends)]
    out = []
    for d in (p for p in placements if p.space == space and p.piece.kind == "dragon"):
        k = min(range(len(ups)), key=lambda j: abs(middles[j] - d.x))
        out.append(covers_fact(str(ups[k].piece.owner), ups[k].piece.kind))
    return sorted(out)


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_the_card_under_a_dragon_is_reported(layout, seed: int) -> None:
    board = Board.from_counts({"section-1": Counter({**CARDS, Piece("red", "dragon"): 1}),
                               "section-3": Counter({Piece("blue", "wall"): 2, Piece("green", "gate"): 1,
                                                     Piece("yellow", "dragon"): 1})})
    r = render(layout, board, Conditions(size=(1280, 720), fill=0.9, seed=seed))
    got = {s.space: s for s in CardReader(layout).read(r.image).spaces}
    for space in ("section-1", "section-3"):
        assert Counter(dict(got[space].pieces)) == Counter(dict(board.pieces(space))), space
        assert list(got[space].seen) == _under(layout, r.truth.placements, space), space
        assert got[space].reading().seen == got[space].seen
    assert not got["section-2"].seen


def test_a_dragon_beside_the_row_covers_nothing(layout) -> None:
    row = card_row(layout, "section-1")
    lefts = [row.x0, row.x0 + row.pitch(2)]
    # the owner square of a dragon laid on the second card, and of one laid far right of the row
    on_second = lefts[1] + row.card_w / 2 + row.card_h / 2 - 7.0
    assert covered_card(lefts, on_second, row) == 1
    assert covered_card(lefts, on_second + 2 * row.card_w, row) is None
    assert covered_card([], on_second, row) is None
