"""The change a Ming move itself makes on the table (``effect``), before the table runs forward
(``flow.advance``), and the small state updates both use."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scorer.core.types import Message, player_label
from scorer.games.ming import rules
from scorer.games.ming.moves import (
    NEUTRAL,
    ChooseStartPlayer,
    MingMove,
    MovePrince,
    Pass,
    PlaceFamily,
    PlaceNeutral,
    PlacePrince,
    ReturnCards,
    SendBack,
    Stay,
    TakeCard,
    TakeDragon,
)
from scorer.games.ming.state import CATEGORIES, EMPTY, UNKNOWN, Effect, Hand, MingState, evolve

CAT_INDEX = {c: i for i, c in enumerate(CATEGORIES)}


# -- the move's own change ---------------------------------------------------------------------------

def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


def _add2(t: tuple[tuple[int, ...], ...], i: int, j: int, k: int) -> tuple[tuple[int, ...], ...]:
    row = t[i]
    return t[:i] + (row[:j] + (row[j] + k,) + row[j + 1:],) + t[i + 1:]


def _gain_tiles(state: MingState, p: int, province: int, k: int) -> MingState:
    """Take up to k tiles of a province colour (as many as the supply holds, A13)."""
    k = min(k, state.tile_supply[province])
    if k <= 0:
        return state
    return evolve(state, tiles=_add2(state.tiles, p, province, k), tile_supply=_set(state.tile_supply, province, state.tile_supply[province] - k))


def _add_points(state: MingState, p: int, category: str, k: int) -> MingState:
    if not k:
        return state
    return evolve(state, points=_add2(state.points, p, CAT_INDEX[category], k))


def play_unknown(hand: Hand, k: int, dragon: int) -> Hand:
    """k cards left the hand and nobody said which: keep only what is still certain."""
    lb = tuple(max(0, x - k) for x in hand.lb)
    total = hand.total - k
    may = (hand.may_dragon or lb[dragon] < hand.lb[dragon]) and total > sum(lb)
    return Hand(total, lb, may)


def _pay(state: MingState, p: int, cards: tuple[str, ...] | None, steps: int) -> MingState:
    board = state.board
    if cards is None:
        hand = play_unknown(state.hands[p], steps, board.dragon_kind)
        return evolve(state, hands=_set(state.hands, p, hand), undeclared_payments=state.undeclared_payments + 1)
    hand, why, unverified = rules._pay(state, p, cards)
    assert hand is not None and not why
    if hand.unknown == 0 and hand.may_dragon:
        hand = Hand(hand.total, hand.lb, False)
    return evolve(state, hands=_set(state.hands, p, hand), unverified_cards=state.unverified_cards + unverified)


def _deploy(state: MingState, p: int, district: int, deploy: int, cloister: bool) -> MingState:
    if deploy <= 0:
        return state
    board = state.board
    prov = board.district_province[district]
    spaces = _add2(state.spaces, prov, p, -deploy)
    opened = _add2(state.open, district, p, deploy)
    cl = state.cloister
    effects = state.effects
    if cloister:
        opened = _add2(opened, district, p, -1)
        ousted = cl[district]
        if ousted != EMPTY:
            opened = _add2(opened, district, ousted, 1)
            effects += (Effect("ousted", Message.t('ming.engine.s_family_member_is_ousted', text=player_label(state.players[ousted]),
                                                   district=board.districts[district])),)
        cl = _set(cl, district, p)
    return evolve(state, spaces=spaces, open=opened, cloister=cl, effects=effects)


def effect(state: MingState, move: MingMove) -> MingState:
    """The change the move itself makes on the table (no automatic follow-ups)."""
    board = state.board
    p = state.player_index(move.player)
    if isinstance(move, PlacePrince):
        d = board.district_index[move.district]
        state = evolve(state, princes=_set(state.princes, p, d))
        return _gain_tiles(state, p, board.district_province[d], 1)
    if isinstance(move, PlaceNeutral):
        d = board.district_index[move.district]
        return evolve(state, open=_add2(state.open, d, state.neutral, 1), queue=state.queue[1:])
    if isinstance(move, PlaceFamily):
        i = board.province_index[move.province]
        return evolve(state, in_hand=_set(state.in_hand, p, state.in_hand[p] - 1), spaces=_add2(state.spaces, i, p, 1))
    if isinstance(move, TakeCard):
        i = board.province_index[move.province]
        taken = board.symbol_index[move.symbol] if move.symbol is not None else state.display[i]
        hand = state.hands[p]
        lb = hand.lb if taken == UNKNOWN else _set(hand.lb, taken, hand.lb[taken] + 1)
        refill = board.symbol_index[move.refill] if move.refill is not None else UNKNOWN
        return evolve(state, hands=_set(state.hands, p, Hand(hand.total + 1, lb, hand.may_dragon)), display=_set(state.display, i, refill))
    if isinstance(move, TakeDragon):
        i = board.province_index[move.province]
        owner = p if move.owner is None else state.player_index(move.owner)
        hand = state.hands[p]
        dk = board.dragon_kind
        return replace(
            state,
            spaces=_add2(state.spaces, i, owner, -1),
            boxed=_set(state.boxed, owner, state.boxed[owner] + 1),
            hands=_set(state.hands, p, Hand(hand.total + 1, _set(hand.lb, dk, hand.lb[dk] + 1), hand.may_dragon)),
        )
    if isinstance(move, MovePrince):
        end = board.district_index[move.path[-1]]
        state = _pay(state, p, move.cards, len(move.path))
        state = evolve(state, princes=_set(state.princes, p, end))
        return _deploy(state, p, end, move.deploy, move.cloister)
    if isinstance(move, Stay):
        state = _pay(state, p, (move.card,) if move.card is not None else None, 1)
        return _deploy(state, p, state.princes[p], move.deploy, move.cloister)
    if isinstance(move, Pass):
        return evolve(state, passed=_set(state.passed, p, True))
    if isinstance(move, ReturnCards):
        sc = state.scoring
        assert sc is not None
        total = sum(move.cards) if move.cards is not None else int(move.total)  # type: ignore[arg-type]
        return evolve(state, scoring=replace(sc, commits=_set(sc.commits, p, total)), declared_returns=state.declared_returns + 1)
    if isinstance(move, SendBack):
        sc = state.scoring
        assert sc is not None
        owner = state.neutral if move.owner == NEUTRAL else p
        for name in move.districts:
            state = _return_one(state, board.district_index[name], owner)
        return evolve(state, scoring=replace(sc, to_send=_set(sc.to_send, owner, 0)))
    if isinstance(move, ChooseStartPlayer):
        return evolve(state, start=state.player_index(move.start), chooser=EMPTY, declared_choices=state.declared_choices + 1)
    raise TypeError(f"not a Ming move: {move!r}")


def _return_one(state: MingState, district: int, owner: int) -> MingState:
    return evolve(state, city=_add2(state.city, district, owner, -1), open=_add2(state.open, district, owner, 1))


__all__ = ["CAT_INDEX", "effect", "play_unknown"]
