"""The values the live referee's reconciler works with and hands out: its settings, the reading of
the table it holds (``Reading``), a flag (``Flag``: rules broken, spaces, fix), the players carrying
out what the rules moved (``Follow``), and its decisions (``AcceptMove``, ``RaiseFlag``, ...). Kept
apart from ``scorer.referee.reconciler`` so that what reads a decision (the table, the session, the
dashboard) need not import the logic that makes it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Sequence

from scorer.core.types import Board, BoardDiff, Message, Piece, SpaceId, Violation

class CloseReason(StrEnum):
    COMPLETE = "complete"  # a complete move stayed on the table for the grace time
    TURN_DONE = "turn_done"  # the turn-done button or the dashboard
    CARD = "card"  # cards tapped on the reader paid for the move
    NEXT_PLAYER = "next_player"  # the next player's piece appeared
    QUIET = "quiet_timeout"  # an incomplete move stayed unchanged for the quiet timeout


class FlagKind(StrEnum):
    ILLEGAL = "illegal"  # the table shows something no legal move explains
    CARDS = "cards"  # the cards tapped do not pay for the pieces on the table
    UNFINISHED = "unfinished"  # a move shown only in part, that is no legal move as it stands, was left so (timeout, signal)


@dataclass(frozen=True, slots=True)
class ReconcilerSettings:
    complete_grace: float = 1.0
    quiet_timeout: float = 10.0
    max_busy: float = 5.0  # a space unsettled longer than this no longer holds decisions back
    signal_ttl: float = 5.0  # an explicit signal waits this long for the table to settle
    signal_grace: float = 1.0  # turn done on an unchanged table waits this long for pieces still being sensed
    close_on_complete: bool = True
    max_chain: int = 6  # how many turns ahead a burst of moves is followed
    chain_branching: int = 3  # readings tried per turn when following a burst
    order_candidates: int = 12  # first-turn readings compared when several turns are on the table at once
    order_alternatives: int = 3  # other orders offered with a question
    order_epsilon: float = 0.05  # seconds: appearance times closer than this do not tell an order

    def __post_init__(self) -> None:
        for name in ("complete_grace", "quiet_timeout", "max_busy", "signal_ttl", "signal_grace"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")


@dataclass(frozen=True, slots=True)
class Reading:
    """A legal (possibly partial) move the table shows right now, not yet accepted."""

    player: str | None
    moves: tuple[Any, ...]
    complete: bool
    since: float
    takeback: bool = False  # the pieces of an undone move, waiting to come off the table
    cards: tuple[str, ...] = ()

    def same(self, other: "Reading | None") -> bool:
        return other is not None and (self.moves, self.takeback, self.complete) == (other.moves, other.takeback, other.complete)


@dataclass(frozen=True, slots=True)
class Flag:
    """The table is illegal: which rules, which spaces, what to do. ``moves``/``residual`` are the
    reading used to name the rules (an override forces exactly this reading)."""

    kind: FlagKind
    violations: tuple[Violation, ...]
    spaces: tuple[SpaceId, ...]
    player: str | None
    raised_at: float
    moves: tuple[Any, ...] = ()
    residual: BoardDiff = field(default_factory=BoardDiff)

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.kind, tuple((v.rule, v.spaces) for v in self.violations), self.residual)

    @property
    def message(self) -> Message:
        return self.violations[0].message

    @property
    def fix(self) -> Message | None:
        for v in self.violations:
            if v.fix:
                return v.fix
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "violations": [v.to_json() for v in self.violations],
            "spaces": list(self.spaces),
            "player": self.player,
            "raised_at": self.raised_at,
            "message": self.message.to_json(),
            "fix": self.fix.to_json() if self.fix else None,
            "residual": self.residual.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Follow:
    """The rules moved pieces by themselves: per (space, piece) the counts the table may show on
    its way to the engine's board (between the board the move itself left and the engine's, and
    any earlier such boards the table had not caught up with)."""

    bounds: tuple[tuple[SpaceId, Piece, int, int], ...]  # (space, piece, fewest, most)

    @classmethod
    def between(cls, boards: Sequence[Board], earlier: "Follow | None" = None) -> "Follow":
        cells: dict[tuple[SpaceId, Piece], list[int]] = {}
        keys = {(s, p) for b in boards for s in b.spaces() for p in b.pieces(s)}
        keys |= {(s, p) for s, p, _lo, _hi in (earlier.bounds if earlier else ())}
        for key in keys:
            counts = [b.pieces(key[0]).get(key[1], 0) for b in boards]
            cells[key] = [min(counts), max(counts)]
        for s, p, lo, hi in (earlier.bounds if earlier else ()):
            cells[(s, p)] = [min(lo, cells[(s, p)][0]), max(hi, cells[(s, p)][1])]
        return cls(tuple(sorted((s, p, lo, hi) for (s, p), (lo, hi) in cells.items() if hi > lo or hi > 0)))

    def seen(self, known: Any) -> bool:
        """Every space the rules moved pieces on is seen by some source."""
        return all(s in known for s, _p, lo, hi in self.bounds if lo != hi)

    def covers(self, board: Board) -> bool:
        """``board`` is on the way: every count within its bounds, nothing anywhere else."""
        known = {(s, p): (lo, hi) for s, p, lo, hi in self.bounds}
        for space in board.spaces():
            for piece, n in board.pieces(space).items():
                lo, hi = known.get((space, piece), (0, 0))
                if not lo <= n <= hi:
                    return False
        counts = board.as_dict()
        return all(counts.get(s, Counter())[p] >= lo for s, p, lo, _hi in self.bounds)


# -- decisions (what the session must do) ------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Step:
    """One turn of a burst read off the table: who, which move(s), whether it can still grow."""

    player: str | None
    moves: tuple[Any, ...]
    complete: bool = True


@dataclass(frozen=True, slots=True)
class OrderQuestion:
    """Several orders of turns explain the table and the appearance times do not tell which:
    ``chosen`` is the order the referee inferred (its first step is being accepted now),
    ``alternatives`` the other orders, each a full reading of the same table."""

    chosen: tuple[Step, ...]
    alternatives: tuple[tuple[Step, ...], ...]


@dataclass(frozen=True, slots=True)
class AcceptMove:
    moves: tuple[Any, ...]
    reason: CloseReason
    player: str | None
    order: OrderQuestion | None = None  # set when the order of a burst of turns was inferred


@dataclass(frozen=True, slots=True)
class RaiseFlag:
    flag: Flag
    update: bool = False  # an open flag changed (another rule, other spaces)


@dataclass(frozen=True, slots=True)
class ClearFlag:
    flag: Flag
    reason: str  # "corrected" (table put right), "override", "undo", "reset"


@dataclass(frozen=True, slots=True)
class ReadingChanged:
    reading: Reading | None


@dataclass(frozen=True, slots=True)
class TableMatched:
    """The table matches the engine again after an undo."""


@dataclass(frozen=True, slots=True)
class SignalRefused:
    reason: CloseReason
    message: Message


Decision = AcceptMove | RaiseFlag | ClearFlag | ReadingChanged | TableMatched | SignalRefused


__all__ = ["AcceptMove", "ClearFlag", "CloseReason", "Decision", "Flag", "FlagKind", "Follow", "OrderQuestion", "RaiseFlag",
           "Reading", "ReadingChanged", "ReconcilerSettings", "SignalRefused", "Step", "TableMatched"]
