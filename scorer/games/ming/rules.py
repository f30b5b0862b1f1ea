"""Legality of Ming moves: every rule a move breaks, as bilingual ``Violation`` values.

Checked in a fixed order (boardgame.io style): game over, phase (is this kind of move expected
now), whose turn, shape of the move, then the rules in the order the table plays them. Rule ids are
stable: the dashboard and docs/ming.md refer to them.
"""

from __future__ import annotations

from typing import Any

from collections import Counter
from functools import reduce

from scorer.core.types import Message, SpaceId, Violation, or_list, player_label, violation
from scorer.games.ming import scoring
from scorer.games.ming.board import cloister_space, city_space, province_space
from scorer.games.ming.moves import (
    NEUTRAL,
    TYPE_NAMES,
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
from scorer.games.ming.state import (
    HAND_LIMIT,
    MAX_DEPLOY,
    NEUTRAL_MAX_PER_DISTRICT,
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_OVER,
    PH_PRINCES,
    PH_ROUND_END,
    PH_SCORING,
    PH_SPACES,
    ST_COMMIT,
    ST_NEUTRAL,
    ST_NEUTRAL_FIRST,
    UNKNOWN,
    Hand,
    MingState,
)


def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:
    """``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation."""
    return violation(rule, message, *rest, fix=fix)


# Names of the phases and the kinds of move, for texts: catalogue keys ming.rules.phase.<phase> and
# ming.rules.move.<move type> (scorer/i18n).
PHASE_LABEL: dict[str, Message] = {
    phase: Message.t(f"ming.rules.phase.{phase}")
    for phase in (PH_PRINCES, PH_NEUTRAL, PH_SPACES, PH_CARDS, PH_MOVE, PH_SCORING, PH_ROUND_END, PH_OVER)
}

MOVE_LABEL: dict[type, Message] = {kind: Message.t(f"ming.rules.move.{name}") for kind, name in TYPE_NAMES.items()}


def expected_moves(state: MingState) -> tuple[type, ...]:
    phase = state.phase
    if phase == PH_PRINCES:
        return (PlacePrince,)
    if phase == PH_NEUTRAL:
        return (PlaceNeutral,)
    if phase == PH_SPACES:
        return (PlaceFamily,)
    if phase == PH_CARDS:
        return (TakeCard, TakeDragon)
    if phase == PH_MOVE:
        return (MovePrince, Stay, Pass)
    if phase == PH_SCORING and state.scoring is not None:
        return (ReturnCards,) if state.scoring.stage == ST_COMMIT else (SendBack,)
    if phase == PH_ROUND_END:
        return (ChooseStartPlayer,)
    return ()


def violations(state: MingState, move: MingMove) -> tuple[Violation, ...]:
    if state.finished or state.phase == PH_OVER:
        return (_v("game.over", Message.t('ming.game.over')),)
    handler = _HANDLERS.get(type(move))
    if handler is None:
        return (_v("move.unknown", Message.t('ming.move.unknown', move=move)),)
    allowed = expected_moves(state)
    if type(move) not in allowed:
        phase = PHASE_LABEL.get(state.phase) or Message.t("name.as_given", name=state.phase)
        wanted = or_list(MOVE_LABEL[t] for t in allowed) if allowed else Message.t("ming.rules.nothing")
        # one whole sentence per kind of move: English starts it with the move's name, capitalised
        why = Message.t(f"ming.phase.wrong_move.{TYPE_NAMES[type(move)]}", phase=phase, expected=wanted)
        return (_v("phase.wrong_move", why, fix=Message.t("ming.phase.wrong_move.fix")),)
    p = state.player_index(move.player)
    if p < 0:
        who = player_label(move.player)
        return (_v("turn.unknown_player", Message.t('ming.turn.unknown_player', text=who)),)
    turn = _turn(state, p, move)
    if turn:
        return tuple(turn)
    return tuple(handler(state, p, move))


# -- whose turn ---------------------------------------------------------------------------------

def _turn(state: MingState, p: int, move: MingMove) -> list[Violation]:
    who = player_label(state.players[p])
    if state.phase == PH_SCORING and state.scoring is not None and state.scoring.stage == ST_COMMIT:
        sc = state.scoring
        if p not in sc.committers:
            return [_v("returns.not_in_city", Message.t('ming.returns.not_in_city', text=who), fix=Message.t('ming.returns.not_in_city.fix', text=who))]
        if sc.commits[p] >= 0:
            return [_v("returns.already_committed", Message.t('ming.returns.already_committed', text=who))]
        return []
    if state.phase == PH_SCORING and state.scoring is not None:
        want = state.scoring.chooser
    elif state.phase == PH_ROUND_END:
        want = state.chooser
    else:
        want = state.active
    if p == want:
        return []
    if state.phase == PH_CARDS and state.hands[p].total >= HAND_LIMIT:
        return [_v("cards.hand_limit", Message.t('ming.cards.hand_limit', text=who, HAND_LIMIT=HAND_LIMIT),
                   fix=Message.t('ming.cards.hand_limit.fix', text=who))]
    if state.phase == PH_MOVE and state.passed and state.passed[p]:
        return [_v("turn.passed", Message.t('ming.turn.passed', text=who), fix=Message.t('ming.turn.passed.fix', text=who))]
    awaited = player_label(state.players[want]) if want >= 0 else Message.t("ming.turn.nobody")
    return [_v("turn.not_your_turn", Message.t('ming.turn.not_your_turn', a=awaited, text=who),
               fix=Message.t('ming.turn.not_your_turn.fix', text=who))]


# -- set-up and phase 1 -------------------------------------------------------------------------

def _district(state: MingState, name: str) -> tuple[int | None, list[Violation]]:
    d = state.board.district_index.get(name)
    if d is None:
        return None, [_v("board.unknown_district", Message.t('ming.board.unknown_district', name=name, id=state.board.id), (name,))]
    return d, []


def _province(state: MingState, name: str) -> tuple[int | None, list[Violation]]:
    i = state.board.province_index.get(name)
    if i is None:
        return None, [_v("board.unknown_province", Message.t('ming.board.unknown_province', name=name, id=state.board.id))]
    return i, []


def _place_prince(state: MingState, p: int, move: PlacePrince) -> list[Violation]:
    d, out = _district(state, move.district)
    if d is None:
        return out
    for q, at in enumerate(state.princes):
        if at == d and q != p:
            q_label = player_label(state.players[q])
            return [_v("prince.occupied", Message.t('ming.prince.occupied', district=move.district, q=q_label), (move.district,),
                       Message.t('ming.prince.occupied.fix'))]
    return []


def _place_neutral(state: MingState, p: int, move: PlaceNeutral) -> list[Violation]:
    d, out = _district(state, move.district)
    if d is None:
        return out
    if state.open[d][state.neutral] >= NEUTRAL_MAX_PER_DISTRICT:
        return [_v("neutral.max_three", Message.t('ming.neutral.max_three', district=move.district, NEUTRAL_MAX_PER_DISTRICT=NEUTRAL_MAX_PER_DISTRICT), (move.district,),
                   Message.t('ming.neutral.max_three.fix'))]
    return []


def _place_family(state: MingState, p: int, move: PlaceFamily) -> list[Violation]:
    i, out = _province(state, move.province)
    if i is None:
        return out
    if state.in_hand[p] <= 0:
        return [_v("spaces.none_in_hand", Message.t('ming.spaces.none_in_hand'))]
    return []


# -- phase 2 ------------------------------------------------------------------------------------

def _known_out(state: MingState, kind: int) -> int:
    """Cards of a symbol certainly outside the supply and discard pile: in hands or on display."""
    return sum(h.lb[kind] for h in state.hands) + sum(1 for s in state.display if s == kind)


def _take_card(state: MingState, p: int, move: TakeCard) -> list[Violation]:
    board = state.board
    i, out = _province(state, move.province)
    if i is None:
        return out
    space = province_space(move.province)
    who = player_label(state.players[p])
    if state.hands[p].total >= HAND_LIMIT:
        return [_v("cards.hand_limit", Message.t('ming.cards.hand_limit.2', text=who, HAND_LIMIT=HAND_LIMIT))]
    if state.spaces[i][p] <= 0:
        return [_v("cards.no_family_member", Message.t('ming.cards.no_family_member', text=who, space=space), (space,),
                   Message.t('ming.cards.no_family_member.fix'))]
    for field_name, value in (("symbol", move.symbol), ("refill", move.refill)):
        if value is not None and value not in board.symbol_index:
            return [_v("cards.unknown_symbol", Message.t('ming.cards.unknown_symbol', value=value, field_name=field_name, symbols=', '.join(board.symbols)))]
    shown = state.display[i]
    taken = board.symbol_index[move.symbol] if move.symbol is not None else shown
    if move.symbol is not None and shown != UNKNOWN and taken != shown:
        return [_v("cards.display_mismatch",
                   Message.t("ming.cards.display_mismatch", space=space, shown=board.symbol_label(shown), taken=board.symbol_label(taken)),
                   (space,), Message.t("ming.cards.display_mismatch.fix"))]
    if state.rules.cards_required:
        if taken == UNKNOWN:
            out.append(_v("cards.required", Message.t('ming.cards.required')))
        if move.refill is None:
            out.append(_v("cards.required", Message.t('ming.cards.required.2')))
        if out:
            return out
    # declared symbols may not exceed the deck
    after: Counter[int] = Counter()
    if taken != UNKNOWN and shown == UNKNOWN:
        after[taken] += 1
    if move.refill is not None:
        after[board.symbol_index[move.refill]] += 1
    for kind, extra in after.items():
        if _known_out(state, kind) + extra > board.deck[kind]:
            label = board.symbol_label(kind)
            out.append(_v("cards.too_many", Message.t('ming.cards.too_many', kind=board.deck[kind], label=label), (space,),
                          Message.t('ming.cards.too_many.fix')))
    return out


def _take_dragon(state: MingState, p: int, move: TakeDragon) -> list[Violation]:
    i, out = _province(state, move.province)
    if i is None:
        return out
    space = province_space(move.province)
    who = player_label(state.players[p])
    if state.hands[p].total >= HAND_LIMIT:
        return [_v("cards.hand_limit", Message.t('ming.cards.hand_limit.2', text=who, HAND_LIMIT=HAND_LIMIT))]
    owner = p if move.owner is None else state.player_index(move.owner)
    if owner < 0:
        return [_v("dragon.unknown_owner", Message.t('ming.dragon.unknown_owner', owner=move.owner))]
    if owner != p and not state.rules.dragon_any_member:
        o_label = player_label(state.players[owner])
        return [_v("dragon.own_member_only", Message.t('ming.dragon.own_member_only', text=who, o=o_label), (space,),
                   Message.t('ming.dragon.own_member_only.fix', o=o_label))]
    if state.spaces[i][owner] <= 0:
        o_label = player_label(state.players[owner])
        return [_v("dragon.no_family_member", Message.t('ming.dragon.no_family_member', o=o_label, space=space), (space,),
                   Message.t('ming.dragon.no_family_member.fix'))]
    if state.dragon_supply()[1] <= 0:
        return [_v("dragon.supply_empty", Message.t('ming.dragon.supply_empty'),
                   fix=Message.t('ming.dragon.supply_empty.fix'))]
    return []


# -- phase 3 ------------------------------------------------------------------------------------

def _deploy_shape(deploy: int, cloister: bool) -> list[Violation]:
    if not 0 <= deploy <= MAX_DEPLOY:
        return [_v("deploy.max_three", Message.t('ming.deploy.max_three', MAX_DEPLOY=MAX_DEPLOY, deploy=deploy),
                   fix=Message.t("ming.deploy.max_three.fix", n=deploy - MAX_DEPLOY) if deploy > MAX_DEPLOY else None)]
    if cloister and deploy < 1:
        return [_v("deploy.cloister_needs_member", Message.t('ming.deploy.cloister_needs_member'))]
    return []


def _deploy(state: MingState, p: int, district: int, deploy: int, cloister: bool) -> list[Violation]:
    board = state.board
    name = board.districts[district]
    prov = board.district_province[district]
    space = province_space(board.provinces[prov].id)
    who = player_label(state.players[p])
    out: list[Violation] = []
    if deploy == 0:
        return out
    if state.cloister[district] == p:
        return [_v("deploy.cloister_lock", Message.t('ming.deploy.cloister_lock', text=who, name=name), (name, cloister_space(name)),
                   Message.t('ming.deploy.cloister_lock.fix', space=space))]
    have = state.spaces[prov][p]
    if have < deploy:
        return [_v("deploy.not_on_space", Message.t('ming.deploy.not_on_space', text=who, have=have, space=space, deploy=deploy), (name, space),
                   Message.t('ming.deploy.not_on_space.fix', have=deploy - have, name=name))]
    return out


def _pay(state: MingState, p: int, cards: tuple[str, ...]) -> tuple[Hand | None, list[Violation], int]:
    """Remove declared cards from the known hand; (hand after, violations, cards not verifiable)."""
    board = state.board
    hand = state.hands[p]
    lb = list(hand.lb)
    total = hand.total
    unverified = 0
    who = player_label(state.players[p])
    for c in cards:
        k = board.kind_index(c)
        if k is None:
            return None, [_v("cards.unknown_symbol", Message.t('ming.cards.unknown_symbol.2', c=c, kinds=', '.join(board.kinds)))], 0
        free = total - sum(lb)
        if lb[k] > 0:
            lb[k] -= 1
        elif free > 0 and (k != board.dragon_kind or hand.may_dragon):
            unverified += 1
        else:
            label = board.symbol_label(k)
            return None, [_v("cards.not_in_hand", Message.t('ming.cards.not_in_hand', text=who, label=label), fix=Message.t('ming.cards.not_in_hand.fix'))], 0
        total -= 1
    return Hand(total, tuple(lb), hand.may_dragon), [], unverified


def _move_prince(state: MingState, p: int, move: MovePrince) -> list[Violation]:
    board = state.board
    who = player_label(state.players[p])
    shape = _deploy_shape(move.deploy, move.cloister)
    if shape:
        return shape
    if not move.path:
        return [_v("move.no_steps", Message.t('ming.move.no_steps'))]
    if move.cards is not None and len(move.cards) != len(move.path):
        return [_v("cards.count", Message.t('ming.cards.count', path=len(move.path), cards=len(move.cards)),
                   fix=Message.t('ming.cards.count.fix'))]
    steps: list[int] = []
    for name in move.path:
        d, out = _district(state, name)
        if d is None:
            return out
        steps.append(d)
    here = state.princes[p]
    start = here
    for i, d in enumerate(steps):
        if d not in board.neighbours[here]:
            a, b = board.districts[here], board.districts[d]
            return [_v("move.not_adjacent", Message.t('ming.move.not_adjacent', i=i + 1, a=a, b=b), (a, b),
                       Message.t('ming.move.not_adjacent.fix', start=board.districts[start]))]
        here = d
    if state.rules.no_revisit:
        visited = [start] + steps
        if len(set(visited)) != len(visited):
            return [_v("move.revisit", Message.t('ming.move.revisit'), tuple(board.districts[d] for d in steps),
                       Message.t('ming.move.revisit.fix'))]
    end = steps[-1]
    for q, at in enumerate(state.princes):
        if q != p and at == end:
            q_label = player_label(state.players[q])
            return [_v("move.ends_on_prince", Message.t('ming.move.ends_on_prince', end=board.districts[end], q=q_label), (board.districts[end],),
                       Message.t('ming.move.ends_on_prince.fix'))]
    out: list[Violation] = []
    if move.cards is None:
        if state.rules.cards_required:
            return [_v("cards.required", Message.t('ming.cards.required.3'))]
        if state.hands[p].total < len(steps):
            return [_v("cards.not_enough", Message.t('ming.cards.not_enough', text=who, total=state.hands[p].total, steps=len(steps)), (board.districts[end],),
                       Message.t('ming.cards.not_enough.fix', start=board.districts[start]))]
    else:
        prev = start
        for i, (d, c) in enumerate(zip(steps, move.cards)):
            k = board.kind_index(c)
            if k is None:
                return [_v("cards.unknown_symbol", Message.t('ming.cards.unknown_symbol.2', c=c, kinds=', '.join(board.kinds)))]
            allowed = board.border_symbols[(prev, d)]
            if k != board.dragon_kind and k not in allowed:
                a, b = board.districts[prev], board.districts[d]
                shown = reduce(lambda x, y: Message.t("ming.cards.symbol_or", a=x, b=y), [board.symbol_label(s) for s in sorted(allowed)])
                why = Message.t("ming.cards.wrong_symbol", step=i + 1, a=a, b=b, border=shown, card=board.symbol_label(k))
                out.append(_v("cards.wrong_symbol", why, (a, b), Message.t("ming.cards.wrong_symbol.fix")))
            prev = d
        if out:
            return out
        _, why, _ = _pay(state, p, move.cards)
        if why:
            return why
    return _deploy(state, p, end, move.deploy, move.cloister)


def _stay(state: MingState, p: int, move: Stay) -> list[Violation]:
    who = player_label(state.players[p])
    shape = _deploy_shape(move.deploy, move.cloister)
    if shape:
        return shape
    if move.card is None:
        if state.rules.cards_required:
            return [_v("cards.required", Message.t('ming.cards.required.4'))]
        if state.hands[p].total < 1:
            return [_v("cards.not_enough", Message.t('ming.cards.not_enough.2', text=who),
                       fix=Message.t('ming.cards.not_enough.2.fix'))]
    else:
        _, why, _ = _pay(state, p, (move.card,))
        if why:
            return why
    return _deploy(state, p, state.princes[p], move.deploy, move.cloister)


def _pass(state: MingState, p: int, move: Pass) -> list[Violation]:
    return []


# -- phase 4 ------------------------------------------------------------------------------------

def _return_cards(state: MingState, p: int, move: ReturnCards) -> list[Violation]:
    who = player_label(state.players[p])
    values = state.rules.return_values
    if (move.cards is None) == (move.total is None):
        return [_v("returns.shape", Message.t('ming.returns.shape'))]
    if move.cards is not None:
        if not move.cards:
            return [_v("returns.at_least_one", Message.t('ming.returns.at_least_one'))]
        missing = Counter(move.cards) - Counter(values)
        if missing:
            return [_v("returns.not_your_cards", Message.t('ming.returns.not_your_cards', text=who, values=', '.join(map(str, values)), elements=', '.join(map(str, sorted(missing.elements())))),
                       fix=Message.t('ming.returns.not_your_cards.fix'))]
        total = sum(move.cards)
    else:
        total = int(move.total)  # type: ignore[arg-type]
        if total not in scoring.achievable_totals(values):
            return [_v("returns.impossible_total", Message.t('ming.returns.impossible_total', values=', '.join(map(str, values)), total=total),
                       fix=Message.t('ming.returns.impossible_total.fix'))]
    if state.rules.strict_return_total and state.scoring is not None:
        have = state.city_in_province(state.scoring.province)[p]
        if total > have:
            return [_v("returns.more_than_in_city", Message.t('ming.returns.more_than_in_city', text=who, total=total, have=have))]
    return []


def _send_back(state: MingState, p: int, move: SendBack) -> list[Violation]:
    board = state.board
    sc = state.scoring
    assert sc is not None
    who = player_label(state.players[p])
    if move.owner is None or move.owner == state.players[p]:
        owner = p
    elif move.owner == NEUTRAL and state.two_player:
        owner = state.neutral
    else:
        return [_v("sendback.wrong_owner", Message.t('ming.sendback.wrong_owner.3', text=who))]
    if sc.stage in (ST_NEUTRAL, ST_NEUTRAL_FIRST) and owner != state.neutral:
        return [_v("sendback.wrong_owner", Message.t('ming.sendback.wrong_owner'))]
    if sc.stage not in (ST_NEUTRAL, ST_NEUTRAL_FIRST) and owner == state.neutral:
        return [_v("sendback.wrong_owner", Message.t('ming.sendback.wrong_owner.2'))]
    want = sc.to_send[owner]
    if len(move.districts) != want:
        return [_v("sendback.count", Message.t('ming.sendback.count', want=want, districts=len(move.districts)))]
    prov_districts = board.province_districts[sc.province]
    need: Counter[int] = Counter()
    for name in move.districts:
        d, out = _district(state, name)
        if d is None:
            return out
        if d not in prov_districts:
            return [_v("sendback.wrong_province", Message.t('ming.sendback.wrong_province', name=name), (city_space(name),))]
        need[d] += 1
    for d, k in need.items():
        if state.city[d][owner] < k:
            return [_v("sendback.not_there", Message.t('ming.sendback.not_there', owner=state.city[d][owner], d=board.districts[d]), (city_space(board.districts[d]),))]
    return []


# -- phase 5 ------------------------------------------------------------------------------------

def _choose_start(state: MingState, p: int, move: ChooseStartPlayer) -> list[Violation]:
    if state.player_index(move.start) < 0:
        return [_v("start.unknown_player", Message.t('ming.start.unknown_player', start=move.start))]
    return []


_HANDLERS = {
    PlacePrince: _place_prince,
    PlaceNeutral: _place_neutral,
    PlaceFamily: _place_family,
    TakeCard: _take_card,
    TakeDragon: _take_dragon,
    MovePrince: _move_prince,
    Stay: _stay,
    Pass: _pass,
    ReturnCards: _return_cards,
    SendBack: _send_back,
    ChooseStartPlayer: _choose_start,
}

__all__ = ["violations", "expected_moves", "player_label", "PHASE_LABEL", "MOVE_LABEL"]
