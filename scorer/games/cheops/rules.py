"""Legality and resolution of a Cheops turn, step by step, on a mutable working copy.

``violations`` and ``apply_unchecked`` share one code path (``resolve``): each step is checked
against the position left by the steps before it (cash after buying a neighbour, a law just
taken ...), then applied. Checks run in a fixed order: game over, whose turn, the shape of the
turn, then every step in order (stopping at the first step that breaks a rule, since later steps
would be judged on a position that never existed), then the draws. Rule ids are stable: the
dashboard and docs/cheops.md refer to them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

from scorer.core.results import Termination
from scorer.core.types import Message, SpaceId, Violation, player_label, violation
from scorer.games.cheops.data import ADJACENT, BELOW, FACES, ROW_OF, SPACE_INDEX, SPACES, face_label
from scorer.games.cheops.moves import (
    KEPT_PREFIX,
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
    LAW9_PRICE,
    LAW_BASE,
    LAW_HIDDEN,
    MARKET_PRICE,
    NEIGHBOUR_PRICE,
    NEIGHBOUR_TILE,
    NO_TILE,
    CheopsState,
    Effect,
    is_law,
    is_treasure,
    law_code,
)

def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:
    """``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation."""
    return violation(rule, message, *rest, fix=fix)


class TurnError(Exception):
    """Raised inside ``resolve`` when checking: carries the violations of the failing step."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations


class Work:
    """A mutable copy of the state while one turn is resolved."""

    def __init__(self, s: CheopsState):
        self.s = s
        self.p = s.active
        self.content = list(s.content)
        self.tile = list(s.tile)
        self.placer = list(s.placer)
        self.covered = list(s.covered)
        self.sold_for_nothing = list(s.sold_for_nothing)
        self.table_law = list(s.table_law)
        self.market_laws = list(s.market_laws)
        self.law3 = s.law3
        self.revealed = list(s.revealed)
        self.out_of_play = list(s.out_of_play)
        self.cash = list(s.cash)
        self.kept = [list(k) for k in s.kept]
        self.held = [list(h) for h in s.held]
        self.saved = list(s.saved_neighbours)
        self.hands = [list(h) if h is not None else None for h in s.hands]
        self.hand_size = list(s.hand_size)
        self.stacks = [list(x) for x in s.stacks] if s.stacks is not None else None
        self.stack_size = list(s.stack_size)
        self.stack_faces = list(s.stack_faces) if s.stack_faces is not None else None
        self.neighbours_left = s.neighbours_left
        self.unchecked_passes = s.unchecked_passes
        self.unchecked_faces = s.unchecked_faces
        self.laws_declared = s.laws_declared
        self.effects: list[Effect] = []
        self.acquired: set[int] = set()
        self.ended: Termination | None = None
        self.passed = False

    # -- views -------------------------------------------------------------------------------
    def table_full(self, c: int) -> bool:
        return self.covered[c] >= self.s.tables[c].capacity

    def market_price(self) -> int:
        return MARKET_PRICE[self.market_laws[-1] if self.market_laws else 0]

    def supported(self, i: int) -> bool:
        below = BELOW[i]
        return below is None or (self.tile[below[0]] != NO_TILE and self.tile[below[1]] != NO_TILE)

    def same_face_neighbours(self, i: int, face: int) -> list[int]:
        return [j for j in ADJACENT[i] if self.tile[j] == face]

    def laws_in_play(self) -> dict[int, str]:
        """Face-up laws a law 8 can remove, with where they are (for messages)."""
        out: dict[int, str] = {}
        for n in self.market_laws:
            out[n] = "market"
        if self.law3:
            out[3] = "rules"
        for c, n in enumerate(self.table_law):
            if n:
                out[n] = f"table:{self.s.colours[c]}"
        for pi, h in enumerate(self.held):
            for n in h:
                out[n] = f"player:{self.s.players[pi]}"
        return out

    def freeze(self, **changes) -> CheopsState:
        s = self.s
        return replace(
            s,
            content=tuple(self.content),
            tile=tuple(self.tile),
            placer=tuple(self.placer),
            covered=tuple(self.covered),
            sold_for_nothing=tuple(self.sold_for_nothing),
            table_law=tuple(self.table_law),
            market_laws=tuple(self.market_laws),
            law3=self.law3,
            revealed=tuple(self.revealed),
            out_of_play=tuple(self.out_of_play),
            cash=tuple(self.cash),
            kept=tuple(tuple(k) for k in self.kept),
            held=tuple(tuple(sorted(h)) for h in self.held),
            saved_neighbours=tuple(self.saved),
            hands=tuple(tuple(h) if h is not None else None for h in self.hands),
            hand_size=tuple(self.hand_size),
            stacks=tuple(tuple(x) for x in self.stacks) if self.stacks is not None else None,
            stack_size=tuple(self.stack_size),  # type: ignore[arg-type]
            stack_faces=tuple(self.stack_faces) if self.stack_faces is not None else None,
            neighbours_left=self.neighbours_left,
            unchecked_passes=self.unchecked_passes,
            unchecked_faces=self.unchecked_faces,
            laws_declared=self.laws_declared,
            effects=tuple(self.effects),
            **changes,
        )


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


def _check_take(w: Work, i: int, take: Take, spent: int = 0, used: int | None = None) -> list[Violation]:
    """A step is checked before it is applied, so ``w`` does not yet show what the same step does
    before its take resolves: ``spent`` is the money it pays (a neighbour's price), ``used`` the
    kept law it uses up (law 11)."""
    s = w.s
    space = SPACES[i]
    code = w.content[i]
    law_fields = take.law is not None or take.discard or take.table is not None or take.remove is not None or take.remove_space is not None
    if code == EMPTY:
        if law_fields or take.sell is not None:
            return [_v("take.nothing_there", Message.t('cheops.take.nothing_there', space=space), (space,))]
        return []
    if is_treasure(code):
        colour = s.colours[code]
        name = s.board.colour_name(colour)
        if law_fields:
            return [_v("take.treasure_not_law", Message.t('cheops.take.treasure_not_law', space=space, c=name), (space,))]
        if take.sell is None:
            return [_v("treasure.decision_missing", Message.t('cheops.treasure.decision_missing', c=name, space=space), (space,))]
        law = w.table_law[code]
        full = w.table_full(code)
        if law == 5 and take.sell:
            return [_v("treasure.must_keep", Message.t('cheops.treasure.must_keep', c=name), (space, f"price-{colour}"),
                       Message.t('cheops.treasure.must_keep.fix', c=name))]
        if law == 4 and not (full and s.rules.law4_full_keep):
            if not take.sell:
                return [_v("treasure.must_sell", Message.t('cheops.treasure.must_sell', c=name), (space, f"price-{colour}"),
                           Message.t('cheops.treasure.must_sell.fix', c=name))]
            return []
        if full and take.sell:
            return [_v("treasure.table_full", Message.t('cheops.treasure.table_full', c=name), (space, f"price-{colour}"),
                       Message.t('cheops.treasure.table_full.fix', c=name))]
        return []
    # a law
    if take.sell is not None:
        return [_v("take.law_not_treasure", Message.t('cheops.take.law_not_treasure', space=space), (space,))]
    if code == LAW_HIDDEN:
        if take.law is None:
            return [_v("law.undeclared", Message.t('cheops.law.undeclared', space=space), (space,))]
        if take.law in w.revealed or take.law in w.out_of_play or any(c == law_code(take.law) for c in w.content):
            return [_v("law.already_revealed", Message.t('cheops.law.already_revealed', law=take.law), (space,))]
        n = take.law
    else:
        n = code - LAW_BASE
        if take.law is not None and take.law != n:
            return [_v("law.mismatch", Message.t('cheops.law.mismatch', space=space, n=n, law=take.law), (space,))]
    return _check_law_use(w, n, take, space, spent, used)


def _check_law_use(w: Work, n: int, take: Take, space: str, spent: int = 0, used: int | None = None) -> list[Violation]:
    s = w.s
    extra = [f for f, v in (("table", take.table), ("remove", take.remove), ("remove_space", take.remove_space)) if v is not None]
    allowed = {4: ["table"], 5: ["table"], 6: ["table"], 7: ["table"], 8: ["remove", "remove_space"]}.get(n, [])
    if take.discard:
        allowed = []
    wrong = [f for f in extra if f not in allowed]
    if wrong:
        names = " / ".join(wrong)
        if take.discard:
            return [_v("law.resolution_invalid", Message.t('cheops.law.resolution_invalid.discarded', n=n, names=names), (space,))]
        return [_v("law.resolution_invalid", Message.t('cheops.law.resolution_invalid', n=n, names=names), (space,))]
    if take.discard:
        return []
    if n in (4, 5, 6, 7):
        if take.table is None:
            return [_v("law.table_missing", Message.t('cheops.law.table_missing', n=n), (space,))]
        c = s.board.colour_index.get(take.table)
        if c is None:
            return [_v("law.table_unknown", Message.t('cheops.law.table_unknown', table=take.table), (space,))]
        if w.table_law[c]:
            return [_v("law.table_taken", Message.t('cheops.law.table_taken', c=s.board.colour_name(take.table), c2=w.table_law[c]),
                       (space, f"price-{take.table}-law"),
                       Message.t('cheops.law.table_taken.fix'))]
    elif n == 8:
        if (take.remove is None) == (take.remove_space is None):
            return [_v("law.remove_missing", Message.t('cheops.law.remove_missing'), (space,))]
        if take.remove is not None:
            if take.remove == used:
                return [_v("law.remove_not_in_play", Message.t('cheops.law.remove_not_in_play.used', n=used), (space,),
                           Message.t('cheops.law.remove_not_in_play.used.fix'))]
            if take.remove not in w.laws_in_play():
                return [_v("law.remove_not_in_play", Message.t('cheops.law.remove_not_in_play', remove=take.remove), (space,))]
        else:
            if s.rules.law8_face_up_only:
                return [_v("law.remove_space_variant",
                           Message.t('cheops.law.remove_space_variant'), (space,),
                           Message.t('cheops.law.remove_space_variant.fix'))]
            if take.remove_space == space:  # not covered yet while checked, but that is law 8 itself
                return [_v("law.remove_not_in_play",
                           Message.t('cheops.law.remove_not_in_play.2', space=space), (space,),
                           Message.t('cheops.law.remove_not_in_play.2.fix'))]
            j = SPACE_INDEX.get(take.remove_space)  # type: ignore[arg-type]
            if j is None or w.tile[j] != NO_TILE or not is_law(w.content[j]):
                return [_v("law.remove_not_in_play", Message.t('cheops.law.remove_not_in_play.3', remove_space=take.remove_space), (space,))]
    elif n == 9:
        cash = w.cash[w.p] - spent
        if cash < LAW9_PRICE:
            if spent:
                return [_v("law.cannot_pay",
                           Message.t('cheops.law.cannot_pay.2', LAW9_PRICE=LAW9_PRICE, spent=spent, cash=cash, p=w.cash[w.p]),
                           (space,),
                           Message.t('cheops.law.cannot_pay.2.fix'))]
            return [_v("law.cannot_pay", Message.t('cheops.law.cannot_pay', LAW9_PRICE=LAW9_PRICE, p=w.cash[w.p]), (space,),
                       Message.t('cheops.law.cannot_pay.fix'))]
    return []


def _take(w: Work, i: int, take: Take) -> None:
    code = w.content[i]
    if code == EMPTY:
        return
    w.content[i] = EMPTY
    if is_treasure(code):
        if take.sell:
            _sell(w, code)
        else:
            w.kept[w.p][code] += 1
        return
    if code == LAW_HIDDEN:
        n = take.law
        w.laws_declared += 1
    else:
        n = code - LAW_BASE
    assert n is not None
    w.revealed.append(n)
    if take.discard:
        w.out_of_play.append(n)
        return
    s = w.s
    if n in (1, 2):
        if w.market_laws and not s.rules.market_laws_stack:
            w.out_of_play.extend(w.market_laws)
            w.market_laws.clear()
        w.market_laws.append(n)
        w.effects.append(Effect("market_price", Message.t('cheops.rules.law_the_market_price_is', n=n, market_price=w.market_price())))
    elif n == 3:
        w.law3 = True
        w.effects.append(Effect("law3", Message.t('cheops.rules.law_3_the_game_ends')))
    elif n in (4, 5, 6, 7):
        w.table_law[s.board.colour_index[take.table]] = n  # type: ignore[index]
    elif n == 8:
        if take.remove is not None:
            _remove_law(w, take.remove)
        else:
            j = SPACE_INDEX[take.remove_space]  # type: ignore[index]
            code_j = w.content[j]
            w.content[j] = EMPTY
            if code_j != LAW_HIDDEN:
                w.out_of_play.append(code_j - LAW_BASE)
        w.out_of_play.append(8)
    elif n == 9:
        w.cash[w.p] -= LAW9_PRICE
        w.held[w.p].append(9)
    else:
        w.held[w.p].append(n)
        w.acquired.add(n)


def _remove_law(w: Work, n: int) -> None:
    if n in w.market_laws:
        w.market_laws.remove(n)
    if n == 3 and w.law3:
        w.law3 = False
    for c, law in enumerate(w.table_law):
        if law == n:
            w.table_law[c] = 0
    for h in w.held:
        if n in h:
            h.remove(n)
    w.out_of_play.append(n)


def _sell(w: Work, c: int) -> None:
    s = w.s
    if w.table_full(c):  # law 4 on a full table (C13): sold for nothing, the scarab leaves the game
        w.sold_for_nothing[c] += 1
        return
    w.cash[w.p] += w.market_price()
    w.covered[c] += 1
    if w.table_full(c):
        colour = s.colours[c]
        w.effects.append(Effect("table_full", Message.t('cheops.effect.table_full', colour=s.board.colour_label(colour))))


def _check_law10(w: Work, step: UseLaw10) -> list[Violation]:
    s = w.s
    if 10 not in w.held[w.p]:
        return [_v("law10.not_held", Message.t('cheops.law10.not_held'))]
    if 10 in w.acquired:
        return [_v("law.same_turn", Message.t('cheops.law.same_turn'))]
    c = s.board.colour_index.get(step.colour)
    if c is None:
        return [_v("law10.colour_unknown", Message.t('cheops.law10.colour_unknown', colour=step.colour))]
    colour = s.board.colour_label(step.colour)
    if w.kept[w.p][c] <= 0:
        return [_v("law10.no_kept", Message.t('cheops.law10.no_kept', colour=colour))]
    if w.table_full(c):
        return [_v("law10.table_full", Message.t('cheops.law10.table_full', colour=colour), (f"price-{step.colour}",))]
    if w.table_law[c] == 5:
        return [_v("law10.forbidden", Message.t('cheops.law10.forbidden', colour=colour), (f"price-{step.colour}",))]
    return []


def _swap_ref(w: Work, ref: str) -> tuple[str, int] | Violation:
    s = w.s
    if ref.startswith(KEPT_PREFIX):
        colour = ref[len(KEPT_PREFIX):]
        c = s.board.colour_index.get(colour)
        if c is None or w.kept[w.p][c] <= 0:
            return _v("law12.no_kept", Message.t('cheops.law12.no_kept', colour=colour))
        return "kept", c
    i = SPACE_INDEX.get(ref)
    if i is None:
        return _v("space.unknown", Message.t('cheops.space.unknown', ref=ref))
    code = w.content[i]
    if w.tile[i] != NO_TILE or code == EMPTY:
        return _v("law12.not_treasure", Message.t('cheops.law12.not_treasure', ref=ref), (ref,))
    if is_law(code) and not s.rules.law12_laws:
        return _v("law12.not_treasure", Message.t('cheops.law12.not_treasure.2', ref=ref), (ref,))
    return "space", i


def _check_law12(w: Work, step: UseLaw12) -> list[Violation]:
    if 12 not in w.held[w.p]:
        return [_v("law12.not_held", Message.t('cheops.law12.not_held'))]
    if 12 in w.acquired:
        return [_v("law.same_turn", Message.t('cheops.law.same_turn'))]
    if step.first == step.second:
        return [_v("law12.same", Message.t('cheops.law12.same'))]
    refs = []
    for ref in (step.first, step.second):
        r = _swap_ref(w, ref)
        if isinstance(r, Violation):
            return [r]
        refs.append(r)
    if refs[0][0] == "kept" and refs[1][0] == "kept":
        return [_v("law12.two_kept", Message.t('cheops.law12.two_kept'))]
    kinds = [r for r in refs if r[0] == "space"]
    if len(kinds) == 1 and is_law(w.content[kinds[0][1]]):
        return [_v("law12.not_treasure", Message.t('cheops.law12.not_treasure.3'), (SPACES[kinds[0][1]],))]
    return []


def _swap(w: Work, a: str, b: str) -> None:
    refs = [_swap_ref(w, a), _swap_ref(w, b)]
    (ka, xa), (kb, xb) = refs  # type: ignore[misc]
    if ka == "space" and kb == "space":
        w.content[xa], w.content[xb] = w.content[xb], w.content[xa]
        return
    if ka == "kept":
        (ka, xa), (kb, xb) = (kb, xb), (ka, xa)
    # xa: pyramid space, xb: kept colour
    got = w.content[xa]
    w.content[xa] = xb
    w.kept[w.p][xb] -= 1
    w.kept[w.p][got] += 1


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
