"""The working copy a Cheops turn is resolved on (``Work``), and how its checks report (``_v``,
``TurnError``): shared by the turn's steps (``rules``) and what a placement takes (``taking``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scorer.core.results import Termination
from scorer.core.types import Message, Violation, violation
from scorer.games.cheops.data import ADJACENT, BELOW
from scorer.games.cheops.state import MARKET_PRICE, NO_TILE, CheopsState, Effect


def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:
    """``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation."""
    return violation(rule, message, *rest, fix=fix)


class TurnError(Exception):
    """Raised inside ``resolve`` when checking: carries the violations of the failing step."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations


class Work:
    """A mutable copy of the state while one turn is resolved."""

    def __init__(self, s: CheopsState):
        self.s = s
        self.p = s.active
        self.content = list(s.content)
        self.tile = list(s.tile)
        self.placer = list(s.placer)
        self.covered = list(s.covered)
        self.sold_for_nothing = list(s.sold_for_nothing)
        self.table_law = list(s.table_law)
        self.market_laws = list(s.market_laws)
        self.law3 = s.law3
        self.revealed = list(s.revealed)
        self.out_of_play = list(s.out_of_play)
        self.cash = list(s.cash)
        self.kept = [list(k) for k in s.kept]
        self.held = [list(h) for h in s.held]
        self.saved = list(s.saved_neighbours)
        self.hands = [list(h) if h is not None else None for h in s.hands]
        self.hand_size = list(s.hand_size)
        self.stacks = [list(x) for x in s.stacks] if s.stacks is not None else None
        self.stack_size = list(s.stack_size)
        self.stack_faces = list(s.stack_faces) if s.stack_faces is not None else None
        self.neighbours_left = s.neighbours_left
        self.unchecked_passes = s.unchecked_passes
        self.unchecked_faces = s.unchecked_faces
        self.laws_declared = s.laws_declared
        self.effects: list[Effect] = []
        self.acquired: set[int] = set()
        self.ended: Termination | None = None
        self.passed = False

    # -- views -------------------------------------------------------------------------------
    def table_full(self, c: int) -> bool:
        return self.covered[c] >= self.s.tables[c].capacity

    def market_price(self) -> int:
        return MARKET_PRICE[self.market_laws[-1] if self.market_laws else 0]

    def supported(self, i: int) -> bool:
        below = BELOW[i]
        return below is None or (self.tile[below[0]] != NO_TILE and self.tile[below[1]] != NO_TILE)

    def same_face_neighbours(self, i: int, face: int) -> list[int]:
        return [j for j in ADJACENT[i] if self.tile[j] == face]

    def laws_in_play(self) -> dict[int, str]:
        """Face-up laws a law 8 can remove, with where they are (for messages)."""
        out: dict[int, str] = {}
        for n in self.market_laws:
            out[n] = "market"
        if self.law3:
            out[3] = "rules"
        for c, n in enumerate(self.table_law):
            if n:
                out[n] = f"table:{self.s.colours[c]}"
        for pi, h in enumerate(self.held):
            for n in h:
                out[n] = f"player:{self.s.players[pi]}"
        return out

    def freeze(self, **changes) -> CheopsState:
        s = self.s
        return replace(
            s,
            content=tuple(self.content),
            tile=tuple(self.tile),
            placer=tuple(self.placer),
            covered=tuple(self.covered),
            sold_for_nothing=tuple(self.sold_for_nothing),
            table_law=tuple(self.table_law),
            market_laws=tuple(self.market_laws),
            law3=self.law3,
            revealed=tuple(self.revealed),
            out_of_play=tuple(self.out_of_play),
            cash=tuple(self.cash),
            kept=tuple(tuple(k) for k in self.kept),
            held=tuple(tuple(sorted(h)) for h in self.held),
            saved_neighbours=tuple(self.saved),
            hands=tuple(tuple(h) if h is not None else None for h in self.hands),
            hand_size=tuple(self.hand_size),
            stacks=tuple(tuple(x) for x in self.stacks) if self.stacks is not None else None,
            stack_size=tuple(self.stack_size),  # type: ignore[arg-type]
            stack_faces=tuple(self.stack_faces) if self.stack_faces is not None else None,
            neighbours_left=self.neighbours_left,
            unchecked_passes=self.unchecked_passes,
            unchecked_faces=self.unchecked_faces,
            laws_declared=self.laws_declared,
            effects=tuple(self.effects),
            **changes,
        )
