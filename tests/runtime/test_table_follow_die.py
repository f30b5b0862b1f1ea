"""Zhang Yi: a die of 1, 2 or 6 takes strength off the battle's armies when it is entered. The die
moves no counter itself (``ZhangYiGame.shown_board``): the referee follows the players taking the
counters off instead of flagging the table at once -- and a counter taken off the wrong army is
still flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.core import Piece
from scorer.core.observation import Observation, SpaceReading
from scorer.referee.reconciler import ReconcilerSettings
from tableref.demo_zhang_yi import DEMO
from tableref.demo_zhang_yi_game import OPENING
from tableref.service import EventBus
from tableref.store import EventStore
from tableref.table import Table, TableSettings


def _battle_awaiting_its_die(tmp_path: Path) -> tuple[Table, list[float]]:
    now = [1000.0]
    table = Table(EventStore(str(tmp_path / "t.sqlite")), EventBus(), "zhang_yi", DEMO.setup, clock=lambda: now[0],
                  wall=lambda: "w", settings=TableSettings(settle=0.4, reconciler=ReconcilerSettings(quiet_timeout=5.0)))
    game = table.session.game
    for m in OPENING[:13]:  # up to Qin's march into Han's Yiyang: the battle awaits its die
        table.session.record_move((game.move_from_json(m),), "declared", "test", player=m["player"])
    return table, now


def _run(table: Table, now: list[float], board, seconds: float) -> None:
    end = now[0] + seconds
    while now[0] < end:
        now[0] = round(now[0] + 0.1, 6)
        readings = tuple(SpaceReading.of(s, dict(board.pieces(s))) for s in DEMO.spaces)
        table.observe(Observation("sensor-board", now[0], readings))
        table.step()


@pytest.mark.parametrize("value, army", [(6, "han"), (2, "qin")])
def test_strength_a_die_takes_off_is_followed_not_flagged(tmp_path: Path, value: int, army: str) -> None:
    table, now = _battle_awaiting_its_die(tmp_path)
    game = table.session.game
    before = game.visible_board(table.session.state)
    _run(table, now, before, 1.5)
    assert table.reconciler.flag is None
    res = table.declare({"type": "roll_die", "player": "red", "value": value, "source": "dashboard"}, "dashboard")
    assert res.ok, res.message
    after = game.visible_board(table.session.state)
    gone = before.diff(after).removed
    assert gone and all(space == "yiyang" and piece == Piece(army, "army") for space, piece, _n in gone)
    _run(table, now, before, 3.0)  # the counters are still on the table: nothing flagged, the referee waits
    assert table.reconciler.flag is None and table.reconciler.follow is not None
    assert table.last_snapshot["follow"] is not None
    _run(table, now, after, 2.0)  # taken off: the table matches
    assert table.reconciler.flag is None and table.reconciler.follow is None


def test_a_counter_taken_off_the_wrong_army_is_still_flagged(tmp_path: Path) -> None:
    table, now = _battle_awaiting_its_die(tmp_path)
    game = table.session.game
    before = game.visible_board(table.session.state)
    _run(table, now, before, 1.5)
    assert table.declare({"type": "roll_die", "player": "red", "value": 6, "source": "dashboard"}, "dashboard").ok
    _run(table, now, before.with_removed("yiyang", Piece("qin", "army")), 3.0)  # the die took a Han counter off
    assert table.reconciler.flag is not None
