"""What one sensor source saw at one moment. Sensors report positions; the rules infer moves."""

from __future__ import annotations

from collections import Counter
import dataclasses
from dataclasses import dataclass
from typing import Iterable, Mapping

from scorer.core.types import Board, Message, Piece, SpaceId


COVERS = "covers "  # a ``SpaceReading.seen`` fact: a piece lies across this one (``covers_fact``)


def covers_fact(owner: str, kind: str) -> str:
    """The ``seen`` fact for a piece (a card) lying on ``owner``'s ``kind`` (The Great Wall's dragon)."""
    return f"{COVERS}{owner}:{kind}"


@dataclass(frozen=True, slots=True)
class SpaceReading:
    """One space as one source saw it.

    ``occluded`` means the source could not see the space (a hand over it): its ``pieces`` must
    then be ignored. ``unknown`` lists things present but not identified (e.g. an RFID tag uid that
    is in no registry) -- reported, never guessed. ``changed_at`` is when the source says this
    space last changed (on the runtime's clock; the sensor board keeps it across an outage), or
    None when the source does not know: the time of the observation then stands for it.
    ``seen`` holds what the source saw of how the pieces lie, beyond which they are, in the words a
    game's ``Game.seen_disagreements`` reads (the camera on The Great Wall: ``"covers red:wall"``,
    the card a dragon lies on). An RFID pad sees no such thing.
    """

    space: SpaceId
    pieces: tuple[tuple[Piece, int], ...] = ()
    confidence: float = 1.0
    occluded: bool = False
    unknown: tuple[str, ...] = ()
    changed_at: float | None = None
    seen: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        space: str,
        pieces: Mapping[Piece, int] | Iterable[Piece] = (),
        *,
        confidence: float = 1.0,
        occluded: bool = False,
        unknown: Iterable[str] = (),
        changed_at: float | None = None,
        seen: Iterable[str] = (),
    ) -> "SpaceReading":
        counter = Counter(dict(pieces)) if isinstance(pieces, Mapping) else Counter(pieces)
        items = tuple(sorted((p, n) for p, n in counter.items() if n > 0))
        return cls(SpaceId(space), items, confidence, occluded, tuple(unknown), changed_at, tuple(sorted(seen)))

    def counter(self) -> Counter[Piece]:
        return Counter(dict(self.pieces))


@dataclass(frozen=True, slots=True)
class Observation:
    """A snapshot from one source (``"sensor-board"``, ``"camera"`` ...) of the spaces it covers.

    ``at`` is a time in seconds from the runtime's injected clock. Spaces the source does not cover
    are absent, which is different from a covered space reported empty.
    """

    source: str
    at: float
    readings: tuple[SpaceReading, ...]

    def covered(self) -> tuple[SpaceId, ...]:
        return tuple(r.space for r in self.readings)

    def occluded(self) -> tuple[SpaceId, ...]:
        return tuple(r.space for r in self.readings if r.occluded)

    def with_owners(self, aliases: Mapping[str, str]) -> "Observation":
        """The same readings with the owners ``aliases`` renames (a colour the table uses for another
        owner's pieces: Ming's neutral family members in a 2-player game, ``Game.sensed_owners``)."""
        if not aliases:
            return self
        readings = []
        for r in self.readings:
            counts: dict[Piece, int] = {}
            for piece, n in r.pieces:
                p = Piece(aliases.get(piece.owner, piece.owner), piece.kind)
                counts[p] = counts.get(p, 0) + n
            readings.append(dataclasses.replace(r, pieces=tuple(counts.items())))
        return dataclasses.replace(self, readings=tuple(readings))

    def board(self) -> Board:
        """The visible, unoccluded part as a board."""
        return Board.from_counts({r.space: r.counter() for r in self.readings if not r.occluded})


@dataclass(frozen=True, slots=True)
class ChanceSeen:
    """A chance result a sensor read by itself: dice come to rest in a tray, as the camera saw
    them land (``vision.dice.DiceWatch``). ``values`` is empty when the dice could not be read;
    ``reason`` then says why, for the players. A game turns what it can use into declared moves
    (``Game.camera_declarations``)."""

    kind: str  # "dice"
    values: tuple[int, ...]
    source: str = "camera"
    at: float = 0.0
    space: str | None = None
    reason: Message | None = None

    @property
    def readable(self) -> bool:
        return bool(self.values)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "values": list(self.values), "source": self.source, "at": self.at,
                "space": self.space, "reason": self.reason.to_json() if self.reason else None}
