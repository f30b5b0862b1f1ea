"""Reporting a Zhang Yi game: what the scoreboard could not check and what rests on declarations,
move descriptions, the state as JSON, and ``final_scoring`` (how the game ended, who won)."""

from __future__ import annotations

from typing import Any

from scorer.core.game import Game
from scorer.core.results import Termination, Unchecked
from scorer.core.types import Message
from scorer.games.zhang_yi import scoring
from scorer.games.zhang_yi.counters import representable
from scorer.games.zhang_yi.data import STATES, TALENT_IDS, state_label, talent_label
from scorer.games.zhang_yi.moves import (
    Assassinate,
    DrawChit,
    DrawTalent,
    Hold,
    KeepDestiny,
    March,
    NotBacked,
    PlaceTalent,
    Recruit,
    Retreat,
    RevealDestiny,
    RollDie,
    ZhangYiMove,
)
from scorer.games.zhang_yi.state import A_RECRUIT, GRAVE, HELD, OUT, POOL, TRANSIT, ZhangYiState

# Sources whose inputs rest on a person's word; the camera and the card reader are sensors (they
# read the die or the drawn counter), though neither can tell whether the draw itself was random.
DECLARING_SOURCES = frozenset({"dashboard", "record"})


def unchecked(state: ZhangYiState) -> tuple[Unchecked, ...]:
    out = []
    gmap = state.map
    if gmap.sample:
        out.append(Unchecked("map.sample", Message.t('zhang_yi.engine.played_on_the_invented_sample', id=gmap.id)))
    elif gmap.provisional:
        out.append(Unchecked("map.provisional", Message.t('zhang_yi.engine.map_is_marked_provisional_some', id=gmap.id)))
    if gmap.unconfirmed_talents:
        names = ", ".join(gmap.unconfirmed_talents)
        out.append(Unchecked("talents.state_unconfirmed", Message.t('zhang_yi.engine.the_state_of_these_talents', names=names)))
    if not state.rules.seeded:
        out.append(Unchecked("talents.set_aside", Message.t('zhang_yi.engine.the_two_talents_put_aside')))
        out.append(Unchecked("chance.declared", Message.t('zhang_yi.engine.draws_and_die_rolls_are')))
    if state.finished is None and any(state.revealed[p] < 0 for p in range(state.n)):
        out.append(Unchecked("destiny.secret", Message.t('zhang_yi.engine.destiny_chits_are_secret_until')))
    if not state.rules.counter_limit:
        out.append(Unchecked("counters.limit", Message.t('zhang_yi.engine.the_army_counter_limit_8')))
    else:
        bad = [STATES[s] for s in range(7) if gmap.counters[s] is not None and
               not representable([state.strength[i] for i in state.areas_of(s)], *gmap.counters[s])]  # type: ignore[misc]
        if bad:
            out.append(Unchecked("counters.after_losses", Message.t('zhang_yi.engine.after_losses_these_states_strengths', bad=', '.join(bad))))
    return tuple(out)


def declared(state: ZhangYiState) -> tuple[str, ...]:
    out = []
    for what, label in (("die_roll", "die rolls"), ("talent_draw", "talent draws"), ("chit_draw", "action chit draws")):
        parts = [(k.split(":", 1)[1], n) for k, n in state.declared_counts if k.startswith(what + ":")]
        said = [(src, n) for src, n in parts if src in DECLARING_SOURCES]
        seen = [(src, n) for src, n in parts if src not in DECLARING_SOURCES]
        if said:
            text = f"{label}: {sum(n for _, n in said)} declared ({', '.join(f'{src} {n}' for src, n in said)})"
            if seen:
                text += f"; {sum(n for _, n in seen)} read by sensors ({', '.join(f'{src} {n}' for src, n in seen)})"
            out.append(text)
    revealed = [f"{state.players[p]}={STATES[s]}" for p, s in enumerate(state.revealed) if s >= 0]
    if revealed:
        out.append("destiny chits revealed: " + ", ".join(revealed))
    if state.not_backed:
        out.append("declared backed by nobody when annihilated: " + ", ".join(STATES[s] for s in state.not_backed))
    if state.finished is not None and not state.rules.seeded:
        out.append("winner: rests on the declared destiny chits")
    return tuple(out)


def describe(move: ZhangYiMove) -> Message:
    if isinstance(move, DrawTalent):
        n = talent_label(move.talent)
        return Message.t('zhang_yi.engine.draws', player=move.player, n=n, source=move.source)
    if isinstance(move, PlaceTalent):
        n = talent_label(move.talent)
        return Message.t('zhang_yi.engine.places_in', player=move.player, n=n, area=move.area)
    if isinstance(move, Assassinate):
        n = talent_label(move.target)
        return Message.t('zhang_yi.engine.jing_ke_kills', player=move.player, n=n)
    if isinstance(move, DrawChit):
        sl = state_label(move.state)
        return Message.t('zhang_yi.engine.draws_the_chit', player=move.player, sl=sl, source=move.source)
    if isinstance(move, Recruit):
        parts = tuple(Message.t("zhang_yi.engine.recruits.part", n=n, area=a) for a, n in move.placements)
        return Message.t('zhang_yi.engine.recruits.2', player=move.player, text=parts)
    if isinstance(move, March):
        names = tuple(talent_label(t) for t in move.talents)
        with_ = Message.t("zhang_yi.engine.moves_from_to.with", names=names) if names else ""
        return Message.t('zhang_yi.engine.moves_from_to', player=move.player, strength=move.strength, origin=move.origin, dest=move.dest, with_=with_)
    if isinstance(move, Hold):
        return Message.t('zhang_yi.engine.does_not_move', player=move.player)
    if isinstance(move, RollDie):
        return Message.t('zhang_yi.engine.rolls', player=move.player, move=move.value, source=move.source)
    if isinstance(move, Retreat):
        return Message.t('zhang_yi.engine.sends_the_retreat_to', player=move.player, to=move.to)
    if isinstance(move, RevealDestiny):
        sl = state_label(move.state)
        return Message.t('zhang_yi.engine.reveals_destiny', player=move.player, sl=sl)
    if isinstance(move, NotBacked):
        sl = state_label(move.state)
        return Message.t('zhang_yi.engine.nobody_backs_the_annihilated', sl=sl)
    if isinstance(move, KeepDestiny):
        return Message.t('zhang_yi.engine.keeps_a_destiny_chit', player=move.player)
    return Message(repr(move), repr(move))


def final_scoring(state: ZhangYiState) -> dict[str, Any]:
    """National power of the live states, how the game ended, the winning states and the result,
    for the benchmark and the dashboard. The result follows the ending the game had: hegemony
    (11.1) -- the hegemon wins for its backers; annihilation (10-6, 11.2) -- the last player still
    in wins, no state does; end by time (11.3) -- the strongest states. A game still running gets
    the end-by-time view of the position. Backers are known from the destiny chits revealed so far."""
    powers = {STATES[s]: state.power(s) for s in range(7) if state.alive[s]}
    backed = {state.players[p]: STATES[s] for p, s in enumerate(state.revealed) if s >= 0 and not state.out[p]}
    ending = state.ending
    winning: tuple[str, ...]
    if ending is Termination.ANNIHILATION:
        winning, winners, verdict = (), tuple(state.players[p] for p in range(state.n) if not state.out[p]), "win"
    elif ending is Termination.HEGEMONY:
        winning = (STATES[state.hegemon],)
        winners, verdict, _ = scoring.hegemony_result(winning[0], backed)
    else:
        winning = scoring.winning_states(powers)
        winners, verdict, _ = scoring.time_result(powers, backed, state.rules.tied_top_shared_win)
    return {"ending": ending.value if ending is not None else None, "powers": powers, "winning_states": winning,
            "winners": winners, "verdict": verdict}


def state_json(game: Game, state: ZhangYiState) -> dict[str, Any]:
    """``state_to_json`` of the engine (``game`` gives the turn info)."""
    gmap = state.map
    ts = gmap.talent_state

    def where(loc: int) -> str:
        if loc >= 0:
            return gmap.areas[loc].id
        return {POOL: "pool", GRAVE: "graveyard", OUT: "pool", HELD: "drawn", TRANSIT: "moving"}[loc]

    return {
        "map": gmap.id,
        "sample_map": gmap.sample,
        "provisional_map": gmap.provisional,
        "players": list(state.players),
        "turn": state.turn,
        "first_player": state.players[state.first],
        "turn_info": game.turn(state).to_json(),
        "acting": state.players[state.acting] if state.acting >= 0 else None,
        "active_state": STATES[state.active_state] if state.active_state >= 0 else None,
        "recruit_due": state.recruit_due if state.awaiting == A_RECRUIT else None,
        "pool_left": state.pool_left,
        "chits_left": [STATES[s] for s in state.cup],
        "areas": [
            {
                "id": a.id,
                "space": a.space_id,
                "name": a.label.to_json(),
                "city": a.city,
                "state": STATES[state.owner[i]] if state.owner[i] >= 0 else None,
                "strength": state.strength[i],
                "talents": [TALENT_IDS[t] for t in state.talents_in(i)],
            }
            for i, a in enumerate(gmap.areas)
        ],
        "states": {
            STATES[s]: {
                "alive": state.alive[s],
                "power": state.power(s),
                "areas": state.area_count(s),
                "cities": state.city_count(s),
                "strength": sum(n for i, n in enumerate(state.strength) if state.owner[i] == s),
            }
            for s in range(7)
        },
        "talents": {TALENT_IDS[t]: {"state": STATES[ts[t]] if ts[t] >= 0 else None, "where": where(loc)} for t, loc in enumerate(state.talent_loc)},
        "battle": None if state.battle is None else {
            "from": gmap.areas[state.battle.origin].id, "to": gmap.areas[state.battle.dest].id,
            "attacker": state.battle.attacker, "talents": [TALENT_IDS[t] for t in state.battle.talents]},
        "retreat": None if state.retreat is None else {
            "state": STATES[state.retreat.state], "strength": state.retreat.strength, "from": gmap.areas[state.retreat.area].id,
            "options": [gmap.areas[i].id for i in state.retreat.options], "chooser": state.players[state.retreat.chooser]},
        "revealed": {state.players[p]: STATES[s] for p, s in enumerate(state.revealed) if s >= 0},
        "out": [state.players[p] for p in range(state.n) if state.out[p]],
        "effects": [{"kind": e.kind, "message": e.message.to_json()} for e in state.effects],
    }


__all__ = ["DECLARING_SOURCES", "declared", "describe", "final_scoring", "state_json", "unchecked"]
