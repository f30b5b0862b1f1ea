"""A live Great Wall table for the tests (a uniquely named helper module): ``tableref.table.Table`` over a
real SQLite file, the event bus, a fake clock and a sensor source that sees every section (an RFID
pad, or a camera that also says how cards lie: ``seen``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scorer.core import Piece
from scorer.core.observation import Observation, SpaceReading
from scorer.referee.reconciler import ReconcilerSettings
from tableref import service as ev
from tableref.service import EventBus
from tableref.store import EventStore
from tableref.table import Table, TableSettings

SETUP = {"players": ["blue", "red", "green"]}
SECTIONS = ("section-1", "section-2", "section-3")
SETTINGS = TableSettings(settle=0.5, reconciler=ReconcilerSettings(complete_grace=1.0, quiet_timeout=8.0))


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class GreatWallRig:
    """A Great Wall table driven step by step: pieces put and taken, declarations from the dashboard."""

    def __init__(self, path: Path, source: str = "rfid") -> None:
        self.clock = Clock()
        self.source = source
        self.pieces: dict[str, dict[Piece, int]] = {}
        self.seen: dict[str, tuple[str, ...]] = {}  # per section, what a camera says of how its cards lie
        self.store = EventStore(str(path))
        self.bus = EventBus()
        self.sub = self.bus.subscribe()
        self.table = Table(self.store, self.bus, "great_wall", SETUP, clock=self.clock, wall=lambda: "w", settings=SETTINGS)

    def close(self) -> None:
        self.sub.close()
        self.store.close()

    def run(self, seconds: float = 2.5, dt: float = 0.1) -> None:
        end = self.clock.t + seconds
        while self.clock.t < end - 1e-9:
            self.clock.t = round(self.clock.t + dt, 6)
            readings = tuple(SpaceReading.of(s, self.reported(s), seen=self.seen.get(s, ())) for s in SECTIONS)
            self.table.observe(Observation(self.source, self.clock.t, readings))
            self.table.step()

    def reported(self, space: str) -> dict[Piece, int]:
        """What the source reports lying on ``space``: here, exactly what lies there."""
        return self.pieces.get(space, {})

    def put(self, space: str, owner: str, kind: str) -> None:
        c = self.pieces.setdefault(space, {})
        c[Piece(owner, kind)] = c.get(Piece(owner, kind), 0) + 1

    def take(self, space: str, owner: str, kind: str) -> None:
        self.pieces[space][Piece(owner, kind)] -= 1
        if not self.pieces[space][Piece(owner, kind)]:
            del self.pieces[space][Piece(owner, kind)]

    def declare(self, move: dict) -> None:
        res = self.table.declare(move, "dashboard")
        assert res.ok, res
        self.run()

    def accepted(self) -> list[dict]:
        out = []
        while (e := self.sub.get(0)) is not None:
            if e.type == ev.MOVE_ACCEPTED:
                out.append(e.data["move"])
        return out

    @property
    def state(self):
        return self.table.session.state

    def play_one(self, space: str, owner: str, kind: str) -> Any:
        """Put one card down and let the table settle: the one play move the referee accepted."""
        self.accepted()
        self.put(space, owner, kind)
        self.run(9.0)
        plays = [m for m in self.accepted() if m["type"] == "play"]
        assert len(plays) == 1, plays
        return self.table.session.game.move_from_json(plays[0])
