"""The Ming rules: ``scorer.core.Game`` for Ming Dynasty / Ming-Dynastie (rules/ming.md), less the
reading of sensed boards (``explain``, added in game.py).

``apply_unchecked`` first makes the move's own change (``effects.effect``), then runs the table
forward by itself (``flow.advance``): the next player, the next phase, automatic passes, the
majorities of the scoring phase, forced returns, city and cloister points, the end of the game.
It stops whenever the rules wait for a person: a move, secret return cards, a choice of pieces, a
start player. The set-up is in setup.py, what the sensors see in visible.py, descriptions and the
state as JSON in reporting.py.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Any, Iterator, Mapping

from scorer.core.game import Game, SetupOptions, TurnInfo
from scorer.core.results import Outcome, PlayerScore, Scoreboard, Termination, winners_from
from scorer.core.types import Board, Message, player_label
from scorer.games.ming import moves as mv
from scorer.games.ming import rules, scoring
from scorer.games.ming.effects import effect
from scorer.games.ming.flow import advance, can_take_card, final_scoring, start_player_chooser
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
from scorer.games.ming.reporting import describe, state_json, unchecked
from scorer.games.ming.setup import SETUP_SCHEMA, initial_state
from scorer.games.ming.state import (
    CATEGORIES,
    MAX_DEPLOY,
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
    MingState,
    evolve,
)
from scorer.games.ming.visible import visible_board


class MingEngine(Game[MingState, MingMove]):
    """The rules of Ming; ``explain`` (reading sensed boards) is added by ``game.MingGame``."""

    id = "ming"
    name = Message.t('ming.engine.ming_dynasty_ming_dynastie')
    min_players = 2
    max_players = 4

    # -- set-up -----------------------------------------------------------------------------
    def setup(self, options: SetupOptions) -> MingState:
        return initial_state(self, options)

    def turn(self, state: MingState) -> TurnInfo:
        phase, rnd = state.phase, state.round
        if state.finished:
            return TurnInfo((), phase=PH_OVER, round=rnd, awaiting="none")
        if phase == PH_SCORING and state.scoring is not None:
            sc = state.scoring
            prov = state.board.provinces[sc.province]
            if sc.stage == ST_COMMIT:
                waiting = tuple(state.players[p] for p in sc.committers if sc.commits[p] < 0)
                return TurnInfo(waiting, phase=phase, round=rnd, awaiting="return_cards", prompt=Message.t('ming.engine.scoring_everybody_with_family_members', prov=prov.name))
            who = state.players[sc.chooser]
            return TurnInfo((who,), phase=phase, round=rnd, awaiting="send_back", prompt=Message.t(
                "ming.engine.scoring_chooses_send_back", province=prov.name, who=player_label(who)))
        if phase == PH_ROUND_END:
            who = state.players[state.chooser]
            return TurnInfo((who,), phase=phase, round=rnd, awaiting="start_player", prompt=Message.t(
                "ming.engine.chooses_start_player", who=player_label(who), round=rnd + 1))
        awaiting = "card" if phase == PH_CARDS else "move"
        return TurnInfo((state.players[state.active],), phase=phase, round=rnd, awaiting=awaiting)

    # -- legality and effects ---------------------------------------------------------------
    def violations(self, state: MingState, move: MingMove) -> tuple:
        return rules.violations(state, move)

    def apply_unchecked(self, state: MingState, move: MingMove) -> MingState:
        return advance(effect(evolve(state, effects=()), move), move)

    # -- enumerating moves ------------------------------------------------------------------
    def legal_moves(self, state: MingState) -> Iterator[MingMove]:
        """Every legal move of the player(s) to act, in every form a record may give it: cards,
        refills and return cards declared or not (``ReturnCards``, ``SendBack`` and ``TakeDragon``
        normalise themselves, so each move has one value)."""
        if state.phase == PH_MOVE and not state.finished:
            yield from _legal_prince_turns(state)
            return
        for move in _candidates(state):
            if not rules.violations(state, move):
                yield move

    # -- results -----------------------------------------------------------------------------
    def score(self, state: MingState) -> Scoreboard:
        players = []
        for i, pl in enumerate(state.players):
            total = sum(state.points[i])
            players.append(PlayerScore(
                player=pl,
                total=total,
                breakdown=tuple(zip(CATEGORIES, state.points[i])),
                tiebreak=(state.monks(i),) if state.rules.tiebreak_monks else (),
                laps=total // state.board.score_track,
            ))
        declared = []
        if state.declared_returns:
            declared.append(f"city, city_bonus: rest on {state.declared_returns} secret return-card declaration(s) (which family members stayed in the cities)")
        if state.declared_choices:
            declared.append(f"start player of rounds 5-6: {state.declared_choices} declared choice(s)")
        return Scoreboard(
            game=self.id,
            players=tuple(players),
            final=state.finished,
            not_checked=unchecked(state),
            declared=tuple(declared),
            provisional_data=state.board.provisional or state.rules.return_values_provisional,
            categories=CATEGORIES,
        )

    def outcome(self, state: MingState) -> Outcome | None:
        if not state.finished:
            return None
        winners, by_tiebreak = winners_from(self.score(state))
        if len(winners) > 1:
            reason = Message.t('ming.engine.shared_victory_equal_points_the')
        elif by_tiebreak:
            reason = Message.t('ming.engine.won_on_the_tie_break')
        else:
            reason = Message.t('ming.engine.most_points_after_the_round')
        return Outcome(Termination.ROUNDS_COMPLETE, winners, reason, by_tiebreak and len(winners) == 1)

    # -- sensors -------------------------------------------------------------------------------
    def visible_board(self, state: MingState) -> Board:
        return visible_board(state)

    # -- records ---------------------------------------------------------------------------------
    def move_from_json(self, data: Mapping[str, Any]) -> MingMove:
        return mv.move_from_json(data)

    def move_to_json(self, move: MingMove) -> dict[str, Any]:
        return mv.move_to_json(move)

    def move_schema(self) -> Mapping[str, Any]:
        return mv.MOVE_SCHEMA

    def setup_schema(self) -> Mapping[str, Any]:
        return SETUP_SCHEMA

    def describe_move(self, move: MingMove) -> Message:
        return describe(move)

    def state_to_json(self, state: MingState) -> dict[str, Any]:
        return state_json(state)


# -- candidate moves (legal_moves filters them) ----------------------------------------------------

def _candidates(state: MingState) -> Iterator[MingMove]:
    if state.finished:
        return
    board = state.board
    phase = state.phase
    if phase == PH_SCORING and state.scoring is not None:
        sc = state.scoring
        if sc.stage == ST_COMMIT:
            for p in sc.committers:
                if sc.commits[p] >= 0:
                    continue
                seen = set()
                for k in range(1, len(state.rules.return_values) + 1):
                    for combo in combinations(state.rules.return_values, k):
                        c = tuple(sorted(combo))
                        if c not in seen:
                            seen.add(c)
                            yield ReturnCards(state.players[p], c)
                for total in sorted(scoring.achievable_totals(state.rules.return_values)):  # declared as a total
                    yield ReturnCards(state.players[p], total=total)
            return
        owner = state.neutral if sc.stage in (ST_NEUTRAL, ST_NEUTRAL_FIRST) else sc.chooser
        pieces = [board.districts[d] for d in board.province_districts[sc.province] for _ in range(state.city[d][owner])]
        player = state.players[sc.chooser]
        for combo in sorted(set(combinations(pieces, sc.to_send[owner]))):
            yield SendBack(player, combo, NEUTRAL if owner == state.neutral else None)
        return
    if phase == PH_ROUND_END:
        for q in state.players:
            yield ChooseStartPlayer(state.players[state.chooser], q)
        return
    player = state.players[state.active]
    p = state.active
    if phase == PH_PRINCES:
        for d in board.districts:
            yield PlacePrince(player, d)
    elif phase == PH_NEUTRAL:
        for d in board.districts:
            yield PlaceNeutral(player, d)
    elif phase == PH_SPACES:
        for prov in board.provinces:
            yield PlaceFamily(player, prov.id)
    elif phase == PH_CARDS:
        refills: list[str | None] = [None, *board.symbols]
        for i, prov in enumerate(board.provinces):
            # the card taken and the refill, each declared or not (a known display card need not be named)
            shown = [board.symbols[state.display[i]], None] if state.display[i] != UNKNOWN else [None, *board.symbols]
            for symbol in shown:
                for r in refills:
                    yield TakeCard(player, prov.id, symbol, r)
            owners = [None] + ([q for q in state.players if q != player] if state.rules.dragon_any_member else [])
            for o in owners:
                yield TakeDragon(player, prov.id, o)
    # phase 3 (move and deploy): _legal_prince_turns


def _legal_prince_turns(state: MingState) -> Iterator[MingMove]:
    """Phase 3: like ``_candidates`` then ``violations``, but a move or stay that is illegal
    without deploying is not tried again with each deployment (the deployment is checked last)."""
    p = state.active
    player = state.players[p]
    if not rules.violations(state, Pass(player)):
        yield Pass(player)
    turns: list[MovePrince | Stay] = [Stay(player, card) for card in _stay_cards(state, p)]
    for base in turns:
        if rules.violations(state, base):
            continue
        for deploy, cloister in _deploy_options():
            move = replace(base, deploy=deploy, cloister=cloister)
            if not deploy and not cloister or not rules.violations(state, move):
                yield move
    for path in _paths(state, p):
        for cards in _payments(state, p, path):
            base = MovePrince(player, path, cards)
            if rules.violations(state, base):
                continue
            for deploy, cloister in _deploy_options():
                move = replace(base, deploy=deploy, cloister=cloister)
                if not deploy and not cloister or not rules.violations(state, move):
                    yield move


def _deploy_options() -> list[tuple[int, bool]]:
    return [(0, False)] + [(k, c) for k in range(1, MAX_DEPLOY + 1) for c in (False, True)]


def _stay_cards(state: MingState, p: int) -> list[str | None]:
    """The card discarded: any the hand may hold (declared), or undeclared."""
    hand = state.hands[p]
    if not hand.exact:
        return [None, *state.board.kinds]
    return [state.board.kinds[k] for k, c in enumerate(hand.lb) if c > 0] + [None]


def _paths(state: MingState, p: int) -> Iterator[tuple[str, ...]]:
    board = state.board
    limit = state.hands[p].total
    start = state.princes[p]

    def walk(at: int, path: list[int]) -> Iterator[tuple[str, ...]]:
        if path:
            yield tuple(board.districts[d] for d in path)
        if len(path) >= limit:
            return
        for nb in board.neighbours[at]:
            path.append(nb)
            yield from walk(nb, path)
            path.pop()

    yield from walk(start, [])


def _payments(state: MingState, p: int, path: tuple[str, ...]) -> Iterator[tuple[str, ...] | None]:
    """Undeclared, and every declared payment the hand may hold: a card of a kind the hand surely
    holds, else one from its undeclared part (a dragon only if that part may hold one)."""
    board = state.board
    hand = state.hands[p]
    if not hand.exact:
        yield None
    steps = [board.district_index[d] for d in path]
    prev = [state.princes[p]] + steps[:-1]
    options = [sorted(board.border_symbols[(a, b)]) + [board.dragon_kind] for a, b in zip(prev, steps)]
    have = list(hand.lb)
    dragon = board.dragon_kind

    def rec(i: int, chosen: list[int], free: int) -> Iterator[tuple[str, ...]]:
        if i == len(options):
            yield tuple(board.kinds[k] for k in chosen)
            return
        for k in options[i]:
            chosen.append(k)
            if have[k] > 0:
                have[k] -= 1
                yield from rec(i + 1, chosen, free)
                have[k] += 1
            elif free > 0 and (k != dragon or hand.may_dragon):
                yield from rec(i + 1, chosen, free - 1)
            chosen.pop()

    yield from rec(0, [], hand.unknown)
    if hand.exact:
        yield None


# final_scoring, visible_board, effect, advance, can_take_card and start_player_chooser live in
# flow.py, visible.py and effects.py; they stay importable from here.
__all__ = ["MingEngine", "final_scoring", "visible_board", "effect", "advance", "can_take_card", "start_player_chooser"]
