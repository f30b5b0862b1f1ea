"""The reconciler against the real China engine: closing turns, flags, undo waits, cards, offsets."""

from __future__ import annotations

from typing import Any

import pytest

from scorer.core import Board, BoardDiff, Piece, SetupOptions, get_game
from scorer.games.china.moves import Exchange, Place, Placement
from scorer.referee.reconciler import (
    AcceptMove,
    ClearFlag,
    CloseReason,
    FlagKind,
    RaiseFlag,
    ReadingChanged,
    Reconciler,
    ReconcilerSettings,
    SignalRefused,
    TableMatched,
    apply_offset,
    compose_offsets,
    is_part_of,
)
from scorer.referee.stabiliser import StableView

GAME = get_game("china")
BH, GH, RH = Piece("blue", "house"), Piece("green", "house"), Piece("red", "house")
BE = Piece("blue", "emissary")
SETTINGS = ReconcilerSettings(complete_grace=1.0, quiet_timeout=10.0, max_busy=5.0, signal_ttl=5.0)


def new_state(moves: list[Place] | None = None) -> Any:
    state = GAME.setup(SetupOptions.from_json({"players": ["blue", "green", "red"], "board": "china-a"}))
    for m in moves or []:
        state = GAME.apply(state, m)
    return state


def all_spaces(state: Any) -> frozenset:
    return frozenset(list(state.board.sites) + [p.dragon for p in state.board.provinces])


def view(state: Any, board: Board, now: float, *, unsettled: tuple = (), occluded: tuple = (), changed_at: float | None = None) -> StableView:
    return StableView(now, board, all_spaces(state), tuple(unsettled), tuple(occluded), changed_at=now if changed_at is None else changed_at)


def place(player: str, *pieces: tuple[str, str]) -> Place:
    return Place(player, tuple(Placement(kind, space) for kind, space in pieces))  # type: ignore[arg-type]


def of(kind: type, decisions: list) -> list:
    return [d for d in decisions if isinstance(d, kind)]


def test_a_complete_move_is_accepted_after_the_grace_time() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    table = GAME.visible_board(state).with_added("wei-1", BH)
    d = r.evaluate(state, view(state, table, 0.0), 0.0)
    assert of(ReadingChanged, d)[0].reading.complete  # Wei was empty: one piece ends the turn
    assert not of(AcceptMove, r.evaluate(state, view(state, table, 0.0, changed_at=0.0), 0.9))
    assert r.next_deadline(0.9) == pytest.approx(1.0)
    accepted = of(AcceptMove, r.evaluate(state, view(state, table, 1.0, changed_at=0.0), 1.0))
    assert accepted == [AcceptMove((place("blue", ("house", "wei-1")),), CloseReason.COMPLETE, "blue")]
    assert r.reading is None


def test_an_incomplete_move_waits_for_turn_done_or_the_quiet_timeout() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    table = GAME.visible_board(state).with_added("wei-2", GH)
    r = Reconciler(GAME, SETTINGS)
    d = r.evaluate(state, view(state, table, 0.0), 0.0)
    assert not of(ReadingChanged, d)[0].reading.complete  # Wei had a piece: green may place a second
    assert not of(AcceptMove, r.evaluate(state, view(state, table, 5.0, changed_at=0.0), 5.0))
    r.signal(CloseReason.TURN_DONE, 5.0)
    acc = of(AcceptMove, r.evaluate(state, view(state, table, 5.0, changed_at=0.0), 5.0))
    assert acc and acc[0].reason == CloseReason.TURN_DONE

    r2 = Reconciler(GAME, SETTINGS)
    r2.evaluate(state, view(state, table, 0.0), 0.0)
    assert not of(AcceptMove, r2.evaluate(state, view(state, table, 9.9, changed_at=0.0), 9.9))
    acc = of(AcceptMove, r2.evaluate(state, view(state, table, 10.0, changed_at=0.0), 10.0))
    assert acc and acc[0].reason == CloseReason.QUIET


def test_a_move_in_two_steps_is_followed_then_closed_when_complete() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    r = Reconciler(GAME, SETTINGS)
    one = GAME.visible_board(state).with_added("wei-2", GH)
    two = one.with_added("wei-3", GH)
    r.evaluate(state, view(state, one, 0.0), 0.0)
    d = r.evaluate(state, view(state, two, 0.5), 0.5)
    reading = of(ReadingChanged, d)[0].reading
    assert reading.complete and reading.since == 0.5
    assert not of(AcceptMove, r.evaluate(state, view(state, two, 1.4, changed_at=0.5), 1.4))
    acc = of(AcceptMove, r.evaluate(state, view(state, two, 1.5, changed_at=0.5), 1.5))
    assert acc[0].moves == (place("green", ("house", "wei-2"), ("house", "wei-3")),)


def test_illegal_table_raises_a_flag_naming_rule_spaces_and_fix_then_clears_when_put_right() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    bad = GAME.visible_board(state).with_added("qi-1", BH).with_added("qi-2", BH)
    d = r.evaluate(state, view(state, bad, 0.0), 0.0)
    flags = of(RaiseFlag, d)
    assert len(flags) == 1 and not of(AcceptMove, d)
    flag = flags[0].flag
    assert flag.kind == FlagKind.ILLEGAL
    assert [v.rule for v in flag.violations] == ["place.empty_province_one_piece"]
    assert flag.spaces == ("qi-2",)
    assert flag.fix is not None and "qi-2" in flag.fix.en and "qi-2" in flag.fix.zh
    assert flag.message.zh  # bilingual
    # still illegal later: no new flag, nothing accepted
    assert not r.evaluate(state, view(state, bad, 3.0, changed_at=0.0), 3.0)
    fixed = GAME.visible_board(state).with_added("qi-1", BH)
    d = r.evaluate(state, view(state, fixed, 4.0), 4.0)
    assert of(ClearFlag, d)[0].reason == "corrected"
    acc = of(AcceptMove, r.evaluate(state, view(state, fixed, 5.0, changed_at=4.0), 5.0))
    assert acc[0].moves == (place("blue", ("house", "qi-1")),)


def test_the_flag_changes_when_the_table_shows_another_illegal_thing() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    bad = GAME.visible_board(state).with_added("qi-1", BH).with_added("qi-2", BH)
    r.evaluate(state, view(state, bad, 0.0), 0.0)
    worse = bad.with_added("wei-1", BH)
    d = r.evaluate(state, view(state, worse, 1.0), 1.0)
    upd = of(RaiseFlag, d)
    assert upd and upd[0].update and upd[0].flag.raised_at == 0.0


def test_the_next_players_piece_closes_the_turn_a_legal_reading_beats_the_literal_one() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    r = Reconciler(GAME, SETTINGS)
    table = GAME.visible_board(state).with_added("wei-2", GH).with_added("wei-4", RH)
    # literally: green placed and a red house appeared out of turn; legally: green's turn ended
    d = r.evaluate(state, view(state, table, 0.0), 0.0)
    acc = of(AcceptMove, d)
    assert acc == [AcceptMove((place("green", ("house", "wei-2")),), CloseReason.NEXT_PLAYER, "green")]
    assert not of(RaiseFlag, d)
    state = GAME.apply(state, acc[0].moves[0])
    d = r.evaluate(state, view(state, table, 0.1), 0.1)
    assert of(ReadingChanged, d)[0].reading.moves == (place("red", ("house", "wei-4")),)


def test_an_out_of_turn_piece_alone_is_flagged_not_read_as_an_exchange() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    table = GAME.visible_board(state).with_added("wei-1", GH)
    d = r.evaluate(state, view(state, table, 0.0), 0.0)
    flag = of(RaiseFlag, d)[0].flag
    assert [v.rule for v in flag.violations] == ["turn.not_your_turn"]
    assert flag.spaces == ("wei-1",)


def test_turn_done_on_an_unchanged_table_is_the_invisible_move_after_the_grace() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    table = GAME.visible_board(state)
    r.signal(CloseReason.TURN_DONE, 0.0)
    assert not r.evaluate(state, view(state, table, 0.0), 0.0)  # a piece may still be being sensed
    assert r.next_deadline(0.0) == pytest.approx(SETTINGS.signal_grace)
    acc = of(AcceptMove, r.evaluate(state, view(state, table, 1.0, changed_at=0.0), 1.0))
    assert acc == [AcceptMove((Exchange("blue"),), CloseReason.TURN_DONE, "blue")]


def test_turn_done_pressed_before_the_sensors_saw_the_piece_closes_the_placement() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    r = Reconciler(GAME, SETTINGS)
    r.signal(CloseReason.TURN_DONE, 0.0)
    assert not r.evaluate(state, view(state, GAME.visible_board(state), 0.0), 0.0)
    table = GAME.visible_board(state).with_added("wei-2", GH)  # settles 0.6 s after the press
    acc = of(AcceptMove, r.evaluate(state, view(state, table, 0.6), 0.6))
    assert acc == [AcceptMove((place("green", ("house", "wei-2")),), CloseReason.TURN_DONE, "green")]


def test_turn_done_while_the_table_is_illegal_is_refused() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    bad = GAME.visible_board(state).with_added("wei-1", GH)
    r.signal(CloseReason.TURN_DONE, 0.0)
    d = r.evaluate(state, view(state, bad, 0.0), 0.0)
    assert of(SignalRefused, d) and not of(AcceptMove, d)


def test_a_hand_over_the_board_holds_closing_and_flags_for_its_spaces() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    one = GAME.visible_board(state).with_added("wei-1", BH)
    r.evaluate(state, view(state, one, 0.0), 0.0)
    d = r.evaluate(state, view(state, one, 2.0, occluded=("wei-2",), changed_at=0.0), 2.0)
    assert not of(AcceptMove, d)
    d = r.evaluate(state, view(state, one, 2.1, changed_at=0.0), 2.1)
    assert of(AcceptMove, d)
    # an illegal reading whose space is still under the hand waits
    state = GAME.apply(state, place("blue", ("house", "wei-1")))
    r = Reconciler(GAME, SETTINGS)
    bad = GAME.visible_board(state).with_added("qi-1", BH)
    assert not of(RaiseFlag, r.evaluate(state, view(state, bad, 3.0, unsettled=("qi-1",)), 3.0))
    assert of(RaiseFlag, r.evaluate(state, view(state, bad, 3.5), 3.5))


def test_after_undo_the_undone_move_is_taken_back_not_reaccepted() -> None:
    state = new_state()
    undone = place("blue", ("house", "wei-1"))
    r = Reconciler(GAME, SETTINGS)
    r.after_undo((undone,))
    table = GAME.visible_board(state).with_added("wei-1", BH)
    d = r.evaluate(state, view(state, table, 0.0), 0.0)
    assert of(ReadingChanged, d)[0].reading.takeback
    assert not of(AcceptMove, r.evaluate(state, view(state, table, 60.0, changed_at=0.0), 60.0))
    assert r.next_deadline(60.0) is None
    d = r.evaluate(state, view(state, GAME.visible_board(state), 61.0), 61.0)
    assert of(TableMatched, d) and r.suppressed is None
    # the same piece put down again afterwards is a new move
    d = r.evaluate(state, view(state, table, 62.0), 62.0)
    assert not of(ReadingChanged, d)[0].reading.takeback


def test_after_undo_another_legal_move_ends_the_wait_and_a_signal_reaccepts_a_part() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    undone = place("green", ("house", "wei-2"), ("house", "wei-3"))
    r = Reconciler(GAME, SETTINGS)
    r.after_undo((undone,))
    other = GAME.visible_board(state).with_added("wei-4", GH)
    d = r.evaluate(state, view(state, other, 0.0), 0.0)
    assert of(TableMatched, d) and not of(ReadingChanged, d)[0].reading.takeback

    r = Reconciler(GAME, SETTINGS)
    r.after_undo((undone,))
    part = GAME.visible_board(state).with_added("wei-2", GH)
    assert of(ReadingChanged, r.evaluate(state, view(state, part, 0.0), 0.0))[0].reading.takeback
    r.signal(CloseReason.TURN_DONE, 1.0)
    acc = of(AcceptMove, r.evaluate(state, view(state, part, 1.0, changed_at=0.0), 1.0))
    assert acc[0].moves == (place("green", ("house", "wei-2")),)


def test_cards_that_pay_close_the_turn_and_are_recorded() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    table = GAME.visible_board(state).with_added("wei-2", GH)
    r = Reconciler(GAME, SETTINGS)
    r.evaluate(state, view(state, table, 0.0), 0.0)
    r.tap_card("red", 0.5)
    acc = of(AcceptMove, r.evaluate(state, view(state, table, 0.5, changed_at=0.0), 0.5))
    assert acc[0].reason == CloseReason.CARD and acc[0].moves[0].cards == ("red",)


def test_cards_that_do_not_pay_wait_then_raise_a_cards_flag_until_good_cards_come() -> None:
    state = new_state([place("blue", ("house", "wei-1"))])
    table = GAME.visible_board(state).with_added("wei-2", GH)
    r = Reconciler(GAME, SETTINGS)
    r.evaluate(state, view(state, table, 0.0), 0.0)
    r.tap_card("green", 0.5)  # one green card does not pay for a piece in red Wei (a pair would)
    assert not of(AcceptMove, r.evaluate(state, view(state, table, 0.5, changed_at=0.0), 0.5))
    r.signal(CloseReason.TURN_DONE, 1.0)
    d = r.evaluate(state, view(state, table, 1.0, changed_at=0.0), 1.0)
    flag = of(RaiseFlag, d)[0].flag
    assert flag.kind == FlagKind.CARDS and flag.violations[0].rule == "cards.payment"
    assert not of(AcceptMove, r.evaluate(state, view(state, table, 30.0, changed_at=0.0), 30.0))
    r.tap_card("green", 31.0)
    r.tap_card("green", 31.1)
    d = r.evaluate(state, view(state, table, 31.1, changed_at=0.0), 31.1)
    assert of(ClearFlag, d) and of(AcceptMove, d)[0].moves[0].cards == ("green", "green")


def test_an_override_offset_is_part_of_the_expected_table() -> None:
    state = new_state()
    extra = BoardDiff(added=(("wei-1", GH, 1),))
    table = apply_offset(GAME.visible_board(state), extra)
    r = Reconciler(GAME, SETTINGS)
    assert r.evaluate(state, view(state, table, 0.0), 0.0, extra) == []
    assert of(RaiseFlag, r.evaluate(state, view(state, table, 0.0), 0.0))


def test_offsets_compose_and_cancel() -> None:
    a = BoardDiff(added=(("wei-1", GH, 1),))
    b = BoardDiff(removed=(("wei-1", GH, 1),), added=(("qi-1", BH, 2),))
    assert compose_offsets(a, b) == BoardDiff(added=(("qi-1", BH, 2),))


def test_is_part_of() -> None:
    whole = (place("green", ("house", "wei-2"), ("house", "wei-3")),)
    assert is_part_of((place("green", ("house", "wei-3")),), whole)
    assert not is_part_of((place("green", ("house", "wei-4")),), whole)


def test_after_the_end_of_the_game_the_table_may_be_cleared_without_flags() -> None:
    from scorer.games.china.moves import DeclarePileExhausted

    state = new_state([place("blue", ("house", "wei-1"))])
    state = GAME.apply(state, DeclarePileExhausted())
    state = GAME.apply(state, Exchange("green"))
    state = GAME.apply(state, Exchange("red"))
    assert GAME.outcome(state) is not None
    r = Reconciler(GAME, SETTINGS)
    table = GAME.visible_board(state)
    r.signal(CloseReason.TURN_DONE, 0.0)
    assert of(SignalRefused, r.evaluate(state, view(state, table, 0.0), 0.0))
    cleared = table.with_removed("wei-1", BH)
    assert r.evaluate(state, view(state, cleared, 1.0), 1.0) == []
    assert r.evaluate(state, view(state, cleared.with_added("qi-1", BH), 2.0), 2.0) == []


def test_a_burst_of_several_turns_on_one_view_is_read_as_a_chain_of_legal_moves() -> None:
    state = new_state()
    r = Reconciler(GAME, SETTINGS)
    table = GAME.visible_board(state)
    for space, piece in [("wei-1", BH), ("wei-2", GH), ("wei-3", GH), ("qi-1", RH), ("lu-1", BH),
                         ("lu-2", GH), ("lu-3", GH), ("qi-2", RH), ("qi-3", RH)]:
        table = table.with_added(space, piece)
    accepted = []
    now = 0.0
    for _ in range(20):
        d = r.evaluate(state, view(state, table, now, changed_at=0.0), now)
        assert not of(RaiseFlag, d)
        for a in of(AcceptMove, d):
            for m in a.moves:
                state = GAME.apply(state, m)
                accepted.append(m)
        if GAME.visible_board(state) == table:
            break
        now += 0.5
    assert GAME.visible_board(state) == table
    assert [m.player for m in accepted] == ["blue", "green", "red", "blue", "green", "red"]
