"""Marker mode: which printed tag id is which piece.

A tag map is a plain mapping ``tag id -> Piece``. It is read from JSON in any of these forms::

    {"0": {"owner": "red", "kind": "house"}, ...}
    {"tags": {"0": {"owner": "red", "kind": "house"}, ...}}
    [{"id": 0, "owner": "red", "kind": "house"}, ...]

or taken from the shared tag registry (``hardware.tag_registry``), where a printed tag ``n``
is stored under the uid ``aruco_uid(n)`` (``"A7"`` followed by ``n`` as six hex digits).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from scorer.core import safejson
from scorer.core.types import InvalidRecord, Piece
from vision.errors import LayoutError

ARUCO_UID_PREFIX = "A7"


def aruco_uid(tag_id: int) -> str:
    return f"{ARUCO_UID_PREFIX}{int(tag_id):06X}"


def tag_map_from_json(data: Any, where: str = "tag map") -> dict[int, Piece]:
    if isinstance(data, Mapping) and "tags" in data and isinstance(data["tags"], (Mapping, list)):
        data = data["tags"]
    out: dict[int, Piece] = {}
    try:
        if isinstance(data, list):
            for row in data:
                out[int(row["id"])] = Piece(str(row["owner"]), str(row["kind"]))
        elif isinstance(data, Mapping):
            for k, row in data.items():
                out[int(k)] = Piece(str(row["owner"]), str(row["kind"]))
        else:
            raise TypeError("expected an object or a list")
    except (KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"bad tag map entry ({exc})", where=where) from None
    if any(t < 0 for t in out):
        raise LayoutError("tag ids must be >= 0", where=where)
    return out


def load_tag_map(path: str | Path) -> dict[int, Piece]:
    try:
        data = safejson.load_file(str(path), "tag map")
    except InvalidRecord as exc:
        raise LayoutError(str(exc)) from None
    return tag_map_from_json(data, where=f"tag map {path}")


def tag_map_to_json(tag_map: Mapping[int, Piece]) -> dict[str, dict[str, str]]:
    return {str(t): p.to_json() for t, p in sorted(tag_map.items())}


def tag_map_from_registry(registry: Any) -> dict[int, Piece]:
    """Pieces of a ``hardware.tag_registry.TagRegistry`` whose uid is an ``aruco_uid``."""
    out: dict[int, Piece] = {}
    for uid, item in registry.items().items():
        if uid.startswith(ARUCO_UID_PREFIX) and len(uid) == len(ARUCO_UID_PREFIX) + 6 and isinstance(item, Piece):
            out[int(uid[len(ARUCO_UID_PREFIX):], 16)] = item
    return out
