"""The composition root of a running table: one object graph, built in one place, no globals.

``Runtime`` owns the event store, the event bus, the referee (``tableref.table.Table``) and one
worker thread that is the only thread touching the referee. Devices (sensor board, camera, card
reader, GPIO panel) and adapters (dashboard, console printer) run on their own threads and only

* put observations, source-health changes and commands into the worker's inbox, and
* read published events from the bus (or the last published snapshot).

``Runtime`` implements ``tableref.service.TableService`` for the dashboard (docs/runtime-api.md).

``tableref.runtime_config.build_runtime(config)`` wires a runtime from a table configuration
(``tableref run``); ``tableref.demo`` wires the same runtime with emulated devices (``tableref demo``);
``tableref.dashboard.start_dashboard`` serves the web dashboard over either.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Protocol

from scorer.core.observation import ChanceSeen, Observation
from scorer.core.types import Message, TableRefError
from tableref.service import BoardImage, CommandResult, EventBus
from tableref.store import EventStore
from tableref.table import Table, TableSettings

log = logging.getLogger(__name__)

BUS_IDS_PER_BOOT = 10**9
NO_CAMERA = Message.t('tableref.runtime.this_table_has_no_camera')  # event ids stay increasing across restarts: boot * 1e9 + n


def wall_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class RuntimeError_(TableRefError, RuntimeError):
    """The runtime is not running or did not answer in time."""


class Device(Protocol):
    """What the runtime needs from a device adapter (tableref.devices)."""

    name: str

    def start(self, runtime: "Runtime") -> None: ...
    def close(self) -> None: ...
    def status(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class _Obs:
    obs: Observation


@dataclass(frozen=True, slots=True)
class _Seen:
    seen: ChanceSeen


@dataclass(frozen=True, slots=True)
class _Source:
    source: str
    live: bool
    reason: Message | None


@dataclass(frozen=True, slots=True)
class _Call:
    fn: Callable[[Table], Any]
    future: Future


def _close_device(device: "Device") -> None:
    try:
        device.close()
    except Exception:  # a device that fails to close must not keep the store open
        log.warning("device %s did not close cleanly", device.name, exc_info=True)


class Runtime:
    """A refereed table: store + bus + referee + worker thread + devices. See the module doc."""

    def __init__(self, *, store_path: str, game_id: str, setup: dict[str, Any], settings: TableSettings = TableSettings(),
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], str] = wall_now,
                 registry: Any = None, call_timeout: float = 15.0) -> None:
        self.store_path = store_path
        self.game_id = game_id
        self.setup = dict(setup)
        self.settings = settings
        self.clock = clock
        self.wall = wall
        self.registry = registry
        self.call_timeout = call_timeout
        self.devices_: dict[str, Device] = {}
        self._inbox: queue.Queue[_Obs | _Seen | _Source | _Call] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.store: EventStore | None = None
        self.bus: EventBus | None = None
        self.table: Table | None = None
        self.boot = 0
        self._started = False
        self._unknown_tag: dict[str, Any] | None = None
        self._enrolment: Any = None  # tableref.camera_enrolment.CameraEnrolment, made on first use
        self._enrolment_lock = threading.Lock()
        self._replays: Any = None  # tableref.replay.ReplayReader, made on first use

    # -- lifecycle ---------------------------------------------------------------------------
    def add_device(self, device: Device) -> None:
        if self._started:
            raise RuntimeError_("devices are added before start()")
        self.devices_[device.name] = device

    def start(self, attach: Callable[[EventBus], Any] | None = None) -> "Runtime":
        """Open the store, resume or start the game, start the worker, then the devices.
        ``attach(bus)`` runs before any device starts (subscribers that must not miss an event)."""
        if self._started:
            return self
        self.store = EventStore(self.store_path)
        self.boot = self.store.next_boot()
        self.bus = EventBus(first_id=self.boot * BUS_IDS_PER_BOOT + 1)
        self.table = Table(self.store, self.bus, self.game_id, self.setup, clock=self.clock, wall=self.wall,
                           settings=self.settings, devices=self.devices)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="referee", daemon=True)
        self._thread.start()
        self._started = True
        if attach is not None:
            attach(self.bus)
        for device in list(self.devices_.values()):
            try:
                device.start(self)
            except TableRefError as exc:
                log.warning("device %s did not start: %s", device.name, exc)
        return self

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop devices, then the worker, then close the store, all within ``timeout`` seconds; a part
        that does not end in its share is logged and left (a daemon thread). True when everything
        ended in time. Idempotent."""
        if not self._started:
            return True
        started = time.monotonic()
        deadline = started + timeout
        # all devices at once: each may wait for its own thread (the camera for the frame it reads); they
        # get the time but a reserve for the worker and the store (a stop must stay within 2 s of SIGTERM)
        devices_share = timeout - min(0.5, timeout / 3)
        devices_until = started + devices_share
        closers = [threading.Thread(target=_close_device, args=(device,), name=f"close-{device.name}", daemon=True)
                   for device in reversed(list(self.devices_.values()))]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(max(0.0, devices_until - time.monotonic()))
        late = [c.name[len("close-"):] for c in closers if c.is_alive()]
        if late:
            log.warning("stop: device(s) %s did not close within %.2f s; going on without them", ", ".join(late),
                        max(0.0, devices_share))
        self._stop.set()
        self._inbox.put(_Call(lambda table: None, Future()))  # wake the worker now, not at its next poll
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("stop: the referee's worker did not end within %.2f s of the stop", timeout)
                late.append("referee")
        # the store's lock is held by a write under way: wait for it until the deadline (at least a moment)
        if self.store is not None and not self.store.close(timeout=max(0.1, deadline - time.monotonic())):
            log.warning("stop: the event store is busy (a write under way); not closed, its last commit stands")
            late.append("store")
        self._started = False
        return not late

    def __enter__(self) -> "Runtime":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._started and self._thread is not None and self._thread.is_alive()

    # -- the worker ---------------------------------------------------------------------------
    def _run(self) -> None:
        table = self.table
        assert table is not None
        while not self._stop.is_set():
            deadline = table.next_deadline()
            timeout = 0.25 if deadline is None else min(0.25, max(0.0, deadline - self.clock()))
            items = []
            try:
                items.append(self._inbox.get(timeout=timeout))
            except queue.Empty:
                pass
            while True:
                try:
                    items.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            for item in items:
                self._handle(table, item)
            try:
                table.step()
            except Exception:  # the referee must go on; what was not stored was not announced
                log.exception("referee step failed; retrying on the next change")

    def _handle(self, table: Table, item: _Obs | _Seen | _Source | _Call) -> None:
        try:
            if isinstance(item, _Obs):
                table.observe(item.obs)
                for r in item.obs.readings:
                    for uid in r.unknown:
                        self._unknown_tag = {"uid": uid, "source": item.obs.source, "space": r.space, "seen_at": item.obs.at}
            elif isinstance(item, _Seen):
                table.chance_seen(item.seen)
            elif isinstance(item, _Source):
                table.set_source(item.source, item.live, item.reason)
            else:
                if item.future.set_running_or_notify_cancel():
                    try:
                        item.future.set_result(item.fn(table))
                    except BaseException as exc:
                        item.future.set_exception(exc)
        except Exception:
            log.exception("referee could not handle %s", type(item).__name__)

    # -- inputs from devices (any thread) -------------------------------------------------------
    def submit_observation(self, obs: Observation) -> None:
        self._inbox.put(_Obs(obs))

    def submit_seen(self, seen: ChanceSeen) -> None:
        """Dice a sensor saw land (the camera's dice tray): the referee enters them if the game
        awaits a roll (``Table.chance_seen``)."""
        self._inbox.put(_Seen(seen))

    def set_source(self, source: str, live: bool, reason: Message | None = None) -> None:
        self._inbox.put(_Source(source, live, reason))

    def submit(self, fn: Callable[[Table], Any]) -> Future:
        """Run ``fn(table)`` on the worker; returns at once (for button callbacks)."""
        future: Future = Future()
        if not self.running:
            future.set_exception(RuntimeError_("the table is not running"))
            return future
        self._inbox.put(_Call(fn, future))
        return future

    def call(self, fn: Callable[[Table], Any], timeout: float | None = None) -> Any:
        """Run ``fn(table)`` on the worker and wait for its result."""
        if threading.current_thread() is self._thread:
            assert self.table is not None
            return fn(self.table)
        future = self.submit(fn)
        try:
            return future.result(timeout=timeout or self.call_timeout)
        except TimeoutError:
            raise RuntimeError_("the referee did not answer in time") from None

    def unknown_tag(self, uid: str, source: str, space: str | None = None) -> None:
        """A reader saw a tag nobody enrolled (shown on the dashboard's enrolment page)."""
        self._unknown_tag = {"uid": uid, "source": source, "space": space, "seen_at": self.clock()}
        if self.bus is not None:
            self.bus.publish("devices", {"unknown_tag": dict(self._unknown_tag)}, self.clock())

    # -- TableService ---------------------------------------------------------------------------
    def events(self) -> EventBus:
        if self.bus is None:
            raise RuntimeError_("the table is not running")
        return self.bus

    def snapshot(self) -> dict[str, Any]:
        if self.table is None:
            return {"version": -1, "game": None, "flag": None}
        # the published snapshot, with the devices as they are now (device counters change
        # without a new state being published)
        return dict(self.table.last_snapshot, devices=self.devices())

    def history(self) -> list[dict[str, Any]]:
        return self.call(lambda t: t.history())

    def undo(self, actor: str, authorised: bool) -> CommandResult:
        return self.call(lambda t: t.undo(actor, authorised))

    def override(self, actor: str, authorised: bool = True) -> CommandResult:
        """An admin action: the adapter checks the admin PIN before calling (docs/runtime-api.md)."""
        return self.call(lambda t: t.override(actor, authorised))

    def new_game(self, setup: dict[str, Any], actor: str, authorised: bool = True) -> CommandResult:
        return self.call(lambda t: t.new_game(setup, actor, authorised))

    def declare(self, move: dict[str, Any], actor: str) -> CommandResult:
        return self.call(lambda t: t.declare(move, actor))

    def signal_turn_done(self, actor: str) -> CommandResult:
        return self.call(lambda t: t.turn_done(actor))

    def tap_card(self, card: str, actor: str) -> CommandResult:
        return self.call(lambda t: t.tap_card(card, actor))

    def arm_undo(self, actor: str) -> CommandResult:
        return self.call(lambda t: t.arm_undo(actor))

    def confirm(self, actor: str) -> CommandResult:
        return self.call(lambda t: t.confirm(actor))

    def devices(self) -> dict[str, Any]:
        out: dict[str, Any] = {"emulated": any(getattr(d, "emulated", False) for d in self.devices_.values())}
        for name in ("sensor_board", "camera", "card_reader", "gpio", "mqtt"):
            device = self.devices_.get(name)
            if device is None:
                out[name] = {"state": "absent"}
                continue
            try:
                out[name] = device.status()
            except Exception as exc:  # a status call must never take the snapshot down
                out[name] = {"state": "error", "error": str(exc)}
        return out

    def camera_snapshot(self) -> bytes | None:
        camera = self.devices_.get("camera")
        grab = getattr(camera, "jpeg", None)
        return grab() if grab is not None else None

    def board_image(self) -> BoardImage | None:
        camera = self.devices_.get("camera")
        grab = getattr(camera, "board_image", None)
        return grab() if grab is not None else None

    def enrolment(self) -> dict[str, Any]:
        reg = self.registry
        pieces = ["house", "emissary", "fortress"] if self.game_id == "china" else []
        cards = ["violet", "yellow", "orange", "green", "red"] if self.game_id == "china" else []
        registry = []
        if reg is not None:
            registry = [{"uid": uid, "item": item.to_json()} for uid, item in sorted(reg.items().items())]
        pending = self._unknown_tag
        if pending is not None and reg is not None and pending["uid"] in reg:
            pending = self._unknown_tag = None
        return {"pending": dict(pending) if pending else None, "registry": registry, "pieces": pieces, "cards": cards}

    def enrol(self, uid: str, item: dict[str, Any], actor: str) -> CommandResult:
        from hardware.tag_registry import RegistryError, item_from_json

        if self.registry is None:
            return CommandResult(False, Message.t('tableref.runtime.this_table_has_no_tag'))
        try:
            parsed = item_from_json(item)
            self.registry.assign(uid, parsed)
        except (RegistryError, KeyError, TypeError, ValueError) as exc:
            return CommandResult(False, Message.t('tableref.runtime.cannot_enrol', uid=uid, exc=exc))
        if self._unknown_tag is not None and self._unknown_tag.get("uid") == uid:
            self._unknown_tag = None
        if self.bus is not None:
            self.bus.publish("devices", {"enrolled": {"uid": uid, "item": dict(item)}, "actor": actor}, self.clock())
        return CommandResult(True, Message.t('tableref.runtime.tag_enrolled', uid=uid))

    # -- camera enrolment (docs/web.md) -----------------------------------------------------------------
    def _camera_enrolment(self) -> Any:
        camera = self.devices_.get("camera")
        if camera is None or not hasattr(camera, "capture"):
            return None
        with self._enrolment_lock:
            if self._enrolment is None or self._enrolment.camera is not camera:
                from tableref.camera_enrolment import CameraEnrolment

                self._enrolment = CameraEnrolment(camera)
            return self._enrolment

    def camera_enrolment(self) -> dict[str, Any]:
        """The enrolment's state: the step (1-3), the plan, the live corner markers, the learned
        result and the model in use; ``available: false`` without a camera."""
        enrolment = self._camera_enrolment()
        if enrolment is None:
            return {"available": False, "message": NO_CAMERA.to_json()}
        return enrolment.status()

    def camera_enrol(self, step: str, actor: str) -> CommandResult:
        """One step of the camera enrolment: ``empty``, ``pieces``, ``save`` or ``cancel``."""
        enrolment = self._camera_enrolment()
        if enrolment is None:
            return CommandResult(False, NO_CAMERA, {"code": "no_camera"})
        res = enrolment.run(step, actor)
        if self.bus is not None:
            self.bus.publish("devices", {"camera_enrolment": {"step": step, "ok": res.ok}, "actor": actor,
                                         "description": res.message.to_json()}, self.clock())
        return res

    # -- exports ------------------------------------------------------------------------------------
    def export_record(self) -> dict[str, Any]:
        return self.call(lambda t: t.session.export_record())

    def export_csv(self) -> str:
        return self.call(lambda t: t.session.export_csv())

    # -- replay (the Board page; read from the store, never through the referee) -------------------------
    def _replay_reader(self) -> Any:
        if self._replays is None:
            from tableref.replay import ReplayReader

            self._replays = ReplayReader(self.store_path, player_names=dict(self.settings.player_names),
                                         table_name=self.settings.name)
        return self._replays

    def replay_games(self) -> list[dict[str, Any]]:
        return self._replay_reader().games()

    def replay(self, game_no: int) -> dict[str, Any]:
        """A stored game's steps (headers); ``tableref.replay.ReplayError`` if there is no such game."""
        return self._replay_reader().game(game_no)

    def replay_step(self, game_no: int, step: int) -> dict[str, Any]:
        """The table as it was after one step: board, scores, turn, flag (docs/web.md "Replay")."""
        return self._replay_reader().step(game_no, step)

    def export_bgstats(self, lang: str = "en") -> dict[str, Any]:
        return self.call(lambda t: t.export_bgstats(lang))

    # -- inferred move orders (tableref.move_order) -----------------------------------------------
    def confirm_order(self, group: int, actor: str) -> CommandResult:
        return self.call(lambda t: t.confirm_order(group, actor))

    def choose_order(self, group: int, index: int, actor: str) -> CommandResult:
        return self.call(lambda t: t.choose_order(group, index, actor))
