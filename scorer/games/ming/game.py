"""``MingGame``: the Ming rules (engine.py) with the reading of sensed boards (explain.py), and ``GAME``."""

from __future__ import annotations

from typing import Mapping

from scorer.core.game import Explanation, SetupOptions
from scorer.core.types import Board
from scorer.games.ming.effects import effect
from scorer.games.ming.engine import MingEngine
from scorer.games.ming.explain import explain
from scorer.games.ming.moves import MingMove
from scorer.games.ming.state import MingState
from scorer.games.ming.visible import visible_board


class MingGame(MingEngine):
    """Kept apart from ``MingEngine`` so the rules do not depend on sensing: only this class knows explain.py."""

    def explain(self, state: MingState, sensed: Board) -> tuple[Explanation[MingMove], ...]:
        return explain(self, state, sensed)

    def sensed_owners(self, setup: SetupOptions) -> Mapping[str, str]:
        """2 players: the spare colour whose family members are the neutral ones (``neutral_colour``)."""
        colour = setup.get("neutral_colour")
        return {str(colour): "neutral"} if colour else {}

    def shown_board(self, state: MingState, move: MingMove) -> Board:
        """The table after the move's own change: the scoring's majorities, returns and the city
        emptied into the box are then carried out by the players (the referee follows them)."""
        return visible_board(effect(state, move))


GAME = MingGame()

__all__ = ["GAME", "MingGame"]
