"""Small maps and drivers for the Zhang Yi tests (worked examples need exact positions)."""

from __future__ import annotations

from typing import Any, Iterable

from scorer.core.game import SetupOptions
from scorer.games.zhang_yi import GAME, DrawChit, DrawTalent, PlaceTalent
from scorer.games.zhang_yi.board import ZhangYiMap, map_from_json
from scorer.games.zhang_yi.data import STATES, TALENT_NAMES, GENERAL
from scorer.games.zhang_yi.state import ZhangYiState

DEFAULT_BONUS = {"bai_qi": 3, "wu_qi": 2, "yue_yi": 2, "sun_bin": 2, "lian_po": 2, "pang_juan": 1, "tian_dan": 1, "xiang_yan": 1}


def map_doc(
    areas: Iterable[tuple[str, bool, str | None, int]],
    borders: Iterable[tuple[str, str, str]],
    *,
    bonus: dict[str, int] | None = None,
    talent_states: dict[str, str] | None = None,
    counters: tuple[int, int] | None = None,
    fill: bool = True,
    sample: bool = False,
) -> dict[str, Any]:
    """A map document. States without an area get a 'home_<state>' area (strength 1) on their own,
    chained to each other but to nothing else, so they stay out of the way."""
    areas = list(areas)
    borders = list(borders)
    present = {st for _, _, st, _ in areas if st}
    if fill:
        homes = [f"home_{s}" for s in STATES if s not in present]
        for s in STATES:
            if s not in present:
                areas.append((f"home_{s}", False, s, 1))
        borders += [(a, b, "open") for a, b in zip(homes, homes[1:])]
    b = dict(DEFAULT_BONUS, **(bonus or {}))
    talents = []
    for t in TALENT_NAMES:
        row: dict[str, Any] = {"id": t.id, "kind": t.kind, "state": (talent_states or {}).get(t.id, t.default_state)}
        if t.kind == GENERAL:
            row["bonus"] = b[t.id]
        talents.append(row)
    return {
        "game": "zhang_yi",
        "id": "test",
        "data_version": 1,
        "complete": True,
        "sample": sample,
        "states": {s: {"zh": s, "counters_1_2": counters[0] if counters else None, "counters_3_4": counters[1] if counters else None} for s in STATES},
        "areas": [{"id": i, "city": c, "setup_state": st, "setup_strength": n} for i, c, st, n in areas],
        "borders": [{"a": x, "b": y, "type": t} for x, y, t in borders],
        "talents": talents,
    }


def make_map(*args: Any, **kw: Any) -> ZhangYiMap:
    return map_from_json(map_doc(*args, **kw))


def new_game(gmap: ZhangYiMap, players: tuple[str, ...] = ("red", "blue"), first: str | None = None,
             variants: Iterable[str] = (), chance: str = "declared", seed: int | None = None) -> ZhangYiState:
    opts = SetupOptions(players=players, board=gmap, variants=frozenset(variants), seed=seed,  # type: ignore[arg-type]
                        extra=(("chance", chance), ("first_player", first or players[0])))
    return GAME.setup(opts)


def play(state: ZhangYiState, *moves: Any) -> ZhangYiState:
    for m in moves:
        state = GAME.apply(state, m)
    return state


def talents(state: ZhangYiState, *draws: tuple[str, str]) -> ZhangYiState:
    """Declare this talent phase: (talent, area) per draw, drawers in order."""
    for talent, area in draws:
        p = state.players[state.actors[0]]
        state = play(state, DrawTalent(p, talent))
        if area:
            state = play(state, PlaceTalent(p, talent, area))
    return state


def chit(state: ZhangYiState, s: str) -> ZhangYiState:
    return play(state, DrawChit(state.players[state.actors[0]], s))


def strength(state: ZhangYiState, area: str) -> int:
    return state.strength[state.map.area_index[area]]


def owner(state: ZhangYiState, area: str) -> str | None:
    o = state.owner[state.map.area_index[area]]
    return STATES[o] if o >= 0 else None


def where(state: ZhangYiState, talent: str) -> str:
    from scorer.games.zhang_yi.data import TALENT_INDEX
    from scorer.games.zhang_yi.state import GRAVE, POOL

    loc = state.talent_loc[TALENT_INDEX[talent]]
    if loc >= 0:
        return state.map.areas[loc].id
    return {GRAVE: "graveyard", POOL: "pool"}.get(loc, str(loc))


def rules_of(state: ZhangYiState, move: Any) -> list[str]:
    return [v.rule for v in GAME.violations(state, move)]
