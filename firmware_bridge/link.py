"""Layer 4 of the Pi side: the reconnect policy and the reader thread that owns the port.

One thread opens the port (found by USB id or configured), feeds what it reads to the framer and
the session, runs the session's timers, and on any loss closes the port, waits a capped,
growing delay and tries again -- forever, until ``close()``. The state is an explicit enum; the
health numbers are a frozen value the dashboard can poll from any thread.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable

from firmware_bridge.framing import Framer
from firmware_bridge.session import Session, SessionState
from firmware_bridge.tag_table import Table
from firmware_bridge.transport import PortResolver, PortSpec, SerialTransport, Transport, TransportLost

log = logging.getLogger("firmware_bridge.link")


class LinkState(StrEnum):
    STOPPED = "stopped"
    SEARCHING = "searching"         # looking for the port / opening it
    SYNCING = "syncing"             # port open; waiting for hello and the snapshot
    LIVE = "live"                   # table current, events flowing
    BACKOFF = "backoff"             # lost; waiting before the next attempt
    INCOMPATIBLE = "incompatible"   # the device speaks another protocol version


@dataclass(frozen=True, slots=True)
class ReconnectPolicy:
    """Capped exponential backoff: initial * factor**attempt, at most ``cap`` seconds."""

    initial: float = 0.05
    factor: float = 1.8
    cap: float = 5.0

    def delay(self, attempt: int) -> float:
        return min(self.initial * self.factor ** max(attempt, 0), self.cap)


@dataclass(frozen=True, slots=True)
class LinkHealth:
    """What the dashboard shows about the sensor board link. Times are clock seconds."""

    state: LinkState
    port: str | None
    board_id: str | None
    boot_id: int | None
    firmware: str | None
    protocol: str | None
    antennas: int | None
    connected_at: float | None
    last_frame_at: float | None
    last_heartbeat_at: float | None
    reconnects: int
    connect_failures: int
    faulty_antennas: tuple[int, ...]
    counters: tuple[tuple[str, int], ...]
    last_error: str | None

    def counter(self, name: str) -> int:
        return dict(self.counters)[name]

    @property
    def frames_good(self) -> int:
        return self.counter("frames_good")

    @property
    def frames_bad(self) -> int:
        return self.counter("frames_bad")

    @property
    def frames_resent(self) -> int:
        return self.counter("resent_by_device")

    def to_json(self) -> dict[str, object]:
        return {
            "state": str(self.state),
            "port": self.port,
            "board_id": self.board_id,
            "boot_id": None if self.boot_id is None else f"{self.boot_id:08x}",
            "firmware": self.firmware,
            "protocol": self.protocol,
            "antennas": self.antennas,
            "connected_at": self.connected_at,
            "last_frame_at": self.last_frame_at,
            "last_heartbeat_at": self.last_heartbeat_at,
            "reconnects": self.reconnects,
            "connect_failures": self.connect_failures,
            "faulty_antennas": list(self.faulty_antennas),
            "counters": dict(self.counters),
            "last_error": self.last_error,
        }


TableListener = Callable[[Table], None]


class SensorLink:
    """The sensor board's serial link: transport + framer + session + reconnect policy."""

    def __init__(
        self,
        port: PortSpec | PortResolver,
        *,
        clock: Callable[[], float] = time.monotonic,
        policy: ReconnectPolicy = ReconnectPolicy(),
        dead_after: float = 3.0,
        transport_factory: Callable[[str, int], Transport] = SerialTransport,
        session_options: dict[str, float] | None = None,
    ) -> None:
        self.resolver = port if isinstance(port, PortResolver) else PortResolver(port)
        self.clock = clock
        self.policy = policy
        self.dead_after = dead_after
        self.transport_factory = transport_factory
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listeners: list[TableListener] = []
        self._transport: Transport | None = None
        self.session = Session(self._send, **(session_options or {}))
        self._state = LinkState.STOPPED
        self._port: str | None = None
        self._connected_at: float | None = None
        self._connections = 0
        self._connect_failures = 0
        self._last_error: str | None = None

    # ---- lifecycle ----

    def start(self) -> "SensorLink":
        if self._thread is not None:
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="sensor-link", daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = 2.0) -> None:
        """Stop the reader thread and close the port. Idempotent."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("sensor-board: reader thread did not stop within %.1f s", timeout)
        self._state = LinkState.STOPPED

    def __enter__(self) -> "SensorLink":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_listener(self, listener: TableListener) -> None:
        """Called on the reader thread with a copy of the table each time it changes."""
        self._listeners.append(listener)

    # ---- views ----

    @property
    def state(self) -> LinkState:
        return self._state

    def table(self) -> Table | None:
        with self._lock:
            t = self.session.table
            return None if t is None else dict(t)

    def changed(self) -> dict[int, float]:
        """When each antenna last changed, on this link's clock (``Session.changed``)."""
        with self._lock:
            return dict(self.session.changed)

    def health(self) -> LinkHealth:
        with self._lock:
            s = self.session
            hello = s.hello
            return LinkHealth(
                state=self._state,
                port=self._port,
                board_id=hello.board_id if hello else None,
                boot_id=hello.boot_id if hello else None,
                firmware=hello.firmware if hello else None,
                protocol=f"{hello.major}.{hello.minor}" if hello else None,
                antennas=hello.antennas if hello else None,
                connected_at=self._connected_at,
                last_frame_at=s.last_frame_at,
                last_heartbeat_at=s.last_heartbeat_at,
                reconnects=max(self._connections - 1, 0),
                connect_failures=self._connect_failures,
                faulty_antennas=tuple(sorted(s.faulty_antennas)),
                counters=tuple(s.counters.as_dict().items()),
                last_error=self._last_error,
            )

    # ---- the reader thread ----

    def _send(self, data: bytes) -> None:
        transport = self._transport
        if transport is not None:
            transport.write(data)

    def _run(self) -> None:
        attempt = 0
        last_failure = None
        while not self._stop.is_set():
            self._state = LinkState.SEARCHING
            try:
                path = self.resolver.resolve()
                transport = self.transport_factory(path, self.resolver.spec.baudrate)
            except TransportLost as exc:
                self._connect_failures += 1
                self._last_error = str(exc)
                delay = self.policy.delay(attempt)
                if str(exc) != last_failure:
                    log.warning("sensor-board: %s; retrying (backoff up to %.1f s)", exc, self.policy.cap)
                    last_failure = str(exc)
                attempt += 1
                self._state = LinkState.BACKOFF
                self._stop.wait(delay)
                continue
            last_failure = None
            reached_live = self._serve(path, transport)
            if reached_live:
                attempt = 0
            if self._stop.is_set():
                break
            delay = self.policy.delay(attempt)
            attempt += 1
            self._state = LinkState.BACKOFF
            log.warning("sensor-board: reconnecting in %.2f s", delay)
            self._stop.wait(delay)
        self._state = LinkState.STOPPED

    def _serve(self, path: str, transport: Transport) -> bool:
        """Run one connection until it is lost; True if it reached LIVE."""
        framer = Framer()
        reached_live = False
        with self._lock:
            self._transport = transport
            self._port = path
            self._connections += 1
            self._connected_at = self.clock()
            if self._connections > 1:
                log.warning("sensor-board: reconnected on %s (reconnect #%d)", path, self._connections - 1)
            else:
                log.info("sensor-board: connected on %s", path)
        try:
            with self._lock:
                self.session.connected(self.clock())
                self._state = LinkState.SYNCING
            while not self._stop.is_set():
                data = transport.read()
                with self._lock:
                    now = self.clock()
                    changed = self.session.feed(framer.feed(data), now) if data else False
                    self.session.tick(now)
                    self._state = _STATE_OF[self.session.state]
                    reached_live |= self._state is LinkState.LIVE
                    silent = self.session.silent_for(now)
                    table = dict(self.session.table) if changed and self.session.table is not None else None
                if table is not None:
                    self._notify(table)
                if silent is not None and silent >= self.dead_after:
                    raise TransportLost(f"{path}: no frame for {silent:.1f} s")
        except TransportLost as exc:
            self._last_error = str(exc)
            log.warning("sensor-board: link lost: %s", exc)
        finally:
            with self._lock:
                self._transport = None
                self.session.disconnected()
            transport.close()
        return reached_live

    def _notify(self, table: Table) -> None:
        for listener in list(self._listeners):
            try:
                listener(table)
            except Exception:  # a broken listener must not take the link down
                log.exception("sensor-board: table listener failed")


_STATE_OF = {
    SessionState.WAITING_HELLO: LinkState.SYNCING,
    SessionState.WAITING_SNAPSHOT: LinkState.SYNCING,
    SessionState.LIVE: LinkState.LIVE,
    SessionState.INCOMPATIBLE: LinkState.INCOMPATIBLE,
}
