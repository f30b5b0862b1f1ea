"""Rules engine for The Great Wall of China (Reiner Knizia, Kosmos/FFG 2006), per rules/great-wall.md."""

from scorer.core.registry import register
from scorer.games.great_wall.engine import GAME, GreatWallGame
from scorer.games.great_wall.moves import CardRef, Claim, Draw, Pass, Play, Reveal

register(GAME)

__all__ = ["CardRef", "Claim", "Draw", "GAME", "GreatWallGame", "Pass", "Play", "Reveal"]
