"""Rules engine for Cheops (Klaus Paal, Hans im Glück 1998), per rules/cheops.md."""

from scorer.core.registry import register, register_board_kit
from scorer.games.cheops.boardkit import KIT as BOARD_KIT
from scorer.games.cheops.game import GAME, CheopsGame
from scorer.games.cheops.moves import BuyNeighbour, Draw, Pass, PlaceTile, Take, Turn, UseLaw10, UseLaw11, UseLaw12

register(GAME)
register_board_kit(BOARD_KIT)  # the dashboard's drawing and capture hooks (scorer/core/boardkit.py)

__all__ = ["BuyNeighbour", "CheopsGame", "Draw", "GAME", "Pass", "PlaceTile", "Take", "Turn", "UseLaw10", "UseLaw11", "UseLaw12"]
