"""The referee for one table, single-threaded and clock-injected: sensed positions in,
refereed and scored moves out.

``Table`` joins the pure parts (``Stabiliser``, ``Reconciler``) with the event-sourced
``Session`` and publishes typed events on the ``EventBus``. It does no I/O of its own besides
the session's store and never starts a thread: the runtime (``tableref.runtime``) calls it from
one worker thread; tests call it directly with a fake clock.

One method per input (observation, source health, each command); ``step`` evaluates the table
and carries out the reconciler's decisions through a small handler table. The class holds the
referee's state and its inputs; its collaborators are plain functions that take it explicitly:
the commands (``tableref.table_commands``), the decision handlers (``tableref.table_decisions``),
following what the rules moved by themselves (``tableref.table_follow``) and the published
snapshot (``tableref.table_snapshot``). What its stored events look like on the bus (types,
payloads, history rows) is ``tableref.table_events``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from scorer.core.observation import ChanceSeen, Observation
from scorer.core.types import Board, BoardDiff, Message
from scorer.referee.reconciler import (
    CloseReason,
    Decision,
    Reading,
    Reconciler,
    ReconcilerSettings,
    apply_offset,
)
from scorer.referee.stabiliser import Stabiliser, StableView
from tableref import service as ev
from tableref import table_commands as commands
from tableref import table_snapshot
from tableref.service import CommandResult, EventBus
from tableref.session import FLAG_CLEARED, Session
from tableref.store import EventStore
from tableref.table_decisions import handle
from tableref.table_events import BUS_TYPE, FOLLOW, bus_payload, history_rows
from tableref.table_follow import resume_follow

log = logging.getLogger(__name__)

SEEN_EARLY_S = 20.0  # dice that landed this long before the game asks for a roll still count


@dataclass(frozen=True, slots=True)
class TableSettings:
    settle: float = 0.5
    priority: tuple[str, ...] = ("sensor-board", "camera")
    min_confidence: float = 0.5
    reconciler: ReconcilerSettings = ReconcilerSettings()
    name: str = "table"
    player_names: tuple[tuple[str, str], ...] = ()


class Table:
    def __init__(self, store: EventStore, bus: EventBus, game_id: str, setup: Mapping[str, Any], *,
                 clock: Callable[[], float], wall: Callable[[], str], settings: TableSettings = TableSettings(),
                 devices: Callable[[], dict[str, Any]] | None = None) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock
        self.wall = wall
        self.settings = settings
        self.devices = devices or (lambda: {})
        self._bus_ids: dict[tuple[Any, Any], int] = {}
        self._flag_ids: dict[float, int] = {}
        self._disagreements: dict[tuple[str, str], Any] = {}
        self.last_snapshot: dict[str, Any] = {}
        self.stabiliser = Stabiliser(settle=settings.settle, priority=settings.priority, min_confidence=settings.min_confidence)
        self.session = Session.resume_or_start(store, game_id, setup, clock=clock, wall=wall, publish=self._publish_stored)
        self.reconciler = Reconciler(self.session.game, settings.reconciler)
        self.reconciler.suppressed = self.session.undo_wait
        if self.session.open_flag is not None:
            # a flag left open by a crash: closed in the log; raised again if the table is still illegal
            self.session.record(FLAG_CLEARED, {"reason": "restart", "flag": self.session.open_flag})
        self.view: StableView = self.stabiliser.view(clock())
        self.undo_armed_at: float | None = None
        self.alert_silenced = False
        self._last_published: Any = None
        self._game_cache: tuple[int, int, dict[str, Any]] | None = None
        self._seen: ChanceSeen | None = None  # the last dice landing not entered yet
        self._seen_note: dict[str, Any] | None = None  # why the players must declare it themselves
        self._entering_seen = False
        resume_follow(self)
        self.publish_state(force=True)

    # -- publishing ---------------------------------------------------------------------------
    def _publish_stored(self, type_: str, data: dict[str, Any]) -> None:
        """Turn a stored event into the bus event adapters read (docs/runtime-api.md)."""
        bus_type = BUS_TYPE.get(type_)
        if bus_type is None:
            return
        payload = bus_payload(type_, data)
        payload["version"] = data.get("seq")
        event = self.bus.publish(bus_type, payload, self.clock())
        self._bus_ids[(data.get("game_no"), data.get("seq"))] = event.id

    def snapshot(self) -> dict[str, Any]:
        return table_snapshot.snapshot(self)

    def publish_state(self, force: bool = False) -> None:
        snap = self.snapshot()
        key = {k: v for k, v in snap.items() if k not in ("event_id", "devices")}
        key["sensors"] = {k: v for k, v in snap["sensors"].items() if k not in ("at",)}
        key["sensors"]["sources"] = [{k: v for k, v in s.items() if k != "last_seen"} for s in snap["sensors"]["sources"]]
        if not force and key == self._last_published:
            return
        self._last_published = key
        snap["event_id"] = self.bus.last_id + 1
        self.last_snapshot = snap
        self.bus.publish(ev.STATE, snap, self.clock())

    def history(self) -> list[dict[str, Any]]:
        """This game's stored events as the dashboard's history rows, oldest first."""
        return history_rows(self.session.store.events(self.session.game_no), self._bus_ids)

    # -- inputs ---------------------------------------------------------------------------------
    def observe(self, obs: Observation) -> None:
        s = self.session
        self.stabiliser.observe(obs.with_owners(s.game.sensed_owners(s.setup)), self.clock())

    def set_source(self, source: str, live: bool, reason: Message | None = None) -> None:
        before = {s.source: s.live for s in self.stabiliser.sources()}
        self.stabiliser.set_source_live(source, live, self.clock(), reason)
        if before.get(source) != live:
            self.session.record("device", {"source": source, "live": live, "reason": reason.to_json() if reason else None})
            self.bus.publish(ev.DEVICES, {"source": source, "live": live, "reason": reason.to_json() if reason else None,
                                          "devices": self.devices()}, self.clock())

    def chance_seen(self, seen: ChanceSeen) -> None:
        """Dice came to rest in the tray (the camera's ``vision.dice.DiceWatch``): entered as the
        game's declaration (``Game.camera_declarations``) when it awaits a roll, now or within
        ``SEEN_EARLY_S``; dice that could not be read leave a note asking for the roll to be
        declared on the dashboard (the declaration path is the same as ever)."""
        self._seen = seen
        self._seen_note = None
        self.step()

    def _use_seen(self) -> None:
        seen, s = self._seen, self.session
        if seen is None or self._entering_seen:
            return
        if s.is_over():
            self._seen = self._seen_note = None
            return
        game = s.game
        if not seen.readable:
            # the note matters only while the game awaits what a readable landing would have given
            wanted = bool(game.camera_declarations(s.state, ChanceSeen(seen.kind, (1,), seen.source, seen.at, seen.space)))
            self._seen_note = {"message": (seen.reason or Message.t("tableref.table.declare_unread_roll")).to_json(),
                               "at": seen.at, "space": seen.space} if wanted else None
            return
        moves = game.camera_declarations(s.state, seen)
        if not moves:
            if self.clock() - seen.at > SEEN_EARLY_S:
                self._seen = None  # nobody asked for that roll
            return
        self._entering_seen = True
        try:
            for move in moves:
                res = self.declare(game.move_to_json(move), actor=seen.source)
                if not res.ok:  # the table shows an unfinished move: tried again at the next step
                    log.info("roll read by the %s not entered yet: %s", seen.source, res.message.en)
                    return
            self._seen = self._seen_note = None
        finally:
            self._entering_seen = False

    def step(self) -> list[Decision]:
        """Evaluate the table now and carry out what the reconciler decides."""
        done: list[Decision] = []
        for _ in range(6):  # a move accepted may reveal the next player's move on the same table
            now = self.clock()
            self.view = self.stabiliser.view(now)
            decisions = self.reconciler.evaluate(self.session.state, self.view, now, self.session.offset)
            accepted = False
            for d in decisions:
                accepted |= handle(self, d)
            done.extend(decisions)
            if not accepted:
                break
        self._use_seen()
        self._report_disagreements()
        self.publish_state()
        return done

    def _report_disagreements(self) -> None:
        """A new disagreement between sources is announced once (and stays in the snapshot)."""
        current = {(d.space, d.other_source): d for d in self.view.disagreements}
        new = [d for k, d in current.items() if self._disagreements.get(k) != d]
        self._disagreements = current
        for d in new:
            self.bus.publish(ev.DEVICES, {"disagreement": d.to_json(), "description": d.message.to_json()}, self.clock())

    # -- commands (each answers with a CommandResult; tableref.table_commands) ------------------
    def turn_done(self, actor: str) -> CommandResult:
        return commands.signal(self, CloseReason.TURN_DONE)

    def tap_card(self, card: str, actor: str) -> CommandResult:
        return commands.signal(self, CloseReason.CARD, card)

    def undo(self, actor: str, authorised: bool) -> CommandResult:
        return commands.undo(self, actor, authorised)

    def arm_undo(self, actor: str) -> CommandResult:
        """The undo button: arm; the confirm button within 10 s carries it out."""
        return commands.arm_undo(self, actor)

    def confirm(self, actor: str) -> CommandResult:
        """The confirm button: carry out an armed undo, else silence the buzzer of an open flag."""
        return commands.confirm(self, actor)

    def override(self, actor: str, authorised: bool) -> CommandResult:
        """Accept the table as it stands (admin PIN), with an audit entry."""
        return commands.override(self, actor, authorised)

    def declare(self, move: Mapping[str, Any], actor: str) -> CommandResult:
        """A declared input the sensors cannot see (China: a card exchange, the pile running out)."""
        return commands.declare(self, move, actor)

    def new_game(self, setup: Mapping[str, Any], actor: str, authorised: bool) -> CommandResult:
        return commands.new_game(self, setup, actor, authorised)

    def confirm_order(self, group: int, actor: str) -> CommandResult:
        """A person confirms the order the referee inferred for a group of moves."""
        return commands.confirm_order(self, group, actor)

    def choose_order(self, group: int, index: int, actor: str) -> CommandResult:
        """A person says the moves were played in another order (``tableref.table_commands.choose_order``)."""
        return commands.choose_order(self, group, index, actor)

    def export_bgstats(self, lang: str = "en") -> dict[str, Any]:
        """The finished game as Board Game Stats' createPlay JSON (tableref.bgstats)."""
        from tableref.bgstats import play_from_session

        return play_from_session(self.session, names=dict(self.settings.player_names), table=self.settings.name, lang=lang)

    # -- timing ------------------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        now = self.clock()
        times = [t for t in (self.stabiliser.next_deadline(), self.reconciler.next_deadline(now)) if t is not None]
        return min(times) if times else None


def expected_board(table: Table) -> Board:
    return apply_offset(table.session.game.visible_board(table.session.state), table.session.offset)


__all__ = ["Table", "TableSettings", "expected_board", "BoardDiff", "Reading", "FOLLOW", "bus_payload"]
