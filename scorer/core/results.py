"""Scoreboards and outcomes: typed results, never bare strings."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from scorer.core.types import Message


@dataclass(frozen=True, slots=True)
class Unchecked:
    """A check the referee could not make (e.g. cards nobody declared), shown to the players."""

    check: str
    message: Message

    def to_json(self) -> dict[str, object]:
        return {"check": self.check, "message": self.message.to_json()}


@dataclass(frozen=True, slots=True)
class PlayerScore:
    """One player's points, broken down by category, plus the key that breaks ties.

    ``tiebreak`` is compared as a tuple after ``total``: larger is better.
    """

    player: str
    total: int
    breakdown: tuple[tuple[str, int], ...]
    tiebreak: tuple[int, ...] = ()
    laps: int = 0

    def category(self, name: str) -> int:
        return dict(self.breakdown).get(name, 0)

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player,
            "total": self.total,
            "breakdown": dict(self.breakdown),
            "tiebreak": list(self.tiebreak),
            "laps": self.laps,
        }


@dataclass(frozen=True, slots=True)
class Scoreboard:
    """The whole table's scores. ``not_checked`` lists what the referee could not verify;
    ``declared`` names figures that rest on a player's declaration rather than on sensors."""

    game: str
    players: tuple[PlayerScore, ...]
    final: bool = False
    not_checked: tuple[Unchecked, ...] = ()
    declared: tuple[str, ...] = ()
    provisional_data: bool = False
    categories: tuple[str, ...] = field(default=())

    def of(self, player: str) -> PlayerScore:
        for p in self.players:
            if p.player == player:
                return p
        raise KeyError(player)

    def ranking(self) -> tuple[PlayerScore, ...]:
        return tuple(sorted(self.players, key=lambda p: (p.total, p.tiebreak), reverse=True))

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "final": self.final,
            "categories": list(self.categories),
            "players": [p.to_json() for p in self.players],
            "not_checked": [u.to_json() for u in self.not_checked],
            "declared": list(self.declared),
            "provisional_data": self.provisional_data,
        }


class Termination(StrEnum):
    """Why a game ended. Shared across games; each game uses the ones its rules know."""

    DECK_EXHAUSTED = "deck_exhausted"
    NO_LEGAL_PLACEMENT = "no_legal_placement"
    LAST_ROUND = "last_round"
    LAST_TOKEN = "last_token"
    ROUNDS_COMPLETE = "rounds_complete"
    PYRAMID_COMPLETE = "pyramid_complete"
    PRICE_TABLES_FULL = "price_tables_full"
    BLOCKED = "blocked"
    HEGEMONY = "hegemony"
    ANNIHILATION = "annihilation"
    TIME = "time"
    DECLARED = "declared"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended and who won. Several winners mean a shared victory."""

    termination: Termination
    winners: tuple[str, ...]
    reason: Message
    tiebreak_used: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "termination": self.termination.value,
            "winners": list(self.winners),
            "reason": self.reason.to_json(),
            "tiebreak_used": self.tiebreak_used,
        }


def winners_from(board: Scoreboard) -> tuple[tuple[str, ...], bool]:
    """Winners by total then tie-break key; returns (winners, whether the tie-break decided)."""
    if not board.players:
        return (), False
    best_total = max(p.total for p in board.players)
    top = [p for p in board.players if p.total == best_total]
    if len(top) == 1:
        return (top[0].player,), False
    best_key = max(p.tiebreak for p in top)
    winners = tuple(p.player for p in top if p.tiebreak == best_key)
    return winners, True
