"""``ChinaGame``: the China rules (engine.py) with the reading of sensed boards (explain.py), and ``GAME``."""

from __future__ import annotations

from scorer.core.game import Explanation
from scorer.core.types import Board
from scorer.games.china.engine import ChinaEngine
from scorer.games.china.explain import explain
from scorer.games.china.moves import ChinaMove
from scorer.games.china.state import ChinaState


class ChinaGame(ChinaEngine):
    """Kept apart from ``ChinaEngine`` so the rules do not depend on sensing: only this class knows explain.py."""

    def explain(self, state: ChinaState, sensed: Board) -> tuple[Explanation[ChinaMove], ...]:
        return explain(self, state, sensed)


GAME = ChinaGame()

__all__ = ["GAME", "ChinaGame"]
