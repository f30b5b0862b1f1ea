"""Rules engine for Ming Dynasty / Ming-Dynastie (Hans im Glück 2007, Rio Grande no. 233), per rules/ming.md."""

from scorer.core.registry import register, register_board_kit
from scorer.games.ming.boardkit import KIT as BOARD_KIT
from scorer.games.ming.game import GAME, MingGame
from scorer.games.ming.moves import (
    ChooseStartPlayer,
    MovePrince,
    Pass,
    PlaceFamily,
    PlaceNeutral,
    PlacePrince,
    ReturnCards,
    SendBack,
    Stay,
    TakeCard,
    TakeDragon,
)

register(GAME)
register_board_kit(BOARD_KIT)  # the dashboard's drawing and capture hooks (scorer/core/boardkit.py)

__all__ = [
    "ChooseStartPlayer",
    "GAME",
    "MingGame",
    "MovePrince",
    "Pass",
    "PlaceFamily",
    "PlaceNeutral",
    "PlacePrince",
    "ReturnCards",
    "SendBack",
    "Stay",
    "TakeCard",
    "TakeDragon",
]
