"""The Cheops rules engine: ``scorer.core.Game`` for Cheops (Klaus Paal, Hans im Glück 1998;
rules/cheops.md), all but ``explain`` (the reading of sensed boards, added in ``game.py``)."""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any, Iterator, Mapping

from scorer.core.game import Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, winners_from
from scorer.core.types import Board, Message, SpaceId, Violation
from scorer.games.cheops import moves as mv
from scorer.games.cheops import rules
from scorer.games.cheops.data import FACES, LAW_NUMBERS, SPACES
from scorer.games.cheops.moves import (
    KEPT_PREFIX,
    BuyNeighbour,
    CheopsMove,
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
from scorer.games.cheops.reporting import declared, describe_move, final_scoring, state_to_json, unchecked
from scorer.games.cheops.setup import initial_state, setup_schema
from scorer.games.cheops.state import (
    CAT_CASH,
    CAT_JOKER,
    EMPTY,
    HAND_SIZE,
    LAW_BASE,
    LAW_HIDDEN,
    NEIGHBOUR_PRICE,
    NEIGHBOUR_TILE,
    NO_TILE,
    CheopsState,
    Effect,
    is_law,
    is_treasure,
)
from scorer.games.cheops.visible import visible_board


class CheopsEngine(Game[CheopsState, CheopsMove]):
    """Cheops's rules; ``explain`` stays abstract here (``CheopsGame`` in game.py adds it)."""

    id = "cheops"
    name = Message.t('cheops.engine.cheops')
    min_players = 2
    max_players = 5

    # -- set-up ---------------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> CheopsState:
        return initial_state(options, self.min_players, self.max_players)

    def turn(self, state: CheopsState) -> TurnInfo:
        if state.finished is not None:
            return TurnInfo((), phase="over", round=None, awaiting="none")
        return TurnInfo((state.players[state.active],), phase="play", round=state.turn_number // state.n + 1, awaiting="move")

    # -- legality and effects ---------------------------------------------------------------------
    def violations(self, state: CheopsState, move: CheopsMove) -> tuple[Violation, ...]:
        return rules.violations(state, move)

    def apply_unchecked(self, state: CheopsState, move: CheopsMove) -> CheopsState:
        if not isinstance(move, Turn):
            raise TypeError(f"not a Cheops move: {move!r}")
        w = rules.resolve(state, move, check=False)
        return self._end_turn(w)

    def _end_turn(self, w: rules.Work) -> CheopsState:
        s = w.s
        passes = s.passes_in_row + 1 if w.passed else 0
        state = w.freeze(active=(s.active + 1) % s.n, turn_number=s.turn_number + 1, passes_in_row=passes)
        why = w.ended
        if why is None:
            ending = end_of_turn_condition(state, w.passed)
            if ending is not None:
                why = ending[0]
                state = replace(state, effects=state.effects + (Effect("end_condition", ending[1]),))
        if why is not None:
            state = replace(state, finished=why, effects=state.effects + (
                Effect("game_over", Message.t('cheops.engine.the_game_is_over')),
                Effect("final_scoring", Message.t('cheops.engine.final_scoring_cash_plus_kept')),
            ))
        return state

    # -- enumerating moves ------------------------------------------------------------------------
    def legal_moves(self, state: CheopsState) -> Iterator[CheopsMove]:
        """Every legal turn, lazily: first the turns without a kept law 10 or 12 (they are few),
        then those that use one (a law-12 swap multiplies the turns by every pair of treasures).

        Each turn is spelled one way: a law taken carries its number, a law-12 swap names a kept
        treasure first and two pyramid spaces in board order, draws name no face. Other spellings
        of the same turn (a known law's number left out, the pair reversed, a tracked draw's face
        declared) are legal too and do the same.
        """
        return self.legal_turns(state, ())

    def legal_turns(self, state: CheopsState, begun: tuple[Step, ...] = ()) -> Iterator[CheopsMove]:
        """Every legal turn of the active player that begins with the steps ``begun`` (a turn
        being declared, or read off the table step by step); ``legal_moves`` is ``begun=()``.

        The turns are the paths of a tree: from a turn begun, ``next_steps`` lists the steps that
        may follow; a path is a whole turn once it has its step B (or once a step ended the game),
        and then every way to draw is tried. Each candidate is kept only if ``violations`` finds
        nothing.
        """
        if state.finished is not None:
            return
        player = state.players[state.active]
        seen: set[CheopsMove] = set()
        for with_laws in (False, True):
            for steps in _sequences(state, player, tuple(begun), with_laws):
                if _uses_kept_law(steps) != with_laws:
                    continue
                w = rules.resolve(state, Turn(player, steps), check=False)
                for draws in _draw_options(w, steps):
                    move = Turn(player, steps, draws)
                    if move not in seen and not rules.violations(state, move):
                        seen.add(move)
                        yield move

    def next_steps(self, state: CheopsState, begun: tuple[Step, ...] = ()) -> list[Step]:
        """The steps that may come next in the active player's turn after ``begun``: each one
        passes the step checks on the position the earlier steps left. (Whether the turn can
        then be finished -- a step B after a neighbour -- is judged on the whole turn.)"""
        if state.finished is not None:
            return []
        player = state.players[state.active]
        w = _partial(state, player, tuple(begun))
        if w is None or (w.ended is not None and not state.rules.end_after_turn):
            return []
        return [s for s in _proposals(w, tuple(begun), True) if _partial(state, player, (*begun, s)) is not None]

    # -- results ----------------------------------------------------------------------------------
    def score(self, state: CheopsState) -> Scoreboard:
        res = final_scoring(state)
        colours = state.colours
        categories = (CAT_CASH, *colours, CAT_JOKER)
        players = []
        for i, pl in enumerate(state.players):
            breakdown = ((CAT_CASH, res.cash[i]), *((c, res.colours[k][i]) for k, c in enumerate(colours)), (CAT_JOKER, res.joker[i]))
            players.append(PlayerScore(pl, res.totals[i], breakdown, tiebreak=(res.cash[i],) if state.rules.tiebreak_cash else ()))
        return Scoreboard(
            game=self.id,
            players=tuple(players),
            final=state.finished is not None,
            not_checked=unchecked(state, res),
            declared=declared(state),
            provisional_data=state.board.provisional or any(t.provisional for t in state.tables),
            categories=categories,
        )

    def outcome(self, state: CheopsState) -> Outcome | None:
        if state.finished is None:
            return None
        winners, by_tiebreak = winners_from(self.score(state))
        if len(winners) > 1:
            reason = (Message.t('cheops.engine.shared_victory_equal_totals_and') if state.rules.tiebreak_cash
                      else Message.t('cheops.engine.shared_victory_equal_totals_c19'))
        elif by_tiebreak:
            reason = Message.t('cheops.engine.won_on_the_tie_break')
        else:
            reason = Message.t('cheops.engine.richest_player_cash_plus_kept')
        return Outcome(state.finished, winners, reason, by_tiebreak and len(winners) == 1)

    # -- sensors ------------------------------------------------------------------------------------
    def visible_board(self, state: CheopsState) -> Board:
        return visible_board(state)

    # -- records ------------------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> CheopsMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: CheopsMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return setup_schema()

    def setup_deals(self) -> bool:
        return True  # the price tables and the pyramid's treasures: dealt from a seed unless given one by one

    def describe_move(self, move: CheopsMove) -> Message:
        return describe_move(move)

    def state_to_json(self, state: CheopsState) -> dict[str, Any]:
        return state_to_json(state)


# -- helpers -----------------------------------------------------------------------------------------

PASS_ROUND = Message.t('cheops.engine.every_player_passed_in_succession')


def end_of_turn_condition(state: CheopsState, passed: bool) -> tuple[Termination, Message] | None:
    """End condition 3 (rules/cheops.md 7, C3), judged after a whole turn.

    The rulebook's reading: a player who cannot place passes, and the game ends when every
    player has passed in succession -- so a player who can no longer place still has that pass
    turn to use laws 10 and 12 (E4). Variant ``end_on_first_pass``: the first pass ends it;
    variant ``end_when_blocked``: it ends right after the turn that leaves no player able to
    place (nor to buy a neighbour and then place), or that uses up the last family tile."""
    r = state.rules
    if passed and r.end_on_first_pass:
        return Termination.NO_LEGAL_PLACEMENT, rules._end_message(Termination.NO_LEGAL_PLACEMENT)
    if state.passes_in_row >= state.n:
        return Termination.BLOCKED, PASS_ROUND
    if r.end_when_blocked:
        if not any(state.hand_size) and not any(state.stack_size):
            return Termination.DECK_EXHAUSTED, rules._end_message(Termination.DECK_EXHAUSTED)
        if not can_anyone_place(state):
            return Termination.BLOCKED, rules._end_message(Termination.BLOCKED)
    return None


def can_anyone_place(state: CheopsState) -> bool:
    """Could some player still place a family tile on their next turn: normally, by law 11, or
    after buying a neighbour (step A: 20 piasters and a neighbour left, or a saved one) whose tile
    gives a new space its support? Unknown hands may hold any face, so they count as able
    whenever any face fits somewhere."""
    tile = state.tile
    memo: dict[tuple[int, bool], bool] = {}

    def fits(face: int, support: bool) -> bool:
        key = (face, support)
        if key not in memo:
            memo[key] = rules.fits_somewhere(tile, face, support=support)
        return memo[key]

    after_neighbour: list[list[int]] | None = None
    for p in range(state.n):
        if state.hand_size[p] <= 0:
            continue
        hand = state.hands[p]
        faces = rules.hand_faces(hand) if hand is not None else range(len(FACES))
        law11 = 11 in state.held[p] and not state.rules.law11_support
        if any(fits(f, True) or (law11 and fits(f, False)) for f in faces):
            return True
        if not could_buy_neighbour(state, p):
            continue
        if after_neighbour is None:
            after_neighbour = []
            for i in rules.neighbour_spaces(tile, state.rules.neighbours_may_touch):
                t2 = list(tile)
                t2[i] = NEIGHBOUR_TILE
                after_neighbour.append(t2)
        # law 11 needs no support, so a neighbour adds nothing to it: only normal placements count
        if any(rules.fits_somewhere(t2, f) for t2 in after_neighbour for f in faces):
            return True
    return False


def could_buy_neighbour(state: CheopsState, p: int) -> bool:
    """Can player ``p`` place a neighbour on their next turn (step A)? Money changes only on a
    player's own turn and step A comes first, so it is the cash now. (A law-10 sale during a pass
    could raise the 20 piasters for a later turn, but when nobody can place, the others' passes
    that follow complete the closing round first.)"""
    if state.rules.save_neighbour and state.saved_neighbours[p] > 0:
        return True
    return state.neighbours_left > 0 and state.cash[p] >= NEIGHBOUR_PRICE


def take_options(w: rules.Work, i: int) -> list[Take]:
    """Every way to resolve what lies on space ``i`` (checked later by the rules)."""
    code = w.content[i]
    if code == EMPTY:
        return [Take()]
    if is_treasure(code):
        return [Take(sell=True), Take(sell=False)]
    s = w.s
    numbers = [code - LAW_BASE] if code != LAW_HIDDEN else [n for n in LAW_NUMBERS if n not in w.revealed and n not in w.out_of_play]
    out = []
    for n in numbers:
        out.append(Take(law=n, discard=True))
        if n in (4, 5, 6, 7):
            out += [Take(law=n, table=c) for c in s.colours]
        elif n == 8:
            out += [Take(law=n, remove=r) for r in sorted(w.laws_in_play())]
            if not s.rules.law8_face_up_only:
                out += [Take(law=n, remove_space=SpaceId(SPACES[j])) for j in range(len(SPACES))
                        if j != i and w.tile[j] == NO_TILE and is_law(w.content[j])]
        else:
            out.append(Take(law=n))
    return out


def _partial(state: CheopsState, player: str, steps: tuple[Step, ...]) -> rules.Work | None:
    """The position after the steps of a turn begun, or None if a step breaks a rule."""
    try:
        return rules.resolve(state, Turn(player, steps), check=True, partial=True)
    except rules.TurnError:
        return None


def _uses_kept_law(steps: tuple[Step, ...]) -> bool:
    return any(isinstance(s, (UseLaw10, UseLaw12)) for s in steps)


def _sequences(state: CheopsState, player: str, steps: tuple[Step, ...], with_laws: bool) -> Iterator[tuple[Step, ...]]:
    """The step sequences of whole turns that begin with ``steps`` (depth first)."""
    w = _partial(state, player, steps)
    if w is None:
        return
    ended = w.ended is not None and not state.rules.end_after_turn
    # a whole turn: it has its step B -- or a step ended the game, and nothing may follow (C2)
    if steps and (ended or any(isinstance(s, (PlaceTile, UseLaw11, Pass)) for s in steps)):
        yield steps
    if ended:
        return
    for step in _proposals(w, steps, with_laws):
        yield from _sequences(state, player, steps + (step,), with_laws)


def _proposals(w: rules.Work, steps: tuple[Step, ...], with_laws: bool) -> Iterator[Step]:
    """Candidate next steps after ``steps`` (``w``: the position they left); the rules judge them."""
    s = w.s
    p = w.p
    yield from _b_steps(w, steps)
    if not steps:
        spaces = rules.neighbour_spaces(w.tile, s.rules.neighbours_may_touch)
        if w.neighbours_left > 0 and w.cash[p] >= NEIGHBOUR_PRICE:
            for i in spaces:
                for take in take_options(w, i):
                    yield BuyNeighbour(SpaceId(SPACES[i]), take)
            if s.rules.save_neighbour:
                yield BuyNeighbour(None, save=True)
        if s.rules.save_neighbour and w.saved[p] > 0:
            for i in spaces:
                for take in take_options(w, i):
                    yield BuyNeighbour(SpaceId(SPACES[i]), take, saved=True)
    if with_laws:
        for law in (10, 12):
            if law in w.held[p] and law not in w.acquired:  # a law used this turn has left the hand
                yield from _law_steps(w, law)


def _b_steps(w: rules.Work, steps: tuple[Step, ...] = ()) -> Iterator[Step]:
    """Step B: a tile from the hand, one by law 11, or a pass. With variant ``law11_extra`` a
    law-11 placement may come on top of the normal one (in either order)."""
    s = w.s
    placed = any(isinstance(x, PlaceTile) for x in steps)
    by_law11 = any(isinstance(x, UseLaw11) for x in steps)
    passed = any(isinstance(x, Pass) for x in steps)
    if passed or (placed and by_law11):
        return
    if (placed or by_law11) and not s.rules.law11_extra:
        return
    hand = w.hands[w.p]
    faces = rules.hand_faces(hand) if hand is not None else list(range(len(FACES))) if w.hand_size[w.p] > 0 else []
    if not placed:
        for f in faces:
            for i in rules.placeable_spaces(w.tile, f):
                for take in take_options(w, i):
                    yield PlaceTile(FACES[f], SpaceId(SPACES[i]), take)
    if not by_law11 and 11 in w.held[w.p] and 11 not in w.acquired:
        for f in faces:
            for i in rules.placeable_spaces(w.tile, f, support=s.rules.law11_support):
                for take in take_options(w, i):
                    yield UseLaw11(FACES[f], SpaceId(SPACES[i]), take)
    if not (placed or by_law11):
        yield Pass()


def _law_steps(w: rules.Work, law: int) -> Iterator[Step]:
    s = w.s
    kept = w.kept[w.p]
    if law == 10:
        for c, colour in enumerate(s.colours):
            if kept[c] > 0:
                yield UseLaw10(colour)
        return
    open_ = [j for j in range(len(SPACES)) if w.tile[j] == NO_TILE and (is_treasure(w.content[j]) or (s.rules.law12_laws and is_law(w.content[j])))]
    for a in range(len(open_)):
        for b in range(a + 1, len(open_)):
            yield UseLaw12(SPACES[open_[a]], SPACES[open_[b]])
    for c, colour in enumerate(s.colours):
        if kept[c] > 0:
            for j in open_:
                yield UseLaw12(f"{KEPT_PREFIX}{colour}", SPACES[j])


def _draw_options(w: rules.Work, steps: tuple[Step, ...]) -> list[tuple[Draw, ...]]:
    if not any(isinstance(s, (PlaceTile, UseLaw11)) for s in steps):
        return [()]
    need = HAND_SIZE - w.hand_size[w.p]
    out: list[tuple[Draw, ...]] = []
    for k in range(min(need, sum(w.stack_size)), -1, -1):
        for combo in product(range(3), repeat=k):
            sizes = list(w.stack_size)
            ok = True
            for st in combo:
                sizes[st] -= 1
                if sizes[st] < 0:
                    ok = False
                    break
            if ok:
                out.append(tuple(Draw(st) for st in combo))
    return out
