"""What a camera reader reports for one frame: pieces per space, or occluded."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import Piece
from vision.registration import Registration


class Mode(enum.StrEnum):
    COLOUR = "colour"
    MARKER = "marker"


@dataclass(frozen=True, slots=True)
class SpaceResult:
    space: str
    pieces: tuple[tuple[Piece, int], ...] = ()
    confidence: float = 1.0
    occluded: bool = False
    unknown: tuple[str, ...] = ()
    seen: tuple[str, ...] = ()  # how the pieces lie (``SpaceReading.seen``: which card a dragon covers)
    # seen but not read: a printed face or value the frame does not show sure enough. Not a hand: the
    # reading goes out with no confidence (never believed), so it holds back no other source's reading
    # of the space, as ``occluded`` (a hand over it) does
    unsure: bool = False

    def reading(self) -> SpaceReading:
        if self.occluded:
            return SpaceReading.of(self.space, (), confidence=0.0, occluded=True)
        if self.unsure:
            return SpaceReading.of(self.space, (), confidence=0.0)
        return SpaceReading.of(self.space, dict(self.pieces), confidence=self.confidence, unknown=self.unknown,
                               seen=self.seen)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "pieces": [{"owner": str(p.owner), "kind": p.kind, "count": n} for p, n in self.pieces],
            "confidence": round(self.confidence, 3),
        }
        if self.occluded:
            out = {"pieces": [], "confidence": 0.0, "occluded": True}
        elif self.unsure:
            out = {"pieces": [], "confidence": 0.0, "unsure": True}
        if self.unknown:
            out["unknown"] = list(self.unknown)
        if self.seen and not self.occluded:
            out["seen"] = list(self.seen)
        return out


@dataclass(frozen=True)
class Detection:
    at: float
    mode: Mode
    registration: Registration
    spaces: tuple[SpaceResult, ...]
    off_space: tuple[tuple[str, float, float], ...] = ()  # (description, x mm, y mm)
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    reused: bool = False  # nothing changed since the last frame: the last reading was kept
    partial: int | None = None  # only this many spaces were read again (the rest changed nothing)
    # the hand the reader found (bool, board px at ``board_px_per_mm``, its margin included): for ``vision.hand_outline``;
    # None where the frame was not read whole
    hand_mask: np.ndarray | None = field(default=None, compare=False, repr=False)
    board_px_per_mm: float | None = None

    @property
    def occluded(self) -> tuple[str, ...]:
        return tuple(s.space for s in self.spaces if s.occluded)

    @property
    def unsure(self) -> tuple[str, ...]:
        """Spaces seen but not read (``SpaceResult.unsure``)."""
        return tuple(s.space for s in self.spaces if s.unsure)

    def observation(self, source: str = "camera") -> Observation:
        return Observation(source=source, at=self.at, readings=tuple(s.reading() for s in self.spaces))

    def to_json(self) -> dict[str, object]:
        return {
            "at": self.at,
            "mode": str(self.mode),
            "registration": self.registration.to_json(),
            "spaces": {s.space: s.to_json() for s in self.spaces},
            "occluded": list(self.occluded),
            "unsure": list(self.unsure),
            "off_space": [{"what": w, "x_mm": round(x, 1), "y_mm": round(y, 1)} for w, x, y in self.off_space],
        }
