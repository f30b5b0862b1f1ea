"""Zhang Yi game state: one immutable value of small ints, indexed like the map.

Areas, states (the seven Warring States) and talents are indices. Strength is stored per area as
an integer (which counters show it does not matter: counters are change, 3-6-3). The state also
carries what the engine is waiting for (``awaiting``) and, in seeded games, the random stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.core.results import Termination
from scorer.core.types import Message
from scorer.games.zhang_yi.board import ZhangYiMap
from scorer.games.zhang_yi.data import GENERAL, MINISTER, NOTABLE, STATES, TALENT_KIND, TALENT_IDS

# Talent locations (an area index >= 0 means "on the map in that area").
POOL, GRAVE, OUT, HELD, TRANSIT = -1, -2, -3, -4, -5
NEUTRAL = -1

# What the engine waits for (TurnInfo.awaiting).
A_KEEP = "destiny_keep"
A_TALENT_DRAW = "talent_draw"
A_TALENT_PLACE = "talent_placement"
A_ASSASSIN = "assassin_target"
A_CHIT = "action_chit"
A_RECRUIT = "recruitment"
A_MOVE = "move"
A_DIE = "die_roll"
A_RETREAT = "retreat_choice"
A_CHECK = "destiny_check"
A_REVEAL = "destiny_reveal"
A_NONE = "none"

PHASE_OF = {
    A_KEEP: "destiny",
    A_TALENT_DRAW: "talent",
    A_TALENT_PLACE: "talent",
    A_ASSASSIN: "talent",
    A_CHIT: "strategic",
    A_RECRUIT: "strategic",
    A_MOVE: "strategic",
    A_DIE: "strategic",
    A_RETREAT: "strategic",
    A_CHECK: "strategic",
    A_REVEAL: "reveal",
    A_NONE: "over",
}

GENERAL_INDICES = tuple(i for i, t in enumerate(TALENT_IDS) if TALENT_KIND[t] == GENERAL)
MINISTER_INDICES = tuple(i for i, t in enumerate(TALENT_IDS) if TALENT_KIND[t] == MINISTER)
NOTABLE_INDICES = tuple(i for i, t in enumerate(TALENT_IDS) if TALENT_KIND[t] == NOTABLE)


@dataclass(frozen=True, slots=True)
class ZhangYiRules:
    """The chance mode and the named readings of the rules notes' ambiguities (section 15).

    Every flag is False for the recommended reading; docs/zhang-yi.md lists them all.
    """

    seeded: bool = False
    tie_attacker_wins: bool = False  # A1
    retreat_by_next_player: bool = False  # A2 (3 players)
    hegemony_after_battle_only: bool = False  # A4
    notable_own_area_only: bool = False  # A5
    notable_attrition: bool = False  # A6
    recruit_one_area: bool = False  # A7
    attrition_stacks: bool = False  # A8
    assassin_spares_new: bool = False  # A9
    annihilation_first: bool = False  # A10
    tied_top_shared_win: bool = False  # A11
    counter_limit: bool = False  # A12
    first_player_passes_left: bool = False  # A13 (3 players)
    no_redraw_after_dead: bool = False  # A14

    VARIANTS = (
        "tie_attacker_wins",
        "retreat_by_next_player",
        "hegemony_after_battle_only",
        "notable_own_area_only",
        "notable_attrition",
        "recruit_one_area",
        "attrition_stacks",
        "assassin_spares_new",
        "annihilation_first",
        "tied_top_shared_win",
        "counter_limit",
        "first_player_passes_left",
        "no_redraw_after_dead",
    )


@dataclass(frozen=True, slots=True)
class Battle:
    """A battle waiting for its die: the attacker's force has left ``origin`` and stands in ``dest``."""

    origin: int
    dest: int
    attacker: int  # strength after attrition
    talents: tuple[int, ...]  # attacker talents that came along


@dataclass(frozen=True, slots=True)
class PendingRetreat:
    """The loser's army, still in the battle area, waiting for the chooser to name one area."""

    state: int
    strength: int
    area: int
    options: tuple[int, ...]
    chooser: int  # player index


@dataclass(frozen=True, slots=True)
class Effect:
    """Something the rules did by themselves during the last move (attrition, battle, hegemony)."""

    kind: str
    message: Message


@dataclass(frozen=True, slots=True)
class ZhangYiState:
    map: ZhangYiMap
    players: tuple[str, ...]
    rules: ZhangYiRules
    owner: tuple[int, ...]  # per area: state index or NEUTRAL
    strength: tuple[int, ...]  # per area
    talent_loc: tuple[int, ...]  # per talent: area index, POOL, GRAVE, OUT, HELD or TRANSIT
    alive: tuple[bool, ...]  # per state
    awaiting: str
    actors: tuple[int, ...] = ()  # players who may give the awaited input
    turn: int = 1
    first: int = 0  # first player of this turn
    pool_left: int = 14
    pool_order: tuple[int, ...] = ()  # seeded: the face-down pool, top first
    drawers: tuple[int, ...] = ()  # players still to draw a talent this phase
    held: int = -1  # talent drawn and waiting to be placed
    jing_ke_by: int = -1  # player who drew Jing Ke this phase
    placed_this_phase: tuple[int, ...] = ()
    pool_emptied: bool = False  # the pool ran out during this turn (6.4)
    cup: tuple[int, ...] = ()  # action chits not drawn yet this turn (seeded: in draw order)
    action_no: int = 0  # actions taken this turn (0: the first, the first player's)
    acting: int = -1  # player index of the current action
    active_state: int = -1
    recruit_due: int = 0
    fought: bool = False  # a battle took place in this action
    battle: Battle | None = None
    retreat: PendingRetreat | None = None
    check_state: int = -1  # annihilated state whose backing is being asked (declared games)
    hegemony_after_check: bool = False  # A10 option: hegemony waits for the annihilation check
    rng: int = 0
    dealt: tuple[tuple[int, ...], ...] = ()  # seeded: destiny chits dealt per player
    kept: tuple[int, ...] = ()  # per player: backed state index, -1 unknown (declared games)
    revealed: tuple[int, ...] = ()  # per player: revealed state index, -1 not yet
    not_backed: tuple[int, ...] = ()  # states declared backed by nobody
    out: tuple[bool, ...] = ()  # per player (3 players: backed state annihilated)
    ending: Termination | None = None  # the game has ended; reveals may be pending
    hegemon: int = -1
    finished: Termination | None = None
    winners: tuple[str, ...] = ()
    verdict: str = ""  # "win", "draw" or "all_lose"
    reason: Message | None = None
    declared_counts: tuple[tuple[str, int], ...] = ()
    effects: tuple[Effect, ...] = ()

    # -- derived views ---------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.players)

    def player_index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            return -1

    def areas_of(self, s: int) -> list[int]:
        return [i for i, o in enumerate(self.owner) if o == s]

    def area_count(self, s: int) -> int:
        return sum(1 for o in self.owner if o == s)

    def city_count(self, s: int) -> int:
        city = self.map.is_city
        return sum(1 for i, o in enumerate(self.owner) if o == s and city[i])

    def power(self, s: int) -> int:
        """National power: territory areas, cities counting 2 (section 4)."""
        city = self.map.is_city
        return sum(2 if city[i] else 1 for i, o in enumerate(self.owner) if o == s)

    def talents_in(self, area: int) -> list[int]:
        return [t for t, loc in enumerate(self.talent_loc) if loc == area]

    def on_map(self, t: int) -> bool:
        return self.talent_loc[t] >= 0

    def ministers_on_map(self, s: int) -> int:
        ts = self.map.talent_state
        return sum(1 for t in MINISTER_INDICES if self.talent_loc[t] >= 0 and ts[t] == s)

    def best_bonus(self, talents: list[int] | tuple[int, ...]) -> int:
        """Only the single best general counts (10.1)."""
        bonus = self.map.general_bonus
        return max((bonus[t] for t in talents if t in GENERAL_INDICES), default=0)

    def seating(self) -> tuple[int, ...]:
        """This turn's player order from the first player, players who are out included.

        2 players: first, then the other. 3 players: to the first player's right (10-1); players
        are listed clockwise, so the right-hand neighbour is the previous one in the list.
        """
        n = self.n
        if n == 2:
            return (self.first, 1 - self.first)
        return tuple((self.first - k) % n for k in range(n))

    def order(self) -> tuple[int, ...]:
        """This turn's player order from the first player, skipping players who are out."""
        return tuple(p for p in self.seating() if not self.out[p])

    def player_after(self, p: int) -> int:
        """The next player still in after ``p`` in this turn's order, cycling (10-4). ``p`` may be
        out himself (he went out in his own action): the turn goes on from his seat."""
        seq = self.seating()
        i = seq.index(p)
        return next(q for q in seq[i + 1:] + seq[:i + 1] if not self.out[q])

    def count(self, key: str) -> int:
        return dict(self.declared_counts).get(key, 0)

    def state_id(self, s: int) -> str:
        return STATES[s]

    def summary(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "awaiting": self.awaiting,
            "pool_left": self.pool_left,
            "alive": [STATES[s] for s in range(7) if self.alive[s]],
        }


_FIELDS = tuple(f for f in ZhangYiState.__dataclass_fields__)
_SLOTS = {name: ZhangYiState.__dict__[name] for name in _FIELDS}
_SLOT_LIST = tuple(_SLOTS.values())
_new = object.__new__


class _Draft(ZhangYiState):
    """A private, mutable working copy used inside one ``apply_unchecked`` call.

    ``evolve`` on a draft updates it in place instead of copying the 50-field state again, so
    one move costs two copies (in and out) whatever the number of automatic effects. A draft
    never leaves the engine: ``freeze`` turns it back into a ``ZhangYiState``.
    """

    __slots__ = ()


def _copy(st: ZhangYiState, cls: type) -> ZhangYiState:
    out = _new(cls)
    for slot in _SLOT_LIST:
        slot.__set__(out, slot.__get__(st))
    return out


def draft(st: ZhangYiState) -> ZhangYiState:
    return _copy(st, _Draft)


def freeze(st: ZhangYiState) -> ZhangYiState:
    return _copy(st, ZhangYiState) if type(st) is _Draft else st


def evolve(st: ZhangYiState, **changes: Any) -> ZhangYiState:
    """``dataclasses.replace`` for the hot path: copies the slots directly (no ``__init__``);
    on a draft it updates in place. Same result as ``replace`` (the tests compare them)."""
    out = st if type(st) is _Draft else _copy(st, ZhangYiState)
    for name, value in changes.items():
        _SLOTS[name].__set__(out, value)
    return out
