"""``ChinaGame``: the China rules (engine.py) with the reading of sensed boards (explain.py), and ``GAME``."""

from __future__ import annotations

from typing import Mapping

from scorer.core.game import Explanation
from scorer.core.types import Board, Piece
from scorer.games.china.engine import NEUTRAL_FORTRESS, ChinaEngine
from scorer.games.china.explain import explain
from scorer.games.china.moves import HOUSE, ChinaMove
from scorer.games.china.state import ChinaState


class ChinaGame(ChinaEngine):
    """Kept apart from ``ChinaEngine`` so the rules do not depend on sensing: only this class knows explain.py."""

    def explain(self, state: ChinaState, sensed: Board) -> tuple[Explanation[ChinaMove], ...]:
        return explain(self, state, sensed)

    def hidden_under(self) -> Mapping[Piece, frozenset[str]]:
        """A house on a fortress often covers it whole from above (docs/vision.md, "fortresses under
        houses"): a camera reading the house alone has not seen the fortress go."""
        return {NEUTRAL_FORTRESS: frozenset({HOUSE})}


GAME = ChinaGame()

__all__ = ["GAME", "ChinaGame"]
