"""``ZhangYiGame``: the Zhang Yi rules (engine.py) with the reading of sensed boards (explain.py), and ``GAME``."""

from __future__ import annotations

from scorer.core.game import Explanation
from scorer.core.observation import ChanceSeen
from scorer.core.types import Board
from scorer.games.zhang_yi.camera import camera_declarations
from scorer.games.zhang_yi.engine import ZhangYiEngine
from scorer.games.zhang_yi.explain import explain
from scorer.games.zhang_yi.moves import RollDie, ZhangYiMove
from scorer.games.zhang_yi.state import ZhangYiState


class ZhangYiGame(ZhangYiEngine):
    """Kept apart from ``ZhangYiEngine`` so the rules do not depend on sensing: only this class knows
    explain.py (sensed boards) and camera.py (the die the camera read)."""

    def explain(self, state: ZhangYiState, sensed: Board) -> tuple[Explanation[ZhangYiMove], ...]:
        return explain(self, state, sensed)

    def camera_declarations(self, state: ZhangYiState, seen: ChanceSeen) -> tuple[ZhangYiMove, ...]:
        return camera_declarations(state, seen)

    def shown_board(self, state: ZhangYiState, move: ZhangYiMove) -> Board:
        """A die moves no counter itself: the strength the battle's result takes off (a die of 1, 2 or 6)
        is then taken off by the players, and the referee follows them instead of flagging the table."""
        if isinstance(move, RollDie):
            return self.visible_board(state)
        return super().shown_board(state, move)


GAME = ZhangYiGame()

__all__ = ["GAME", "ZhangYiGame"]
