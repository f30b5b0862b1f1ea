"""``ZhangYiGame``: the Zhang Yi rules (engine.py) with the reading of sensed boards (explain.py), and ``GAME``."""

from __future__ import annotations

from scorer.core.game import Explanation
from scorer.core.types import Board
from scorer.games.zhang_yi.engine import ZhangYiEngine
from scorer.games.zhang_yi.explain import explain
from scorer.games.zhang_yi.moves import ZhangYiMove
from scorer.games.zhang_yi.state import ZhangYiState


class ZhangYiGame(ZhangYiEngine):
    """Kept apart from ``ZhangYiEngine`` so the rules do not depend on sensing: only this class knows explain.py."""

    def explain(self, state: ZhangYiState, sensed: Board) -> tuple[Explanation[ZhangYiMove], ...]:
        return explain(self, state, sensed)


GAME = ZhangYiGame()

__all__ = ["GAME", "ZhangYiGame"]
