"""The table as the host believes it (antenna -> tag uids), how two such tables differ in words,
and a new one being assembled from the frames of a device snapshot until its end frame says
whether it arrived whole.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from firmware_bridge.firmware.tablefw import wire
from firmware_bridge.framing import SnapBegin, SnapEnd, SnapEntry

Table = dict[int, frozenset[bytes]]


def uid_hex(uid: bytes) -> str:
    return uid.hex().upper()


def table_diff(old: Mapping[int, Iterable[bytes]], new: Mapping[int, Iterable[bytes]]) -> list[str]:
    """Readable differences between two tables, one string per antenna that changed."""
    out = []
    for antenna in sorted(set(old) | set(new)):
        a, b = set(old.get(antenna, ())), set(new.get(antenna, ()))
        if a != b:
            parts = [f"+{uid_hex(u)}" for u in sorted(b - a)] + [f"-{uid_hex(u)}" for u in sorted(a - b)]
            out.append(f"antenna {antenna}: {' '.join(parts)}")
    return out


class PartialSnapshot:
    """A snapshot between its begin and end frames."""

    __slots__ = ("snap_id", "entries", "got", "table", "times")

    def __init__(self, begin: SnapBegin) -> None:
        self.snap_id = begin.snap_id
        self.entries = begin.entries
        self.got = 0
        self.table: dict[int, set[bytes]] = {}
        self.times: dict[int, int] = {}   # antenna -> device ms of its last change (protocol 1.1)

    def add(self, entry: SnapEntry) -> None:
        self.table.setdefault(entry.antenna, set()).update(entry.uids)
        if entry.t_ms is not None:
            self.times[entry.antenna] = entry.t_ms
        self.got += 1

    def tags(self) -> int:
        return sum(len(u) for u in self.table.values())

    def whole(self, end: SnapEnd) -> bool:
        """Whether what arrived is what the device sent: entry count, tag count and digest."""
        return self.got == end.entries and self.tags() == end.tags and wire.table_digest(self.table) == end.digest

    def result(self) -> Table:
        return {a: frozenset(u) for a, u in self.table.items() if u}
