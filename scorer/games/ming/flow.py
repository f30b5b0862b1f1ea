"""Running a Ming table forward after a move (``advance``): the next player, the next phase,
automatic passes, the majorities of the scoring phase, forced returns, city and cloister points,
the end of the game. It stops whenever the rules wait for a person."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from scorer.core.types import Message, player_label
from scorer.games.ming import scoring
from scorer.games.ming.effects import _add2, _add_points, _gain_tiles, _return_one, _set
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
from scorer.games.ming.state import (
    CAT_BONUS,
    CAT_CITY,
    CAT_CLOISTERS,
    CAT_SETS5,
    CAT_SETS6,
    CAT_TILES,
    EMPTY,
    FAMILY_PER_ROUND,
    HAND_LIMIT,
    PH_CARDS,
    PH_MOVE,
    PH_NEUTRAL,
    PH_OVER,
    PH_ROUND_END,
    PH_SCORING,
    PH_SPACES,
    ROUNDS,
    SCORING_ROUNDS,
    ST_COMMIT,
    ST_NEUTRAL,
    ST_NEUTRAL_FIRST,
    ST_SEND_BACK,
    Effect,
    MingState,
    Scoring,
    evolve,
)


# -- running the table forward ----------------------------------------------------------------------

def advance(state: MingState, move: MingMove) -> MingState:
    if isinstance(move, PlacePrince):
        if all(d != EMPTY for d in state.princes):
            return _setup_done(state)
        return evolve(state, active=(state.active + 1) % state.n)
    if isinstance(move, PlaceNeutral):
        if state.queue:
            return evolve(state, active=state.queue[0])
        return _enter_round(state, 1) if state.round == 0 else _enter_spaces(state)
    if isinstance(move, PlaceFamily):
        nxt = _next(state, state.active + 1, lambda q: state.in_hand[q] > 0)
        return evolve(state, active=nxt) if nxt is not None else _enter_cards(state)
    if isinstance(move, (TakeCard, TakeDragon)):
        nxt = _next(state, state.active + 1, lambda q: can_take_card(state, q))
        return evolve(state, active=nxt) if nxt is not None else _enter_move(state)
    if isinstance(move, (MovePrince, Stay, Pass)):
        return _next_mover(state, state.active + 1)
    if isinstance(move, (ReturnCards, SendBack)):
        return _continue_scoring(state)
    if isinstance(move, ChooseStartPlayer):
        return _enter_round(state, state.round + 1)
    raise TypeError(f"not a Ming move: {move!r}")


def _next(state: MingState, first: int, ok) -> int | None:
    """The first player from ``first`` on (clockwise, wrapping) for whom ``ok`` holds."""
    for k in range(state.n):
        q = (first + k) % state.n
        if ok(q):
            return q
    return None


def _setup_done(state: MingState) -> MingState:
    state = _effect_msg(state, "setup", Message.t("ming.engine.setup_done"))
    if state.two_player and state.rules.neutral_per_player > 0:
        return _enter_neutral(state)
    return _enter_round(state, 1)


def _neutral_queue(state: MingState) -> tuple[int, ...]:
    per = state.rules.neutral_per_player
    order = [(state.start + k) % state.n for k in range(state.n)]
    if state.rules.neutral_in_blocks:
        return tuple(p for p in order for _ in range(per))
    return tuple(p for _ in range(per) for p in order)


def _enter_neutral(state: MingState) -> MingState:
    queue = _neutral_queue(state)
    return evolve(state, phase=PH_NEUTRAL, queue=queue, active=queue[0])


def _enter_round(state: MingState, r: int) -> MingState:
    state = evolve(state, round=r)
    state = _effect_msg(state, "round_start", Message.t("ming.engine.round_start", round=r, who=player_label(state.players[state.start])))
    if state.two_player and r in (3, 5) and state.rules.neutral_per_player > 0:
        return _enter_neutral(state)
    return _enter_spaces(state)


def _enter_spaces(state: MingState) -> MingState:
    take = tuple(min(FAMILY_PER_ROUND, s) for s in state.supply)
    state = evolve(
        state,
        phase=PH_SPACES,
        supply=tuple(s - t for s, t in zip(state.supply, take)),
        in_hand=tuple(h + t for h, t in zip(state.in_hand, take)),
        queue=(),
    )
    nxt = _next(state, state.start, lambda q: state.in_hand[q] > 0)
    return evolve(state, active=nxt) if nxt is not None else _enter_cards(state)


def can_take_card(state: MingState, p: int) -> bool:
    """Phase 2: must p take a card now? (fewer than 5 cards and a way to pay; ambiguity A4)."""
    if state.hands[p].total >= HAND_LIMIT:
        return False
    if state.on_spaces(p) > 0:
        return True  # the display card next to that space (the display is always refilled)
    if state.rules.dragon_any_member and state.dragon_supply()[1] > 0:
        return any(sum(row) > 0 for row in state.spaces)
    return False


def _enter_cards(state: MingState) -> MingState:
    state = evolve(state, phase=PH_CARDS)
    nxt = _next(state, state.start, lambda q: can_take_card(state, q))
    return evolve(state, active=nxt) if nxt is not None else _enter_move(state)


def _enter_move(state: MingState) -> MingState:
    state = evolve(state, phase=PH_MOVE, passed=(False,) * state.n)
    return _next_mover(state, state.start)


def _next_mover(state: MingState, first: int) -> MingState:
    """Strict rotation skipping passed players (A19); a player without cards passes by force."""
    passed = list(state.passed)
    for k in range(state.n):
        q = (first + k) % state.n
        if passed[q]:
            continue
        if state.hands[q].total == 0:
            passed[q] = True
            state = _effect_msg(state, "auto_pass", Message.t("ming.engine.auto_pass", who=player_label(state.players[q])))
            continue
        return evolve(state, passed=tuple(passed), active=q)
    state = evolve(state, passed=tuple(passed))
    if state.round in SCORING_ROUNDS:
        return _enter_scoring(state, 0)
    return _round_end(state)


def _round_end(state: MingState) -> MingState:
    r = state.round
    if state.n == 4 and r in (4, 5):
        chooser = start_player_chooser(state)
        state = _effect_msg(state, "start_choice", Message.t("ming.engine.chooses_start_player", who=player_label(state.players[chooser]),
                                                             round=r + 1))
        return evolve(state, phase=PH_ROUND_END, chooser=chooser, active=chooser)
    state = evolve(state, start=(state.start + 1) % state.n)
    return _enter_round(state, r + 1)


def start_player_chooser(state: MingState) -> int:
    """4 players: second-fewest points after round 4, fewest after round 5; ties to the most monks,
    then to the first of them clockwise from the current start player (A11)."""
    totals = [sum(state.points[i]) for i in range(state.n)]
    position = 1 if state.round == 4 else 0
    value = sorted(totals)[position]
    tied = [i for i in range(state.n) if totals[i] == value]
    if len(tied) > 1:
        most = max(state.monks(i) for i in tied)
        tied = [i for i in tied if state.monks(i) == most]
    order = [(state.start + k) % state.n for k in range(state.n)]
    return min(tied, key=order.index)


def _effect_msg(state: MingState, kind: str, message: Message, points: tuple[int, ...] = ()) -> MingState:
    return evolve(state, effects=state.effects + (Effect(kind, message, points),))


# -- phase 4 --------------------------------------------------------------------------------------

def _check_sets(state: MingState, p: int) -> MingState:
    """Forced and immediate (A14): every complete set of 6 colours goes back and scores."""
    k = scoring.six_sets(state.tiles[p])
    if k <= 0:
        return state
    value = scoring.SET6_POINTS[state.round] * k
    tiles = tuple(t - k for t in state.tiles[p])
    state = evolve(state, tiles=_set(state.tiles, p, tiles), tile_supply=tuple(s + k for s in state.tile_supply))
    state = _add_points(state, p, CAT_SETS6, value)
    return _effect_msg(state, "set6", Message.t("ming.engine.set6", who=player_label(state.players[p]), k=k, value=value))


def tile_order(state: MingState, counts: Sequence[int]) -> list[int]:
    """Who takes province tiles first when a district's members move into the city (A13).

    Recommended: the player with the most members in the district first, then the second (the
    seed's 4.1 moves them in that order); players with equal counts clockwise from the start
    player. Variant ``tiles_in_turn_order``: clockwise from the start player. It matters only when
    the colour's supply runs short."""
    order = [(state.start + k) % state.n for k in range(state.n)]
    if state.rules.tiles_in_turn_order:
        return order
    return sorted(order, key=lambda p: -counts[p])


def _majorities(state: MingState, prov: int) -> MingState:
    board = state.board
    for d in board.province_districts[prov]:
        counts = state.open[d]
        moved = scoring.district_majority(counts)
        if not any(moved):
            continue
        order = tile_order(state, counts)
        opened, city = state.open, state.city
        for o, k in enumerate(moved):
            if k:
                opened = _add2(opened, d, o, -k)
                city = _add2(city, d, o, k)
        state = evolve(state, open=opened, city=city)
        parts = tuple(Message.t("ming.engine.majority.part", who=_owner(state, o), k=k) for o, k in enumerate(moved) if k)
        state = _effect_msg(state, "majority", Message.t("ming.engine.majority", district=board.districts[d], parts=parts),
                            tuple(moved[:state.n]))
        for p in order:
            short = 0
            for _ in range(moved[p]):  # one tile per member moved, a completed set at once (A13, A14)
                short += state.tile_supply[prov] == 0
                state = _gain_tiles(state, p, prov, 1)
                state = _check_sets(state, p)
            if short:
                short_of = Message.t("ming.engine.tiles_short", who=player_label(state.players[p]), short=short,
                                     colour=board.provinces[prov].name)
                state = _effect_msg(state, "tiles_short", short_of)
    return state


def _owner(state: MingState, o: int) -> Message:
    return player_label(NEUTRAL if o == state.neutral else state.players[o])


def _enter_scoring(state: MingState, prov: int) -> MingState:
    name = state.board.provinces[prov].name
    state = evolve(state, phase=PH_SCORING)
    state = _effect_msg(state, "scoring", Message.t("ming.engine.scoring", province=name))
    state = _majorities(state, prov)
    n = state.n
    stage = ST_NEUTRAL_FIRST if state.two_player and state.rules.neutral_before_returns else ST_COMMIT
    state = evolve(state, scoring=Scoring(prov, stage, (), (-1,) * n, (0,) * (n + 1)))
    if stage == ST_COMMIT:
        state = _open_commits(state)
    return _continue_scoring(state)


def _open_commits(state: MingState) -> MingState:
    sc = state.scoring
    assert sc is not None
    city = state.city_in_province(sc.province)
    committers = tuple(p for p in range(state.n) if city[p] > 0)
    return evolve(state, scoring=replace(sc, stage=ST_COMMIT, committers=committers, commits=(-1,) * state.n))


def _areas(state: MingState, prov: int, owner: int) -> list[int]:
    return [d for d in state.board.province_districts[prov] if state.city[d][owner] > 0]


def _continue_scoring(state: MingState) -> MingState:
    while True:
        sc = state.scoring
        assert sc is not None
        prov = sc.province
        if sc.stage == ST_NEUTRAL_FIRST or sc.stage == ST_NEUTRAL:
            state, waiting = _neutral_step(state)
            if waiting:
                return state
            if sc.stage == ST_NEUTRAL_FIRST:
                state = _open_commits(state)
                continue
            return _score_city(state)
        if sc.stage == ST_COMMIT:
            if any(sc.commits[p] < 0 for p in sc.committers):
                return state
            city = state.city_in_province(prov)
            to_send = tuple(min(sc.commits[p], city[p]) if p in sc.committers else 0 for p in range(state.n)) + (0,)
            if sc.committers:
                reveals = tuple(Message.t("ming.engine.player_number", who=player_label(state.players[p]), n=sc.commits[p])
                                for p in sc.committers)
                state = _effect_msg(state, "reveal", Message.t("ming.engine.reveal", reveals=reveals))
            state = evolve(state, scoring=replace(sc, stage=ST_SEND_BACK, to_send=to_send, chooser=EMPTY))
            continue
        if sc.stage == ST_SEND_BACK:
            order = [(state.start + k) % state.n for k in range(state.n)]
            waiting_for = None
            for p in order:
                k = state.scoring.to_send[p]  # type: ignore[union-attr]
                if k <= 0:
                    continue
                areas = _areas(state, prov, p)
                have = sum(state.city[d][p] for d in areas)
                if k >= have or len(areas) == 1:
                    state = _auto_return(state, prov, p, k)
                    continue
                waiting_for = p
                break
            if waiting_for is not None:
                return evolve(state, scoring=replace(state.scoring, chooser=waiting_for), active=waiting_for)  # type: ignore[arg-type]
            if state.two_player and not state.rules.neutral_before_returns:
                state = evolve(state, scoring=replace(state.scoring, stage=ST_NEUTRAL, chooser=EMPTY))  # type: ignore[arg-type]
                continue
            return _score_city(state)
        raise AssertionError(f"unknown scoring stage {sc.stage}")


def _auto_return(state: MingState, prov: int, owner: int, k: int) -> MingState:
    """Send k city pieces back where there is no choice (all of them, or all in one area)."""
    sent = 0
    for d in state.board.province_districts[prov]:
        while sent < k and state.city[d][owner] > 0:
            state = _return_one(state, d, owner)
            sent += 1
    sc = state.scoring
    assert sc is not None
    state = _effect_msg(state, "returned", Message.t("ming.engine.returned", who=_owner(state, owner), n=sent))
    return evolve(state, scoring=replace(sc, to_send=_set(sc.to_send, owner, 0)))


def _neutral_step(state: MingState) -> tuple[MingState, bool]:
    """2 players: trim neutral to the smallest sole majority, or send all of it back (A8)."""
    sc = state.scoring
    assert sc is not None
    prov = sc.province
    city = state.city_in_province(prov)
    neutral = city[state.neutral]
    keep = scoring.neutral_keep(neutral, city[: state.n])
    excess = neutral - keep
    if excess <= 0:
        return state, False
    areas = _areas(state, prov, state.neutral)
    if keep == 0 or len(areas) == 1:
        return _auto_return(state, prov, state.neutral, excess), False
    state = evolve(state, scoring=replace(sc, to_send=_set(sc.to_send, state.neutral, excess), chooser=state.start), active=state.start)
    return state, True


def _score_city(state: MingState) -> MingState:
    board = state.board
    sc = state.scoring
    assert sc is not None
    prov = sc.province
    n = state.n
    districts = board.province_districts[prov]
    city = state.city_in_province(prov)
    per = scoring.CITY_POINTS[state.round]
    for p in range(n):
        state = _add_points(state, p, CAT_CITY, per * city[p])
    real = city[:n]
    neutral_sole = state.two_player and city[state.neutral] > max(real, default=0)
    bonus = [0] * n
    if not neutral_sole or state.rules.bonus_ignores_neutral:
        if state.rules.bonus_tiebreak_fullest_area:
            fullest = max(sum(state.city[d]) for d in districts)
            areas = [d for d in districts if sum(state.city[d]) == fullest]
        else:
            areas = list(districts)
        key = [max(state.city[d][p] for d in areas) for p in range(n)]
        bonus = scoring.city_bonus(real, key)
        for p in range(n):
            state = _add_points(state, p, CAT_BONUS, bonus[p])
    name = board.provinces[prov].name
    pts = tuple(per * city[p] + bonus[p] for p in range(n))
    points = tuple(Message.t("ming.engine.player_number", who=player_label(state.players[p]), n=pts[p]) for p in range(n))
    state = _effect_msg(state, "city_points", Message.t("ming.engine.city_points", province=name, points=points), pts)
    # everybody left in the city goes to the box
    boxed = tuple(b + c for b, c in zip(state.boxed, city))
    cleared = state.city
    for d in districts:
        cleared = _set(cleared, d, (0,) * (n + 1))
    state = evolve(state, city=cleared, boxed=boxed)
    if prov + 1 < len(board.provinces):
        return _enter_scoring(evolve(state, scoring=None), prov + 1)
    return _finish_scoring(evolve(state, scoring=None))


def _finish_scoring(state: MingState) -> MingState:
    pts = [0] * state.n
    for o in state.cloister:
        if 0 <= o < state.n:
            pts[o] += scoring.CLOISTER_POINTS
    for p, k in enumerate(pts):
        state = _add_points(state, p, CAT_CLOISTERS, k)
    state = _effect_msg(state, "cloisters", Message.t("ming.engine.cloisters", points=scoring.CLOISTER_POINTS), tuple(pts))
    if state.round < ROUNDS:
        return _round_end(state)
    return _finish(state)


def _finish(state: MingState) -> MingState:
    figures = final_scoring(state)
    final = []
    for p in range(state.n):
        state = _add_points(state, p, CAT_SETS5, figures[CAT_SETS5][p])
        state = _add_points(state, p, CAT_TILES, figures[CAT_TILES][p])
        final.append(figures[CAT_SETS5][p] + figures[CAT_TILES][p])
    state = _effect_msg(state, "final_tiles", Message.t("ming.engine.final_tiles"), tuple(final))
    state = _effect_msg(state, "game_over", Message.t("ming.engine.game_over"))
    return evolve(state, phase=PH_OVER, finished=True, active=EMPTY)


def final_scoring(state: MingState) -> dict[str, list[int]]:
    """The end-of-game tile scoring (after the round-6 scoring): sets of 5 colours and single tiles,
    per player, from the tiles held. ``_finish`` books exactly these figures."""
    sets, tiles_ = [], []
    for p in range(state.n):
        _, set_pts, tile_pts = scoring.final_tile_points(state.tiles[p])
        sets.append(set_pts)
        tiles_.append(tile_pts)
    return {CAT_SETS5: sets, CAT_TILES: tiles_}


__all__ = ["advance", "can_take_card", "final_scoring", "start_player_chooser", "tile_order"]
