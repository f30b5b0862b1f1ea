"""Legality of China moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over, turn, shape of the move, placement
rules piece by piece (in the order given), then cards. Rule ids are stable: the dashboard and
the docs refer to them.
"""

from __future__ import annotations

from typing import Any

from scorer.core.types import Message, SpaceId, Violation, player_label, violation
from scorer.games.china import cards as cardlib
from scorer.games.china.board import card_colour_label
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE, ChinaMove, DeclarePileExhausted, Exchange, Pass, Place
from scorer.games.china.state import ChinaState


def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:
    """``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation."""
    return violation(rule, message, *rest, fix=fix)


def kind_label(kind: str) -> Message:
    """A piece kind's name in every language (``china.piece.<kind>``); an unknown kind as written."""
    if kind in (HOUSE, EMISSARY, FORTRESS):
        return Message.t(f"china.piece.{kind}")
    return Message.t("name.as_given", name=kind)


def violations(state: ChinaState, move: ChinaMove) -> tuple[Violation, ...]:
    if state.finished is not None:
        return (_v("game.over", Message.t('china.game.over')),)
    if isinstance(move, Place):
        return tuple(_place(state, move))
    if isinstance(move, Exchange):
        return tuple(_exchange(state, move))
    if isinstance(move, DeclarePileExhausted):
        return tuple(_declare(state))
    if isinstance(move, Pass):
        return tuple(_pass(state, move))
    return (_v("move.unknown", Message.t('china.move.unknown', move=move)),)


def _turn(state: ChinaState, player: str) -> list[Violation]:
    p = state.player_index(player)
    active = state.players[state.active]
    if p < 0:
        return [_v("turn.unknown_player", Message.t('china.turn.unknown_player', text=player_label(player)))]
    if p != state.active:
        who = player_label(player)
        return [
            _v(
                "turn.not_your_turn",
                Message.t('china.turn.not_your_turn', a=player_label(active), text=who),
                fix=Message.t('china.turn.not_your_turn.fix', text=who),
            )
        ]
    return []


def placement_violations(state: ChinaState, move: Place) -> tuple[Violation, ...]:
    """The rules of the pieces alone (turn, shape, province, sites, supply, cap), cards aside: what
    ``legal_moves`` and the pass check enumerate before they pair placements with payments."""
    return tuple(_place(state, move, cards=False))


def _place(state: ChinaState, move: Place, cards: bool = True) -> list[Violation]:
    out = _turn(state, move.player)
    if out:
        return out
    board = state.board
    p = state.active
    n = len(move.placements)
    if n == 0:
        return [_v("place.none", Message.t('china.place.none'))]
    if n > 2:
        extra = tuple(pl.space for pl in move.placements[2:])
        return [
            _v(
                "place.max_two_pieces",
                Message.t('china.place.max_two_pieces', n=n),
                extra,
                Message.t('china.place.max_two_pieces.fix', n=n - 2, extra=', '.join(extra)),
            )
        ]
    provinces: list[int] = []
    for pl in move.placements:
        if pl.kind in (HOUSE, FORTRESS):
            s = board.site_index.get(pl.space)
            if s is None:
                return [_v("place.wrong_space", Message.t("china.place.wrong_space.site", space=pl.space, kind=kind_label(pl.kind)), (pl.space,))]
            provinces.append(board.site_province[s])
        elif pl.kind == EMISSARY:
            pi = board.dragon_index.get(pl.space)
            if pi is None:
                return [_v("place.wrong_space", Message.t('china.place.wrong_space', space=pl.space), (pl.space,))]
            provinces.append(pi)
        else:
            return [_v("place.unknown_piece", Message.t('china.place.unknown_piece', kind=pl.kind), (pl.space,))]
    if len(set(provinces)) > 1:
        names = [board.provinces[i].label for i in dict.fromkeys(provinces)]
        return [
            _v(
                "place.one_province",
                Message.t("china.place.one_province", names=tuple(names)),
                tuple(pl.space for pl in move.placements[1:]),
                Message.t("china.place.one_province.fix", space=move.placements[1].space),
            )
        ]
    prov = provinces[0]
    pname = board.provinces[prov].label
    if n == 2 and state.province_empty(prov):
        kinds = {pl.kind for pl in move.placements}
        same_site = move.placements[0].space == move.placements[1].space
        allowed = state.rules.fortress_house_in_empty and kinds == {FORTRESS, HOUSE} and same_site
        if not allowed:
            second = move.placements[1]
            out.append(
                _v(
                    "place.empty_province_one_piece",
                    Message.t('china.place.empty_province_one_piece', pname=pname),
                    (second.space,),
                    Message.t("china.place.empty_province_one_piece.fix", kind=kind_label(second.kind), space=second.space),
                )
            )
    out.extend(_pieces(state, move, prov))
    if cards:
        out.extend(_payment(state, move, prov))
    return out


def _pieces(state: ChinaState, move: Place, prov: int) -> list[Violation]:
    """Supply, free sites and the emissary cap, checked piece by piece in the order given."""
    out: list[Violation] = []
    board = state.board
    p = state.active
    houses = state.houses_in(prov)
    emissaries = sum(state.emissaries[prov])
    used = {HOUSE: 0, EMISSARY: 0, FORTRESS: 0}
    new_houses: set[int] = set()
    new_forts: set[int] = set()
    left = {HOUSE: state.houses_left[p], EMISSARY: state.emissaries_left[p], FORTRESS: state.fortresses_left[p]}
    pname = board.provinces[prov].label
    for pl in move.placements:
        if pl.kind == FORTRESS and not state.rules.fortress:
            out.append(_v("fortress.not_in_play", Message.t('china.fortress.not_in_play'),
                          (pl.space,), Message.t('china.fortress.not_in_play.fix')))
            continue
        if used[pl.kind] + 1 > left[pl.kind]:
            kind = kind_label(pl.kind)
            out.append(_v("supply.empty", Message.t("china.supply.empty", kind=kind),
                          (pl.space,), Message.t("china.supply.empty.fix", kind=kind, space=pl.space)))
            continue
        used[pl.kind] += 1
        if pl.kind == HOUSE:
            s = board.site_index[pl.space]
            if state.site_owner[s] >= 0 or s in new_houses:
                out.append(_v("house.site_taken", Message.t('china.house.site_taken', space=pl.space), (pl.space,),
                              Message.t('china.house.site_taken.fix', space=pl.space)))
                continue
            new_houses.add(s)
            houses[p] += 1
        elif pl.kind == FORTRESS:
            s = board.site_index[pl.space]
            if state.site_owner[s] >= 0 or state.site_fortress[s] or s in new_houses or s in new_forts:
                out.append(_v("fortress.site_taken", Message.t('china.fortress.site_taken', space=pl.space), (pl.space,),
                              Message.t('china.fortress.site_taken.fix', space=pl.space)))
                continue
            new_forts.add(s)
        else:
            cap = max(houses)
            if emissaries + 1 > cap:
                out.append(
                    _v(
                        "emissary.cap",
                        Message.t('china.emissary.cap', pname=pname, cap=cap, emissaries=emissaries + 1),
                        (pl.space,),
                        Message.t('china.emissary.cap.fix', space=pl.space),
                    )
                )
                continue
            emissaries += 1
    return out


def _payment(state: ChinaState, move: Place, prov: int) -> list[Violation]:
    colour = state.board.provinces[prov].colour
    out: list[Violation] = []
    if move.cards is None:
        if state.rules.track_cards:
            out.append(_v("cards.required", Message.t('china.cards.required')))
        return out
    if not cardlib.payment_ok(move.cards, colour, len(move.placements)):
        played = tuple(card_colour_label(c) for c in move.cards) or Message.t("china.cards.none")
        out.append(
            _v(
                "cards.payment",
                Message.t("china.cards.payment", played=played, n=len(move.placements), colour=card_colour_label(colour)),
                tuple(pl.space for pl in move.placements),
                Message.t("china.cards.payment.fix"),
            )
        )
        return out
    if state.rules.track_cards and state.cards is not None:
        hand = state.cards.hands[state.active]
        if not cardlib.hand_has(hand, move.cards):
            out.append(_v("cards.not_in_hand", Message.t("china.cards.not_in_hand", hand=tuple(card_colour_label(c) for c in hand),
                                                         cards=tuple(card_colour_label(c) for c in move.cards))))
            return out
        if move.draws is None:
            out.append(_v("cards.draws_required", Message.t('china.cards.draws_required')))
            return out
        _, why = cardlib.play_and_draw(state.cards, state.active, move.cards, move.draws)
        if why:
            out.append(_v("cards.draws", Message.t('china.cards.draws', why=why)))
    return out


def _exchange(state: ChinaState, move: Exchange) -> list[Violation]:
    out = _turn(state, move.player)
    if out:
        return out
    if state.rules.track_cards and state.cards is not None:
        if move.discard is None or move.take is None:
            return [_v("cards.required", Message.t('china.cards.required.2'))]
        _, why = cardlib.exchange(state.cards, state.active, move.discard, move.take)
        if why:
            out.append(_v("exchange.invalid", Message.t('china.exchange.invalid', why=why)))
    return out


def _declare(state: ChinaState) -> list[Violation]:
    if state.rules.track_cards:
        return [_v("declare.tracked", Message.t('china.declare.tracked'))]
    if state.end_triggered:
        return [_v("declare.twice", Message.t('china.declare.twice'))]
    return []


def _pass(state: ChinaState, move: Pass) -> list[Violation]:
    out = _turn(state, move.player)
    if out or not (state.rules.track_cards and state.cards is not None):
        return out  # untracked: a declared pass cannot be checked
    cs = state.cards
    if cs.hands[state.active] and (cs.pile or any(c is not None for c in cs.display)):
        return [_v("pass.not_allowed", Message.t('china.pass.not_allowed'))]
    from scorer.games.china.engine import payment_options, placement_options

    hand = cs.hands[state.active]
    for placements, colour in placement_options(state):
        if payment_options(hand, colour, len(placements)):
            return [_v("pass.not_allowed", Message.t('china.pass.not_allowed.2'))]
    return []
