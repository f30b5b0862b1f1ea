"""One game at a table, event-sourced: the stored log *is* the game.

The session folds the stored events into the engine state. Every change goes the same way:
build the events, commit them to the ``EventStore`` (durable), fold them into memory, and only
then publish them. A restart replays the log and lands exactly where the last commit left it;
a move committed is never lost and, because the state version (``seq``) is unique per game,
never applied twice.

Entries that change the game are ``move`` (accepted by the referee or declared) and ``override``
(forced by an admin: moves applied unchecked plus a board offset). ``undo`` removes the last entry;
the state is then a replay of the log minus the undone entry (boardgame.io style).

Undo policy (also in docs/runtime.md):

* Without the admin PIN, only the **last** entry can be taken back, and only when
  1. it is a move (an override is undone only with the PIN),
  2. no undo without the PIN happened since the last new entry (no stepping back across another
     player's action),
  3. no other player has started acting: nothing beyond the expected board is on the table
     (the caller says so with ``others_acted``),
  4. it revealed no hidden information: not a declared input (card exchange, "pile ran out")
     and no cards drawn from the pile recorded in it.
* With the admin PIN any number of entries can be taken back, one per request.
* After an undo the referee waits for the table to match (see ``scorer.referee.reconciler``).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from scorer.core.game import Game, SetupOptions
from scorer.core.registry import get_game
from scorer.core.types import Board, BoardDiff, IllegalMove, InvalidRecord, Message, Piece, SpaceId, TableRefError
from scorer.records import to_record
from scorer.referee.reconciler import Flag, compose_offsets
from tableref.move_order import ORDER_CHANGED, ORDER_CONFIRMED, Provisional
from tableref.store import EventStore, NewEvent, StoredEvent
from tableref.texts import join_messages, message_from_json

# stored event types
GAME_STARTED = "game_started"
MOVE = "move"
SCORE = "score"
FLAG_RAISED = "flag_raised"
FLAG_CLEARED = "flag_cleared"
UNDO = "undo"
OVERRIDE = "override"
TABLE_MATCHED = "table_matched"
GAME_OVER = "game_over"
DEVICE = "device"
ABANDONED = "abandoned"

Publish = Callable[[str, dict[str, Any]], None]


class SessionError(TableRefError, RuntimeError):
    """The stored log cannot be replayed (it was written by an incompatible engine or edited)."""


def _points(board: Any) -> list[tuple[str, int, tuple[tuple[str, int], ...]]]:
    """What a score change is: totals and categories (not the tie-break key, which moves with supply)."""
    return [(p.player, p.total, p.breakdown) for p in board.players]


def diff_from_json(data: Mapping[str, Any]) -> BoardDiff:
    def rows(items: Sequence[Mapping[str, Any]]) -> tuple[tuple[SpaceId, Piece, int], ...]:
        return tuple((SpaceId(r["space"]), Piece(str(r["owner"]), str(r["kind"])), int(r["count"])) for r in items)

    return BoardDiff(rows(data.get("added", ())), rows(data.get("removed", ())))


@dataclass(frozen=True, slots=True)
class Entry:
    """One game-changing log entry: a move or an override."""

    kind: str  # MOVE | OVERRIDE
    seq: int
    moves: tuple[Any, ...]
    reason: str
    actor: str | None
    wall: str
    offset: BoardDiff = field(default_factory=BoardDiff)
    group: int | None = None  # a provisional order this move belongs to (tableref.move_order)


class Session:
    def __init__(self, store: EventStore, game_no: int, game: Game, setup: SetupOptions, *,
                 clock: Callable[[], float], wall: Callable[[], str], publish: Publish | None = None) -> None:
        self.store = store
        self.game_no = game_no
        self.game = game
        self.setup = setup
        self.clock = clock
        self.wall = wall
        self.publish: Publish = publish or (lambda _t, _d: None)
        self.entries: list[Entry] = []
        self.state = game.setup(setup)
        self.offset = BoardDiff()
        self.seq = 0
        self.undo_wait: tuple[Any, ...] | None = None
        self.undo_streak = 0
        self.open_flag: dict[str, Any] | None = None
        self.history_rows: list[dict[str, Any]] = []
        self.provisional: dict[int, Provisional] = {}  # group -> moves whose order awaits confirmation

    # -- opening --------------------------------------------------------------------------------
    @classmethod
    def start(cls, store: EventStore, game_id: str, setup_json: Mapping[str, Any], *, clock: Callable[[], float],
              wall: Callable[[], str], publish: Publish | None = None, actor: str | None = None) -> "Session":
        game = get_game(game_id)
        setup = SetupOptions.from_json(dict(setup_json))
        game.setup(setup)  # validate before anything is stored
        game_no = store.create_game(game_id, setup.to_json(), wall())
        session = cls(store, game_no, game, setup, clock=clock, wall=wall, publish=publish)
        session._commit([NewEvent(GAME_STARTED, {"game": game_id, "setup": setup.to_json()}, actor)])
        return session

    @classmethod
    def resume(cls, store: EventStore, game_no: int, *, clock: Callable[[], float], wall: Callable[[], str],
               publish: Publish | None = None) -> "Session":
        row = store.game(game_no)
        game = get_game(row.game)
        setup = SetupOptions.from_json(row.setup)
        session = cls(store, game_no, game, setup, clock=clock, wall=wall, publish=publish)
        for ev in store.events(game_no):
            session._fold(ev)
        session.seq = store.last_seq(game_no) + 1
        return session

    @classmethod
    def resume_or_start(cls, store: EventStore, game_id: str, setup_json: Mapping[str, Any], *,
                        clock: Callable[[], float], wall: Callable[[], str], publish: Publish | None = None) -> "Session":
        """Resume the latest open game of the store, or start a new one from the configuration."""
        row = store.latest_game()
        if row is not None and row.status != "abandoned":
            return cls.resume(store, row.id, clock=clock, wall=wall, publish=publish)
        return cls.start(store, game_id, setup_json, clock=clock, wall=wall, publish=publish)

    # -- folding ----------------------------------------------------------------------------------
    def _fold(self, ev: StoredEvent) -> None:
        """Apply one stored event to memory (used by replay and after every commit)."""
        d = ev.data
        if ev.type == MOVE:
            moves = tuple(self.game.move_from_json(m) for m in d["moves"])
            order = d.get("order") or {}
            group = order.get("group")
            entry = Entry(MOVE, ev.seq, moves, d.get("reason", ""), ev.actor, ev.wall, group=group)
            self._push(entry, checked=True)
            self.undo_wait = None
            self.undo_streak = 0
            if group is not None and order.get("step") == 0:
                self.provisional[group] = Provisional(group, list(order["chosen"]), list(order.get("alternatives", [])))
            if group in self.provisional:
                self.provisional[group].seqs.append(ev.seq)
        elif ev.type == OVERRIDE:
            moves = tuple(self.game.move_from_json(m) for m in d.get("forced", ()))
            entry = Entry(OVERRIDE, ev.seq, moves, "override", ev.actor, ev.wall, diff_from_json(d.get("offset", {})))
            self._push(entry, checked=False)
            self.undo_wait = None
            self.undo_streak = 0
            self.open_flag = None
        elif ev.type == UNDO:
            if not self.entries:
                raise SessionError(f"game {self.game_no}: undo at seq {ev.seq} with nothing to undo")
            undone = self.entries.pop()
            self._rebuild()
            if undone.group in self.provisional:
                group = self.provisional[undone.group]
                group.seqs = [s for s in group.seqs if s != undone.seq]
                if not group.seqs:
                    del self.provisional[undone.group]
            self.undo_wait = undone.moves if d.get("await_table", True) and undone.moves else None
            if not d.get("authorised"):
                self.undo_streak += 1
            self.open_flag = None
        elif ev.type == ORDER_CONFIRMED:
            self.provisional.pop(d["group"], None)
        elif ev.type == ORDER_CHANGED:
            self.entries = self._reordered(d["group"], d["steps"], ev)
            self._rebuild()
            self.provisional.pop(d["group"], None)
        elif ev.type == TABLE_MATCHED:
            self.undo_wait = None
        elif ev.type == FLAG_RAISED:
            self.open_flag = d.get("flag")
        elif ev.type == FLAG_CLEARED:
            self.open_flag = None
        self.history_rows.append(ev.to_json())

    def _push(self, entry: Entry, *, checked: bool) -> None:
        state = self.state
        try:
            for m in entry.moves:
                state = self.game.apply(state, m) if checked else self.game.apply_unchecked(state, m)
        except (IllegalMove, InvalidRecord, KeyError, ValueError, TypeError) as exc:
            raise SessionError(f"game {self.game_no}: stored entry {entry.seq} does not replay: {exc}") from exc
        self.state = state
        self.entries.append(entry)
        self.offset = compose_offsets(self.offset, entry.offset)

    def _reordered(self, group: int, steps: Sequence[Mapping[str, Any]], ev: StoredEvent | None = None) -> list[Entry]:
        """The entries with a provisional group's moves replaced, turn for turn, by ``steps``."""
        seqs = self.provisional[group].seqs
        first = next(i for i, e in enumerate(self.entries) if e.seq == seqs[0])
        seq, wall, actor = (ev.seq, ev.wall, ev.actor) if ev is not None else (self.seq, "", None)
        new = [Entry(MOVE, seq, tuple(self.game.move_from_json(m) for m in step["moves"]), "order", actor, wall)
               for step in steps[:len(seqs)]]
        return self.entries[:first] + new + self.entries[first + len(seqs):]

    def _rebuild(self) -> None:
        entries, self.entries = self.entries, []
        self.state = self.game.setup(self.setup)
        self.offset = BoardDiff()
        for e in entries:
            self._push(e, checked=e.kind == MOVE)

    def _commit(self, events: list[NewEvent]) -> list[StoredEvent]:
        """Durably store, then fold, then publish: nobody hears of an event the disk does not have."""
        stored = self.store.append(self.game_no, self.seq, events, self.clock(), self.wall())
        self.seq += len(stored)
        for ev in stored:
            self._fold(ev)
        for ev in stored:
            self.publish(ev.type, {"game_no": self.game_no, "seq": ev.seq, "actor": ev.actor, **ev.data})
        return stored

    # -- views --------------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return self.seq - 1

    def moves(self) -> list[Any]:
        return [m for e in self.entries for m in e.moves]

    def expected_table(self) -> Board:
        from scorer.referee.reconciler import apply_offset

        return apply_offset(self.game.visible_board(self.state), self.offset)

    def totals(self) -> dict[str, int]:
        return {p.player: p.total for p in self.game.score(self.state).players}

    def is_over(self) -> bool:
        return self.game.outcome(self.state) is not None

    # -- changes --------------------------------------------------------------------------------------
    def record_move(self, moves: Sequence[Any], reason: str, actor: str | None, player: str | None = None,
                    order: Mapping[str, Any] | None = None) -> list[StoredEvent]:
        """Check and store accepted move(s) plus the score change and the end of game they cause.
        ``order`` marks a move of an inferred order (tableref.move_order); its ``group`` is given
        as None on the first move and becomes that move's own sequence number."""
        state = self.state
        for m in moves:
            state = self.game.apply(state, m)  # raises IllegalMove: nothing is stored then
        extra: dict[str, Any] = {"reason": reason, "player": player}
        if order is not None:
            extra["order"] = dict(order, group=self.seq if order.get("group") is None else order["group"])
        return self._store_entry(MOVE, moves, state, actor, extra)

    def open_order(self) -> Provisional | None:
        """The provisional order whose next turn the referee is still expected to accept: its moves
        are the last entries and it has turns left."""
        for p in self.provisional.values():
            if p.next_step() is not None and self.entries and self.entries[-1].seq == p.seqs[-1]:
                return p
        return None

    def confirm_order(self, group: int, actor: str | None) -> list[StoredEvent]:
        if group not in self.provisional:
            raise SessionError(f"no move order {group} awaits confirmation")
        return self._commit([NewEvent(ORDER_CONFIRMED, {"group": group, "steps": self.provisional[group].chosen}, actor)])

    def change_order(self, group: int, index: int, actor: str | None) -> list[StoredEvent]:
        """Replace a provisional group by alternative ``index``; IllegalMove (nothing stored) if the
        game no longer replays with it (a later move that is illegal in the other order)."""
        p = self.provisional.get(group)
        if p is None or not 0 <= index < len(p.alternatives):
            raise SessionError(f"no alternative {index} for move order {group}")
        steps = p.alternatives[index]
        state = self.game.setup(self.setup)
        for e in self._reordered(group, steps):
            for m in e.moves:
                state = self.game.apply(state, m) if e.kind == MOVE else self.game.apply_unchecked(state, m)
        events = [NewEvent(ORDER_CHANGED, {"group": group, "choice": index, "steps": steps[:len(p.seqs)],
                                           "replaced": p.chosen[:len(p.seqs)]}, actor)]
        before, after = self.game.score(self.state), self.game.score(state)
        if _points(before) != _points(after):
            events.append(NewEvent(SCORE, {"cause_seq": self.seq, "scoreboard": after.to_json(), "effects": []}, actor))
        return self._commit(events)

    def record_override(self, forced: Sequence[Any], offset: BoardDiff, actor: str | None, flag: Flag | None) -> list[StoredEvent]:
        state = self.state
        for m in forced:
            state = self.game.apply_unchecked(state, m)
        extra = {"forced": [self.game.move_to_json(m) for m in forced], "offset": offset.to_json(),
                 "flag": flag.to_json() if flag else None}
        return self._store_entry(OVERRIDE, forced, state, actor, extra)

    def _store_entry(self, kind: str, moves: Sequence[Any], after: Any, actor: str | None, extra: dict[str, Any]) -> list[StoredEvent]:
        before_scores = self.game.score(self.state)
        after_scores = self.game.score(after)
        data: dict[str, Any] = dict(extra)
        if kind == MOVE:
            data["moves"] = [self.game.move_to_json(m) for m in moves]
        data["description"] = [self.game.describe_move(m).to_json() for m in moves]
        effects = self.game.state_to_json(after).get("effects", [])
        data["effects"] = effects
        data["totals"] = {p.player: p.total for p in after_scores.players}
        events = [NewEvent(kind, data, actor)]
        if _points(before_scores) != _points(after_scores):
            events.append(NewEvent(SCORE, {"cause_seq": self.seq, "scoreboard": after_scores.to_json(), "effects": effects}, actor))
        outcome = self.game.outcome(after)
        if outcome is not None and self.game.outcome(self.state) is None:
            events.append(NewEvent(GAME_OVER, {"outcome": outcome.to_json(), "scoreboard": after_scores.to_json()}, actor))
        stored = self._commit(events)
        if outcome is not None:
            self.store.set_status(self.game_no, "finished")
        return stored

    def undo_refusal(self, authorised: bool, others_acted: bool) -> Message | None:
        """Why an undo is refused under the policy (module docstring), or None if it may go ahead."""
        if not self.entries:
            return Message.t('tableref.session.there_is_nothing_to_undo')
        if authorised:
            return None
        last = self.entries[-1]
        if last.kind == OVERRIDE:
            return Message.t('tableref.session.undoing_an_override_needs_the')
        if self.undo_streak > 0:
            return Message.t('tableref.session.only_the_last_move_can')
        if others_acted:
            return Message.t('tableref.session.another_player_has_already_started')
        if any(getattr(m, "declared", False) for m in last.moves):
            return Message.t('tableref.session.that_move_revealed_hidden_information')
        if any("pile" in (getattr(m, "draws", None) or ()) for m in last.moves):
            return Message.t('tableref.session.cards_were_drawn_from_the')
        return None

    def record_undo(self, actor: str | None, authorised: bool) -> list[StoredEvent]:
        last = self.entries[-1]
        was_over = self.is_over()
        events = [NewEvent(UNDO, {
            "undone_seq": last.seq,
            "kind": last.kind,
            "undone": [self.game.move_to_json(m) for m in last.moves],
            "description": [self.game.describe_move(m).to_json() for m in last.moves],
            "authorised": authorised,
            "await_table": bool(last.moves),
        }, actor)]
        entries = self.entries[:-1]
        state = self.game.setup(self.setup)
        for e in entries:
            for m in e.moves:
                state = self.game.apply_unchecked(state, m)
        after = self.game.score(state)
        if _points(self.game.score(self.state)) != _points(after):
            events.append(NewEvent(SCORE, {"cause_seq": self.seq, "scoreboard": after.to_json(), "effects": []}, actor))
        stored = self._commit(events)
        if was_over and not self.is_over():
            self.store.set_status(self.game_no, "open")
        return stored

    def record(self, type_: str, data: dict[str, Any], actor: str | None = None) -> list[StoredEvent]:
        """Store an audit event that does not change the game (flag, table matched, device)."""
        return self._commit([NewEvent(type_, data, actor)])

    def abandon(self, actor: str | None) -> None:
        if not self.is_over():
            self._commit([NewEvent(ABANDONED, {}, actor)])
            self.store.set_status(self.game_no, "abandoned")

    # -- exports ------------------------------------------------------------------------------------
    def export_record(self) -> dict[str, Any]:
        """The JSON game record ``tableref score`` reads (moves only; overrides noted in meta)."""
        moves: list[Any] = []
        walls: list[str] = []
        overrides = []
        for e in self.entries:
            for m in e.moves:
                moves.append(m)
                walls.append(e.wall)
            if e.kind == OVERRIDE:
                overrides.append({"seq": e.seq, "actor": e.actor, "forced_moves": len(e.moves), "offset": e.offset.to_json()})
        doc = to_record(self.game, self.setup, moves, {
            "source": "tableref referee",
            "game_no": self.game_no,
            "version": self.version,
            "overrides": overrides,
            "notes": "Moves forced by an admin override are included as played; the board offsets of overrides "
                     "cannot be expressed in a record." if overrides else "",
        })
        for entry, wall in zip(doc["moves"], walls):
            entry["at"] = wall
        return doc

    def export_csv(self) -> str:
        """Every stored event as one CSV row, with each player's total after it."""
        players = list(self.setup.players)
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["seq", "wall", "type", "actor", "reason", "player", "description_en", "description_zh", "detail"]
                   + [f"total_{p}" for p in players])
        totals = {p: 0 for p in players}
        for row in self.store.events(self.game_no):
            d = row.data
            if "totals" in d:
                totals.update(d["totals"])
            elif row.type == SCORE:
                totals.update({p["player"]: p["total"] for p in d["scoreboard"]["players"]})
            desc = d.get("description") or []
            if isinstance(desc, dict):
                desc = [desc]
            flag = d.get("flag") if row.type in (FLAG_RAISED, FLAG_CLEARED) else None
            if flag and not desc:
                desc = [flag["message"]]
            joined = join_messages([m for m in map(message_from_json, desc) if m is not None]) if desc else None
            en, zh = (joined.en, joined.zh) if joined is not None else ("", "")
            detail = {k: v for k, v in d.items() if k not in ("description", "totals", "scoreboard")}
            reason = d.get("reason") if isinstance(d.get("reason"), str) else ""
            w.writerow([row.seq, row.wall, row.type, row.actor or "", reason, d.get("player") or "", en, zh,
                        json.dumps(detail, ensure_ascii=False, sort_keys=True)] + [totals.get(p, 0) for p in players])
        return out.getvalue()
