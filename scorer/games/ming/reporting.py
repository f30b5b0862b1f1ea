"""Reporting a Ming game: what the scoreboard could not check, move descriptions, the state as JSON."""

from __future__ import annotations

from typing import Any

from scorer.core.results import Unchecked
from scorer.core.types import Message, player_label
from scorer.games.ming.board import province_space
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
from scorer.games.ming.state import EMPTY, UNKNOWN, MingState


def unchecked(state: MingState) -> tuple[Unchecked, ...]:
    out = []
    if state.undeclared_payments:
        out.append(Unchecked("cards.payment", Message.t('ming.engine.cards_were_not_declared_for', undeclared_payments=state.undeclared_payments)))
    if state.unverified_cards:
        out.append(Unchecked("cards.identity", Message.t('ming.engine.declared_card_s_came_from', unverified_cards=state.unverified_cards)))
    unknown_hands = [state.players[p] for p, h in enumerate(state.hands) if h.unknown]
    if unknown_hands:
        players = tuple(player_label(h) for h in unknown_hands)
        out.append(Unchecked("cards.hands", Message.t("ming.engine.hands_partly_known", players=players)))
    lo, hi = state.dragon_supply()
    if lo != hi:
        out.append(Unchecked("dragon.supply", Message.t('ming.engine.the_dragon_supply_holds_between', lo=lo, hi=hi)))
    if state.board.provisional:
        out.append(Unchecked("board.provisional", Message.t('ming.engine.board_is_provisional_borders_and', id=state.board.id)))
    if state.rules.return_values_provisional:
        out.append(Unchecked("returns.values", Message.t('ming.engine.return_card_values_0_1')))
    return tuple(out)


def describe(move: MingMove) -> Message:
    who = player_label(move.player)
    if isinstance(move, PlacePrince):
        return Message.t('ming.engine.prince_into', text=who, district=move.district)
    if isinstance(move, PlaceNeutral):
        return Message.t('ming.engine.neutral_family_member_into', text=who, district=move.district)
    if isinstance(move, PlaceFamily):
        return Message.t('ming.engine.family_member_onto', text=who, province=province_space(move.province))
    if isinstance(move, TakeCard):
        if move.symbol is None:
            return Message.t("ming.engine.takes_card.undeclared", who=who, province=move.province)
        return Message.t("ming.engine.takes_card", who=who, symbol=move.symbol, province=move.province)
    if isinstance(move, TakeDragon):
        return Message.t('ming.engine.takes_a_dragon_card_a', text=who, province=province_space(move.province))
    if isinstance(move, MovePrince):
        return Message.t("ming.engine.prince_moves", who=who, path=" > ".join(move.path), deploys=_deploys(move.deploy, move.cloister))
    if isinstance(move, Stay):
        return Message.t("ming.engine.prince_stays", who=who, deploys=_deploys(move.deploy, move.cloister))
    if isinstance(move, Pass):
        return Message.t('ming.engine.passes', text=who)
    if isinstance(move, ReturnCards):
        return Message.t('ming.engine.puts_down_return_cards_secret', text=who)
    if isinstance(move, SendBack):
        key = "ming.engine.sends_back.neutral" if move.owner == NEUTRAL else "ming.engine.sends_back"
        return Message.t(key, who=who, n=len(move.districts))
    if isinstance(move, ChooseStartPlayer):
        return Message.t('ming.engine.chooses_as_start_player', text=who, s=player_label(move.start))
    return Message(repr(move), repr(move))


def _deploys(deploy: int, cloister: bool) -> Message | str:
    """The deployment part of a prince's move ("" when nobody is deployed)."""
    if not deploy:
        return ""
    return Message.t("ming.engine.deploys.cloister" if cloister else "ming.engine.deploys", n=deploy)


def state_json(state: MingState) -> dict[str, Any]:
    board = state.board
    names = state.players + (NEUTRAL,)
    info = {
        "board": board.id,
        "provisional_board": board.provisional,
        "players": list(state.players),
        "round": state.round,
        "phase": state.phase,
        "start_player": state.players[state.start],
        "active": state.players[state.active] if 0 <= state.active < state.n and not state.finished else None,
        "princes": {state.players[p]: (board.districts[d] if d != EMPTY else None) for p, d in enumerate(state.princes)},
        "supply": dict(zip(state.players, state.supply)),
        # hands are secret at the table: only their size is shown
        "hand_sizes": {pl: h.total for pl, h in zip(state.players, state.hands)},
        "display": {prov.id: (board.symbols[s] if s != UNKNOWN else None) for prov, s in zip(board.provinces, state.display)},
        "dragon_supply": list(state.dragon_supply()),
        "tiles": {pl: dict(zip((p.colour for p in board.provinces), t)) for pl, t in zip(state.players, state.tiles)},
        "tile_supply": dict(zip((p.colour for p in board.provinces), state.tile_supply)),
        "districts": {
            name: {
                "open": {names[o]: k for o, k in enumerate(state.open[d]) if k},
                "cloister": names[state.cloister[d]] if state.cloister[d] != EMPTY else None,
                "city": {names[o]: k for o, k in enumerate(state.city[d]) if k},
            }
            for d, name in enumerate(board.districts)
        },
        "province_spaces": {prov.id: {names[p]: k for p, k in enumerate(state.spaces[i]) if k} for i, prov in enumerate(board.provinces)},
        "effects": [{"kind": e.kind, "message": e.message.to_json(), "points": list(e.points)} for e in state.effects],
    }
    if state.scoring is not None:
        sc = state.scoring
        info["scoring"] = {
            "province": board.provinces[sc.province].id,
            "stage": sc.stage,
            # secret until every committer has committed
            "committed": [state.players[p] for p in sc.committers if sc.commits[p] >= 0],
            "waiting": [state.players[p] for p in sc.committers if sc.commits[p] < 0],
        }
    return info


__all__ = ["describe", "state_json", "unchecked"]
