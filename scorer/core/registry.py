"""Find game engines by id (``"china"``, ``"great_wall"`` ...)."""

from __future__ import annotations

import importlib
import importlib.util

from scorer.core.game import Game
from scorer.core.types import TableRefError

_GAMES: dict[str, Game] = {}

# Engines register themselves on import; the registry imports them lazily by id.
_MODULES = {
    "china": "scorer.games.china",
    "great_wall": "scorer.games.great_wall",
    "cheops": "scorer.games.cheops",
    "ming": "scorer.games.ming",
    "zhang_yi": "scorer.games.zhang_yi",
}


class UnknownGame(TableRefError, KeyError):
    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; known: {', '.join(sorted(available_ids()))}"


def register(game: Game) -> Game:
    _GAMES[game.id] = game
    return game


def available_ids() -> list[str]:
    """Ids whose engine module is present in this installation."""
    out = []
    for gid, mod in _MODULES.items():
        if importlib.util.find_spec(mod) is not None:
            out.append(gid)
    return out


def get_game(game_id: str) -> Game:
    if game_id not in _GAMES:
        module = _MODULES.get(game_id)
        if module is None or importlib.util.find_spec(module) is None:
            raise UnknownGame(game_id)
        importlib.import_module(module)
    if game_id not in _GAMES:
        raise UnknownGame(game_id)
    return _GAMES[game_id]


def all_games() -> list[Game]:
    return [get_game(gid) for gid in available_ids()]
