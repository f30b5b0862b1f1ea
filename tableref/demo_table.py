"""The demo's physical table: pieces on spaces with RFID tags in them, seen by the emulated sensors.

``DemoTable`` turns "put a red house on qi-1" into a tag placed on the antenna under qi-1 (and a
rendered piece for the synthetic camera); ``Demo`` is a built demo (the runtime, that table, the
mock buttons and the card reader twin); the tag uids of China's pieces and cards and the demo's
errors live here too, since every part of the demo shares them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorer.core.types import Message, Piece, TableRefError
from tableref.runtime import Runtime

KIND_CODE = {"house": 1, "emissary": 2, "fortress": 3}
PLAYER_CODE = {"blue": 1, "green": 2, "violet": 3, "red": 4, "yellow": 5, "neutral": 6}
CARD_COLOURS = ("violet", "yellow", "orange", "green", "red")


class DemoError(TableRefError, RuntimeError):
    """The referee did not answer a scripted step as expected."""


class DemoStopped(Exception):
    """Ctrl-C or SIGTERM during the scripted game: the script stops where it is."""


def piece_uids(players: tuple[str, ...]) -> dict[Piece, list[str]]:
    """Tag uids for every piece of the game: 20 houses, 8 emissaries per player, 5 fortresses."""
    out: dict[Piece, list[str]] = {}
    for owner in players:
        for kind, n in (("house", 20), ("emissary", 8)):
            out[Piece(owner, kind)] = [f"A{PLAYER_CODE[owner]}{KIND_CODE[kind]:02X}00{i:02X}" for i in range(n)]
    out[Piece("neutral", "fortress")] = [f"A{PLAYER_CODE['neutral']}{KIND_CODE['fortress']:02X}00{i:02X}" for i in range(5)]
    return out


def card_uids() -> dict[str, str]:
    return {c: f"C{i + 1}000000" for i, c in enumerate(CARD_COLOURS)}


def write_registry(path: Path, players: tuple[str, ...]) -> Any:
    from hardware.tag_registry import Card, TagRegistry

    reg = TagRegistry(path)
    tags: dict[str, Any] = {}
    for piece, uids in piece_uids(players).items():
        for uid in uids:
            tags[uid] = piece
    for colour, uid in card_uids().items():
        tags[uid] = Card(colour)
    reg = TagRegistry(path, tags)
    reg.save()
    return reg


@dataclass
class DemoTable:
    """The physical table of the demo: pieces on spaces, seen by the emulated sensors."""

    emulator: Any
    antenna_of: dict[str, int]
    uids: dict[Piece, list[str]]
    camera: Any = None
    placed: dict[tuple[str, Piece], list[str]] = field(default_factory=dict)

    def put(self, space: str, piece: Piece) -> None:
        free = self.uids[piece]
        if not free:
            raise DemoError(f"no {piece.owner} {piece.kind} left in the box")
        uid = free.pop(0)
        self.placed.setdefault((space, piece), []).append(uid)
        if space in self.antenna_of:
            self.emulator.place(self.antenna_of[space], uid)
        if self.camera is not None:
            self.camera.place(space, piece)

    def take(self, space: str, piece: Piece) -> None:
        uids = self.placed.get((space, piece))
        if not uids:
            raise DemoError(f"no {piece.owner} {piece.kind} on {space} to take")
        uid = uids.pop()
        self.uids[piece].insert(0, uid)
        if space in self.antenna_of:
            self.emulator.remove(self.antenna_of[space], uid)
        if self.camera is not None:
            self.camera.remove(space, piece)

    def roll(self, value: int | None) -> None:
        """A die thrown into the dice tray, showing ``value`` (only the camera sees it); None: the tray emptied."""
        if self.camera is not None:
            self.camera.roll(*(() if value is None else (value,)))

    def hand(self, spaces: tuple[str, ...]) -> None:
        """A hand over the board (only the camera can see it; RFID readings are held back by it)."""
        if self.camera is None:
            return
        if spaces:
            self.camera.hand_over(spaces[0])
        else:
            self.camera.withdraw_hand()


@dataclass
class Demo:
    runtime: Runtime
    table: DemoTable
    gpio: Any
    cards: Any
    data_dir: Path
    notes: list[Message]
    initial: Any = None  # the board right after set-up (None: an empty table)

    def reset_table(self) -> None:
        """The players put the table back as the set-up left it (before the next game of --loop)."""
        want: dict[tuple[str, Piece], int] = {}
        if self.initial is not None:
            for space in self.initial.spaces():
                for piece, n in self.initial.pieces(space).items():
                    want[(space, piece)] = n
        self.table.roll(None)
        for key in set(self.table.placed) | set(want):
            have = len(self.table.placed.get(key, ()))
            for _ in range(have - want.get(key, 0)):
                self.table.take(*key)
            for _ in range(want.get(key, 0) - have):
                self.table.put(*key)

    def close(self) -> None:
        self.runtime.stop()
        if self.table.emulator is not None:
            self.table.emulator.close()
