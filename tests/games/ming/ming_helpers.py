"""Builders for Ming positions used by the tests (imported by module name: unique on purpose)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from scorer.core.game import SetupOptions
from scorer.games.ming import GAME
from scorer.games.ming.moves import Pass, ReturnCards
from scorer.games.ming.state import CATEGORIES, PH_MOVE, Hand, MingState

PLAYERS4 = ("yellow", "green", "blue", "red")


def hand_of(state: MingState, cards: Iterable[str]) -> Hand:
    lb = [0] * len(state.board.kinds)
    n = 0
    for c in cards:
        lb[state.board.kind_index(c)] += 1  # type: ignore[index]
        n += 1
    return Hand(n, tuple(lb))


def position(
    players: tuple[str, ...] = PLAYERS4,
    *,
    phase: str = PH_MOVE,
    round: int = 1,
    start: str | None = None,
    active: str | None = None,
    open: Mapping[str, Mapping[str, int]] | None = None,
    cloister: Mapping[str, str] | None = None,
    spaces: Mapping[str, Mapping[str, int]] | None = None,
    princes: Mapping[str, str] | None = None,
    hands: Mapping[str, Iterable[str]] | None = None,
    tiles: Mapping[str, Mapping[str, int]] | None = None,
    points: Mapping[str, int] | None = None,
    passed: Iterable[str] = (),
    variants: tuple[str, ...] = (),
    **extra,
) -> MingState:
    """A mid-game position. Owners are player colours or ``"neutral"``; tiles are keyed by
    province id; ``points`` puts a player's earlier points into the ``sets6`` category."""
    setup = {"players": list(players), "variants": list(variants), **extra}
    if start:
        setup["start_player"] = start
    state = GAME.setup(SetupOptions.from_json(setup))
    board = state.board
    names = list(players) + ["neutral"]
    n = len(players)

    def owner(name: str) -> int:
        return names.index(name)

    open_ = [list(r) for r in state.open]
    for d, counts in (open or {}).items():
        for who, k in counts.items():
            open_[board.district_index[d]][owner(who)] += k
    cl = list(state.cloister)
    for d, who in (cloister or {}).items():
        cl[board.district_index[d]] = owner(who)
    sp = [list(r) for r in state.spaces]
    for prov, counts in (spaces or {}).items():
        for who, k in counts.items():
            sp[board.province_index[prov]][owner(who)] += k
    pr = list(state.princes)
    for who, d in (princes or {}).items():
        pr[owner(who)] = board.district_index[d]
    hs = list(state.hands)
    for who, cards in (hands or {}).items():
        hs[owner(who)] = hand_of(state, cards)
    ts = [list(r) for r in state.tiles]
    for who, counts in (tiles or {}).items():
        for prov, k in counts.items():
            ts[owner(who)][board.province_index[prov]] += k
    pts = [list(r) for r in state.points]
    for who, k in (points or {}).items():
        pts[owner(who)][CATEGORIES.index("sets6")] += k
    st = start or players[0]
    act = active or st
    return replace(
        state,
        phase=phase,
        round=round,
        start=players.index(st),
        active=players.index(act),
        supply=tuple(max(0, 30 - 5 * round) for _ in players),
        open=tuple(tuple(r) for r in open_),
        cloister=tuple(cl),
        spaces=tuple(tuple(r) for r in sp),
        princes=tuple(pr),
        hands=tuple(hs),
        tiles=tuple(tuple(r) for r in ts),
        tile_supply=tuple(18 - sum(ts[p][i] for p in range(n)) for i in range(len(board.provinces))),
        points=tuple(tuple(r) for r in pts),
        passed=tuple(p in passed for p in players),
    )


def score_now(state: MingState) -> MingState:
    """End phase 3 of the state's round: everybody but the active player has passed, the active
    player (given one card) passes too, and the scoring phase starts."""
    p = state.active
    hands = list(state.hands)
    if hands[p].total == 0:
        hands[p] = hand_of(state, ["dragon"])
    others = tuple(i != p for i in range(state.n))
    state = replace(state, phase=PH_MOVE, passed=others, hands=tuple(hands))
    return GAME.apply(state, Pass(state.players[p]))


def commit_all(state: MingState, totals: Mapping[str, int] | None = None) -> MingState:
    """Everybody awaited puts down return cards adding up to ``totals[player]`` (default 0)."""
    info = GAME.turn(state)
    assert info.awaiting == "return_cards", info
    for player in info.active:
        state = GAME.apply(state, ReturnCards(player, total=(totals or {}).get(player, 0)))
    return state


def category(state: MingState, player: str, name: str) -> int:
    return state.points[state.players.index(player)][CATEGORIES.index(name)]


def city(state: MingState, district: str, who: str) -> int:
    names = list(state.players) + ["neutral"]
    return state.city[state.board.district_index[district]][names.index(who)]


def opened(state: MingState, district: str, who: str) -> int:
    names = list(state.players) + ["neutral"]
    return state.open[state.board.district_index[district]][names.index(who)]


def tiles(state: MingState, player: str, province: str) -> int:
    return state.tiles[state.players.index(player)][state.board.province_index[province]]
