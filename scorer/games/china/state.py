"""China game state: one immutable value, cheap to copy (tuples of ints indexed like the board)."""

from __future__ import annotations

from dataclasses import dataclass

from scorer.core.fastcopy import make_evolve
from scorer.core.results import Termination
from scorer.core.types import Message
from scorer.games.china.board import ChinaBoard
from scorer.games.china.cards import CardState

HOUSES_PER_PLAYER = 20
EMISSARIES_PER_PLAYER = 8  # 9 minus the one used as score marker
FORTRESSES_PER_PLAYER = 1
EMPTY = -1

# Score categories, in display order.
CAT_PROVINCES, CAT_ALLIANCES, CAT_ROADS = "provinces", "alliances", "roads"
CATEGORIES = (CAT_PROVINCES, CAT_ALLIANCES, CAT_ROADS)


@dataclass(frozen=True, slots=True)
class ChinaRules:
    """Variants and the referee options for the rules notes' ambiguities (rules/china.md 7)."""

    fortress: bool = False  # the fortress variant (4.7)
    bare_fortress_occupies: bool = False  # amb. 16 literal reading: a bare fortress makes a province non-empty
    fortress_house_in_empty: bool = False  # amb. 19 option: fortress + house allowed in an empty province
    track_cards: bool = False  # hands, pile and display known (simulations, complete records)

    VARIANTS = ("fortress", "bare_fortress_occupies", "fortress_house_in_empty")


@dataclass(frozen=True, slots=True)
class Effect:
    """Something the rules did by themselves during the last move (province scored, game over)."""

    kind: str
    message: Message
    points: tuple[int, ...] = ()
    province: int | None = None


@dataclass(frozen=True, slots=True)
class ChinaState:
    board: ChinaBoard
    players: tuple[str, ...]
    rules: ChinaRules
    site_owner: tuple[int, ...]  # player index of the house on each site, or EMPTY
    site_fortress: tuple[bool, ...]
    emissaries: tuple[tuple[int, ...], ...]  # [province][player]
    scored: tuple[bool, ...]  # province house-scored (scoring disc placed)
    houses_left: tuple[int, ...]
    emissaries_left: tuple[int, ...]
    fortresses_left: tuple[int, ...]
    points: tuple[tuple[int, int, int], ...]  # [player] -> (provinces, alliances, roads)
    active: int = 0
    turn_number: int = 0
    cards: CardState | None = None
    end_triggered: bool = False
    finished: Termination | None = None
    unchecked_payments: int = 0
    declared_end: bool = False
    road_disputes: tuple[tuple[str, int, int], ...] = ()  # (player, greedy points, best split's points)
    road_uncompared: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()

    @property
    def n(self) -> int:
        return len(self.players)

    def player_index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            return -1

    def houses_in(self, province: int) -> list[int]:
        counts = [0] * len(self.players)
        owner = self.site_owner
        for s in self.board.province_sites[province]:
            o = owner[s]
            if o >= 0:
                counts[o] += 1
        return counts

    def province_full(self, province: int) -> bool:
        owner = self.site_owner
        return all(owner[s] >= 0 for s in self.board.province_sites[province])

    def province_empty(self, province: int) -> bool:
        """Empty at the start of the turn: no houses and no emissaries (ambiguity 16)."""
        sites = self.board.province_sites[province]
        if any(self.site_owner[s] >= 0 for s in sites) or sum(self.emissaries[province]):
            return False
        if self.rules.bare_fortress_occupies and any(self.site_fortress[s] for s in sites):
            return False
        return True

    def supply_left(self, player: int) -> int:
        return self.houses_left[player] + self.emissaries_left[player] + self.fortresses_left[player]


evolve = make_evolve(ChinaState)
