"""Moves made while the sensor board was offline (or the referee down) reach the referee at once.
Reported: two turns of the same player recorded swapped (played chu-2 + chu-6, then chu-3 + chu-5;
recorded chu-2 + chu-3, then chu-5 + chu-6). The referee must order such moves by the change times
the sensor board keeps across the outage, and where there are none it must not pick an order
silently: the inferred order is shown, provisional, until a person confirms or corrects it.

The table runs with a fake clock and a real SQLite store (tests/runtime/test_table.py's rig)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import Message
from tableref import service as ev
from test_table import Rig

# the reported China game: red's two turns around blue's and green's
PLAYED = [("red", ("chu-2", "chu-6")), ("blue", ("wei-2",)), ("green", ("qi-1",)), ("red", ("chu-3", "chu-5"))]
SWAPPED = [("red", ("chu-2", "chu-3")), ("blue", ("wei-2",)), ("green", ("qi-1",)), ("red", ("chu-5", "chu-6"))]


class TimedRig(Rig):
    """The rig whose source reports each space's own change time, as the sensor board does."""

    def __init__(self, path: Path, timed: bool) -> None:
        self.timed = timed
        self.changed: dict[str, float] = {}
        super().__init__(path, source="sensor-board")

    def put_at(self, space: str, owner: str, at: float) -> None:
        self.put(space, owner)
        self.changed[space] = at

    def emit(self) -> None:
        readings = [SpaceReading.of(s, self.pieces.get(s, {}), changed_at=self.changed.get(s) if self.timed else None)
                    for s in self.spaces]
        self.table.observe(Observation(self.source, self.clock.t, tuple(readings)))


def opening(rig: TimedRig) -> None:
    """Blue and green play while the board is online (chu is then not empty for red)."""
    rig.run(1.0)
    for owner, space in (("blue", "chu-1"), ("green", "wei-1")):
        rig.put_at(space, owner, rig.clock.t)
        rig.run(2.5)
    assert len(rig.table.session.entries) == 2


def play_offline(rig: TimedRig, turns: list[tuple[str, tuple[str, ...]]], gap: float = 1.6) -> None:
    """The board goes offline; the turns are played one every ``gap`` s; it comes back."""
    rig.table.set_source("sensor-board", False, Message("link down", "连接中断"))
    t0 = rig.clock.t
    for i, (owner, spaces) in enumerate(turns):
        for j, space in enumerate(spaces):
            rig.put_at(space, owner, t0 + gap * i + 0.3 * j)
    rig.clock.t = round(t0 + gap * len(turns) + 0.5, 6)


def recorded(rig: TimedRig) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for e in rig.table.session.entries[2:]:
        (move,) = e.moves
        out.append((move.player, tuple(p.space for p in move.placements)))
    return out


def as_turns(steps: list[dict[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
    return [(s["player"], tuple(p["space"] for m in s["moves"] for p in m["pieces"])) for s in steps]


@pytest.fixture
def untimed(tmp_path: Path):
    rig = TimedRig(tmp_path / "t.sqlite", timed=False)
    opening(rig)
    yield rig
    rig.close()


@pytest.fixture
def timed(tmp_path: Path):
    rig = TimedRig(tmp_path / "t.sqlite", timed=True)
    opening(rig)
    yield rig
    rig.close()


def test_the_reported_swap_is_no_longer_silent(untimed: TimedRig) -> None:
    play_offline(untimed, PLAYED)
    untimed.run(4.0)
    # nothing lost, nothing invented: four turns with the six pieces
    got = recorded(untimed)
    assert sorted(s for _p, spaces in got for s in spaces) == sorted(s for _p, spaces in PLAYED for s in spaces)
    (question,) = untimed.table.last_snapshot["order_check"]
    session = untimed.table.session
    (group,) = session.provisional.values()
    assert question["recorded"] == 4 and len(group.seqs) == 4
    assert as_turns(group.chosen) == got
    # the order actually played is one of the choices offered (or the one inferred)
    offered = [as_turns(group.chosen)] + [as_turns(a) for a in group.alternatives]
    assert PLAYED in offered
    assert "could not be read" in question["message"]["en"] and question["message"]["zh"]
    assert all(s["description"]["zh"] for s in question["steps"])
    moves = [e for e in untimed.store.events(session.game_no) if e.type == "move"][2:]
    assert all(e.data["order"]["group"] == group.group for e in moves)


def test_choosing_the_played_order_rewrites_the_moves_and_survives_a_restart(untimed: TimedRig, tmp_path: Path) -> None:
    play_offline(untimed, PLAYED)
    untimed.run(4.0)
    session = untimed.table.session
    (group,) = session.provisional.values()
    if as_turns(group.chosen) == PLAYED:  # the heuristic happened to be right: nothing to choose
        pytest.skip("inferred order already the played one")
    index = [as_turns(a) for a in group.alternatives].index(PLAYED)
    untimed.events()
    res = untimed.table.choose_order(group.group, index, "admin@test")
    assert res.ok, res.message
    assert recorded(untimed) == PLAYED and not session.provisional
    assert untimed.table.last_snapshot["order_check"] == []
    assert any(e.type == "order_changed" for e in untimed.events())
    untimed.run(3.0)
    assert recorded(untimed) == PLAYED and untimed.table.reconciler.flag is None  # the table still matches
    untimed.close()
    untimed.open()
    assert recorded(untimed) == PLAYED and not untimed.table.session.provisional


def test_confirming_keeps_the_inferred_order(untimed: TimedRig) -> None:
    play_offline(untimed, PLAYED)
    untimed.run(4.0)
    session = untimed.table.session
    (group,) = session.provisional.values()
    before = recorded(untimed)
    assert not untimed.table.confirm_order(group.group + 1000, "admin@test").ok
    assert untimed.table.confirm_order(group.group, "admin@test").ok
    assert recorded(untimed) == before and not session.provisional
    assert untimed.table.last_snapshot["order_check"] == []
    untimed.close()
    untimed.open()
    assert recorded(untimed) == before and not untimed.table.session.provisional


def test_moves_stay_provisional_across_a_restart_until_confirmed(untimed: TimedRig) -> None:
    play_offline(untimed, PLAYED)
    untimed.run(4.0)
    chosen = as_turns(next(iter(untimed.table.session.provisional.values())).chosen)
    untimed.close()
    untimed.open()
    (group,) = untimed.table.session.provisional.values()
    assert as_turns(group.chosen) == chosen and untimed.table.last_snapshot["order_check"]


def test_change_times_kept_by_the_board_give_the_played_order(timed: TimedRig) -> None:
    play_offline(timed, PLAYED)
    timed.run(4.0)
    assert recorded(timed) == PLAYED
    assert not timed.table.session.provisional and timed.table.last_snapshot["order_check"] == []


def test_change_times_survive_a_referee_restart(tmp_path: Path) -> None:
    """The referee is down while the turns are played; when it comes back the board's snapshot
    carries each space's change time (older than the referee's own start)."""
    rig = TimedRig(tmp_path / "t.sqlite", timed=True)
    opening(rig)
    rig.close()
    play_offline_times = rig.clock.t
    for i, (owner, spaces) in enumerate(PLAYED):
        for j, space in enumerate(spaces):
            rig.put_at(space, owner, play_offline_times + 1.6 * i + 0.3 * j)
    rig.clock.t += 8.0
    rig.open()
    rig.run(4.0)
    assert recorded(rig) == PLAYED and not rig.table.session.provisional
    rig.close()


def test_a_restart_without_change_times_asks(tmp_path: Path) -> None:
    rig = TimedRig(tmp_path / "t.sqlite", timed=False)
    opening(rig)
    rig.close()
    for owner, spaces in PLAYED:
        for space in spaces:
            rig.put(space, owner)
    rig.clock.t += 8.0
    rig.open()
    rig.run(4.0)
    assert len(recorded(rig)) == 4 and rig.table.last_snapshot["order_check"]
    rig.close()


def test_a_burst_seen_live_is_ordered_by_the_observations(timed: TimedRig) -> None:
    """Without any outage a fast burst is ordered by when each piece was seen: no question."""
    timed.timed = False
    for owner, spaces in PLAYED:
        for space in spaces:
            timed.put(space, owner)
            timed.run(0.2)
    timed.run(3.0)
    assert recorded(timed) == PLAYED and not timed.table.session.provisional


def test_an_undo_of_a_provisional_move_shrinks_its_group(untimed: TimedRig) -> None:
    play_offline(untimed, PLAYED)
    untimed.run(4.0)
    session = untimed.table.session
    (group,) = session.provisional.values()
    assert untimed.table.undo("admin@test", authorised=True).ok
    assert len(session.provisional[group.group].seqs) == 3
    events = [e.type for e in untimed.events(ev.UNDO)]
    assert events == [ev.UNDO]
