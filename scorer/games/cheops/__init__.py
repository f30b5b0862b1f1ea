"""Rules engine for Cheops (Klaus Paal, Hans im Glück 1998), per rules/cheops.md."""

from scorer.core.registry import register
from scorer.games.cheops.engine import GAME, CheopsGame
from scorer.games.cheops.moves import BuyNeighbour, Draw, Pass, PlaceTile, Take, Turn, UseLaw10, UseLaw11, UseLaw12

register(GAME)

__all__ = ["BuyNeighbour", "CheopsGame", "Draw", "GAME", "Pass", "PlaceTile", "Take", "Turn", "UseLaw10", "UseLaw11", "UseLaw12"]
