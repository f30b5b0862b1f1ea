"""Ming Dynasty board topology and component data as validated JSON (rules/ming.md sections 3 and 7).

No public source gives the district borders or the transport symbol on each, so a board is a data
file checked against ``scorer/schemas/ming-board.schema.json`` and against what the rules imply.
The shipped board is provisional; a user enters their own printed board (docs/ming.md).
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

SHIPPED_BOARDS = ("ming-provisional",)
DEFAULT_BOARD = "ming-provisional"
DRAGON = "dragon"
PROVINCES = 6
DISTRICTS_PER_PROVINCE = 3
MOVEMENT_CARDS = 54
DRAGON_CARDS = 18
TILES_PER_COLOUR = 18


@dataclass(frozen=True, slots=True)
class Province:
    id: str
    colour: str
    name: Message
    districts: tuple[str, ...]

    @property
    def space(self) -> str:
        """The province space at the board edge (where family members wait for deployment)."""
        return province_space(self.id)


def province_space(pid: str) -> str:
    return f"province-space-{pid}"


def cloister_space(district: str) -> str:
    return f"{district}-cloister"


def city_space(district: str) -> str:
    return f"{district}-city"


@dataclass(frozen=True, eq=False)
class MingBoard:
    """One printed board. Compared by identity; index fields are derived once for the hot path.

    Districts are numbered in province order (province ``i`` owns districts ``3i..3i+2``); card
    kinds are the transport symbols in file order followed by the dragon.
    """

    id: str
    provisional: bool
    provinces: tuple[Province, ...]
    symbols: tuple[str, ...]
    symbol_names: tuple[Message, ...]
    deck: tuple[int, ...]  # movement cards per symbol
    dragons: int
    return_values: tuple[int, ...]
    borders: tuple[tuple[int, int, int], ...]  # (district, district, symbol index), a < b
    score_track: int = 100
    name: Message | None = None
    notes: tuple[str, ...] = ()
    source: Mapping[str, Any] = field(default_factory=dict, repr=False)
    # derived
    districts: tuple[str, ...] = field(init=False)
    district_index: Mapping[str, int] = field(init=False, repr=False)
    district_province: tuple[int, ...] = field(init=False, repr=False)
    province_districts: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    province_index: Mapping[str, int] = field(init=False, repr=False)
    symbol_index: Mapping[str, int] = field(init=False, repr=False)
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    border_symbols: Mapping[tuple[int, int], frozenset[int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        districts = tuple(d for p in self.provinces for d in p.districts)
        set_(self, "districts", districts)
        set_(self, "district_index", {d: i for i, d in enumerate(districts)})
        set_(self, "district_province", tuple(pi for pi, p in enumerate(self.provinces) for _ in p.districts))
        set_(self, "province_districts", tuple(tuple(range(3 * pi, 3 * pi + 3)) for pi in range(len(self.provinces))))
        set_(self, "province_index", {p.id: i for i, p in enumerate(self.provinces)})
        set_(self, "symbol_index", {s: i for i, s in enumerate(self.symbols)})
        adj: list[set[int]] = [set() for _ in districts]
        sym: dict[tuple[int, int], set[int]] = {}
        for a, b, s in self.borders:
            adj[a].add(b)
            adj[b].add(a)
            sym.setdefault((a, b), set()).add(s)
            sym.setdefault((b, a), set()).add(s)
        set_(self, "neighbours", tuple(tuple(sorted(n)) for n in adj))
        set_(self, "border_symbols", {k: frozenset(v) for k, v in sym.items()})

    @property
    def dragon_kind(self) -> int:
        """Card-kind index of the dragon (after the transport symbols)."""
        return len(self.symbols)

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.symbols + (DRAGON,)

    def kind_index(self, name: str) -> int | None:
        if name == DRAGON:
            return self.dragon_kind
        return self.symbol_index.get(name)

    def symbol_label(self, kind: int) -> Message:
        if kind == self.dragon_kind:
            return Message.t('ming.board.dragon')
        return self.symbol_names[kind]

    def province_of(self, district: int) -> Province:
        return self.provinces[self.district_province[district]]

    def to_json(self) -> dict[str, Any]:
        return dict(self.source)


def board_from_json(doc: Any, where: str = "board") -> MingBoard:
    """Validate (schema + rules) and build a board; raise ``InvalidRecord`` naming the problem."""
    validate(doc, load_schema("ming-board"), where)
    problems = semantic_problems(doc)
    if problems:
        raise InvalidRecord(problems[0], where=where)
    provinces = tuple(
        Province(p["id"], p["colour"], Message(**p["name"]), tuple(p["districts"])) for p in doc["provinces"]
    )
    symbols = tuple(s["id"] for s in doc["transport_symbols"])
    sindex = {s: i for i, s in enumerate(symbols)}
    dindex = {d: i for i, d in enumerate(d for p in provinces for d in p.districts)}
    borders = tuple(
        sorted({(min(dindex[b["a"]], dindex[b["b"]]), max(dindex[b["a"]], dindex[b["b"]]), sindex[b["symbol"]]) for b in doc["borders"]})
    )
    return MingBoard(
        id=doc["id"],
        provisional=doc["provisional"],
        provinces=provinces,
        symbols=symbols,
        symbol_names=tuple(Message(**s["name"]) for s in doc["transport_symbols"]),
        deck=tuple(int(doc["movement_cards"].get(s, 0)) for s in symbols),
        dragons=int(doc["dragon_cards"]),
        return_values=tuple(int(v) for v in doc["return_cards"]["values"]),
        borders=borders,
        score_track=int(doc.get("score_track", 100)),
        name=Message(**doc["name"]) if "name" in doc else None,
        notes=tuple(doc.get("notes", ())),
        source=doc,
    )


def semantic_problems(doc: Mapping[str, Any]) -> list[str]:
    """What the rules imply about any Ming board, as readable problems (empty = ok)."""
    out: list[str] = []
    provinces = doc["provinces"]
    ids = [p["id"] for p in provinces]
    if len(provinces) != PROVINCES:
        out.append(f"$.provinces: a Ming board has 6 provinces, this one has {len(provinces)}")
    if len(set(ids)) != len(ids):
        out.append("$.provinces: province ids must be unique")
    colours = [p["colour"] for p in provinces]
    if len(set(colours)) != len(colours):
        out.append("$.provinces: the 6 provinces have 6 different colours")
    district_province: dict[str, str] = {}
    for i, p in enumerate(provinces):
        want = [f"{p['id']}d{k}" for k in range(1, DISTRICTS_PER_PROVINCE + 1)]
        if sorted(p["districts"]) != want:
            out.append(f"$.provinces[{i}].districts: province {p['id']} has exactly the districts {', '.join(want)}")
        for d in p["districts"]:
            if d in district_province:
                out.append(f"$.provinces[{i}].districts: district {d} listed twice")
            district_province[d] = p["id"]
    symbols = [s["id"] for s in doc["transport_symbols"]]
    if len(set(symbols)) != len(symbols):
        out.append("$.transport_symbols: symbol ids must be unique")
    cards = doc["movement_cards"]
    for s in cards:
        if s not in symbols:
            out.append(f"$.movement_cards.{s}: {s} is not one of the transport symbols ({', '.join(symbols)})")
    total = sum(int(v) for v in cards.values())
    if total != MOVEMENT_CARDS:
        out.append(f"$.movement_cards: the game has {MOVEMENT_CARDS} movement cards, these counts add up to {total}")
    if doc["dragon_cards"] != DRAGON_CARDS:
        out.append(f"$.dragon_cards: the game has {DRAGON_CARDS} dragon cards, not {doc['dragon_cards']}")
    adj: dict[str, set[str]] = {d: set() for d in district_province}
    seen: set[tuple[frozenset[str], str]] = set()
    used_symbols: set[str] = set()
    for i, b in enumerate(doc["borders"]):
        a, c, s = b["a"], b["b"], b["symbol"]
        if a not in district_province or c not in district_province:
            out.append(f"$.borders[{i}]: border {a}-{c} names a district that does not exist")
            continue
        if a == c:
            out.append(f"$.borders[{i}]: a border separates two different districts")
            continue
        if s not in symbols:
            out.append(f"$.borders[{i}]: symbol {s!r} is not one of the transport symbols ({', '.join(symbols)})")
            continue
        key = (frozenset((a, c)), s)
        if key in seen:
            out.append(f"$.borders[{i}]: border {a}-{c} with symbol {s} is listed twice")
        seen.add(key)
        adj[a].add(c)
        adj[c].add(a)
        used_symbols.add(s)
    for s in symbols:
        if s not in used_symbols:
            out.append(f"$.transport_symbols: symbol {s} is printed on no border")
        elif int(cards.get(s, 0)) == 0:
            out.append(f"$.movement_cards.{s}: borders show {s}, so some movement cards must show it")
    lonely = [d for d, n in adj.items() if not n]
    if lonely:
        out.append(f"$.borders: every district borders another; these do not: {', '.join(sorted(lonely))}")
    elif adj and not _connected(set(adj), adj):
        out.append("$.borders: the 18 districts must form one connected map")
    for i, p in enumerate(provinces):
        own = set(p["districts"]) & set(adj)
        if len(own) == DISTRICTS_PER_PROVINCE and not _connected(own, {d: adj[d] & own for d in own}):
            out.append(f"$.borders: the districts of province {p['id']} around its city must border each other (they are not connected)")
    return out


def _connected(nodes: set[str], adj: Mapping[str, set[str]]) -> bool:
    start = min(nodes)
    seen, todo = {start}, [start]
    while todo:
        cur = todo.pop()
        for n in adj[cur]:
            if n in nodes and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == nodes


@lru_cache(maxsize=None)
def _shipped(ref: str) -> MingBoard:
    text = resources.files("scorer.games.ming").joinpath("boards", f"{ref}.json").read_text("utf-8")
    return board_from_json(json.loads(text), where=f"board {ref}")


def load_board(ref: str | None = None) -> MingBoard:
    """A shipped board id (``ming-provisional``) or a path to a board file."""
    ref = ref or DEFAULT_BOARD
    if ref in SHIPPED_BOARDS:
        return _shipped(ref)
    if os.path.exists(ref) or ref.endswith(".json"):
        return board_from_json(read_json(ref, "board"), where=f"board {ref}")
    raise InvalidRecord(f"unknown board {ref!r}; shipped boards: {', '.join(SHIPPED_BOARDS)}, or give a file path")
