"""``GreatWallGame``: The Great Wall rules (engine.py) with the reading of sensed boards (explain.py, seen.py), and ``GAME``."""

from __future__ import annotations

from typing import Mapping, Sequence

from scorer.core.game import Explanation
from scorer.core.types import Board
from scorer.games.great_wall.engine import GreatWallEngine
from scorer.games.great_wall.explain import explain
from scorer.games.great_wall.moves import GreatWallMove
from scorer.games.great_wall.seen import seen_disagreements
from scorer.games.great_wall.state import GreatWallState


class GreatWallGame(GreatWallEngine):
    """Kept apart from ``GreatWallEngine`` so the rules do not depend on sensing: only this class knows explain.py."""

    def explain(self, state: GreatWallState, sensed: Board) -> tuple[Explanation[GreatWallMove], ...]:
        return explain(self, state, sensed)

    def seen_disagreements(self, state: GreatWallState, moves: Sequence[GreatWallMove],
                           seen: Mapping[str, tuple[str, ...]]) -> int:
        return seen_disagreements(state, moves, seen)


GAME = GreatWallGame()

__all__ = ["GAME", "GreatWallGame"]
