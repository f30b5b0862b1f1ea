"""Find game engines by id (``"china"``, ``"great_wall"`` ...) through Python entry points.

Every game -- the five shipped ones included -- is a plugin: an installed distribution declares
an entry point in the group ``tableref.games`` whose name is the game id and whose object is the
engine (a ``scorer.core.game.Game`` instance or a ``Game`` subclass with a no-argument
constructor)::

    [project.entry-points."tableref.games"]
    china = "scorer.games.china:GAME"

Engines are imported lazily, on first use. A plugin that fails to import, or whose object is not
a game with the declared id, is reported by name (package, version, entry point) and never takes
the other games down. ``register`` adds an engine object directly (tests, embedding).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from types import ModuleType
from typing import Any

from scorer.core.game import Game
from scorer.core.types import TableRefError

log = logging.getLogger(__name__)

GROUP = "tableref.games"

_GAMES: dict[str, Game] = {}


@dataclass(frozen=True, slots=True)
class GameSource:
    """Where a game comes from: its entry point and the distribution that declares it."""

    id: str
    value: str  # "module:attribute"
    package: str | None
    version: str | None

    def label(self) -> str:
        pkg = f" from {self.package} {self.version}" if self.package else ""
        return f"{self.id} = {self.value}{pkg}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "entry_point": self.value, "package": self.package, "version": self.version}


class UnknownGame(TableRefError, KeyError):
    def __str__(self) -> str:
        known = ", ".join(sorted(available_ids())) or f"none (no {GROUP!r} entry points: is tableref installed? pip install -e .)"
        return f"unknown game {self.args[0]!r}; known: {known}"


class GamePluginError(UnknownGame):
    """A declared game that cannot be used; the message names the plugin and why."""

    def __init__(self, game_id: str, reason: str, sources: tuple[GameSource, ...] = ()) -> None:
        super().__init__(game_id, reason, sources)
        self.game_id = game_id
        self.reason = reason
        self.sources = sources

    def __str__(self) -> str:
        where = "; ".join(s.label() for s in self.sources)
        return f"game plugin {self.game_id!r} ({where}) {self.reason}" if where else f"game plugin {self.game_id!r} {self.reason}"


def register(game: Game) -> Game:
    """Make an engine object available under its id (entry points are the normal way)."""
    _GAMES[game.id] = game
    return game


@lru_cache(maxsize=1)
def _declared() -> dict[str, tuple[tuple[GameSource, metadata.EntryPoint], ...]]:
    out: dict[str, list[tuple[GameSource, metadata.EntryPoint]]] = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        source = GameSource(ep.name, ep.value, dist.name if dist else None, dist.version if dist else None)
        out.setdefault(ep.name, []).append((source, ep))
    return {gid: tuple(found) for gid, found in sorted(out.items())}


def refresh() -> None:
    """Forget what was discovered (after installing or removing a plugin in this process)."""
    _declared.cache_clear()


def sources(game_id: str) -> tuple[GameSource, ...]:
    return tuple(s for s, _ep in _declared().get(game_id, ()))


def available_ids() -> list[str]:
    """Ids declared by installed plugins plus engines registered directly."""
    return sorted(set(_declared()) | set(_GAMES))


def _load(game_id: str) -> Game:
    found = _declared().get(game_id, ())
    if not found:
        raise UnknownGame(game_id)
    srcs = tuple(s for s, _ep in found)
    if len({(s.package, s.value) for s in srcs}) > 1:
        raise GamePluginError(game_id, "is declared by more than one installed package; uninstall one", srcs)
    source, ep = found[0]
    try:
        obj: Any = ep.load()
        if isinstance(obj, type) and issubclass(obj, Game):
            obj = obj()
        elif isinstance(obj, ModuleType):  # a module that registered its engine on import
            obj = _GAMES.get(game_id, obj)
    except Exception as exc:  # any import-time failure of a plugin is that plugin's fault: name it
        raise GamePluginError(game_id, f"failed to load: {type(exc).__name__}: {exc}", (source,)) from exc
    if not isinstance(obj, Game):
        raise GamePluginError(game_id, f"does not point to a scorer.core.game.Game (got {type(obj).__name__})", (source,))
    if getattr(obj, "id", None) != game_id:
        raise GamePluginError(game_id, f"loads a game whose id is {getattr(obj, 'id', None)!r}, not {game_id!r}", (source,))
    return obj


def get_game(game_id: str) -> Game:
    game = _GAMES.get(game_id)
    if game is None:
        game = _GAMES[game_id] = _load(game_id)
    return game


_REPORTED: set[str] = set()


def all_games() -> list[Game]:
    """Every game that loads; a broken plugin is logged (once) by name and left out."""
    out = []
    for gid in available_ids():
        try:
            out.append(get_game(gid))
        except GamePluginError as exc:
            if str(exc) not in _REPORTED:
                _REPORTED.add(str(exc))
                log.error("%s", exc)
    return out


def describe() -> list[dict[str, Any]]:
    """Every declared or registered game with its origin and whether it loads (``tableref games list``)."""
    rows = []
    for gid in available_ids():
        srcs = sources(gid)
        row: dict[str, Any] = {"id": gid, "sources": [s.to_json() for s in srcs], "ok": True, "error": None}
        try:
            game = get_game(gid)
        except GamePluginError as exc:
            row.update(ok=False, error=str(exc))
        else:
            row.update(name=game.name.to_json(), min_players=game.min_players, max_players=game.max_players,
                       module=type(game).__module__)
        rows.append(row)
    return rows


# -- board kits: the optional drawing and capture hooks of a game (scorer/core/boardkit.py) ---------

_KITS: dict[str, Any] = {}


def register_board_kit(kit: Any) -> Any:
    """Offer a game's ``BoardKit`` (called by the game's package when it is imported)."""
    _KITS[kit.game] = kit
    return kit


def board_kit(game_id: str) -> Any:
    """The game's ``BoardKit``, or None for a game without one (or an unknown game).

    Loading the game imports its package, which registers its kit."""
    if game_id not in _KITS:
        try:
            get_game(game_id)
        except UnknownGame:
            return None
    return _KITS.get(game_id)
