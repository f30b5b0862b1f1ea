"""China board topology as validated data (rules/china.md section 3).

The printed boards' topology is not public, so boards are JSON files checked against a schema
and against what the rules imply. The shipped boards are provisional; users capture their own.
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

CARD_COLOURS = ("violet", "yellow", "orange", "green", "red")
SHIPPED_BOARDS = ("china-a", "china-b")


def card_colour_label(colour: str) -> Message:
    """A card's colour in every language (the shared ``colour.<name>`` keys); an unknown one as written."""
    if colour in CARD_COLOURS:
        return Message.t(f"colour.{colour}")
    return Message.t("name.as_given", name=colour)


@dataclass(frozen=True, slots=True)
class Province:
    id: str
    name_zh: str
    pinyin: str
    colour: str
    sites: tuple[str, ...]
    dragon: str

    @property
    def label(self) -> Message:
        return Message(self.pinyin, self.name_zh)


@dataclass(frozen=True, eq=False)
class ChinaBoard:
    """One printed side. Compared by identity: a state refers to the board it was set up on.

    Index fields (``site_province`` ...) are derived once so the engine's hot path works on ints.
    """

    id: str
    side: str
    provisional: bool
    player_counts: tuple[int, ...]
    provinces: tuple[Province, ...]
    alliances: tuple[tuple[int, int, int], ...]  # (number, province index, province index), sorted
    roads: tuple[tuple[int, int], ...]  # site index pairs
    name: Message | None = None
    notes: tuple[str, ...] = ()
    source: Mapping[str, Any] = field(default_factory=dict, repr=False)
    # derived
    sites: tuple[str, ...] = field(init=False)
    site_index: Mapping[str, int] = field(init=False, repr=False)
    site_province: tuple[int, ...] = field(init=False, repr=False)
    province_sites: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    province_index: Mapping[str, int] = field(init=False, repr=False)
    dragon_index: Mapping[str, int] = field(init=False, repr=False)
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        sites = tuple(s for p in self.provinces for s in p.sites)
        site_index = {s: i for i, s in enumerate(sites)}
        set_ = object.__setattr__
        set_(self, "sites", sites)
        set_(self, "site_index", site_index)
        set_(self, "site_province", tuple(pi for pi, p in enumerate(self.provinces) for _ in p.sites))
        set_(self, "province_sites", tuple(tuple(site_index[s] for s in p.sites) for p in self.provinces))
        set_(self, "province_index", {p.id: i for i, p in enumerate(self.provinces)})
        set_(self, "dragon_index", {p.dragon: i for i, p in enumerate(self.provinces)})
        adj: list[set[int]] = [set() for _ in sites]
        for a, b in self.roads:
            adj[a].add(b)
            adj[b].add(a)
        set_(self, "neighbours", tuple(tuple(sorted(n)) for n in adj))

    def _key(self) -> tuple[Any, ...]:
        return (self.id, self.side, self.provisional, self.player_counts, self.provinces, self.alliances, self.roads)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, ChinaBoard) and self._key() == other._key())

    def __hash__(self) -> int:
        return hash((self.id, self.roads))

    def province(self, pid: str) -> Province:
        return self.provinces[self.province_index[pid]]

    def to_json(self) -> dict[str, Any]:
        return dict(self.source)


def board_from_json(doc: Any, where: str = "board") -> ChinaBoard:
    """Validate (schema + rules) and build a board; raise ``InvalidRecord`` naming the problem."""
    validate(doc, load_schema("china-board"), where)
    problems = semantic_problems(doc)
    if problems:
        raise InvalidRecord(problems[0], where=where)
    provinces = tuple(
        Province(p["id"], p["name_zh"], p["pinyin"], p["colour"], tuple(p["sites"]), p["dragon"])
        for p in doc["provinces"]
    )
    pindex = {p.id: i for i, p in enumerate(provinces)}
    sindex = {s: i for i, s in enumerate(s for p in provinces for s in p.sites)}
    alliances = tuple(
        sorted((a["number"], pindex[a["provinces"][0]], pindex[a["provinces"][1]]) for a in doc["alliances"])
    )
    roads = tuple(sorted({tuple(sorted((sindex[a], sindex[b]))) for a, b in doc["roads"]}))
    name = Message(**doc["name"]) if "name" in doc else None
    return ChinaBoard(
        id=doc["id"],
        side=doc["side"],
        provisional=doc["provisional"],
        player_counts=tuple(doc["players"]),
        provinces=provinces,
        alliances=alliances,  # type: ignore[arg-type]
        roads=roads,  # type: ignore[arg-type]
        name=name,
        notes=tuple(doc.get("notes", ())),
        source=doc,
    )


def semantic_problems(doc: Mapping[str, Any]) -> list[str]:
    """What the rules imply about any China board, as a list of readable problems (empty = ok)."""
    out: list[str] = []
    provinces = doc["provinces"]
    ids = [p["id"] for p in provinces]
    if len(provinces) != 9:
        out.append(f"$.provinces: a China board has 9 provinces, this one has {len(provinces)}")
    if len(set(ids)) != len(ids):
        out.append("$.provinces: province ids must be unique")
    colour_of = {p["id"]: p["colour"] for p in provinces}
    by_colour: dict[str, list[str]] = {}
    for p in provinces:
        by_colour.setdefault(p["colour"], []).append(p["id"])
    for colour in CARD_COLOURS:
        want = 1 if colour == "violet" else 2
        have = by_colour.get(colour, [])
        if len(have) != want:
            out.append(f"$.provinces: colour {colour} must cover {want} province(s), found {len(have)} ({', '.join(have) or 'none'})")
    if by_colour.get("violet") and by_colour["violet"] != ["chu"]:
        out.append("$.provinces: Chu must be the only violet province")
    all_sites: list[str] = []
    for i, p in enumerate(provinces):
        n = len(p["sites"])
        if not 4 <= n <= 8:
            out.append(f"$.provinces[{i}].sites: a province has 4 to 8 house sites, {p['id']} has {n}")
        if p["dragon"] != f"{p['id']}-dragon":
            out.append(f"$.provinces[{i}].dragon: must be '{p['id']}-dragon'")
        for s in p["sites"]:
            if not s.startswith(p["id"] + "-"):
                out.append(f"$.provinces[{i}].sites: site {s} must be named '{p['id']}-<n>'")
        all_sites.extend(p["sites"])
    if len(set(all_sites)) != len(all_sites):
        out.append("$.provinces: house site ids must be unique across the board")
    numbers = sorted(a["number"] for a in doc["alliances"])
    if numbers != list(range(1, 16)):
        out.append(f"$.alliances: alliances must be numbered 1 to 15 exactly once, found {numbers}")
    pairs: set[frozenset[str]] = set()
    for i, a in enumerate(doc["alliances"]):
        x, y = a["provinces"]
        if x not in colour_of or y not in colour_of:
            out.append(f"$.alliances[{i}]: unknown province in {x}-{y}")
            continue
        if x == y:
            out.append(f"$.alliances[{i}]: an alliance joins two different provinces")
        if colour_of[x] == colour_of[y]:
            out.append(f"$.alliances[{i}]: {x} and {y} share a colour, and same-colour provinces never border")
        pair = frozenset((x, y))
        if pair in pairs:
            out.append(f"$.alliances[{i}]: {x}-{y} appears twice (every neighbouring pair has exactly one alliance)")
        pairs.add(pair)
    province_of = {s: p["id"] for p in provinces for s in p["sites"]}
    touched: set[str] = set()
    seen_roads: set[frozenset[str]] = set()
    for i, (a, b) in enumerate(doc["roads"]):
        if a not in province_of or b not in province_of:
            out.append(f"$.roads[{i}]: road {a}-{b} joins a site that does not exist")
            continue
        if a == b:
            out.append(f"$.roads[{i}]: a road joins two different sites")
        key = frozenset((a, b))
        if key in seen_roads:
            out.append(f"$.roads[{i}]: road {a}-{b} listed twice")
        seen_roads.add(key)
        pa, pb = province_of[a], province_of[b]
        if pa != pb and frozenset((pa, pb)) not in pairs:
            out.append(f"$.roads[{i}]: road {a}-{b} crosses between {pa} and {pb}, which are not neighbours (no alliance)")
        touched.update((a, b))
    lonely = [s for s in all_sites if s not in touched]
    if lonely:
        out.append(f"$.roads: every house site touches a road; these do not: {', '.join(lonely)}")
    if not _connected(ids, pairs):
        out.append("$.alliances: the provinces must form one connected map")
    return out


def _connected(ids: list[str], pairs: set[frozenset[str]]) -> bool:
    if not ids:
        return False
    seen, todo = {ids[0]}, [ids[0]]
    while todo:
        cur = todo.pop()
        for pair in pairs:
            if cur in pair:
                (other,) = pair - {cur} or {cur}
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
    return seen == set(ids)


@lru_cache(maxsize=None)
def shipped_board(ref: str) -> ChinaBoard:
    text = resources.files("scorer.games.china").joinpath("boards", f"{ref}.json").read_text("utf-8")
    return board_from_json(json.loads(text), where=f"board {ref}")


def load_board(ref: str) -> ChinaBoard:
    """A shipped board id (``china-a``) or a path to a board file."""
    if ref in SHIPPED_BOARDS:
        return shipped_board(ref)
    if os.path.exists(ref) or ref.endswith(".json"):
        return board_from_json(read_json(ref, "board"), where=f"board {ref}")
    raise InvalidRecord(f"unknown board {ref!r}; shipped boards: {', '.join(SHIPPED_BOARDS)}, or give a file path")


def default_board_for(players: int) -> str:
    """Side A for 3-4 players, side B for 5 (rules/china.md 2.1)."""
    return "china-b" if players >= 5 else "china-a"
