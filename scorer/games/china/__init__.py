"""Rules engine for Der Kaiser von China (China, Abacus 2005), per rules/china.md."""

from scorer.core.registry import register, register_board_kit
from scorer.games.china.boardkit import KIT as BOARD_KIT
from scorer.games.china.game import GAME, ChinaGame
from scorer.games.china.moves import DeclarePileExhausted, Exchange, Place, Placement

register(GAME)
register_board_kit(BOARD_KIT)  # the dashboard's drawing and capture hooks (scorer/core/boardkit.py)

__all__ = ["ChinaGame", "DeclarePileExhausted", "Exchange", "GAME", "Place", "Placement"]
