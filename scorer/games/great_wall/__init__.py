"""Rules engine for The Great Wall of China (Reiner Knizia, Kosmos/FFG 2006), per rules/great-wall.md."""

from scorer.core.registry import register, register_board_kit
from scorer.games.great_wall.boardkit import KIT as BOARD_KIT
from scorer.games.great_wall.game import GAME, GreatWallGame
from scorer.games.great_wall.moves import CardRef, Claim, Draw, Pass, Play, Reveal

register(GAME)
register_board_kit(BOARD_KIT)  # the dashboard's drawing and capture hooks (scorer/core/boardkit.py)

__all__ = ["CardRef", "Claim", "Draw", "GAME", "GreatWallGame", "Pass", "Play", "Reveal"]
