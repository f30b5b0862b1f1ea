"""Legality of Zhang Yi moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over; whether this input is the one awaited
and from this player; the shape of the move (known areas, talents, states); then the rules.
Rule ids are stable: the dashboard and docs/zhang-yi.md refer to them.
"""

from __future__ import annotations

from typing import Any

from scorer.core.types import Message, SpaceId, Violation, violation
from scorer.games.zhang_yi.counters import representable
from scorer.games.zhang_yi.data import STATE_INDEX, STATES, TALENT_IDS, TALENT_INDEX, state_label, talent_label
from scorer.games.zhang_yi.flow import assassin_targets, attrition
from scorer.games.zhang_yi.moves import (
    SOURCES,
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
from scorer.games.zhang_yi.state import (
    A_ASSASSIN,
    A_CHECK,
    A_CHIT,
    A_DIE,
    A_KEEP,
    A_MOVE,
    A_RECRUIT,
    A_RETREAT,
    A_REVEAL,
    A_TALENT_DRAW,
    A_TALENT_PLACE,
    POOL,
    ZhangYiState,
)

EXPECTED: dict[str, tuple[type, ...]] = {
    A_KEEP: (KeepDestiny,),
    A_TALENT_DRAW: (DrawTalent,),
    A_TALENT_PLACE: (PlaceTalent,),
    A_ASSASSIN: (Assassinate,),
    A_CHIT: (DrawChit,),
    A_RECRUIT: (Recruit,),
    A_MOVE: (March, Hold),
    A_DIE: (RollDie,),
    A_RETREAT: (Retreat,),
    A_CHECK: (RevealDestiny, NotBacked),
    A_REVEAL: (RevealDestiny,),
}

AWAITING_TEXT: dict[str, Message] = {
    A_KEEP: Message.t('zhang_yi.rules.each_player_to_keep_one'),
    A_TALENT_DRAW: Message.t('zhang_yi.rules.a_talent_draw'),
    A_TALENT_PLACE: Message.t('zhang_yi.rules.the_drawn_talent_to_be'),
    A_ASSASSIN: Message.t('zhang_yi.rules.jing_ke_s_target'),
    A_CHIT: Message.t('zhang_yi.rules.an_action_chit_draw'),
    A_RECRUIT: Message.t('zhang_yi.rules.the_recruitment'),
    A_MOVE: Message.t('zhang_yi.rules.a_move_or_hold'),
    A_DIE: Message.t('zhang_yi.rules.the_battle_die'),
    A_RETREAT: Message.t('zhang_yi.rules.the_retreat_area'),
    A_CHECK: Message.t('zhang_yi.rules.whether_anyone_backs_the_annihilated'),
    A_REVEAL: Message.t('zhang_yi.rules.the_destiny_chits_to_be'),
    "none": Message.t('zhang_yi.rules.nothing_the_game_is_over'),
}


def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:
    """``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation."""
    return violation(rule, message, *rest, fix=fix)


def awaiting_text(awaiting: str) -> Message:
    """What the referee waits for (an unknown input name as given)."""
    return AWAITING_TEXT.get(awaiting) or Message.t("name.as_given", name=awaiting)


def _space(state: ZhangYiState, area: int) -> str:
    return state.map.areas[area].space_id


def violations(state: ZhangYiState, move: ZhangYiMove) -> tuple[Violation, ...]:
    if state.finished is not None:
        return (_v("game.over", Message.t('zhang_yi.game.over')),)
    expected = EXPECTED.get(state.awaiting, ())
    if not isinstance(move, expected):
        want = awaiting_text(state.awaiting)
        seeded = state.rules.seeded and isinstance(move, (DrawTalent, DrawChit, RollDie))
        return (_v("turn.wrong_input", Message.t("zhang_yi.turn.wrong_input", want=want, move=type(move).__name__,
                                                 seeded=Message.t("zhang_yi.turn.wrong_input.seeded") if seeded else ""),
                   fix=Message.t("zhang_yi.turn.wrong_input.fix", want=want)),)
    if not isinstance(move, NotBacked):
        found = _player(state, move.player)
        if found:
            return tuple(found)
    handler = _HANDLERS[type(move)]
    return tuple(handler(state, move))


def _player(state: ZhangYiState, player: str) -> list[Violation]:
    p = state.player_index(player)
    if p < 0:
        return [_v("turn.unknown_player", Message.t('zhang_yi.turn.unknown_player', player=player))]
    if p not in state.actors:
        names = ", ".join(state.players[a] for a in state.actors)
        want = awaiting_text(state.awaiting)
        return [_v("turn.not_your_turn", Message.t('zhang_yi.turn.not_your_turn', names=names, want=want, player=player),
                   fix=Message.t('zhang_yi.turn.not_your_turn.fix', player=player, names=names, want=want))]
    return []


def _source(source: str) -> list[Violation]:
    if source not in SOURCES:
        return [_v("input.source", Message.t('zhang_yi.input.source', source=source, SOURCES=', '.join(SOURCES)))]
    return []


def _area(state: ZhangYiState, ident: str, what: str) -> tuple[int, list[Violation]]:
    i = state.map.area_index.get(ident, -1)
    if i < 0:
        return -1, [_v("area.unknown", Message.t('zhang_yi.area.unknown', ident=ident, id=state.map.id, what=what))]
    return i, []


def _state(ident: str) -> tuple[int, list[Violation]]:
    s = STATE_INDEX.get(ident, -1)
    if s < 0:
        return -1, [_v("state.unknown", Message.t('zhang_yi.state.unknown', ident=ident, STATES=', '.join(STATES)))]
    return s, []


def _talent(ident: str) -> tuple[int, list[Violation]]:
    t = TALENT_INDEX.get(ident, -1)
    if t < 0:
        return -1, [_v("talent.unknown", Message.t('zhang_yi.talent.unknown', ident=ident))]
    return t, []


# -- per move type -------------------------------------------------------------------------------

def _keep(state: ZhangYiState, move: KeepDestiny) -> list[Violation]:
    s, bad = _state(move.state)
    if bad:
        return bad
    p = state.player_index(move.player)
    if s not in state.dealt[p]:
        dealt = ", ".join(STATES[x] for x in state.dealt[p])
        return [_v("destiny.not_dealt", Message.t('zhang_yi.destiny.not_dealt', player=move.player, dealt=dealt, state=move.state),
                   fix=Message.t('zhang_yi.destiny.not_dealt.fix', dealt=dealt))]
    return []


def _draw_talent(state: ZhangYiState, move: DrawTalent) -> list[Violation]:
    out = _source(move.source)
    t, bad = _talent(move.talent)
    if bad:
        return out + bad
    if state.talent_loc[t] != POOL:
        name = talent_label(move.talent)
        out.append(_v("talent.not_in_pool", Message.t('zhang_yi.talent.not_in_pool', name=name),
                      fix=Message.t('zhang_yi.talent.not_in_pool.fix')))
    return out


def _place_talent(state: ZhangYiState, move: PlaceTalent) -> list[Violation]:
    t, bad = _talent(move.talent)
    if bad:
        return bad
    if t != state.held:
        held = TALENT_IDS[state.held] if state.held >= 0 else "none"
        return [_v("talent.not_drawn", Message.t('zhang_yi.talent.not_drawn', held=held, talent=move.talent))]
    a, bad = _area(state, move.area, "talent placement")
    if bad:
        return bad
    s = state.map.talent_state[t]
    if state.owner[a] != s:
        name, sl = talent_label(move.talent), state_label(STATES[s])
        own = ", ".join(state.map.areas[i].id for i in state.areas_of(s))
        return [_v("talent.own_territory", Message.t('zhang_yi.talent.own_territory', name=name, sl=sl, own=own), (_space(state, a),),
                   Message.t('zhang_yi.talent.own_territory.fix', name=name, own=own))]
    return []


def _assassinate(state: ZhangYiState, move: Assassinate) -> list[Violation]:
    t, bad = _talent(move.target)
    if bad:
        return bad
    targets = assassin_targets(state)
    if t not in targets:
        names = ", ".join(TALENT_IDS[x] for x in targets)
        why = Message.t("zhang_yi.assassin.target.spares_new") if state.rules.assassin_spares_new else ""
        return [_v("assassin.target", Message.t("zhang_yi.assassin.target", why=why, target=move.target, names=names),
                   fix=Message.t("zhang_yi.assassin.target.fix", names=names))]
    return []


def _draw_chit(state: ZhangYiState, move: DrawChit) -> list[Violation]:
    out = _source(move.source)
    s, bad = _state(move.state)
    if bad:
        return out + bad
    if s not in state.cup:
        sl = state_label(move.state)
        left = ", ".join(STATES[c] for c in state.cup)
        out.append(_v("chit.not_in_cup", Message.t('zhang_yi.chit.not_in_cup', sl=sl, left=left),
                      fix=Message.t('zhang_yi.chit.not_in_cup.fix')))
    return out


def _recruit(state: ZhangYiState, move: Recruit) -> list[Violation]:
    s = state.active_state
    sl = state_label(STATES[s])
    out: list[Violation] = []
    added: dict[int, int] = {}
    for ident, n in move.placements:
        a, bad = _area(state, ident, "recruitment")
        if bad:
            return bad
        if n < 1:
            return [_v("recruit.shape", Message.t('zhang_yi.recruit.shape', ident=ident, n=n))]
        added[a] = added.get(a, 0) + n
    foreign = [a for a in added if state.owner[a] != s]
    if foreign:
        names = ", ".join(state.map.areas[a].id for a in foreign)
        out.append(_v("recruit.own_territory", Message.t('zhang_yi.recruit.own_territory', sl=sl, names=names), tuple(_space(state, a) for a in foreign),
                      Message.t('zhang_yi.recruit.own_territory.fix', names=names)))
    total = sum(added.values())
    if total != state.recruit_due:
        power, ministers = state.power(s), state.ministers_on_map(s)
        out.append(_v("recruit.total",
                      Message.t('zhang_yi.recruit.total', sl=sl, recruit_due=state.recruit_due, power=power, power2=(power + 2) // 3, ministers=ministers, total=total),
                      tuple(_space(state, a) for a in added),
                      Message.t('zhang_yi.recruit.total.fix', recruit_due=state.recruit_due, sl=sl)))
    if state.rules.recruit_one_area and len(added) > 1:
        out.append(_v("recruit.one_area", Message.t('zhang_yi.recruit.one_area'),
                      tuple(_space(state, a) for a in added)))
    mix = state.map.counters[s]
    if not out and state.rules.counter_limit and mix is not None:
        after = [state.strength[a] + added.get(a, 0) for a in state.areas_of(s)]
        if not representable(after, mix[0], mix[1]):
            out.append(_v("counters.limit", Message.t('zhang_yi.counters.limit', sl=sl, after=after)))
    return out


def _march(state: ZhangYiState, move: March) -> list[Violation]:
    s = state.active_state
    sl = state_label(STATES[s])
    o, bad = _area(state, move.origin, "origin")
    if bad:
        return bad
    d, bad = _area(state, move.dest, "destination")
    if bad:
        return bad
    talents = []
    for ident in move.talents:
        t, bad = _talent(ident)
        if bad:
            return bad
        talents.append(t)
    out: list[Violation] = []
    if state.owner[o] != s:
        return [_v("march.own_area", Message.t('zhang_yi.march.own_area', sl=sl, origin=move.origin), (_space(state, o),),
                   Message.t('zhang_yi.march.own_area.fix', origin=move.origin))]
    if o == d or not state.map.adjacent(o, d):
        near = ", ".join(state.map.areas[j].id for j, _ in state.map.neighbours[o])
        return [_v("march.adjacent", Message.t('zhang_yi.march.adjacent', dest=move.dest, origin=move.origin, near=near),
                   (_space(state, o), _space(state, d)),
                   Message.t('zhang_yi.march.adjacent.fix', origin=move.origin))]
    have = state.strength[o]
    if move.strength < 1 or move.strength > have - 1:
        if have <= 1:
            why = Message.t("zhang_yi.march.leave_one.cannot_move", origin=move.origin, have=have)
        else:
            why = Message.t("zhang_yi.march.leave_one", origin=move.origin, have=have, most=have - 1, moved=move.strength)
        out.append(_v("march.leave_one", why, (_space(state, o), _space(state, d)),
                      Message.t("zhang_yi.march.leave_one.fix", origin=move.origin)))
    for t, ident in zip(talents, move.talents):
        if state.talent_loc[t] != o:
            name = talent_label(ident)
            out.append(_v("march.talent_not_there", Message.t('zhang_yi.march.talent_not_there', name=name, origin=move.origin), (_space(state, o),)))
    mix = state.map.counters[s]
    if not out and state.rules.counter_limit and mix is not None:
        after = [state.strength[a] - (move.strength if a == o else 0) for a in state.areas_of(s) if a != d]
        arrive = max(0, move.strength - attrition(state, o, d)) + (state.strength[d] if state.owner[d] == s else 0)
        if not representable(after + [arrive], mix[0], mix[1]):
            out.append(_v("counters.limit", Message.t('zhang_yi.counters.limit.2', sl=sl), (_space(state, o), _space(state, d))))
    return out


def _hold(state: ZhangYiState, move: Hold) -> list[Violation]:
    return []


def _roll(state: ZhangYiState, move: RollDie) -> list[Violation]:
    out = _source(move.source)
    if not 1 <= move.value <= 6:
        out.append(_v("die.value", Message.t('zhang_yi.die.value', move=move.value)))
    return out


def _retreat(state: ZhangYiState, move: Retreat) -> list[Violation]:
    r = state.retreat
    assert r is not None
    names = ", ".join(state.map.areas[a].id for a in r.options)
    sl = state_label(STATES[r.state])
    if move.to is None:
        return [_v("retreat.required", Message.t('zhang_yi.retreat.required', sl=sl, names=names))]
    a, bad = _area(state, move.to, "retreat")
    if bad:
        return bad
    if a not in r.options:
        return [_v("retreat.area", Message.t('zhang_yi.retreat.area', sl=sl, names=names, to=move.to),
                   (_space(state, a), _space(state, r.area)),
                   Message.t('zhang_yi.retreat.area.fix', names=names))]
    return []


def _reveal(state: ZhangYiState, move: RevealDestiny) -> list[Violation]:
    s, bad = _state(move.state)
    if bad:
        return bad
    sl = state_label(move.state)
    p = state.player_index(move.player)
    if state.rules.seeded and state.kept[p] >= 0 and state.kept[p] != s:
        return [_v("destiny.mismatch", Message.t('zhang_yi.destiny.mismatch', player=move.player, p=STATES[state.kept[p]], state=move.state))]
    if state.awaiting == A_CHECK:
        if s != state.check_state:
            cl = state_label(STATES[state.check_state])
            return [_v("destiny.check_state", Message.t('zhang_yi.destiny.check_state.2', cl=cl, sl=sl),
                       fix=Message.t('zhang_yi.destiny.check_state.2.fix', cl=cl))]
        return []
    for q in range(state.n):
        if q != p and state.revealed[q] == s:
            return [_v("destiny.taken", Message.t('zhang_yi.destiny.taken', q=state.players[q], sl=sl))]
    if s in state.not_backed:
        return [_v("destiny.contradiction", Message.t('zhang_yi.destiny.contradiction', sl=sl, player=move.player),
                   fix=Message.t('zhang_yi.destiny.contradiction.fix'))]
    return []


def _not_backed(state: ZhangYiState, move: NotBacked) -> list[Violation]:
    s, bad = _state(move.state)
    if bad:
        return bad
    if s != state.check_state:
        cl = state_label(STATES[state.check_state])
        return [_v("destiny.check_state", Message.t('zhang_yi.destiny.check_state', cl=cl, state=move.state))]
    if state.rules.seeded and any(state.kept[p] == s and not state.out[p] for p in range(state.n)):
        return [_v("destiny.mismatch", Message.t('zhang_yi.destiny.mismatch.2'))]
    return []


_HANDLERS = {
    KeepDestiny: _keep,
    DrawTalent: _draw_talent,
    PlaceTalent: _place_talent,
    Assassinate: _assassinate,
    DrawChit: _draw_chit,
    Recruit: _recruit,
    March: _march,
    Hold: _hold,
    RollDie: _roll,
    Retreat: _retreat,
    RevealDestiny: _reveal,
    NotBacked: _not_backed,
}
