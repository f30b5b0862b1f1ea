"""Legality and resolution of a Cheops turn, step by step, on a mutable working copy.

``violations`` and ``apply_unchecked`` share one code path (``resolve``): each step is checked
against the position left by the steps before it (cash after buying a neighbour, a law just
taken ...), then applied. Checks run in a fixed order: game over, whose turn, the shape of the
turn, then every step in order (stopping at the first step that breaks a rule, since later steps
would be judged on a position that never existed), then the draws. Rule ids are stable: the
dashboard and docs/cheops.md refer to them.
"""

from __future__ import annotations

from scorer.core.results import Termination
from scorer.core.types import Message, Violation, player_label
from scorer.games.cheops.data import ADJACENT, BELOW, FACES, ROW_OF, SPACE_INDEX, SPACES, face_label
from scorer.games.cheops.moves import (
    BuyNeighbour,
    Draw,
    Pass,
    PlaceTile,
    Step,
    Take,
    Turn,
    UseLaw10,
    UseLaw11,
    UseLaw12,
)
from scorer.games.cheops.state import (
    EMPTY,
    HAND_SIZE,
    NEIGHBOUR_PRICE,
    NEIGHBOUR_TILE,
    NO_TILE,
    CheopsState,
    Effect,
)
from scorer.games.cheops.taking import _check_law10, _check_law12, _check_take, _sell, _swap, _take
from scorer.games.cheops.work import TurnError, Work, _v  # noqa: F401  (Work, TurnError: used as rules.Work, rules.TurnError)


# -- placement helpers shared with the engine, explain and simulate ------------------------------

def placeable_spaces(tile: list[int] | tuple[int, ...], face: int, *, support: bool = True) -> list[int]:
    """Free spaces where a tile of ``face`` may go (support rule optional, same-face rule always)."""
    out = []
    for i in range(len(SPACES)):
        if tile[i] != NO_TILE:
            continue
        if support:
            below = BELOW[i]
            if below is not None and (tile[below[0]] == NO_TILE or tile[below[1]] == NO_TILE):
                continue
        if any(tile[j] == face for j in ADJACENT[i]):
            continue
        out.append(i)
    return out


def fits_somewhere(tile: list[int] | tuple[int, ...], face: int, *, support: bool = True) -> bool:
    """Like ``placeable_spaces`` but stops at the first space found."""
    for i in range(len(SPACES)):
        if tile[i] != NO_TILE:
            continue
        if support:
            below = BELOW[i]
            if below is not None and (tile[below[0]] == NO_TILE or tile[below[1]] == NO_TILE):
                continue
        for j in ADJACENT[i]:
            if tile[j] == face:
                break
        else:
            return True
    return False


def neighbour_spaces(tile: list[int] | tuple[int, ...], may_touch: bool) -> list[int]:
    out = []
    for i in range(len(SPACES)):
        if tile[i] != NO_TILE:
            continue
        below = BELOW[i]
        if below is not None and (tile[below[0]] == NO_TILE or tile[below[1]] == NO_TILE):
            continue
        if not may_touch and any(tile[j] == NEIGHBOUR_TILE for j in ADJACENT[i]):
            continue
        out.append(i)
    return out


def hand_faces(hand: list[int] | tuple[int, ...] | None) -> list[int]:
    return [f for f in range(len(FACES)) if hand is not None and hand[f] > 0]


def can_place_normally(tile, hand) -> bool:
    return any(fits_somewhere(tile, f) for f in hand_faces(hand))


# -- the turn ---------------------------------------------------------------------------------------

def violations(state: CheopsState, move: Turn) -> tuple[Violation, ...]:
    if not isinstance(move, Turn):
        return (_v("move.unknown", Message.t('cheops.move.unknown.2', move=move)),)
    try:
        resolve(state, move, check=True)
    except TurnError as err:
        return tuple(err.violations)
    return ()


def resolve(state: CheopsState, move: Turn, *, check: bool, partial: bool = False) -> Work:
    """Play ``move`` on a working copy; with ``check`` raise ``TurnError`` at the first broken rule.

    ``partial`` checks the steps of an unfinished turn (no shape or draw checks): used to
    enumerate moves and to read a turn that is still being played on the table.
    """
    if check and not partial:
        _fail(_turn_checks(state, move))
    elif check and state.finished is not None:
        _fail([_v("game.over", Message.t('cheops.game.over'))])
    w = Work(state)
    for k, step in enumerate(move.steps):
        if w.ended is not None and not state.rules.end_after_turn:
            if check:
                _fail([_game_ended(w, move.steps[k:])])
            break
        if check:
            _fail(_check_step(w, step))
        _apply_step(w, step)
        if w.ended is None:
            w.ended = immediate_end(w)
            if w.ended is not None:
                w.effects.append(Effect("end_condition", _end_message(w.ended)))
    if w.ended is None or state.rules.end_after_turn:
        if check and not partial:
            if move.step_b is None:
                _fail([_no_step_b()])
            _fail(_check_draws(w, move))
        _apply_draws(w, move.draws)
    elif check and not partial:
        _fail(_check_draws(w, move))  # E9: draws in the turn that ended the game are checked, then ignored
    return w


def _fail(found: list[Violation]) -> None:
    if found:
        raise TurnError(found)


def _turn_checks(state: CheopsState, move: Turn) -> list[Violation]:
    if state.finished is not None:
        return [_v("game.over", Message.t('cheops.game.over'))]
    p = state.player_index(move.player)
    who = player_label(move.player)
    if p < 0:
        return [_v("turn.unknown_player", Message.t('cheops.turn.unknown_player', text=who))]
    if p != state.active:
        active = player_label(state.players[state.active])
        return [_v("turn.not_your_turn", Message.t('cheops.turn.not_your_turn', a=active, text=who),
                   fix=Message.t('cheops.turn.not_your_turn.fix', text=who))]
    steps = move.steps
    places = sum(isinstance(s, PlaceTile) for s in steps)
    law11s = sum(isinstance(s, UseLaw11) for s in steps)
    passes = sum(isinstance(s, Pass) for s in steps)
    neighbours = [i for i, s in enumerate(steps) if isinstance(s, BuyNeighbour)]
    if passes and (places or law11s):
        return [_v("turn.pass_with_placement", Message.t('cheops.turn.pass_with_placement'),
                   fix=Message.t('cheops.turn.pass_with_placement.fix'))]
    if passes > 1:
        return [_v("turn.two_step_b", Message.t('cheops.turn.two_step_b'))]
    if state.rules.law11_extra:
        too_many = places > 1 or law11s > 1
    else:
        too_many = places + law11s > 1
    if too_many:
        key = 'cheops.turn.two_step_b.law11_extra' if state.rules.law11_extra else 'cheops.turn.two_step_b.one_tile'
        return [_v("turn.two_step_b", Message.t(key), fix=Message.t('cheops.turn.two_step_b.fix'))]
    if len(neighbours) > 1:
        return [_v("turn.neighbour_twice", Message.t('cheops.turn.neighbour_twice'),
                   fix=Message.t('cheops.turn.neighbour_twice.fix'))]
    if neighbours and neighbours[0] != 0:
        return [_v("turn.neighbour_first", Message.t('cheops.turn.neighbour_first'))]
    if neighbours and passes and not (state.rules.save_neighbour and steps[0].save):  # type: ignore[union-attr]
        return [_v("turn.neighbour_needs_step_b",
                   Message.t('cheops.turn.neighbour_needs_step_b'),
                   fix=Message.t('cheops.turn.neighbour_needs_step_b.fix'))]
    return []


def _no_step_b() -> Violation:
    return _v("turn.no_step_b", Message.t('cheops.turn.no_step_b'),
              fix=Message.t('cheops.turn.no_step_b.fix'))


def _game_ended(w: Work, rest) -> Violation:
    text = _end_message(w.ended)  # type: ignore[arg-type]
    return _v("game.ended_mid_turn",
              Message.t('cheops.game.ended_mid_turn', text=text),
              fix=Message.t('cheops.game.ended_mid_turn.fix'))


def _end_message(why: Termination) -> Message:
    return {
        Termination.PYRAMID_COMPLETE: Message.t('cheops.rules.the_pyramid_is_empty'),
        Termination.PRICE_TABLES_FULL: Message.t('cheops.rules.enough_price_tables_are_full'),
        Termination.BLOCKED: Message.t('cheops.rules.no_family_tile_can_be'),
        Termination.NO_LEGAL_PLACEMENT: Message.t('cheops.rules.a_player_could_not_place'),
        Termination.DECK_EXHAUSTED: Message.t('cheops.rules.the_family_tiles_are_used'),
    }[why]


def immediate_end(w: Work) -> Termination | None:
    """End conditions 1 and 2 (rules/cheops.md 7), checked after every step (C2)."""
    if all(c == EMPTY for c in w.content):
        return Termination.PYRAMID_COMPLETE
    full = sum(1 for c in range(len(w.covered)) if w.table_full(c))
    if full >= (3 if w.law3 else 2):
        return Termination.PRICE_TABLES_FULL
    return None


# -- steps ------------------------------------------------------------------------------------------

def _check_step(w: Work, step: Step) -> list[Violation]:
    if isinstance(step, PlaceTile):
        return _check_family(w, step.tile, step.space, step.take, law11=False)
    if isinstance(step, UseLaw11):
        return _check_family(w, step.tile, step.space, step.take, law11=True)
    if isinstance(step, BuyNeighbour):
        return _check_neighbour(w, step)
    if isinstance(step, Pass):
        return _check_pass(w)
    if isinstance(step, UseLaw10):
        return _check_law10(w, step)
    if isinstance(step, UseLaw12):
        return _check_law12(w, step)
    return [_v("move.unknown", Message.t('cheops.move.unknown', step=step))]


def _apply_step(w: Work, step: Step) -> None:
    if isinstance(step, (PlaceTile, UseLaw11)):
        face = FACES.index(step.tile)
        i = SPACE_INDEX[step.space]
        hand = w.hands[w.p]
        if hand is not None:
            hand[face] -= 1
        else:
            w.unchecked_faces += 1
        w.hand_size[w.p] -= 1
        _cover(w, i, face)
        if isinstance(step, UseLaw11):
            _use_up(w, 11)
        _take(w, i, step.take)
    elif isinstance(step, BuyNeighbour):
        if step.save:
            w.cash[w.p] -= NEIGHBOUR_PRICE
            w.neighbours_left -= 1
            w.saved[w.p] += 1
            return
        if step.saved:
            w.saved[w.p] -= 1
        else:
            w.cash[w.p] -= NEIGHBOUR_PRICE
            w.neighbours_left -= 1
        i = SPACE_INDEX[step.space]  # type: ignore[index]
        _cover(w, i, NEIGHBOUR_TILE)
        _take(w, i, step.take)
    elif isinstance(step, Pass):
        w.passed = True
        if w.hands[w.p] is None and w.hand_size[w.p] > 0:
            w.unchecked_passes += 1
    elif isinstance(step, UseLaw10):
        c = w.s.board.colour_index[step.colour]
        w.kept[w.p][c] -= 1
        _sell(w, c)
        _use_up(w, 10)
    elif isinstance(step, UseLaw12):
        _swap(w, step.first, step.second)
        _use_up(w, 12)


def _cover(w: Work, i: int, tile: int) -> None:
    w.tile[i] = tile
    w.placer[i] = w.p


def _use_up(w: Work, n: int) -> None:
    w.held[w.p].remove(n)
    w.out_of_play.append(n)


def _space_checks(w: Work, space: str) -> tuple[int | None, list[Violation]]:
    i = SPACE_INDEX.get(space)
    if i is None:
        return None, [_v("space.unknown", Message.t('cheops.space.unknown.2', space=space))]
    if w.tile[i] != NO_TILE:
        return i, [_v("space.covered", Message.t('cheops.space.covered', space=space), (space,),
                      Message.t('cheops.space.covered.fix', space=space))]
    return i, []


def _support_violation(i: int, what: Message) -> Violation:
    a, b = BELOW[i]  # type: ignore[misc]
    s = SPACES[i]
    return _v("place.support",
              Message.t('cheops.place.support', s=s, i=ROW_OF[i], what=what, a=SPACES[a], b=SPACES[b]),
              (s,),
              Message.t('cheops.place.support.fix', what=what, s=s))


def _check_family(w: Work, face_id: str, space: str, take: Take, *, law11: bool) -> list[Violation]:
    s = w.s
    if face_id not in FACES:
        return [_v("place.unknown_tile", Message.t('cheops.place.unknown_tile', face_id=face_id))]
    tile = face_label(face_id)
    face = FACES.index(face_id)
    if law11:
        if 11 not in w.held[w.p]:
            return [_v("law11.not_held", Message.t('cheops.law11.not_held'), (space,),
                       Message.t('cheops.law11.not_held.fix'))]
        if 11 in w.acquired:
            return [_v("law.same_turn", Message.t('cheops.law.same_turn'), (space,))]
    if w.hand_size[w.p] <= 0:
        return [_v("place.hand_empty", Message.t('cheops.place.hand_empty'), (space,),
                   Message.t('cheops.place.hand_empty.fix'))]
    hand = w.hands[w.p]
    if hand is not None and hand[face] <= 0:
        have = ", ".join(FACES[f] for f in range(len(FACES)) for _ in range(hand[f])) or "none"
        return [_v("place.tile_not_in_hand", Message.t('cheops.place.tile_not_in_hand', f=tile, have=have), (space,),
                   Message.t('cheops.place.tile_not_in_hand.fix'))]
    i, out = _space_checks(w, space)
    if out:
        return out
    assert i is not None
    if (not law11 or s.rules.law11_support) and not w.supported(i):
        return [_support_violation(i, tile)]
    clash = w.same_face_neighbours(i, face)
    if clash:
        names = ", ".join(SPACES[j] for j in clash)
        return [_v("place.same_face",
                   Message.t('cheops.place.same_face', f=tile, space=space, names=names),
                   (space, *(SPACES[j] for j in clash)),
                   Message.t('cheops.place.same_face.fix', f=tile, space=space))]
    # a law-11 placement uses law 11 up before the tile's take resolves: law 8 cannot remove it then
    return _check_take(w, i, take, used=11 if law11 else None)


def _check_neighbour(w: Work, step: BuyNeighbour) -> list[Violation]:
    rules = w.s.rules
    if (step.save or step.saved) and not rules.save_neighbour:
        return [_v("neighbour.no_saving", Message.t('cheops.neighbour.no_saving'))]
    if step.save and step.saved:
        return [_v("neighbour.shape", Message.t('cheops.neighbour.shape'))]
    if step.saved:
        if w.saved[w.p] <= 0:
            return [_v("neighbour.none_saved", Message.t('cheops.neighbour.none_saved'))]
    else:
        if w.neighbours_left <= 0:
            return [_v("neighbour.none_left", Message.t('cheops.neighbour.none_left'),
                       fix=Message.t('cheops.neighbour.none_left.fix'))]
        if w.cash[w.p] < NEIGHBOUR_PRICE:
            return [_v("neighbour.cash", Message.t('cheops.neighbour.cash', NEIGHBOUR_PRICE=NEIGHBOUR_PRICE, p=w.cash[w.p]),
                       fix=Message.t('cheops.neighbour.cash.fix'))]
    if step.save:
        if step.space is not None or step.take != Take():
            return [_v("neighbour.shape", Message.t('cheops.neighbour.shape.2'))]
        return []
    if step.space is None:
        return [_v("neighbour.space_missing", Message.t('cheops.neighbour.space_missing'))]
    i, out = _space_checks(w, step.space)
    if out:
        return out
    assert i is not None
    if not w.supported(i):
        return [_support_violation(i, Message.t('cheops.rules.neighbour'))]
    if not rules.neighbours_may_touch:
        touching = [j for j in ADJACENT[i] if w.tile[j] == NEIGHBOUR_TILE]
        if touching:
            names = ", ".join(SPACES[j] for j in touching)
            return [_v("neighbour.adjacent", Message.t('cheops.neighbour.adjacent', space=step.space, names=names),
                       (step.space, *(SPACES[j] for j in touching)),
                       Message.t('cheops.neighbour.adjacent.fix', space=step.space))]
    # The neighbour is paid when it is bought, before what lies under it is taken: a law 9 found
    # there is paid from what is left (reading E16).
    return _check_take(w, i, step.take, spent=0 if step.saved else NEIGHBOUR_PRICE)


def _check_pass(w: Work) -> list[Violation]:
    hand = w.hands[w.p]
    if hand is None:
        return []
    for f in hand_faces(hand):
        spaces = placeable_spaces(w.tile, f)
        if spaces:
            return [_v("pass.could_place",
                       Message.t('cheops.pass.could_place', f=face_label(FACES[f]), spaces=SPACES[spaces[0]]),
                       (SPACES[spaces[0]],),
                       Message.t('cheops.pass.could_place.fix'))]
    return []


# -- draws --------------------------------------------------------------------------------------------

def _check_draws(w: Work, move: Turn) -> list[Violation]:
    if not move.draws:
        return []
    placed_from_hand = any(isinstance(s, (PlaceTile, UseLaw11)) for s in move.steps)
    if not placed_from_hand:
        return [_v("draw.after_pass", Message.t('cheops.draw.after_pass'),
                   fix=Message.t('cheops.draw.after_pass.fix'))]
    room = HAND_SIZE - w.hand_size[w.p]
    if len(move.draws) > room:
        return [_v("draw.too_many", Message.t('cheops.draw.too_many', HAND_SIZE=HAND_SIZE, room=room, draws=len(move.draws)),
                   fix=Message.t('cheops.draw.too_many.fix'))]
    sizes = list(w.stack_size)
    stacks = [list(x) for x in w.stacks] if w.stacks is not None else None
    faces = list(w.stack_faces) if w.stack_faces is not None else None
    for k, d in enumerate(move.draws):
        if d.stack not in (0, 1, 2):
            return [_v("draw.stack_unknown", Message.t('cheops.draw.stack_unknown', stack=d.stack))]
        if sizes[d.stack] <= 0:
            return [_v("draw.stack_empty", Message.t('cheops.draw.stack_empty', stack=d.stack),
                       fix=Message.t('cheops.draw.stack_empty.fix'))]
        if d.tile is not None and d.tile not in FACES:
            return [_v("place.unknown_tile", Message.t('cheops.place.unknown_tile.2', tile=d.tile))]
        if stacks is not None:
            top = FACES[stacks[d.stack][-1]]
            if d.tile is not None and d.tile != top:
                return [_v("draw.tile_mismatch", Message.t('cheops.draw.tile_mismatch', stack=d.stack, top=top, tile=d.tile))]
            stacks[d.stack].pop()
        elif faces is not None and d.tile is not None:
            f = FACES.index(d.tile)
            if faces[f] <= 0:
                return [_v("draw.tile_exhausted", Message.t('cheops.draw.tile_exhausted', tile=d.tile))]
            faces[f] -= 1
        sizes[d.stack] -= 1
    return []


def _apply_draws(w: Work, draws: tuple[Draw, ...]) -> None:
    p = w.p
    for d in draws:
        w.stack_size[d.stack] -= 1
        w.hand_size[p] += 1
        face: int | None
        if w.stacks is not None:
            face = w.stacks[d.stack].pop()
        else:
            face = FACES.index(d.tile) if d.tile is not None else None
        if face is None:
            w.hands[p] = None
            w.stack_faces = None
        else:
            if w.hands[p] is not None:
                w.hands[p][face] += 1  # type: ignore[index]
            if w.stack_faces is not None:
                w.stack_faces[face] -= 1
