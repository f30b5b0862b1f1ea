"""Rules engine for Der Kaiser von China (China, Abacus 2005), per rules/china.md."""

from scorer.core.registry import register
from scorer.games.china.engine import GAME, ChinaGame
from scorer.games.china.moves import DeclarePileExhausted, Exchange, Place, Placement

register(GAME)

__all__ = ["ChinaGame", "DeclarePileExhausted", "Exchange", "GAME", "Place", "Placement"]
