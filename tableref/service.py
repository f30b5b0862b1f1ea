"""The seam between the referee runtime and its adapters (web dashboard, GPIO, MQTT).

The runtime implements ``TableService``; adapters only call these methods and subscribe to
``TableEvent``s. Events carry increasing integer ids so a client that reconnects can ask for
everything after the last id it saw (SSE ``Last-Event-ID``).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from scorer.core.types import Message

# Event types (the ``type`` field); payloads are documented in docs/runtime-api.md.
STATE = "state"  # full snapshot after any change (scores, board, turn, flag)
MOVE_ACCEPTED = "move_accepted"
FLAG_RAISED = "flag_raised"
FLAG_CLEARED = "flag_cleared"
UNDO = "undo"
OVERRIDE = "override"
DEVICES = "devices"
GAME_OVER = "game_over"
NEW_GAME = "new_game"


@dataclass(frozen=True, slots=True)
class TableEvent:
    id: int
    type: str
    at: float
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "at": self.at, "data": self.data}


@dataclass(frozen=True, slots=True)
class CommandResult:
    """The answer to a command from an adapter: ok, or refused with a bilingual reason."""

    ok: bool
    message: Message
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "message": self.message.to_json(), "data": self.data}


@dataclass(frozen=True, slots=True)
class BoardImage:
    """A rectified photo of the board (top-down, origin at the board's top-left corner) for the
    dashboard's board-capture page; ``px_per_mm`` turns a click into board millimetres.
    ``markers`` is the layout ``markers`` object the photo was rectified with (docs/web.md)."""

    image: bytes
    content_type: str  # "image/jpeg" or "image/png"
    size_mm: tuple[float, float]
    px_per_mm: float
    markers: dict[str, Any] | None = None


class TableService(Protocol):
    def snapshot(self) -> dict[str, Any]: ...
    def history(self) -> list[dict[str, Any]]: ...
    def events(self) -> "EventBus": ...
    def undo(self, actor: str, authorised: bool) -> CommandResult: ...
    def override(self, actor: str) -> CommandResult: ...
    def new_game(self, setup: dict[str, Any], actor: str) -> CommandResult: ...
    def declare(self, move: dict[str, Any], actor: str) -> CommandResult: ...
    def signal_turn_done(self, actor: str) -> CommandResult: ...
    def devices(self) -> dict[str, Any]: ...
    def camera_snapshot(self) -> bytes | None: ...
    # Added for the dashboard (docs/web.md "What the dashboard needs from the service"):
    def board_image(self) -> BoardImage | None: ...
    def enrolment(self) -> dict[str, Any]: ...
    def enrol(self, uid: str, item: dict[str, Any], actor: str) -> CommandResult: ...
    # Camera enrolment (optional; tableref.camera_enrolment): state, and one step of the flow
    def camera_enrolment(self) -> dict[str, Any]: ...
    def camera_enrol(self, step: str, actor: str) -> CommandResult: ...


class Subscription:
    """One subscriber's queue. Bounded: a subscriber that stops reading is dropped, not waited for."""

    def __init__(self, bus: "EventBus", maxsize: int):
        self._bus = bus
        self.queue: queue.Queue[TableEvent] = queue.Queue(maxsize=maxsize)
        self.dropped = False

    def get(self, timeout: float | None = None) -> TableEvent | None:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._bus.unsubscribe(self)

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    """Publishes events to subscribers and keeps the last ``keep`` for replay after reconnects."""

    def __init__(self, keep: int = 2000, subscriber_queue: int = 500, first_id: int = 1):
        self._lock = threading.Lock()
        self._log: deque[TableEvent] = deque(maxlen=keep)
        self._subs: list[Subscription] = []
        self._next = first_id
        self._first = first_id
        self._sub_queue = subscriber_queue

    @property
    def first_id(self) -> int:
        """The id this bus started numbering at (a publisher owes every event from here on)."""
        return self._first

    @property
    def last_id(self) -> int:
        return self._next - 1

    def publish(self, type_: str, data: dict[str, Any], at: float, event_id: int | None = None) -> TableEvent:
        with self._lock:
            eid = event_id if event_id is not None else self._next
            self._next = max(self._next, eid + 1)
            event = TableEvent(eid, type_, at, data)
            self._log.append(event)
            for sub in list(self._subs):
                try:
                    sub.queue.put_nowait(event)
                except queue.Full:
                    sub.dropped = True
                    self._subs.remove(sub)
            return event

    def since(self, last_id: int) -> list[TableEvent]:
        """Events after ``last_id`` still held; if the oldest held is newer than ``last_id + 1``
        the caller missed some and should reload the snapshot."""
        with self._lock:
            return [e for e in self._log if e.id > last_id]

    def oldest_id(self) -> int | None:
        with self._lock:
            return self._log[0].id if self._log else None

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self._sub_queue)
        with self._lock:
            self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)
