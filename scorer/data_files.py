"""Every kind of game data file (boards, maps, decks, price tables), recognised by its ``format``.

Board data is mostly not public, so users type in their own printed board, deck or table. One
entry point validates any of those files and says which game it is for, instead of one command
per game. Each file names its kind in ``"format": "<kind>/<version>"``; the loaders below are the
same ones the engines use (schema + rules checks), so a file that validates here plays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from scorer.core.types import InvalidRecord
from scorer.core.schema import read_json


@dataclass(frozen=True, slots=True)
class DataKind:
    format: str  # the part of ``format`` before the slash
    game: str
    what: str  # "board", "map", "deck", "price tables"
    from_json: Callable[[Any, str], Any]
    shipped: tuple[str, ...]
    load_shipped: Callable[[str], Any]


def _china() -> DataKind:
    from scorer.games.china import board

    return DataKind("tableref-china-board", "china", "board", board.board_from_json, board.SHIPPED_BOARDS, board.load_board)


def _ming() -> DataKind:
    from scorer.games.ming import board

    return DataKind("tableref-ming-board", "ming", "board", board.board_from_json, board.SHIPPED_BOARDS, board.load_board)


def _great_wall() -> DataKind:
    from scorer.games.great_wall import data

    return DataKind("tableref-great-wall-deck", "great_wall", "deck", data.deck_from_json, data.SHIPPED_DECKS, data.load_deck)


def _cheops_board() -> DataKind:
    from scorer.games.cheops import data

    return DataKind("tableref-cheops-board", "cheops", "board", data.board_from_json, (data.SHIPPED_BOARD,), data.load_board)


def _cheops_prices() -> DataKind:
    from scorer.games.cheops import data

    return DataKind("tableref-cheops-price-tables", "cheops", "price tables", data.price_tables_from_json,
                    ("shipped",), data.load_price_tables)


def _zhang_yi() -> DataKind:
    from scorer.games.zhang_yi import board

    # the shipped "template" is the blank form for the printed map: incomplete on purpose
    return DataKind("zhang-yi-map", "zhang_yi", "map", board.map_from_json, ("sample",), board.load_map)


_FACTORIES = (_china, _great_wall, _cheops_board, _cheops_prices, _ming, _zhang_yi)


def data_kinds() -> tuple[DataKind, ...]:
    return tuple(f() for f in _FACTORIES)


def kind_of(doc: Any, where: str = "file") -> DataKind:
    """The kind named by the document's ``format`` field; a clear error when there is none."""
    kinds = data_kinds()
    known = ", ".join(f"{k.format}/1 ({k.game} {k.what})" for k in kinds)
    fmt = doc.get("format") if isinstance(doc, Mapping) else None
    if not isinstance(fmt, str):
        raise InvalidRecord(f"no \"format\" field, so the kind of data is unknown; expected one of: {known}", where=where)
    prefix = fmt.split("/", 1)[0]
    for k in kinds:
        if k.format == prefix:
            return k
    raise InvalidRecord(f"unknown format {fmt!r}; expected one of: {known}", where=where)


def validate_file(path: str) -> tuple[DataKind, Any]:
    """Read, recognise and validate a data file; ``InvalidRecord`` names the first problem."""
    doc = read_json(path, "data file")
    kind = kind_of(doc, where=path)
    return kind, kind.from_json(doc, f"{kind.what} {path}")


def summary(kind: DataKind, obj: Any) -> dict[str, Any]:
    """What a person checking a file wants to see at a glance (same keys for every kind)."""
    out: dict[str, Any] = {
        "game": kind.game,
        "kind": kind.what,
        "id": getattr(obj, "id", None),
        "provisional": bool(getattr(obj, "provisional", False)),
    }
    if kind.game == "china":
        out.update({
            "side": obj.side,
            "provinces": {p.id: len(p.sites) for p in obj.provinces},
            "house_sites": len(obj.sites),
            "roads": len(obj.roads),
            "alliances": len(obj.alliances),
        })
    elif kind.what == "price tables":
        out["tables"] = len(obj.tables)
    return out
