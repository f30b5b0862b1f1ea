"""``CheopsGame``: the Cheops rules (engine.py) with the reading of sensed boards (explain.py), and ``GAME``."""

from __future__ import annotations

from scorer.core.game import Explanation
from scorer.core.types import Board
from scorer.games.cheops.data import load_board
from scorer.games.cheops.engine import CheopsEngine
from scorer.games.cheops.explain import explain
from scorer.games.cheops.moves import CheopsMove
from scorer.games.cheops.state import CheopsState
from scorer.games.cheops.visible import dot_spaces


class CheopsGame(CheopsEngine):
    """Kept apart from ``CheopsEngine`` so the rules do not depend on sensing: only this class knows explain.py."""

    def explain(self, state: CheopsState, sensed: Board) -> tuple[Explanation[CheopsMove], ...]:
        return explain(self, state, sensed)

    def fixed_spaces(self, state: CheopsState | None = None) -> frozenset[str]:
        """The price columns' dots: one scarab of the column's colour each, set at setup, a marker only (C18)."""
        return dot_spaces(state.board if state is not None else load_board(None))


GAME = CheopsGame()

__all__ = ["GAME", "CheopsGame"]
