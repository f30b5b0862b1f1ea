"""What the rules of Zhang Yi reckon along the way, as small pure functions of the state: border
attrition, recruits due, the notable that repels an invasion, the assassin's targets, retreat
options and who chooses, hegemony, lone talents; and two ways of noting on the state (an effect
shown to the players, a declared input counted). ``flow`` strings them into the turn sequence."""

from __future__ import annotations

from scorer.core.types import Message
from scorer.games.zhang_yi.counters import max_addable
from scorer.games.zhang_yi.data import JING_KE
from scorer.games.zhang_yi.state import (
    GRAVE,
    NEUTRAL,
    NOTABLE_INDICES,
    Effect,
    ZhangYiState,
    evolve,
)


def fx(st: ZhangYiState, kind: str, message: Message) -> ZhangYiState:
    return evolve(st, effects=st.effects + (Effect(kind, message),))


def bump(st: ZhangYiState, key: str) -> ZhangYiState:
    counts = dict(st.declared_counts)
    counts[key] = counts.get(key, 0) + 1
    return evolve(st, declared_counts=tuple(sorted(counts.items())))


def area_name(st: ZhangYiState, i: int) -> Message:
    return st.map.areas[i].label


def attrition(st: ZhangYiState, o: int, d: int) -> int:
    """Strength lost crossing the border o-d (8): river or mountain 1; both 1 (A8) or 2 (option)."""
    t = st.map.border_type[(o, d)]
    if t == "open":
        return 0
    if t == "river_mountain" and st.rules.attrition_stacks:
        return 2
    return 1


def recruit_formula(st: ZhangYiState, s: int) -> int:
    """ceil(power / 3) plus one per minister of the state on the map (7, 10.2)."""
    return (st.power(s) + 2) // 3 + st.ministers_on_map(s)


def recruit_amount(st: ZhangYiState, s: int) -> int:
    due = recruit_formula(st, s)
    mix = st.map.counters[s]
    if st.rules.counter_limit and mix is not None:
        cap = max_addable(tuple(st.strength[i] for i in st.areas_of(s)), due, mix[0], mix[1], st.rules.recruit_one_area)
        if cap >= 0:
            due = min(due, cap)
    return due


def protecting_notable(st: ZhangYiState, s: int, dest: int) -> int:
    """The notable of state ``s`` that repels an invasion of ``dest`` (10.3, A5), or -1."""
    ts = st.map.talent_state
    found = [t for t in NOTABLE_INDICES if ts[t] == s and st.talent_loc[t] >= 0]
    if st.rules.notable_own_area_only:
        found = [t for t in found if st.talent_loc[t] == dest]
    if not found:
        return -1
    here = [t for t in found if st.talent_loc[t] == dest]
    return (here or found)[0]


def assassin_targets(st: ZhangYiState) -> list[int]:
    """Talents Jing Ke may kill: any on the map (A9), or only older ones with the option."""
    out = [t for t, loc in enumerate(st.talent_loc) if loc >= 0 and t != JING_KE]
    if st.rules.assassin_spares_new:
        out = [t for t in out if t not in st.placed_this_phase]
    return out


def retreat_options(st: ZhangYiState, loser: int, area: int) -> tuple[int, ...]:
    """Adjacent areas that are the loser's own territory or neutral (A3)."""
    return tuple(j for j, _ in st.map.neighbours[area] if st.owner[j] == loser or st.owner[j] == NEUTRAL)


def retreat_chooser(st: ZhangYiState) -> int:
    """A2: 2 players -- the non-acting player; 3 players -- the second player of the turn
    (literal 10-5) or, with the option, the player after the acting player."""
    if st.n == 2:
        return 1 - st.acting
    if st.rules.retreat_by_next_player:
        return st.player_after(st.acting)
    order = st.order()
    return order[1] if len(order) > 1 else order[0]


def hegemony_reached(st: ZhangYiState, s: int) -> bool:
    return st.area_count(s) >= 6 or st.city_count(s) >= 4


def _lone_talents(st: ZhangYiState, loc: list[int]) -> list[int]:
    """Talents whose area holds no army of their state go to the graveyard (8-5, A17)."""
    ts = st.map.talent_state
    gone = []
    for t, where in enumerate(loc):
        if where >= 0 and (st.owner[where] != ts[t] or st.strength[where] <= 0):
            loc[t] = GRAVE
            gone.append(t)
    return gone
