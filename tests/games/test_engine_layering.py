"""Each game's rules engine stands on its own (issue 14, item 7).

``engine.py`` holds ``<Name>Engine``: every part of ``scorer.core.Game`` except ``explain``, the
reading of sensed boards. ``explain.py`` imports the engine, and ``game.py`` joins the two as
``<Name>Game`` (with ``GAME``). So engine.py must import neither explain.py nor game.py -- not at
the top, not inside a function, not under ``TYPE_CHECKING`` -- or the import cycle comes back. And
it stays short enough to read: whole concerns (set-up, reporting, the automatic flow...) live in
modules of their own.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from scorer.core.game import Game

GAMES_DIR = Path(__file__).resolve().parents[2] / "scorer" / "games"
GAMES = ("china", "cheops", "great_wall", "ming", "zhang_yi")
SENSING_HOOKS = {"explain", "camera_declarations", "shown_board", "sensed_owners", "seen_disagreements", "hidden_under",
                  "fixed_spaces"}  # what game.py may add to the rules (scorer.core.game.Game)
MAX_ENGINE_LINES = 520


def class_stem(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_"))


def imported_modules(source: str, package: str) -> set[str]:
    """Every module the source imports, anywhere in it (function bodies too), as dotted names.

    ``from pkg import name`` counts as importing ``pkg`` and ``pkg.name`` (``name`` may be a
    module); relative imports are resolved against ``package``; ``importlib.import_module`` and
    ``__import__`` calls with a literal name count as well."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
        elif (isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module", "__import__")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)
    return found


def test_the_scan_sees_every_kind_of_import():
    source = (
        "import scorer.games.x.a\n"
        "from scorer.games.x import b\n"
        "from .c import thing\n"
        "def f():\n"
        "    from . import d\n"
        "    from ..x.e import other\n"
        "if TYPE_CHECKING:\n"
        "    from scorer.games.x.f import G\n"
        "importlib.import_module('scorer.games.x.g')\n"
    )
    found = imported_modules(source, "scorer.games.x")
    for name in "abcdefg":
        assert f"scorer.games.x.{name}" in found, name


@pytest.mark.parametrize("game_id", GAMES)
def test_engine_imports_neither_explain_nor_game(game_id):
    package = f"scorer.games.{game_id}"
    path = GAMES_DIR / game_id / "engine.py"
    found = imported_modules(path.read_text("utf-8"), package)
    bad = sorted(found & {f"{package}.explain", f"{package}.game"})
    assert not bad, f"{path.relative_to(GAMES_DIR.parents[1])} imports {bad}: the rules engine must not depend on sensing"


@pytest.mark.parametrize("game_id", GAMES)
def test_engine_stays_short(game_id):
    path = GAMES_DIR / game_id / "engine.py"
    lines = len(path.read_text("utf-8").splitlines())
    assert lines <= MAX_ENGINE_LINES, f"{path.relative_to(GAMES_DIR.parents[1])} has {lines} lines (at most {MAX_ENGINE_LINES})"


@pytest.mark.parametrize("game_id", GAMES)
def test_game_is_the_rules_plus_explain(game_id):
    stem = class_stem(game_id)
    rules_cls = getattr(importlib.import_module(f"scorer.games.{game_id}.engine"), f"{stem}Engine")
    game_mod = importlib.import_module(f"scorer.games.{game_id}.game")
    game_cls = getattr(game_mod, f"{stem}Game")
    package = importlib.import_module(f"scorer.games.{game_id}")
    assert issubclass(rules_cls, Game) and issubclass(game_cls, rules_cls)
    assert "explain" in rules_cls.__abstractmethods__  # the rules leave it to game.py
    assert not game_cls.__abstractmethods__
    # its only additions are the sensing hooks of scorer.core.game.Game (explain; optional camera_declarations, shown_board,
    # sensed_owners, seen_disagreements, hidden_under, fixed_spaces)
    assert {name for name in vars(game_cls) if not name.startswith("_")} <= SENSING_HOOKS
    assert "explain" in vars(game_cls)
    assert package.GAME is game_mod.GAME and type(package.GAME) is game_cls
    assert getattr(package, f"{stem}Game") is game_cls
