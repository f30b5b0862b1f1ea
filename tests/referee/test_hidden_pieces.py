"""A piece the game says another may hide (China's fortress under a house) is kept where the engine
has it when a sensor reads the cover alone; nothing the engine does not have is ever added
(``scorer.core.hidden``, ``Game.hidden_under``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from scorer.core import Board, Piece, SetupOptions, get_game
from scorer.core.hidden import SeenThisTurn, restore, restore_content
from scorer.games.china.moves import Place, Placement
from scorer.referee.reconciler import AcceptMove, RaiseFlag, Reconciler, ReconcilerSettings
from scorer.referee.stabiliser import StableView

GAME = get_game("china")
FORT, BH, GH = Piece("neutral", "fortress"), Piece("blue", "house"), Piece("green", "house")
HIDES = {FORT: frozenset({"house"})}


def test_the_fortress_under_a_house_is_kept_and_nothing_else_is_added() -> None:
    assert restore_content({BH: 1}, {BH: 1, FORT: 1}, HIDES) == Counter({BH: 1, FORT: 1})
    assert restore_content({}, {BH: 1, FORT: 1}, HIDES) == Counter()  # the house gone too: no cover, nothing kept
    assert restore_content({BH: 1}, {BH: 1}, HIDES) == Counter({BH: 1})  # never invented
    assert restore_content({GH: 1}, {BH: 1, FORT: 1}, HIDES) == Counter({GH: 1, FORT: 1})  # any house hides it
    assert restore_content({BH: 1}, {BH: 1, FORT: 1}, {}) == Counter({BH: 1})  # a game naming no hidden piece
    board = Board.from_counts({"wei-1": {BH: 1}, "wei-2": {GH: 1}})
    expected = Board.from_counts({"wei-1": {BH: 1, FORT: 1}, "wei-2": {GH: 1}})
    assert restore(board, expected, HIDES) == expected


def _with_house_on_fortress() -> Any:
    state = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"], "board": "china-a", "variants": ["fortress"]}))
    for m in (Place("blue", (Placement("fortress", "wei-1"),)), Place("green", (Placement("house", "qin-1"),)),
              Place("red", (Placement("house", "chu-1"),)), Place("blue", (Placement("house", "wei-1"),))):
        state = GAME.apply(state, m)
    return state


def test_a_camera_that_cannot_see_the_fortress_under_a_house_flags_nothing_and_reads_the_next_turn() -> None:
    state = _with_house_on_fortress()
    assert GAME.hidden_under() == HIDES
    seen = GAME.visible_board(state).with_removed("wei-1", FORT)  # the camera sees blue's house alone
    spaces = frozenset(list(state.board.sites) + [p.dragon for p in state.board.provinces])
    r = Reconciler(GAME, ReconcilerSettings(complete_grace=1.0, quiet_timeout=10.0))
    out = r.evaluate(state, StableView(10.0, seen, spaces, changed_at=10.0), 10.0)
    assert not [d for d in out if isinstance(d, RaiseFlag)] and r.flag is None
    # green's next house (a province with a house: green may add a second piece, so it closes on the quiet timeout)
    table = seen.with_added("qin-2", GH)
    out = []
    for t in (11.0, 13.0, 16.0, 22.0):
        out += r.evaluate(state, StableView(t, table, spaces, changed_at=11.0), t)
    assert not [d for d in out if isinstance(d, RaiseFlag)]
    accepted = [d for d in out if isinstance(d, AcceptMove)]
    assert [m for d in accepted for m in d.moves] == [Place("green", (Placement("house", "qin-2"),))]


def test_a_fortress_seen_placed_then_covered_by_a_house_in_the_same_turn_is_read_as_both() -> None:
    """Blue lays the fortress on wei-2 and then a house on it: the camera saw the fortress stand alone
    for a moment, then sees the house alone (``SeenThisTurn``)."""
    state = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"], "board": "china-a", "variants": ["fortress"]}))
    for m in (Place("blue", (Placement("house", "wei-1"),)), Place("green", (Placement("house", "qin-1"),)),
              Place("red", (Placement("house", "chu-1"),))):
        state = GAME.apply(state, m)
    spaces = frozenset(list(state.board.sites) + [p.dragon for p in state.board.provinces])
    before = GAME.visible_board(state)
    r = Reconciler(GAME, ReconcilerSettings(complete_grace=1.0, quiet_timeout=10.0))
    out: list = []
    fortress = before.with_added("wei-2", FORT)
    for t in (10.0, 10.5, 11.0):
        out += r.evaluate(state, StableView(t, fortress, spaces, changed_at=10.0), t)
    house = before.with_added("wei-2", BH)  # the house on it: the fortress is not seen any more
    for t in (11.5, 12.0, 13.0, 14.0):
        out += r.evaluate(state, StableView(t, house, spaces, changed_at=11.5), t)
    assert not [d for d in out if isinstance(d, RaiseFlag)]
    accepted = [m for d in out if isinstance(d, AcceptMove) for m in d.moves]
    assert accepted == [Place("blue", (Placement("fortress", "wei-2"), Placement("house", "wei-2")))]


def test_a_fortress_taken_back_before_the_house_is_forgotten() -> None:
    seen = SeenThisTurn()
    expected = Board.from_counts({"wei-1": {BH: 1}})
    seen.apply(expected.with_added("wei-2", FORT), expected, HIDES)  # the fortress laid ...
    seen.apply(expected, expected, HIDES)  # ... and taken back: wei-2 seen empty
    assert seen.apply(expected.with_added("wei-2", BH), expected, HIDES).pieces("wei-2") == Counter({BH: 1})
    # laid again, then covered: kept under the house
    seen.apply(expected.with_added("wei-2", FORT), expected, HIDES)
    assert seen.apply(expected.with_added("wei-2", BH), expected, HIDES).pieces("wei-2") == Counter({BH: 1, FORT: 1})
    # the engine's board changed (a move was taken): a new turn forgets it
    after = expected.with_added("qin-1", GH)
    assert seen.apply(after.with_added("wei-2", BH), after, HIDES).pieces("wei-2") == Counter({BH: 1})
