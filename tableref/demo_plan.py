"""What the engine-built demo scripts share (``tableref/demo_ming_game.py``, ``tableref/demo_zhang_yi_game.py``):
a plan of moves (record JSON) after a hand-written opening, replayed through the game's engine, and the pieces
one board difference puts down and takes off at the table."""

from __future__ import annotations

from typing import Any, Iterable

UNDO = "undo"  # a plan entry: the last move is taken back (the undo and confirm buttons), its pieces off the table

Piece3 = tuple[str, str, str]  # (space, owner, kind), as ``tableref.demo_script.Step`` takes them


def played(opening: Iterable[dict[str, Any]], plan: Iterable[tuple[Any, Any]]) -> list[dict[str, Any]]:
    """The moves the demo's game record holds: the opening, then the plan's moves less those undone."""
    out = list(opening)
    for entry, _lead in plan:
        if entry == UNDO:
            out.pop()
        else:
            out.append(entry)
    return out


def replay(game_id: str, setup: dict[str, Any], moves: Iterable[dict[str, Any]]) -> tuple[Any, Any]:
    """``(game, state)``: the game set up as ``setup`` says, with ``moves`` applied (checked)."""
    from scorer.core.game import SetupOptions
    from scorer.core.registry import get_game

    game = get_game(game_id)
    state = game.setup(SetupOptions.from_json(setup))
    for data in moves:
        state = game.apply(state, game.move_from_json(data))
    return game, state


def table_changes(diff: Any) -> tuple[tuple[Piece3, ...], tuple[Piece3, ...]]:
    """(put, take) for a board difference (``Board.diff``), one entry per piece."""
    put = tuple((str(s), p.owner, p.kind) for s, p, n in diff.added for _ in range(n))
    take = tuple((str(s), p.owner, p.kind) for s, p, n in diff.removed for _ in range(n))
    return put, take
