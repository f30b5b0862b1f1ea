"""Pieces seen without their value (``token-?``) take the value the game state expects there, and
only where that is unambiguous (``scorer.core.unvalued``); two sources agree when one of them reads a
value the other left out."""

from __future__ import annotations

from collections import Counter

import pytest

from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import Board, Piece
from scorer.core.unvalued import contents_agree, is_unvalued, resolve, resolve_content, unvalued
from scorer.referee.stabiliser import CAMERA, SENSOR_BOARD, Stabiliser

N, B = "neutral", "blue"


def tok(owner: str, v: object) -> Piece:
    return Piece(owner, f"token-{v}")


WALL = Piece(B, "wall")


def test_a_piece_loses_its_value_and_says_so() -> None:
    assert unvalued(tok(N, 5)) == tok(N, "?") and is_unvalued(tok(N, "?")) and not is_unvalued(tok(N, 5))
    with pytest.raises(ValueError, match="no value"):
        unvalued(WALL)


def test_unvalued_tokens_take_the_values_the_state_has_there() -> None:
    assert resolve_content({tok(N, "?"): 2, WALL: 1}, {tok(N, 7): 1, tok(N, 3): 1}) == Counter(
        {tok(N, 7): 1, tok(N, 3): 1, WALL: 1})
    # one read, one not: the other value is the one left
    assert resolve_content({tok(N, 7): 1, tok(N, "?"): 1}, {tok(N, 7): 1, tok(N, 3): 1}) == Counter(
        {tok(N, 7): 1, tok(N, 3): 1})
    # two equal values: either token is a 4
    assert resolve_content({tok(N, "?"): 1}, {tok(N, 4): 2}) == Counter({tok(N, 4): 1})


def test_a_choice_between_values_is_never_made() -> None:
    # one token left of {7, 3}: which one was taken is exactly what the state cannot say
    assert resolve_content({tok(N, "?"): 1}, {tok(N, 7): 1, tok(N, 3): 1}) is None
    # more tokens than the state has (a new pair revealed where one lay)
    assert resolve_content({tok(N, "?"): 2}, {tok(N, 7): 1}) is None
    # claimed: one token moved onto blue's card, neither value read -> 7 and 3 could be either way
    assert resolve_content({tok(N, "?"): 1, tok(B, "?"): 1}, {tok(N, 7): 1, tok(N, 3): 1}) is None


def test_a_claimed_token_takes_the_value_that_left_the_spot() -> None:
    # the token still at the spot is read (a 3): the one on blue's card is the 7 that left it
    assert resolve_content({tok(N, 3): 1, tok(B, "?"): 1, WALL: 1}, {tok(N, 7): 1, tok(N, 3): 1, WALL: 1}) == Counter(
        {tok(N, 3): 1, tok(B, 7): 1, WALL: 1})
    # equal values: whichever went, both are 4s
    assert resolve_content({tok(N, "?"): 1, tok(B, "?"): 1}, {tok(N, 4): 2}) == Counter({tok(N, 4): 1, tok(B, 4): 1})


def test_resolve_keeps_the_expected_content_where_ambiguous_and_names_the_space() -> None:
    expected = Board.from_counts({"s1": {tok(N, 7): 1, tok(N, 3): 1}, "s2": {tok(N, 5): 1, tok(N, 2): 1}})
    sensed = Board.from_counts({"s1": {tok(N, "?"): 2, WALL: 1}, "s2": {tok(N, "?"): 1}})
    board, unread = resolve(sensed, expected)
    assert unread == ("s2",)
    assert board.pieces("s1") == Counter({tok(N, 7): 1, tok(N, 3): 1, WALL: 1})
    assert board.pieces("s2") == expected.pieces("s2")
    plain = Board.from_counts({"s1": {WALL: 1}})
    assert resolve(plain, expected) == (plain, ())


def test_contents_agree_across_a_left_out_value() -> None:
    cam = ((tok(N, "?"), 2),)
    assert contents_agree(cam, ((tok(N, 5), 1), (tok(N, 2), 1)))
    assert contents_agree(((tok(N, 5), 1), (tok(N, 2), 1)), cam)
    assert not contents_agree(((tok(N, "?"), 1),), ((tok(N, 5), 1), (tok(N, 2), 1)))
    assert not contents_agree(((tok(N, 5), 1),), ((tok(N, 2), 1),))


def test_the_stabiliser_reports_no_disagreement_for_a_value_the_camera_left_out() -> None:
    st = Stabiliser(settle=0.2, disagreement_after=0.5)
    for i in range(20):
        t = 0.1 * i
        st.observe(Observation(SENSOR_BOARD, t, (SpaceReading.of("s1", {tok(N, 5): 1, tok(N, 2): 1}),)), t)
        st.observe(Observation(CAMERA, t, (SpaceReading.of("s1", {tok(N, "?"): 2}),)), t)
    view = st.view(2.0)
    assert view.board.pieces("s1") == Counter({tok(N, 5): 1, tok(N, 2): 1}) and view.disagreements == ()
    # ... but a camera that sees one token where the pad has two does disagree
    for i in range(20, 40):
        t = 0.1 * i
        st.observe(Observation(SENSOR_BOARD, t, (SpaceReading.of("s1", {tok(N, 5): 1, tok(N, 2): 1}),)), t)
        st.observe(Observation(CAMERA, t, (SpaceReading.of("s1", {tok(N, "?"): 1}),)), t)
    assert [d.space for d in st.view(4.0).disagreements] == ["s1"]
