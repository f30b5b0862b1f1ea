"""The referee for one table, single-threaded and clock-injected: sensed positions in,
refereed and scored moves out.

``Table`` joins the pure parts (``Stabiliser``, ``Reconciler``) with the event-sourced
``Session`` and publishes typed events on the ``EventBus``. It does no I/O of its own besides
the session's store and never starts a thread: the runtime (``tableref.runtime``) calls it from
one worker thread; tests call it directly with a fake clock.

One method per input (observation, source health, each command); ``step`` evaluates the table
and carries out the reconciler's decisions through a small handler table. What its stored events
look like on the bus (types, payloads, history rows) is ``tableref.table_events``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from scorer.core.boardkit import moved_spaces
from scorer.core.observation import ChanceSeen, Observation
from scorer.core.registry import board_kit
from scorer.core.types import Board, BoardDiff, IllegalMove, InvalidRecord, Message
from scorer.referee.reconciler import (
    AcceptMove,
    ClearFlag,
    CloseReason,
    Decision,
    RaiseFlag,
    Reading,
    ReadingChanged,
    Reconciler,
    ReconcilerSettings,
    SignalRefused,
    TableMatched,
    apply_offset,
    remove_offset,
)
from scorer.referee.stabiliser import Stabiliser, StableView
from tableref import move_order
from tableref import service as ev
from tableref.service import CommandResult, EventBus
from tableref.session import FLAG_CLEARED, FLAG_RAISED, MOVE, TABLE_MATCHED, Session
from tableref.store import EventStore
from tableref.table_events import BUS_TYPE, FOLLOW, SIGNAL, bus_payload, history_rows
from tableref.texts import join_messages

log = logging.getLogger(__name__)

UNDO_ARM_SECONDS = 10.0
SEEN_EARLY_S = 20.0  # dice that landed this long before the game asks for a roll still count


def ok(message: Message, **data: Any) -> CommandResult:
    return CommandResult(True, message, dict(data))


def refused(message: Message, **data: Any) -> CommandResult:
    return CommandResult(False, message, dict(data))


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
        self._resume_follow()
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

    def _game_part(self) -> dict[str, Any]:
        s = self.session
        key = (s.game_no, s.seq)
        if self._game_cache is None or self._game_cache[:2] != key:
            game, state = s.game, s.state
            outcome = game.outcome(state)
            gj = game.state_to_json(state)
            last = s.entries[-1] if s.entries else None
            last_move = None
            if last is not None:
                mj = [game.move_to_json(m) for m in last.moves]
                last_move = {
                    "player": next((m.get("player") for m in mj if m.get("player")), None),
                    "move": mj[0] if mj else None,
                    "moves": mj,
                    "spaces": moved_spaces(board_kit(game.id), mj),  # via the game's board kit
                    "description": join_messages([game.describe_move(m) for m in last.moves],
                                                 Message.t('tableref.table.table_accepted_by_override')).to_json(),
                    "at": last.wall,
                    "seq": last.seq,
                    "kind": last.kind,
                    "reason": last.reason,
                    "actor": last.actor,
                }
            names = dict(self.settings.player_names)
            part = {
                "version": s.version,
                "game": game.id,
                "game_name": game.name.to_json(),
                "game_no": s.game_no,
                "setup": s.setup.to_json(),
                "players": list(gj.get("players", s.setup.players)),
                "player_names": {p: names.get(p, p) for p in s.setup.players},
                "board_id": gj.get("board", s.setup.board),
                "provisional_board": bool(gj.get("provisional_board")),
                "turn": game.turn(state).to_json(),
                "scores": game.score(state).to_json(),
                "outcome": outcome.to_json() if outcome else None,
                "board": s.expected_table().to_json(),
                "engine_board": game.visible_board(state).to_json(),
                "offset": s.offset.to_json(),
                "state": gj,
                "last_move": last_move,
                "moves": len(s.moves()),
            }
            self._game_cache = (key[0], key[1], part)
        return self._game_cache[2]

    def snapshot(self) -> dict[str, Any]:
        r = self.reconciler
        game = self.session.game
        reading = r.reading
        now = self.clock()
        pending = None
        if reading is not None:
            pending = {
                "player": reading.player,
                "moves": [game.move_to_json(m) for m in reading.moves],
                "description": join_messages([game.describe_move(m) for m in reading.moves]).to_json(),
                "complete": reading.complete,
                "since": reading.since,
                "takeback": reading.takeback,
                "cards": list(reading.cards),
            }
        undo_wait = None
        if r.suppressed is not None:
            descs = [game.describe_move(m) for m in r.suppressed]
            undo_wait = {
                "moves": [game.move_to_json(m) for m in r.suppressed],
                "message": Message.t("tableref.table.take_back_undone", moves=join_messages(descs)).to_json(),
            }
        flag = None
        if r.flag is not None:
            flag = r.flag.to_json()
            flag["id"] = self._flag_ids.get(r.flag.raised_at)
            flag["diff"] = r.flag.residual.to_json()
        follow = None
        if r.follow is not None:
            follow = self._follow_json()
        out = dict(self._game_part())
        out.update({
            "table": {"name": self.settings.name},
            "event_id": self.bus.last_id,
            "flag": flag,
            "pending": pending,
            "undo_wait": undo_wait,
            "follow": follow,
            "undo_armed": self.undo_armed_at is not None and now - self.undo_armed_at <= UNDO_ARM_SECONDS,
            "alert": {"active": r.flag is not None, "silenced": self.alert_silenced and r.flag is not None},
            "sensors": self.view.to_json(),
            "devices": self.devices(),
            "cards_tapped": list(r.cards),
            "order_check": [move_order.question_json(game, p) for _g, p in sorted(self.session.provisional.items())],
            "camera_note": dict(self._seen_note) if self._seen_note else None,
        })
        return out

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
                accepted |= self._handle(d)
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

    def _handle(self, d: Decision) -> bool:
        handler = _HANDLERS[type(d)]
        return handler(self, d)

    def _order_of(self, d: AcceptMove) -> dict[str, Any] | None:
        """How an accepted move belongs to an inferred order: the first move of a new question, the
        next turn of the order still being accepted, or none."""
        game = self.session.game
        if d.order is not None:
            return {"group": None, "step": 0, "chosen": move_order.steps_json(game, d.order.chosen),
                    "alternatives": [move_order.steps_json(game, alt) for alt in d.order.alternatives]}
        open_ = self.session.open_order()
        step = open_.next_step() if open_ is not None else None
        if open_ is not None and step is not None and move_order.same_step([game.move_to_json(m) for m in d.moves], step):
            return {"group": open_.group, "step": len(open_.seqs)}
        return None

    def _on_accept(self, d: AcceptMove) -> bool:
        if self.session.is_over():
            return False
        before = self.session.state
        try:
            self.session.record_move(d.moves, d.reason.value, actor="referee", player=d.player, order=self._order_of(d))
        except IllegalMove as exc:  # the reconciler only proposes legal moves; say so loudly if not
            log.error("reconciler proposed an illegal move %s: %s", d.moves, exc)
            return False
        self.undo_armed_at = None
        self._follow(before, d.moves)
        return True

    # -- the table catching up with what the rules moved by themselves ---------------------------
    def _follow(self, before: Any, moves: Sequence[Any], also: Sequence[Board] = (), publish: bool = True) -> None:
        """After ``moves`` from ``before``: where the rules moved pieces by themselves (the board the
        moves left differs from the engine's), the referee follows the players carrying it out
        (``Reconciler.follow``) and says on the bus what to move."""
        game = self.session.game
        boards: list[Board] = []
        state = before
        try:
            for m in moves:
                shown = game.shown_board(state, m)
                state = game.apply_unchecked(state, m)
                after = game.visible_board(state)
                if shown != after:
                    boards += [shown, after]
        except Exception:  # noqa: BLE001 -- a move the engine cannot replay here moves nothing by itself
            log.exception("could not tell what the rules moved after %s", moves)
            return
        if not boards or self.session.is_over():  # once the game is over the table is no longer read
            return
        boards += [*also, game.visible_board(self.session.state)]
        self.reconciler.follow_boards(boards)
        if publish:
            self.bus.publish(FOLLOW, self._follow_json(), self.clock())

    def _follow_json(self) -> dict[str, Any]:
        """What the players still have to move: the table as sensed against the engine's board."""
        s = self.session
        expected = s.game.visible_board(s.state)
        sensed = remove_offset(self.view.merged_with(s.expected_table()), s.offset)
        todo = sensed.diff(expected)
        items = [Message.t("tableref.table.follow.put", n=n, piece=_piece_label(p), space=sp) for sp, p, n in todo.added]
        items += [Message.t("tableref.table.follow.take", n=n, piece=_piece_label(p), space=sp) for sp, p, n in todo.removed]
        message = Message.t("tableref.table.follow", changes=join_messages(items))
        return {"message": message.to_json(), "description": message.to_json(), "diff": todo.to_json()}

    def _resume_follow(self) -> None:
        """After a restart: follow again what the last entry's rules moved (ends at once if the table matches)."""
        s = self.session
        if not s.entries or s.entries[-1].kind != MOVE:
            return
        state = s.game.setup(s.setup)
        try:
            for e in s.entries[:-1]:
                for m in e.moves:
                    state = s.game.apply_unchecked(state, m)
        except Exception:  # noqa: BLE001 -- the session replayed it already; nothing to follow if not
            return
        self._follow(state, s.entries[-1].moves, publish=False)

    def _on_raise(self, d: RaiseFlag) -> bool:
        self.alert_silenced = False
        stored = self.session.record(FLAG_RAISED, {"flag": d.flag.to_json(), "update": d.update})
        bus_id = self._bus_ids.get((self.session.game_no, stored[-1].seq))
        if bus_id is not None and d.flag.raised_at not in self._flag_ids:
            self._flag_ids = {d.flag.raised_at: bus_id}
        return False

    def _on_clear(self, d: ClearFlag) -> bool:
        self.alert_silenced = False
        self.session.record(FLAG_CLEARED, {"reason": d.reason, "flag": d.flag.to_json()})
        return False

    def _on_reading(self, d: ReadingChanged) -> bool:
        return False

    def _on_matched(self, d: TableMatched) -> bool:
        if self.session.undo_wait is not None:
            self.session.record(TABLE_MATCHED, {})
        return False

    def _on_refused(self, d: SignalRefused) -> bool:
        self.bus.publish(SIGNAL, {"ok": False, "reason": d.reason.value, "message": d.message.to_json(),
                                  "description": d.message.to_json(), "actor": "referee"}, self.clock())
        return False

    # -- commands (each answers with a CommandResult) ------------------------------------------
    def _signal(self, reason: CloseReason, card: str | None = None) -> CommandResult:
        if self.session.is_over():
            return refused(Message.t('tableref.table.the_game_is_over'))
        before = self.session.seq
        if card is None:
            self.reconciler.signal(reason, self.clock())
        else:
            self.reconciler.tap_card(card, self.clock())
        decisions = self.step()
        for d in decisions:
            if isinstance(d, SignalRefused):
                return refused(d.message)
        if self.session.seq != before and any(isinstance(d, AcceptMove) for d in decisions):
            desc = self.session.entries[-1].moves
            text = [self.session.game.describe_move(m) for m in desc]
            return ok(Message.t("tableref.table.turn_closed", moves=join_messages(text)))
        if card is not None:
            return ok(Message.t("tableref.table.card_noted", card=card), cards=list(self.reconciler.cards))
        return ok(Message.t("tableref.table.turn_closes_when_still"))

    def turn_done(self, actor: str) -> CommandResult:
        return self._signal(CloseReason.TURN_DONE)

    def tap_card(self, card: str, actor: str) -> CommandResult:
        return self._signal(CloseReason.CARD, card)

    def undo(self, actor: str, authorised: bool) -> CommandResult:
        others = self.reconciler.reading is not None and not self.reconciler.reading.takeback
        why = self.session.undo_refusal(authorised, others)
        if why is not None:
            return refused(why)
        game = self.session.game
        table_before = game.visible_board(self.session.state)
        undone_moves = self.session.entries[-1].moves
        self.session.record_undo(actor, authorised)
        self.undo_armed_at = None
        undone = self.session.undo_wait or ()
        for d in self.reconciler.after_undo(undone):
            self._handle(d)
        if not undone:
            self.reconciler.suppressed = None
        # the rules had moved pieces by themselves after the undone move: they go back the same way
        self._follow(self.session.state, undone_moves, also=(table_before,))
        self.step()
        return ok(Message.t("tableref.table.move_taken_back"))

    def arm_undo(self, actor: str) -> CommandResult:
        """The undo button: arm; the confirm button within 10 s carries it out."""
        why = self.session.undo_refusal(False, self.reconciler.reading is not None and not self.reconciler.reading.takeback)
        if why is not None:
            self.bus.publish(SIGNAL, {"ok": False, "reason": "undo", "message": why.to_json(), "description": why.to_json(),
                                      "actor": actor}, self.clock())
            return refused(why)
        self.undo_armed_at = self.clock()
        self.publish_state()
        return ok(Message.t("tableref.table.press_confirm_to_undo"))

    def confirm(self, actor: str) -> CommandResult:
        """The confirm button: carry out an armed undo, else silence the buzzer of an open flag."""
        if self.undo_armed_at is not None and self.clock() - self.undo_armed_at <= UNDO_ARM_SECONDS:
            self.undo_armed_at = None
            return self.undo(actor, authorised=False)
        self.undo_armed_at = None
        if self.reconciler.flag is not None:
            self.alert_silenced = True
            self.publish_state()
            return ok(Message.t("tableref.table.buzzer_silenced"))
        return refused(Message.t('tableref.table.nothing_to_confirm'))

    def override(self, actor: str, authorised: bool) -> CommandResult:
        """Accept the table as it stands (admin PIN), with an audit entry."""
        if not authorised:
            return refused(Message.t('tableref.table.an_override_needs_the_admin'))
        s = self.session
        game = s.game
        now = self.clock()
        self.view = self.stabiliser.view(now)
        table = self.view.merged_with(s.expected_table())
        engine_board = remove_offset(table, s.offset)
        if engine_board == game.visible_board(s.state) and self.reconciler.flag is None:
            return refused(Message.t('tableref.table.the_table_already_matches_the'))
        flag = self.reconciler.flag
        forced: tuple[Any, ...] = ()
        if flag is not None and flag.moves:
            forced = flag.moves
        elif self.reconciler.reading is not None:
            forced = self.reconciler.reading.moves
        state = s.state
        try:
            for m in forced:
                state = game.apply_unchecked(state, m)
        except Exception:  # a reading the engine cannot represent: keep it all as an offset
            forced, state = (), s.state
        delta = game.visible_board(state).diff(engine_board)
        s.record_override(forced, delta, actor, flag)
        for d in self.reconciler.reset("override"):
            self._handle(d)
        self.step()
        return ok(Message.t("tableref.table.table_accepted_as_it_stands"),
                  forced=[game.move_to_json(m) for m in forced], offset=delta.to_json())

    def declare(self, move: Mapping[str, Any], actor: str) -> CommandResult:
        """A declared input the sensors cannot see (China: a card exchange, the pile running out)."""
        s = self.session
        try:
            parsed = s.game.move_from_json(move)
        except InvalidRecord as exc:
            return refused(Message.t('tableref.table.cannot_read_the_declaration', exc=exc))
        if getattr(parsed, "placements", None):
            return refused(Message.t('tableref.table.pieces_are_read_from_the'))
        on_table = self.reconciler.reading is not None or self.reconciler.flag is not None
        if on_table and not self._shows(parsed):
            # a declaration may complete the move the table shows (what the sensors cannot see: draws,
            # a kept treasure, a law's number ...), but never contradict it
            return refused(Message.t('tableref.table.finish_or_clear_what_is'))
        before = s.state
        try:
            s.record_move((parsed,), "declared", actor, player=getattr(parsed, "player", None))
        except IllegalMove as exc:
            v = exc.violations[0]
            return refused(v.message, violations=[x.to_json() for x in exc.violations])
        if on_table:
            for d in self.reconciler.reset("corrected"):
                self._handle(d)
        self._follow(before, (parsed,))
        self.step()
        return ok(Message.t("tableref.table.declared", move=s.game.describe_move(parsed)))

    def _shows(self, move: Any) -> bool:
        """The settled table is exactly the engine's board after ``move`` (the move it shows)."""
        s = self.session
        self.view = self.stabiliser.view(self.clock())
        if self.view.busy:
            return False
        sensed = remove_offset(self.view.merged_with(s.expected_table()), s.offset)
        try:
            after = s.game.apply_unchecked(s.state, move)
        except Exception:  # a move the engine cannot apply here shows nothing
            return False
        return s.game.visible_board(after) == sensed

    def new_game(self, setup: Mapping[str, Any], actor: str, authorised: bool) -> CommandResult:
        s = self.session
        if s.entries and not s.is_over() and not authorised:
            return refused(Message.t('tableref.table.a_game_is_in_progress'))
        setup = dict(setup)
        game_id = str(setup.pop("game", s.game.id))
        try:
            from scorer.core.registry import get_game
            from scorer.core.schema import validate

            validate(setup, get_game(game_id).setup_schema(), "setup")
            if not s.is_over():
                s.abandon(actor)
            new = Session.start(self.store, game_id, setup, clock=self.clock, wall=self.wall,
                                publish=self._publish_stored, actor=actor)
        except (InvalidRecord, KeyError) as exc:
            return refused(Message.t('tableref.table.cannot_start_that_game', exc=exc))
        self.session = new
        self._seen = self._seen_note = None
        self.reconciler = Reconciler(new.game, self.settings.reconciler)
        self._game_cache = None
        self.undo_armed_at = None
        self.step()
        return ok(Message.t("tableref.table.new_game_started", game_no=new.game_no), game_no=new.game_no)

    def confirm_order(self, group: int, actor: str) -> CommandResult:
        """A person confirms the order the referee inferred for a group of moves."""
        if group not in self.session.provisional:
            return refused(Message.t('tableref.table.no_move_order_waits_for'))
        self.session.confirm_order(group, actor)
        self.publish_state()
        return ok(Message.t("tableref.table.order_confirmed"))

    def choose_order(self, group: int, index: int, actor: str) -> CommandResult:
        """A person says the moves were played in another order: the group's moves are replaced by
        that order's (the table itself is unchanged), and the game replays from there."""
        p = self.session.provisional.get(group)
        if p is None or not 0 <= index < len(p.alternatives):
            return refused(Message.t('tableref.table.no_such_order_to_choose'))
        try:
            self.session.change_order(group, index, actor)
        except IllegalMove as exc:
            v = exc.violations[0]
            return refused(Message.t('tableref.table.the_later_moves_are_not', message=v.message))
        self._game_cache = None
        for d in self.reconciler.reset("corrected"):
            self._handle(d)
        self.step()
        return ok(Message.t("tableref.table.order_changed"))

    def export_bgstats(self, lang: str = "en") -> dict[str, Any]:
        """The finished game as Board Game Stats' createPlay JSON (tableref.bgstats)."""
        from tableref.bgstats import play_from_session

        return play_from_session(self.session, names=dict(self.settings.player_names), table=self.settings.name, lang=lang)

    # -- timing ------------------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        now = self.clock()
        times = [t for t in (self.stabiliser.next_deadline(), self.reconciler.next_deadline(now)) if t is not None]
        return min(times) if times else None


_HANDLERS: dict[type, Callable[[Table, Any], bool]] = {
    AcceptMove: Table._on_accept,
    RaiseFlag: Table._on_raise,
    ClearFlag: Table._on_clear,
    ReadingChanged: Table._on_reading,
    TableMatched: Table._on_matched,
    SignalRefused: Table._on_refused,
}


def _piece_label(piece: Any) -> Message:
    """A piece's name ("yellow family member") as the tag registry gives it, else owner and kind as given."""
    try:
        from hardware.tag_registry import describe
    except ImportError:  # the Pi-side hardware package is not installed: owner and kind as they are
        return Message.t("name.as_given", name=f"{piece.owner} {piece.kind}")
    return describe(piece)


def expected_board(table: Table) -> Board:
    return apply_offset(table.session.game.visible_board(table.session.state), table.session.offset)


__all__ = ["Table", "TableSettings", "expected_board", "BoardDiff", "Reading", "FOLLOW", "bus_payload"]
