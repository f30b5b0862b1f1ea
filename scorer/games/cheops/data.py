"""Cheops data: the pyramid (fixed by the rules) and the two data files that are not public.

* The pyramid has 11 rows, 1 space at the apex and 11 at the base (rules/cheops.md section 9).
  Space ids are ``r<row>c<column>``: row 1 is the apex, row 11 the base, column 1 the leftmost.
  A space rests on the two spaces below it; "adjacent" (the same-face rule) means left/right in
  the row, the two spaces below and the two above -- like a hex grid.
* ``board.json`` says which 6 spaces carry the eye (law) symbol and names the 6 treasure colours.
* ``price_tables.json`` holds the 16 printed price tables.

Both files are validated against a JSON Schema and against what the rules imply; the shipped
ones are provisional (invented where unknown, by scripts/make_provisional_cheops_data.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from scorer.core.schema import load_schema, read_json, validate
from scorer.core.types import InvalidRecord, Message

ROWS = 11
FACES = ("A", "B", "C", "D")
NEIGHBOUR = "neighbour"
TREASURES_PER_COLOUR = 11  # one of them marks the price column
TILES_PER_FACE = 16
LAW_NUMBERS = tuple(range(1, 13))
LAWS_IN_GAME = 6
TABLES_PER_TYPE = {"I": 6, "II": 6, "III": 4}
DRAWN_PER_TYPE = {"I": 2, "II": 2, "III": 2}
SHIPPED_BOARD = "cheops"


def face_name(face: str) -> Message:
    """A family face's printed name ("A" / "甲"; catalogue key ``cheops.face.<face>``)."""
    return Message.t(f"cheops.face.{face}")


def face_label(face: str) -> Message:
    """A family tile as texts name it ("family tile A" / "家族成员甲（A）"; ``cheops.face_label.<face>``)."""
    return Message.t(f"cheops.face_label.{face}")


def space_id(row: int, col: int) -> str:
    return f"r{row}c{col}"


def column_spaces(colour: str) -> tuple[str, str, str]:
    """A price column's spaces: its dot (the colour's marker scarab), the price table, the law under it."""
    return f"dot-{colour}", f"price-{colour}", f"price-{colour}-law"


SPACES: tuple[str, ...] = tuple(space_id(r, c) for r in range(1, ROWS + 1) for c in range(1, r + 1))
SPACE_INDEX: Mapping[str, int] = {s: i for i, s in enumerate(SPACES)}
ROW_OF: tuple[int, ...] = tuple(r for r in range(1, ROWS + 1) for _ in range(r))


def _build_topology() -> tuple[tuple[tuple[int, int] | None, ...], tuple[tuple[int, ...], ...]]:
    below: list[tuple[int, int] | None] = []
    adjacent: list[tuple[int, ...]] = []
    for r in range(1, ROWS + 1):
        for c in range(1, r + 1):
            below.append((SPACE_INDEX[space_id(r + 1, c)], SPACE_INDEX[space_id(r + 1, c + 1)]) if r < ROWS else None)
            adj = []
            for rr, cc in ((r, c - 1), (r, c + 1), (r + 1, c), (r + 1, c + 1), (r - 1, c - 1), (r - 1, c)):
                if 1 <= rr <= ROWS and 1 <= cc <= rr:
                    adj.append(SPACE_INDEX[space_id(rr, cc)])
            adjacent.append(tuple(sorted(adj)))
    return tuple(below), tuple(adjacent)


BELOW, ADJACENT = _build_topology()
"""``BELOW[i]``: the two spaces space i rests on (None on the base row); ``ADJACENT[i]``: its up to 6 neighbours."""


def topology_json() -> dict[str, Any]:
    """The pyramid in the format of rules/cheops.md 9.1 (for docs and cross-checks)."""
    out: dict[str, Any] = {}
    for i, s in enumerate(SPACES):
        r = ROW_OF[i]
        c = int(s.split("c")[1])
        out[s] = {
            "row": r,
            "same_row": [space_id(r, cc) for cc in (c - 1, c + 1) if 1 <= cc <= r],
            "below": [SPACES[j] for j in BELOW[i]] if BELOW[i] else [],
            "above": [space_id(r - 1, cc) for cc in (c - 1, c) if r > 1 and 1 <= cc <= r - 1],
        }
    return out


# -- board file -----------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class CheopsBoard:
    """Board data; compared by identity (a state refers to the board it was set up on)."""

    id: str
    provisional: bool
    eye_spaces: tuple[str, ...]
    colours: tuple[str, ...]
    colour_zh: Mapping[str, str]
    name: Message | None = None
    source: Mapping[str, Any] = field(default_factory=dict, repr=False)
    eye_index: frozenset[int] = field(init=False, repr=False)
    colour_index: Mapping[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "eye_index", frozenset(SPACE_INDEX[s] for s in self.eye_spaces))
        object.__setattr__(self, "colour_index", {c: i for i, c in enumerate(self.colours)})

    def colour_name(self, colour: str) -> Message:
        """A treasure colour's name as the board file gives it ("red" / "红")."""
        return Message.of({"en": colour, "zh": self.colour_zh.get(colour, colour)})

    def colour_label(self, colour: str) -> Message:
        """A treasure colour as texts name it ("red" / "红色"; ``cheops.treasure_colour``)."""
        return Message.t("cheops.treasure_colour", colour=self.colour_name(colour))


def board_problems(doc: Mapping[str, Any]) -> list[str]:
    out = []
    for i, s in enumerate(doc["eye_spaces"]):
        if s not in SPACE_INDEX:
            out.append(f"$.eye_spaces[{i}]: {s} is not a pyramid space (row r has columns 1..r)")
    ids = [c["id"] for c in doc["treasure_colours"]]
    if len(set(ids)) != len(ids):
        out.append("$.treasure_colours: colour ids must be unique")
    if NEIGHBOUR in ids or any(i.startswith("kept") for i in ids):
        out.append("$.treasure_colours: 'neighbour' and 'kept...' are reserved words")
    if not doc["provisional"] and doc.get("provisional_fields"):
        out.append("$.provisional_fields: a board marked provisional: false cannot list provisional fields")
    return out


def board_from_json(doc: Any, where: str = "board") -> CheopsBoard:
    validate(doc, load_schema("cheops-board"), where)
    problems = board_problems(doc)
    if problems:
        raise InvalidRecord(problems[0], where=where)
    colours = tuple(c["id"] for c in doc["treasure_colours"])
    return CheopsBoard(
        id=doc["id"],
        provisional=bool(doc["provisional"]),
        eye_spaces=tuple(sorted(doc["eye_spaces"], key=SPACE_INDEX.__getitem__)),
        colours=colours,
        colour_zh={c["id"]: c["zh"] for c in doc["treasure_colours"]},
        name=Message(**doc["name"]) if "name" in doc else None,
        source=doc,
    )


@lru_cache(maxsize=1)
def _shipped_board() -> CheopsBoard:
    text = resources.files("scorer.games.cheops").joinpath("board.json").read_text("utf-8")
    return board_from_json(json.loads(text), where="board cheops")


def load_board(ref: str | None = None) -> CheopsBoard:
    """The shipped board (``cheops``) or a path to a board file."""
    ref = ref or SHIPPED_BOARD
    if ref == SHIPPED_BOARD:
        return _shipped_board()
    if os.path.exists(ref) or ref.endswith(".json"):
        return board_from_json(read_json(ref, "board"), where=f"board {ref}")
    raise InvalidRecord(f"unknown board {ref!r}; the shipped board is 'cheops', or give a file path")


# -- price tables ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Number:
    """A single printed number: every treasure of the colour is worth ``value``."""

    value: int

    def to_json(self) -> Any:
        return self.value

    def label(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two numbers: the sole majority holder gets ``sole_majority`` (the smaller), others ``others``."""

    sole_majority: int
    others: int

    def to_json(self) -> Any:
        return {"sole_majority": self.sole_majority, "others": self.others}

    def label(self) -> str:
        return f"{self.sole_majority}/{self.others}"


@dataclass(frozen=True, slots=True)
class Times:
    """"X n": each treasure is worth (number of treasures of the colour counted) x n."""

    x: int

    def to_json(self) -> Any:
        return {"x": self.x}

    def label(self) -> str:
        return f"X{self.x}"


Entry = Number | Pair | Times


def entry_from_json(data: Any) -> Entry:
    if isinstance(data, int):
        return Number(data)
    if "x" in data:
        return Times(int(data["x"]))
    return Pair(int(data["sole_majority"]), int(data["others"]))


@dataclass(frozen=True, slots=True)
class PriceTable:
    id: str
    type: str
    entries: tuple[Entry, ...]
    provisional: bool = True

    @property
    def capacity(self) -> int:
        """How many scarabs it takes before it is full: every entry but the bottom one."""
        return len(self.entries) - 1


@dataclass(frozen=True, eq=False)
class PriceTables:
    provisional: bool
    tables: tuple[PriceTable, ...]
    source: Mapping[str, Any] = field(default_factory=dict, repr=False)
    by_id: Mapping[str, PriceTable] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {t.id: t for t in self.tables})

    def of_type(self, kind: str) -> list[PriceTable]:
        return [t for t in self.tables if t.type == kind]


def price_table_problems(doc: Mapping[str, Any]) -> list[str]:
    out = []
    tables = doc["tables"]
    ids = [t["id"] for t in tables]
    if len(set(ids)) != len(ids):
        out.append("$.tables: table ids must be unique")
    for kind, want in TABLES_PER_TYPE.items():
        have = sum(1 for t in tables if t["type"] == kind)
        if have != want:
            out.append(f"$.tables: the box holds {want} tables of type {kind}, this file has {have}")
    for i, t in enumerate(tables):
        if t["id"].split("-")[0] != t["type"]:
            out.append(f"$.tables[{i}].id: {t['id']} must start with its type ({t['type']}-)")
        for j, e in enumerate(t["entries"]):
            if isinstance(e, dict) and "sole_majority" in e and e["sole_majority"] > e["others"]:
                out.append(f"$.tables[{i}].entries[{j}]: the sole majority gets the smaller number, so sole_majority "
                           f"({e['sole_majority']}) must not exceed others ({e['others']})")
        if not doc["provisional"] and t.get("provisional"):
            out.append(f"$.tables[{i}]: the file is marked provisional: false but table {t['id']} is still provisional")
    return out


def price_tables_from_json(doc: Any, where: str = "price tables") -> PriceTables:
    validate(doc, load_schema("cheops-price-tables"), where)
    problems = price_table_problems(doc)
    if problems:
        raise InvalidRecord(problems[0], where=where)
    tables = tuple(
        PriceTable(t["id"], t["type"], tuple(entry_from_json(e) for e in t["entries"]), bool(t.get("provisional", doc["provisional"])))
        for t in doc["tables"]
    )
    return PriceTables(bool(doc["provisional"]) or any(t.provisional for t in tables), tables, doc)


@lru_cache(maxsize=1)
def _shipped_price_tables() -> PriceTables:
    text = resources.files("scorer.games.cheops").joinpath("price_tables.json").read_text("utf-8")
    return price_tables_from_json(json.loads(text), where="price tables (shipped)")


def load_price_tables(ref: str | None = None) -> PriceTables:
    """The shipped tables (``None`` or ``"shipped"``) or a path to a price-table file."""
    if ref in (None, "shipped"):
        return _shipped_price_tables()
    return price_tables_from_json(read_json(ref, "price tables"), where=f"price tables {ref}")
