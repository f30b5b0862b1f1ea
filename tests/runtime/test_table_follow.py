"""The referee follows what the rules move by themselves (Ming's scoring: majorities into the city,
pieces sent back, the city emptied into the box): while the players carry it out on the table, a
table on the way is neither read nor flagged; a piece put somewhere else is flagged; the follow ends
when the table matches, and survives a restart. And a half-settled move (a prince lifted off one
district is settled before it is settled in the next) raises no flag while other spaces still settle.

The position is the Ming demo's (tableref/demo_ming_game.py) just before the pass that ends phase 3
of round 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scorer.core import Piece
from scorer.core.game import SetupOptions
from scorer.core.observation import Observation, SpaceReading
from scorer.core.registry import get_game
from scorer.referee.reconciler import RaiseFlag, Reconciler, ReconcilerSettings
from scorer.referee.stabiliser import StableView
from tableref.demo_ming import DEMO_SETUP, _spaces
from tableref.demo_ming_game import played
from tableref.service import EventBus
from tableref.session import Session
from tableref.store import EventStore
from tableref.table import FOLLOW, Table, TableSettings

GAME = get_game("ming")
SETTINGS = TableSettings(settle=0.3, reconciler=ReconcilerSettings(complete_grace=0.5, quiet_timeout=5.0))
SPACES = _spaces()
LAST_PASS = {"type": "pass", "player": "blue"}


def plan_moves() -> list[dict[str, Any]]:
    """The demo's moves up to (not including) blue's pass that starts the round-2 scoring."""
    out = played()
    last = len(out) - 1 - out[::-1].index(LAST_PASS)
    return out[:last]


class Rig:
    def __init__(self, path: Path) -> None:
        self.t = 1000.0
        self.path = path
        self.cells: dict[str, dict[Piece, int]] = {}
        self.open()

    def open(self) -> None:
        self.store = EventStore(str(self.path))
        self.bus = EventBus()
        self.sub = self.bus.subscribe()
        self.table = Table(self.store, self.bus, "ming", DEMO_SETUP, clock=lambda: self.t, wall=lambda: "w", settings=SETTINGS)

    def close(self) -> None:
        self.sub.close()
        self.store.close()

    def show(self, board: Any) -> None:
        self.cells = {s: dict(board.pieces(s)) for s in board.spaces()}

    def move(self, space: str, owner: str, n: int = 1, *, to: str | None = None) -> None:
        """n family members off ``space`` (onto ``to``; None: into the box)."""
        piece = Piece(owner, "family")
        self.cells[space][piece] -= n
        if to is not None:
            self.cells.setdefault(to, {})[piece] = self.cells.get(to, {}).get(piece, 0) + n

    def run(self, seconds: float, dt: float = 0.1) -> None:
        end = self.t + seconds
        while self.t < end - 1e-9:
            self.t = round(self.t + dt, 6)
            readings = tuple(SpaceReading.of(s, {p: n for p, n in self.cells.get(s, {}).items() if n}) for s in SPACES)
            self.table.observe(Observation("sensor-board", self.t, readings))
            self.table.step()

    def snap(self) -> dict[str, Any]:
        return self.table.snapshot()

    def events(self, type_: str) -> list[Any]:
        out = []
        while (e := self.sub.get(0)) is not None:
            if e.type == type_:
                out.append(e)
        return out


def started(path: Path) -> Rig:
    """The demo's game up to blue's last pass of phase 3 of round 2, with the table showing it."""
    store = EventStore(str(path))
    session = Session.start(store, "ming", DEMO_SETUP, clock=lambda: 0.0, wall=lambda: "w")
    for data in plan_moves():
        session.record_move((GAME.move_from_json(data),), "declared", "test")
    store.close()
    rig = Rig(path)
    rig.show(GAME.visible_board(rig.table.session.state))
    rig.run(1.0)
    assert rig.snap()["flag"] is None and rig.snap()["follow"] is None
    return rig


def test_the_scoring_the_rules_carry_out_is_followed_on_the_table_without_a_flag(tmp_path: Path) -> None:
    rig = started(tmp_path / "t.sqlite")
    try:
        res = rig.table.declare(LAST_PASS, "dashboard")
        assert res.ok, res.message
        # the rules moved p1d1's majority into the city: red 2, blue 1; the table still shows them in the open area
        assert rig.table.session.state.city[0][:2] == (2, 1)
        follow = rig.events(FOLLOW)
        assert len(follow) == 1 and "p1d1-city" in follow[0].data["message"]["en"]
        rig.run(2.0)
        snap = rig.snap()
        assert snap["flag"] is None and snap["pending"] is None and snap["follow"] is not None
        # on the way: red's two moved, blue's not yet -- still no flag
        rig.move("p1d1", "red", 2, to="p1d1-city")
        rig.run(2.0)
        assert rig.snap()["flag"] is None and rig.snap()["follow"] is not None
        # blue's put into the wrong city area: flagged
        rig.move("p1d1", "blue", 1, to="p1d2-city")
        rig.run(2.0)
        assert rig.snap()["flag"] is not None
        # put right: the table matches, the follow ends
        rig.move("p1d2-city", "blue", 1, to="p1d1-city")
        rig.run(2.0)
        snap = rig.snap()
        assert snap["flag"] is None and snap["follow"] is None
        # red's and blue's return cards: blue's one goes back by itself, the city is emptied, p2's majority moves
        assert rig.table.declare({"type": "return_cards", "player": "red", "total": 0}, "dashboard").ok
        assert rig.snap()["follow"] is None  # a secret commitment moves nothing
        assert rig.table.declare({"type": "return_cards", "player": "blue", "total": 1}, "dashboard").ok
        rig.run(1.0)
        assert rig.snap()["follow"] is not None and rig.snap()["flag"] is None
        # a restart in the middle: still followed, not flagged
        rig.move("p1d1-city", "blue", 1, to="p1d1")
        rig.close()
        rig.open()
        rig.run(2.0)
        assert rig.snap()["flag"] is None and rig.snap()["follow"] is not None
        rig.move("p1d1-city", "red", 2)  # into the box
        rig.move("p2d1", "red", 2, to="p2d1-city")
        rig.run(2.0)
        snap = rig.snap()
        assert snap["flag"] is None and snap["follow"] is None and len(rig.table.session.moves()) == len(plan_moves()) + 3
    finally:
        rig.close()


def test_an_undo_of_a_move_the_rules_followed_up_is_followed_back(tmp_path: Path) -> None:
    rig = started(tmp_path / "t.sqlite")
    try:
        assert rig.table.declare(LAST_PASS, "dashboard").ok
        rig.move("p1d1", "red", 2, to="p1d1-city")
        rig.move("p1d1", "blue", 1, to="p1d1-city")
        rig.run(2.0)
        assert rig.snap()["follow"] is None
        assert rig.table.undo("admin", authorised=True).ok  # a declared pass: the admin's undo
        rig.run(1.0)
        assert rig.snap()["flag"] is None and rig.snap()["follow"] is not None
        rig.move("p1d1-city", "red", 2, to="p1d1")
        rig.move("p1d1-city", "blue", 1, to="p1d1")
        rig.run(2.0)
        assert rig.snap()["flag"] is None and rig.snap()["follow"] is None
    finally:
        rig.close()


def test_no_flag_while_another_space_of_the_move_is_still_settling() -> None:
    """A prince moved from p1d1 to p1d3 with family members: p1d1 settles first (the prince gone, no
    move explains that alone); the flag waits while p1d3 still settles, and comes once all is settled."""
    state = GAME.setup(SetupOptions.from_json(DEMO_SETUP))
    moves = plan_moves()
    for data in moves[:moves.index({"type": "take_card", "player": "yellow", "province": "p6"}) + 1]:
        state = GAME.apply(state, GAME.move_from_json(data))
    assert GAME.turn(state).phase == "move_and_deploy"
    r = Reconciler(GAME, ReconcilerSettings(max_busy=5.0))
    lifted = GAME.visible_board(state).with_removed("p1d1", Piece("red", "prince"))
    known = frozenset(SPACES)
    assert not [d for d in r.evaluate(state, StableView(10.0, lifted, known, ("p1d3",), ()), 10.0) if isinstance(d, RaiseFlag)]
    assert [d for d in r.evaluate(state, StableView(10.5, lifted, known, (), ()), 10.5) if isinstance(d, RaiseFlag)]
