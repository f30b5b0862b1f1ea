"""A referee driven step by step with a fake clock and a camera-like source that sees every space,
for the replay tests (a module with a unique name, imported directly by the tests)."""

from __future__ import annotations

from pathlib import Path

from scorer.core import Piece
from scorer.core.observation import Observation, SpaceReading
from scorer.referee.reconciler import ReconcilerSettings
from tableref.service import EventBus
from tableref.store import EventStore
from tableref.table import Table, TableSettings

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}
SETTINGS = TableSettings(settle=0.5, reconciler=ReconcilerSettings(complete_grace=1.0, quiet_timeout=8.0), name="Table 5",
                         player_names=(("blue", "Alice"), ("green", "Bob")))


class Rig:
    def __init__(self, path: Path) -> None:
        self.t = 1000.0
        self.store = EventStore(str(path))
        self.bus = EventBus()
        self.table = Table(self.store, self.bus, "china", SETUP, clock=lambda: self.t, wall=self.wall, settings=SETTINGS)
        board = self.table.session.state.board
        self.spaces = list(board.sites) + [p.dragon for p in board.provinces]
        self.pieces: dict[str, dict[Piece, int]] = {}

    def wall(self) -> str:
        return f"2026-11-21T19:{int(self.t // 60) % 60:02d}:{self.t % 60:06.3f}+00:00"

    def run(self, seconds: float, dt: float = 0.1) -> None:
        end = self.t + seconds
        while self.t < end - 1e-9:
            self.t = round(self.t + dt, 6)
            readings = tuple(SpaceReading.of(s, self.pieces.get(s, {})) for s in self.spaces)
            self.table.observe(Observation("camera", self.t, readings))
            self.table.step()

    def put(self, space: str, owner: str, kind: str = "house") -> None:
        c = self.pieces.setdefault(space, {})
        c[Piece(owner, kind)] = c.get(Piece(owner, kind), 0) + 1

    def take(self, space: str, owner: str, kind: str = "house") -> None:
        self.pieces[space][Piece(owner, kind)] -= 1

    def close(self) -> None:
        self.store.close()


def play_game_with_a_flag_and_an_undo(path: Path) -> Rig:
    """blue wei-1; green puts two houses into empty Qi (flagged), takes one off (accepted);
    red yan-1; an admin undoes red's move. Left open (not closed) for the caller."""
    rig = Rig(path)
    rig.put("wei-1", "blue")
    rig.run(2.0)
    rig.put("qi-1", "green")
    rig.put("qi-2", "green")
    rig.run(2.0)
    rig.take("qi-2", "green")
    rig.run(2.5)
    rig.put("yan-1", "red")
    rig.run(2.5)
    res = rig.table.undo("admin", True)
    assert res.ok, res.message.en
    rig.take("yan-1", "red")
    rig.run(2.0)
    return rig
