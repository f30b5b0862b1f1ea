"""The referee core (``tableref.table.Table``) with a fake clock, a real SQLite file and a real bus:
observations in, stored and published moves, flags, undo, override, declarations out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorer.core import Piece
from scorer.core.observation import Observation, SpaceReading
from tableref import service as ev
from tableref.service import EventBus
from tableref.store import EventStore
from tableref.table import Table, TableSettings
from scorer.referee.reconciler import ReconcilerSettings

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}
SETTINGS = TableSettings(settle=0.5, reconciler=ReconcilerSettings(complete_grace=1.0, quiet_timeout=8.0))


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Rig:
    """A table with a camera-like source that sees every space, driven step by step."""

    def __init__(self, path: Path, source: str = "camera") -> None:
        self.clock = Clock()
        self.path = path
        self.source = source
        self.pieces: dict[str, dict[Piece, int]] = {}
        self.hand: set[str] = set()
        self.open()

    def open(self) -> None:
        self.store = EventStore(str(self.path))
        self.bus = EventBus()
        self.sub = self.bus.subscribe()
        self.table = Table(self.store, self.bus, "china", SETUP, clock=self.clock, wall=lambda: "w", settings=SETTINGS)
        board = self.table.session.state.board
        self.spaces = list(board.sites) + [p.dragon for p in board.provinces]

    def close(self) -> None:
        self.sub.close()
        self.store.close()

    def emit(self) -> None:
        readings = []
        for s in self.spaces:
            if s in self.hand:
                readings.append(SpaceReading.of(s, (), confidence=0.0, occluded=True))
            else:
                readings.append(SpaceReading.of(s, self.pieces.get(s, {})))
        self.table.observe(Observation(self.source, self.clock.t, tuple(readings)))

    def run(self, seconds: float, dt: float = 0.1) -> None:
        end = self.clock.t + seconds
        while self.clock.t < end - 1e-9:
            self.clock.t = round(self.clock.t + dt, 6)
            self.emit()
            self.table.step()

    def put(self, space: str, owner: str, kind: str = "house") -> None:
        c = self.pieces.setdefault(space, {})
        c[Piece(owner, kind)] = c.get(Piece(owner, kind), 0) + 1

    def take(self, space: str, owner: str, kind: str = "house") -> None:
        self.pieces[space][Piece(owner, kind)] -= 1

    def events(self, *types: str) -> list[Any]:
        out = []
        while (e := self.sub.get(0)) is not None:
            if not types or e.type in types:
                out.append(e)
        return out


@pytest.fixture
def rig(tmp_path: Path):
    r = Rig(tmp_path / "table.sqlite")
    r.run(1.0)
    r.events()
    yield r
    r.close()


def test_moves_are_accepted_stored_and_published_with_state(rig: Rig) -> None:
    rig.put("wei-1", "blue")
    rig.run(0.4)
    assert rig.table.reconciler.reading is None  # not settled yet
    rig.run(0.3)
    assert rig.table.reconciler.reading is not None
    snap = rig.table.last_snapshot
    assert snap["pending"]["player"] == "blue" and snap["sensors"]["sensed"]["wei-1"]
    rig.run(1.2)
    moves = rig.events(ev.MOVE_ACCEPTED)
    assert len(moves) == 1 and moves[0].data["move"]["pieces"] == [{"kind": "house", "space": "wei-1"}]
    assert moves[0].data["description"]["zh"]
    assert [e.type for e in rig.store.events(rig.table.session.game_no)] == ["game_started", "move"]
    snap = rig.table.last_snapshot
    assert snap["turn"]["active"] == ["green"] and snap["moves"] == 1
    assert snap["last_move"]["spaces"] == ["wei-1"]


def test_illegal_move_flag_then_correction_then_acceptance(rig: Rig) -> None:
    rig.put("qi-1", "blue")
    rig.put("qi-2", "blue")
    rig.run(1.0)
    flags = rig.events(ev.FLAG_RAISED)
    assert len(flags) == 1
    data = flags[0].data
    assert [v["rule"] for v in data["violations"]] == ["place.empty_province_one_piece"]
    assert data["spaces"] == ["qi-2"] and "qi-2" in data["description"]["en"]
    assert rig.table.last_snapshot["flag"]["id"] == flags[0].id
    assert rig.table.last_snapshot["alert"]["active"]
    rig.run(5.0)
    assert not rig.events(ev.MOVE_ACCEPTED, ev.FLAG_RAISED)
    rig.take("qi-2", "blue")
    rig.run(2.0)
    evs = rig.events(ev.FLAG_CLEARED, ev.MOVE_ACCEPTED)
    assert [e.type for e in evs] == [ev.FLAG_CLEARED, ev.MOVE_ACCEPTED]
    assert evs[0].data["reason"] == "corrected"
    types = [e.type for e in rig.store.events(rig.table.session.game_no)]
    assert types == ["game_started", "flag_raised", "flag_cleared", "move"]


def test_a_hand_over_the_board_delays_but_does_not_lose_a_move(rig: Rig) -> None:
    rig.hand = {"wei-1", "wei-2"}
    rig.run(0.3)
    rig.put("wei-1", "blue")
    rig.run(3.0)
    assert not rig.events(ev.MOVE_ACCEPTED)
    rig.hand = set()
    rig.run(2.0)
    assert len(rig.events(ev.MOVE_ACCEPTED)) == 1


def test_turn_done_for_an_exchange_and_refused_when_nothing_fits(rig: Rig) -> None:
    res = rig.table.turn_done("button")
    assert res.ok and rig.table.last_snapshot["moves"] == 0  # waits the signal grace first
    rig.run(1.2)
    assert rig.table.last_snapshot["last_move"]["move"] == {"type": "exchange", "player": "blue"}
    assert rig.table.last_snapshot["turn"]["active"] == ["green"]
    rig.put("wei-1", "blue")  # out of turn
    rig.run(1.0)
    res = rig.table.turn_done("button")
    assert not res.ok and res.message.zh


def test_undo_by_button_arm_and_confirm_waits_for_the_table(rig: Rig) -> None:
    rig.put("wei-1", "blue")
    rig.run(2.0)
    assert rig.table.session.moves()
    rig.events()
    assert rig.table.arm_undo("button").ok
    assert rig.table.last_snapshot["undo_armed"]
    res = rig.table.confirm("button")
    assert res.ok, res.message
    assert rig.table.session.moves() == []
    rig.run(20.0)
    assert not rig.events(ev.MOVE_ACCEPTED)  # the undone house is still there: never re-accepted
    assert rig.table.last_snapshot["undo_wait"] is not None
    rig.take("wei-1", "blue")
    rig.run(1.0)
    assert rig.events("table_matched")
    assert rig.table.last_snapshot["undo_wait"] is None
    # a second undo without the PIN is refused: nothing left, and then the policy
    assert not rig.table.undo("button", False).ok


def test_undo_refused_after_the_next_player_started(rig: Rig) -> None:
    rig.put("wei-1", "blue")
    rig.run(2.0)
    rig.put("wei-2", "green")
    rig.run(1.0)
    res = rig.table.undo("dashboard", False)
    assert not res.ok and "PIN" in res.message.en
    assert rig.table.undo("admin", True).ok


def test_override_accepts_the_table_as_it_stands_with_an_audit_entry(rig: Rig) -> None:
    rig.put("qi-1", "blue")
    rig.put("qi-2", "blue")
    rig.run(1.0)
    assert rig.table.reconciler.flag is not None
    assert len(rig.events(ev.FLAG_RAISED)) == 1
    assert not rig.table.override("someone", False).ok
    res = rig.table.override("admin@tablet", True)
    assert res.ok
    rig.run(2.0)
    assert rig.table.reconciler.flag is None
    assert rig.table.last_snapshot["turn"]["active"] == ["green"]
    stored = [e for e in rig.store.events(rig.table.session.game_no) if e.type == "override"]
    assert stored and stored[0].actor == "admin@tablet"
    assert stored[0].data["flag"]["violations"][0]["rule"] == "place.empty_province_one_piece"
    assert [e.type for e in rig.events(ev.FLAG_RAISED, ev.FLAG_CLEARED, ev.OVERRIDE)] == [ev.OVERRIDE, ev.FLAG_CLEARED]


def test_override_of_something_no_move_describes_keeps_it_as_an_offset(rig: Rig) -> None:
    rig.put("wei-1", "blue")
    rig.run(2.0)
    rig.take("wei-1", "blue")  # an accepted piece disappears
    rig.run(1.0)
    assert rig.table.reconciler.flag is not None
    assert rig.table.override("admin", True).ok
    rig.run(2.0)
    assert rig.table.reconciler.flag is None and rig.table.session.offset.removed
    assert rig.table.last_snapshot["board"] == {}


def test_declared_exchange_and_a_declaration_while_pieces_are_pending(rig: Rig) -> None:
    assert rig.table.declare({"type": "exchange", "player": "blue"}, "dashboard").ok
    assert not rig.table.declare({"type": "exchange", "player": "blue"}, "dashboard").ok  # not blue's turn
    rig.put("wei-1", "green")
    rig.run(0.7)
    assert not rig.table.declare({"type": "exchange", "player": "green"}, "dashboard").ok
    assert not rig.table.declare({"type": "bogus"}, "dashboard").ok


def test_restart_resumes_and_the_table_is_not_reread_as_new_moves(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "t.sqlite")
    rig.run(1.0)
    rig.put("wei-1", "blue")
    rig.run(2.0)
    rig.put("wei-2", "green")
    rig.put("wei-3", "green")
    rig.run(2.0)
    version = rig.table.session.version
    rig.close()  # like a crash: nothing else is written on the way out
    rig.open()
    rig.run(5.0)
    assert rig.table.session.version == version
    assert len(rig.table.session.moves()) == 2
    assert not rig.events(ev.MOVE_ACCEPTED, ev.FLAG_RAISED)
    rig.put("wei-4", "red")
    rig.run(9.0)  # one piece in a province that had pieces: closed by the quiet timeout
    assert len(rig.table.session.moves()) == 3
    rig.close()


def test_source_loss_is_recorded_and_published(rig: Rig) -> None:
    rig.table.set_source("camera", False)
    rig.table.step()
    d = rig.events(ev.DEVICES)
    assert d and d[0].data["live"] is False
    assert any(e.type == "device" for e in rig.store.events(rig.table.session.game_no))
    assert rig.table.last_snapshot["sensors"]["known"] == []


def test_new_game_needs_the_pin_while_a_game_runs(rig: Rig) -> None:
    rig.put("wei-1", "blue")
    rig.run(2.0)
    assert not rig.table.new_game({"players": ["red", "blue", "green"]}, "dashboard", False).ok
    assert not rig.table.new_game({"players": ["red", "red", "green"]}, "admin", True).ok
    res = rig.table.new_game({"players": ["red", "blue", "green"], "board": "china-a"}, "admin", True)
    assert res.ok
    assert rig.table.last_snapshot["turn"]["active"] == ["red"]
    assert rig.store.game(1).status == "abandoned"
    history = rig.table.history()
    assert history[0]["type"] == ev.NEW_GAME


def test_history_marks_undone_moves(rig: Rig) -> None:
    rig.put("wei-1", "blue")
    rig.run(2.0)
    assert rig.table.undo("admin", True).ok
    h = rig.table.history()
    moves = [x for x in h if x["type"] == ev.MOVE_ACCEPTED]
    assert moves and moves[0]["undone"]
    assert [x["type"] for x in h][-1] == ev.UNDO


def test_a_flag_open_at_a_crash_is_closed_in_the_log_and_raised_again_if_still_true(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "t.sqlite")
    rig.run(1.0)
    rig.put("wei-1", "green")  # out of turn
    rig.run(1.0)
    assert rig.table.reconciler.flag is not None
    rig.close()
    rig.open()
    types = [e.type for e in rig.store.events(rig.table.session.game_no)]
    assert types[-2:] == ["flag_raised", "flag_cleared"]
    assert rig.store.events(rig.table.session.game_no)[-1].data["reason"] == "restart"
    rig.run(1.0)
    assert rig.table.reconciler.flag is not None
    assert [e.type for e in rig.store.events(rig.table.session.game_no)][-1] == "flag_raised"
    rig.close()
