"""Which antenna lies under which board space (a JSON file per board), and the pure step that
turns the sensor board's antenna -> tags table into an ``Observation``.

Several antennas may serve one space (a large dragon space); every mapped space is reported in
each observation, empty or not, so "covered and empty" stays different from "not covered".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import jsonschema

from hardware.tag_registry import Card, TagRegistry
from scorer.core import InvalidRecord, Piece, SpaceId, safejson
from scorer.core.observation import Observation, SpaceReading

SOURCE = "sensor-board"

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tableref sensor-board wiring map",
    "type": "object",
    "required": ["board", "antennas"],
    "additionalProperties": False,
    "properties": {
        "board": {"type": "string", "minLength": 1},
        "provisional": {"type": "boolean"},
        "note": {"type": "string"},
        "antennas": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": "^(25[0-3]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$"},
            "additionalProperties": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]*$"},
        },
    },
}


@dataclass(frozen=True, slots=True)
class WiringMap:
    board: str
    antennas: tuple[tuple[int, SpaceId], ...]
    provisional: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, object], where: str = "wiring map") -> "WiringMap":
        try:
            jsonschema.validate(data, SCHEMA)
        except jsonschema.ValidationError as exc:
            raise InvalidRecord(exc.message, where) from exc
        antennas = data["antennas"]
        assert isinstance(antennas, Mapping)
        pairs = tuple(sorted((int(a), SpaceId(str(s))) for a, s in antennas.items()))
        return cls(str(data["board"]), pairs, bool(data.get("provisional", False)))

    @classmethod
    def load(cls, path: str | Path) -> "WiringMap":
        p = Path(path)
        data = safejson.load_file(str(p), "wiring map")
        return cls.from_json(data, str(p))

    @classmethod
    def of(cls, mapping: Mapping[int, str], board: str = "test") -> "WiringMap":
        return cls.from_json({"board": board, "antennas": {str(a): s for a, s in mapping.items()}})

    def to_json(self) -> dict[str, object]:
        return {"board": self.board, "provisional": self.provisional,
                "antennas": {str(a): s for a, s in self.antennas}}

    def space_of(self, antenna: int) -> SpaceId | None:
        for a, s in self.antennas:
            if a == antenna:
                return s
        return None

    def spaces(self) -> tuple[SpaceId, ...]:
        return tuple(sorted(set(s for _, s in self.antennas)))


@dataclass(frozen=True, slots=True)
class Mapped:
    """The table seen through the wiring map and the registry, before it is stamped with a time."""

    readings: tuple[SpaceReading, ...]
    unknown: tuple[tuple[SpaceId, str], ...]           # (space, uid) of tags no registry knows
    not_pieces: tuple[tuple[SpaceId, str, Card], ...]  # known tags that are cards, not pieces
    unmapped: tuple[tuple[int, str], ...]              # (antenna, uid) on antennas the map lacks


def map_table(table: Mapping[int, Iterable[bytes | str]], wiring: WiringMap, registry: TagRegistry,
              changed: Mapping[int, float] | None = None) -> Mapped:
    """Pure: one reading per covered space; unknown tags are listed, never guessed. ``changed``
    (antenna -> when it last changed) gives each space the latest change time of its antennas."""
    by_space: dict[SpaceId, list[str]] = {s: [] for s in wiring.spaces()}
    when: dict[SpaceId, float] = {}
    for antenna, t in (changed or {}).items():
        space = wiring.space_of(antenna)
        if space is not None:
            when[space] = max(t, when.get(space, t))
    unmapped = []
    for antenna, uids in sorted(table.items()):
        hexes = sorted(u.hex().upper() if isinstance(u, (bytes, bytearray)) else str(u).upper() for u in uids)
        space = wiring.space_of(antenna)
        if space is None:
            unmapped.extend((antenna, u) for u in hexes)
        else:
            by_space[space].extend(hexes)
    readings = []
    unknown = []
    not_pieces = []
    for space in sorted(by_space):
        pieces: list[Piece] = []
        unknown_here: list[str] = []
        for uid in sorted(by_space[space]):
            item = registry.lookup(uid)
            if isinstance(item, Piece):
                pieces.append(item)
            else:
                unknown_here.append(uid)
                if isinstance(item, Card):
                    not_pieces.append((space, uid, item))
                else:
                    unknown.append((space, uid))
        readings.append(SpaceReading.of(space, pieces, unknown=unknown_here, changed_at=when.get(space)))
    return Mapped(tuple(readings), tuple(unknown), tuple(not_pieces), tuple(unmapped))


def observation(mapped: Mapped, at: float) -> Observation:
    return Observation(SOURCE, at, mapped.readings)
