"""Rules engine for 張儀 戦国七雄興亡記 (Zhang Yi, Game Journal No. 18), per rules/zhang-yi.md."""

from scorer.core.registry import register, register_board_kit
from scorer.games.zhang_yi.boardkit import KIT as BOARD_KIT
from scorer.games.zhang_yi.game import GAME, ZhangYiGame
from scorer.games.zhang_yi.moves import (
    Assassinate,
    DrawChit,
    DrawTalent,
    Hold,
    KeepDestiny,
    March,
    NotBacked,
    PlaceTalent,
    Recruit,
    Retreat,
    RevealDestiny,
    RollDie,
)

register(GAME)
register_board_kit(BOARD_KIT)  # the dashboard's drawing and capture hooks (scorer/core/boardkit.py)

__all__ = [
    "Assassinate",
    "DrawChit",
    "DrawTalent",
    "GAME",
    "Hold",
    "KeepDestiny",
    "March",
    "NotBacked",
    "PlaceTalent",
    "Recruit",
    "Retreat",
    "RevealDestiny",
    "RollDie",
    "ZhangYiGame",
]
