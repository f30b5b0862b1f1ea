"""JSON game records: validate, parse and replay them through the game's engine.

A record is the setup plus the moves. Replaying it is how ``tableref score``/``check`` work and how
the referee's event store rebuilds a game after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scorer.core.game import Game, SetupOptions
from scorer.core.registry import UnknownGame, get_game
from scorer.core.schema import load_schema, read_json, validate
from scorer.core.types import IllegalMove, InvalidRecord

RECORD_FORMAT = "tableref-record/1"


@dataclass(frozen=True)
class Record:
    game: Game
    setup: SetupOptions
    moves: tuple[Any, ...]
    raw: Mapping[str, Any]


@dataclass(frozen=True)
class Replay:
    """The result of replaying a record: the last legal state and, if any, the first illegal move."""

    record: Record
    state: Any
    applied: int
    illegal_index: int | None = None
    illegal: IllegalMove | None = None

    @property
    def ok(self) -> bool:
        return self.illegal is None


def parse_record(doc: Any, where: str = "record") -> Record:
    """Check the envelope, then the game's own setup and move schemas; name the bad field."""
    validate(doc, load_schema("record"), where)
    try:
        game = get_game(doc["game"])
    except UnknownGame as exc:
        raise InvalidRecord(str(exc), where=f"{where} $.game") from None
    validate(doc["setup"], game.setup_schema(), f"{where} setup")
    move_schema = game.move_schema()
    moves = []
    for i, entry in enumerate(doc["moves"]):
        validate(entry, move_schema, f"{where} moves[{i}]")
        moves.append(game.move_from_json(entry))
    return Record(game, SetupOptions.from_json(doc["setup"]), tuple(moves), doc)


def load_record(path: str) -> Record:
    return parse_record(read_json(path, "record"), where=f"record {path}")


def replay(record: Record, *, stop_at_illegal: bool = True) -> Replay:
    """Apply every move in order; stop at the first illegal one (the state before it is kept)."""
    game = record.game
    state = game.setup(record.setup)
    for i, move in enumerate(record.moves):
        try:
            state = game.apply(state, move)
        except IllegalMove as exc:
            return Replay(record, state, i, i, exc)
    return Replay(record, state, len(record.moves))


def to_record(game: Game, setup: SetupOptions, moves: list[Any], meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": game.id,
        "setup": setup.to_json(),
        "moves": [game.move_to_json(m) for m in moves],
    }
    if meta:
        doc["meta"] = dict(meta)
    return doc
