"""The live referee (``tableref.table.Table``: a real SQLite file, the event bus, a fake clock and a
sensor source that sees every section) follows a Great Wall game up to equal tokens: the engine
lays the first token by default on the claimant's tower, the dashboard's declaration names the gate
it really lies on (the sensors cannot see which card), and the next dragon the sensors read is then
taken as covering the tower -- the reading that is legal only because the card was named."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.core import Piece
from scorer.core.observation import Observation, SpaceReading
from scorer.games.great_wall.moves import CardRef, Play
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

    def __init__(self, path: Path) -> None:
        self.clock = Clock()
        self.pieces: dict[str, dict[Piece, int]] = {}
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
            readings = tuple(SpaceReading.of(s, self.pieces.get(s, {})) for s in SECTIONS)
            self.table.observe(Observation("rfid", self.clock.t, readings))
            self.table.step()

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


@pytest.fixture
def rig(tmp_path: Path):
    r = GreatWallRig(tmp_path / "table.sqlite")
    r.run(1.0)
    yield r
    r.close()


def _to_equal_tokens(rig: GreatWallRig) -> None:
    for sp, pair in zip(SECTIONS, ((3, 3), (5, 2), (7, 1))):
        for v in pair:
            rig.put(sp, "neutral", f"token-{v}")
        rig.run()
    rig.put("section-1", "blue", "tower")
    rig.run()
    rig.put("section-1", "blue", "gate")
    rig.run()
    rig.put("section-1", "red", "gate")
    rig.run(9.0)  # red might still add a second gate: taken as complete after the quiet timeout
    rig.declare({"type": "draw", "player": "red"})
    rig.declare({"type": "draw", "player": "green"})
    rig.declare({"type": "draw", "player": "green"})
    # blue's check: 5 > 2 with two equal 3s -> taken without a choice, laid by default on the tower
    sec = rig.state.sections[0]
    assert sec.claimed_owner == 0 and sec.claimed_value == 3 and sec.claimed_card == 0 and sec.unnamed_claim == 3
    rig.take("section-1", "neutral", "token-3")
    rig.put("section-1", "blue", "token-3")  # blue lays it on a card: which one, no sensor says
    rig.run()


def _red_plays_a_dragon(rig: GreatWallRig) -> Play:
    rig.declare({"type": "draw", "player": "blue"})
    rig.declare({"type": "draw", "player": "blue"})
    rig.accepted()
    rig.put("section-1", "red", "dragon")
    rig.run(9.0)
    moves = [m for m in rig.accepted() if m["type"] == "play"]
    assert len(moves) == 1, moves
    return rig.table.session.game.move_from_json(moves[0])


def test_the_dashboard_names_the_card_and_the_dragon_reading_follows_it(rig: GreatWallRig) -> None:
    _to_equal_tokens(rig)
    rig.declare({"type": "claim", "player": "blue", "section": "section-1", "token": 3, "on": {"kind": "gate"}})
    assert rig.state.sections[0].claimed_card == 1 and rig.state.sections[0].unnamed_claim == -1
    dragon = _red_plays_a_dragon(rig)
    assert dragon == Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),))
    stored = [e for e in rig.store.events(rig.table.session.game_no) if e.type == "move"]
    assert any(m.get("type") == "claim" and m.get("on") == {"kind": "gate"} for e in stored for m in e.data["moves"])


def test_without_a_named_card_the_default_stands(rig: GreatWallRig) -> None:
    _to_equal_tokens(rig)
    dragon = _red_plays_a_dragon(rig)
    assert dragon == Play("red", "section-1", ("dragon",), (CardRef("blue", "gate"),))  # the tower holds the token
