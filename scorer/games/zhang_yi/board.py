"""Zhang Yi map data: areas, borders, cities, the set-up table and talent data, validated.

The printed map is not public (rules/zhang-yi.md section 13). Maps are JSON files checked
against ``scorer/schemas/zhang-yi-board.schema.json`` and against what the rules imply
(``semantic_problems``). The package ships:

* ``maps/sample.json`` -- an invented SAMPLE map for tests and the demo, never the printed one;
  a game on it needs ``sample_map_confirmed: true`` in the setup;
* ``maps/template.json`` -- what is known of the printed map (``complete: false``), the file a
  user copies and fills in from their own copy (docs/zhang-yi.md).
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
from scorer.games.zhang_yi.data import (
    ASSASSIN,
    COUNTERS_PER_STATE,
    GENERAL,
    STATE_INDEX,
    STATES,
    TALENT_IDS,
    TALENT_INDEX,
    TALENT_KIND,
)

SHIPPED_MAPS = ("sample", "template")
BORDER_TYPES = ("open", "river", "mountain", "river_mountain")
HEGEMONY_AREAS = 6
HEGEMONY_CITIES = 4


@dataclass(frozen=True, slots=True)
class Area:
    id: str
    name_zh: str
    name_ja: str
    name_en: str
    city: bool
    setup_state: int  # state index, -1 = neutral
    setup_strength: int
    space_id: str

    @property
    def label(self) -> Message:
        return Message(self.name_en or self.id, self.name_zh or self.name_en or self.id)


@dataclass(frozen=True, eq=False)
class ZhangYiMap:
    """One map. Compared by identity: a state refers to the map it was set up on.

    Index fields are derived once so the engine's hot path works on small ints.
    ``neighbours[i]`` lists ``(j, border_type)`` for every area adjacent to area ``i``.
    """

    id: str
    name: Message
    sample: bool
    provisional: bool
    areas: tuple[Area, ...]
    borders: tuple[tuple[int, int, str], ...]
    talent_state: tuple[int, ...]  # per talent index: state index, -1 for the assassin
    general_bonus: tuple[int, ...]  # per talent index: bonus (0 for non-generals)
    counters: tuple[tuple[int, int] | None, ...]  # per state: (counters_1_2, counters_3_4) or None
    unconfirmed_talents: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    source: Mapping[str, Any] = field(default_factory=dict, repr=False)
    # derived
    area_index: Mapping[str, int] = field(init=False, repr=False)
    space_area: Mapping[str, int] = field(init=False, repr=False)
    neighbours: tuple[tuple[tuple[int, str], ...], ...] = field(init=False, repr=False)
    border_type: Mapping[tuple[int, int], str] = field(init=False, repr=False)
    is_city: tuple[bool, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "area_index", {a.id: i for i, a in enumerate(self.areas)})
        set_(self, "space_area", {a.space_id: i for i, a in enumerate(self.areas)})
        adj: list[list[tuple[int, str]]] = [[] for _ in self.areas]
        btype: dict[tuple[int, int], str] = {}
        for a, b, t in self.borders:
            adj[a].append((b, t))
            adj[b].append((a, t))
            btype[(a, b)] = btype[(b, a)] = t
        set_(self, "neighbours", tuple(tuple(sorted(n)) for n in adj))
        set_(self, "border_type", btype)
        set_(self, "is_city", tuple(a.city for a in self.areas))

    def area(self, ident: str) -> Area:
        return self.areas[self.area_index[ident]]

    def adjacent(self, a: int, b: int) -> bool:
        return (a, b) in self.border_type

    def to_json(self) -> dict[str, Any]:
        return dict(self.source)


def map_from_json(doc: Any, where: str = "map") -> ZhangYiMap:
    """Validate (schema + rules) and build a map; raise ``InvalidRecord`` naming the problem.

    An incomplete map (``complete: false``) is refused with the list of what is missing, so a
    user filling in the printed map sees exactly what is left to enter.
    """
    validate(doc, load_schema("zhang-yi-board"), where)
    problems, warnings = semantic_problems(doc)
    if not doc["complete"]:
        missing = missing_fields(doc)
        detail = "; ".join((missing + problems)[:6]) or "set complete: true once every field is entered"
        raise InvalidRecord(
            "this Zhang Yi map is marked incomplete (complete: false) and cannot be played: " + detail
            + " -- see docs/zhang-yi.md 'Entering the printed map'",
            where=where,
        )
    if problems:
        raise InvalidRecord(problems[0] + (f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""), where=where)
    areas = tuple(
        Area(
            id=a["id"],
            name_zh=a.get("name_zh", ""),
            name_ja=a.get("name_ja", ""),
            name_en=a.get("name_en", ""),
            city=bool(a["city"]),
            setup_state=STATE_INDEX[a["setup_state"]] if a["setup_state"] else -1,
            setup_strength=int(a["setup_strength"]),
            space_id=a.get("space_id", a["id"]),
        )
        for a in doc["areas"]
    )
    index = {a.id: i for i, a in enumerate(areas)}
    borders = tuple(sorted((min(index[b["a"]], index[b["b"]]), max(index[b["a"]], index[b["b"]]), b["type"]) for b in doc["borders"]))
    by_id = {t["id"]: t for t in doc["talents"]}
    talent_state = tuple(STATE_INDEX[by_id[t]["state"]] if by_id[t]["state"] else -1 for t in TALENT_IDS)
    general_bonus = tuple(int(by_id[t].get("bonus") or 0) if TALENT_KIND[t] == GENERAL else 0 for t in TALENT_IDS)
    counters = tuple(
        (doc["states"][s]["counters_1_2"], doc["states"][s]["counters_3_4"])
        if doc["states"][s].get("counters_1_2") is not None and doc["states"][s].get("counters_3_4") is not None
        else None
        for s in STATES
    )
    if "name" in doc:
        name = Message(**doc["name"])
    else:  # a map file without a name goes by its id
        name = Message.t("name.as_given", name=doc["id"]) if "id" in doc else Message.t("zhang_yi.board.map")
    return ZhangYiMap(
        id=doc.get("id", "custom"),
        name=name,
        sample=bool(doc.get("sample", False)),
        provisional=bool(doc.get("provisional", False)),
        areas=areas,
        borders=borders,
        talent_state=talent_state,
        general_bonus=general_bonus,
        counters=counters,
        unconfirmed_talents=tuple(t for t in TALENT_IDS if by_id[t].get("state_unconfirmed")),
        warnings=tuple(warnings),
        source=doc,
    )


def missing_fields(doc: Mapping[str, Any]) -> list[str]:
    """Fields still null or empty: what a user has left to enter from the printed map."""
    out: list[str] = []
    if not doc["areas"]:
        out.append("$.areas: no areas entered yet")
    if not doc["borders"]:
        out.append("$.borders: no borders entered yet")
    for i, a in enumerate(doc["areas"]):
        for key in ("city", "setup_strength"):
            if a.get(key) is None:
                out.append(f"$.areas[{i}].{key}: not entered")
    for i, b in enumerate(doc["borders"]):
        if b.get("type") is None:
            out.append(f"$.borders[{i}].type: not entered")
    for i, t in enumerate(doc["talents"]):
        if t.get("kind") == GENERAL and t.get("bonus") is None:
            out.append(f"$.talents[{i}].bonus: combat bonus of {t['id']} not entered")
    return out


def semantic_problems(doc: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """What the rules imply about any Zhang Yi map (13.3): (problems, warnings).

    Null fields are skipped here (``missing_fields`` reports them), so an incomplete map still
    gets its other problems reported while it is being entered.
    """
    out: list[str] = []
    warn: list[str] = []
    areas = doc["areas"]
    ids = [a["id"] for a in areas]
    seen: set[str] = set()
    for i, ident in enumerate(ids):
        if ident in seen:
            out.append(f"$.areas[{i}].id: area id {ident} is used twice")
        seen.add(ident)
    spaces = [a.get("space_id", a["id"]) for a in areas]
    if len(set(spaces)) != len(spaces):
        dup = sorted({s for s in spaces if spaces.count(s) > 1})
        out.append(f"$.areas: space ids must be unique (repeated: {', '.join(dup)})")
    for i, a in enumerate(areas):
        st, n = a["setup_state"], a["setup_strength"]
        if n is None:
            continue
        if st is not None and n < 1:
            out.append(f"$.areas[{i}].setup_strength: {a['id']} starts as {st} territory, so it needs strength 1 or more")
        if st is None and n != 0:
            out.append(f"$.areas[{i}].setup_strength: {a['id']} is neutral at the start (setup_state null), so its strength must be 0")
    pairs: set[frozenset[str]] = set()
    for i, b in enumerate(doc["borders"]):
        x, y = b["a"], b["b"]
        if x not in seen or y not in seen:
            out.append(f"$.borders[{i}]: border {x}-{y} names an area that does not exist")
            continue
        if x == y:
            out.append(f"$.borders[{i}]: a border joins two different areas, not {x} with itself")
            continue
        key = frozenset((x, y))
        if key in pairs:
            out.append(f"$.borders[{i}]: border {x}-{y} is listed twice")
        pairs.add(key)
    if ids and not _connected(ids, pairs):
        warn.append("$.borders: the areas do not form one connected map (expected for the printed map; check for a missing border)")
    if areas:
        for s in STATES:
            own = [a for a in areas if a["setup_state"] == s]
            if not own:
                out.append(f"$.areas: state {s} has no set-up area (every state starts with territory)")
                continue
            if len(own) >= HEGEMONY_AREAS:
                out.append(f"$.areas: {s} would start with {len(own)} areas, which is already hegemony (6 or more areas)")
            cities = [a for a in own if a["city"]]
            if len(cities) >= HEGEMONY_CITIES:
                out.append(f"$.areas: {s} would start with {len(cities)} city areas, which is already hegemony (4 or more cities)")
            mix = doc["states"][s]
            c12, c34 = mix.get("counters_1_2"), mix.get("counters_3_4")
            if (c12 is None) != (c34 is None):
                out.append(f"$.states.{s}: give both counters_1_2 and counters_3_4, or neither")
            elif c12 is not None:
                if c12 + c34 != COUNTERS_PER_STATE:
                    out.append(f"$.states.{s}: counters_1_2 + counters_3_4 must be {COUNTERS_PER_STATE}, not {c12 + c34}")
                else:
                    from scorer.games.zhang_yi.counters import representable

                    strengths = [a["setup_strength"] for a in own if a["setup_strength"] is not None]
                    if not representable(strengths, c12, c34):
                        out.append(f"$.states.{s}: the set-up strengths {strengths} cannot be shown with {c12} counters of 1/2 and {c34} of 3/4")
    talents = doc["talents"]
    tids = [t["id"] for t in talents]
    if sorted(tids) != sorted(TALENT_IDS):
        missing = sorted(set(TALENT_IDS) - set(tids))
        dup = sorted({t for t in tids if tids.count(t) > 1})
        out.append(f"$.talents: exactly the 16 talents, once each (missing: {', '.join(missing) or 'none'}; repeated: {', '.join(dup) or 'none'})")
    for i, t in enumerate(talents):
        kind = TALENT_KIND.get(t["id"])
        if kind is not None and t["kind"] != kind:
            out.append(f"$.talents[{i}].kind: {t['id']} is a {kind} (rules section 10), not a {t['kind']}")
        if t["kind"] == ASSASSIN and t["state"] is not None:
            out.append(f"$.talents[{i}].state: the assassin belongs to no state (state must be null)")
        if t["kind"] != ASSASSIN and t["state"] is None:
            out.append(f"$.talents[{i}].state: {t['id']} belongs to a state; enter it from the counter's colour")
        if t["kind"] != GENERAL and t.get("bonus") is not None:
            out.append(f"$.talents[{i}].bonus: only generals have a combat bonus ({t['id']} is a {t['kind']})")
    if sum(1 for t in talents if t["kind"] == GENERAL) != 8:
        out.append("$.talents: there are 8 generals")
    if sum(1 for t in talents if t["kind"] == ASSASSIN) != 1:
        out.append("$.talents: there is exactly one assassin (Jing Ke)")
    return out, warn


def _connected(ids: list[str], pairs: set[frozenset[str]]) -> bool:
    adj: dict[str, set[str]] = {i: set() for i in ids}
    for p in pairs:
        x, y = tuple(p)
        adj[x].add(y)
        adj[y].add(x)
    seen, todo = {ids[0]}, [ids[0]]
    while todo:
        cur = todo.pop()
        for nxt in adj[cur]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen == set(ids)


def shipped_map_json(ref: str) -> dict[str, Any]:
    text = resources.files("scorer.games.zhang_yi").joinpath("maps", f"{ref}.json").read_text("utf-8")
    return json.loads(text)


def load_map(ref: str) -> ZhangYiMap:
    """A shipped map id (``sample``) or a path to a map file.

    Loaded maps are cached (shipped ones by id, files by path, size and modification time), so
    replaying many records does not re-validate the same file each time.
    """
    if ref in SHIPPED_MAPS:
        return _load_shipped(ref)
    if os.path.exists(ref):
        st = os.stat(ref)
        return _load_file(os.path.abspath(ref), st.st_size, st.st_mtime_ns)
    if ref.endswith(".json"):
        return map_from_json(read_json(ref, "map"), where=f"map {ref}")
    raise InvalidRecord(f"unknown Zhang Yi map {ref!r}; shipped: sample (invented, for tests/demo), or give the path of your own map file")


def talent_index(talent: str) -> int:
    return TALENT_INDEX[talent]


@lru_cache(maxsize=8)
def _load_shipped(ref: str) -> ZhangYiMap:
    return map_from_json(shipped_map_json(ref), where=f"map {ref}")


@lru_cache(maxsize=32)
def _load_file(path: str, size: int, mtime_ns: int) -> ZhangYiMap:
    return map_from_json(read_json(path, "map"), where=f"map {path}")
