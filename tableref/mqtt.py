"""The MQTT publisher: a table's events and state on a venue's broker (``[mqtt]``, docs/runtime.md).

For a venue with many tables, one scoreboard (or a tournament desk) subscribes to a broker instead
of opening every table's dashboard. Topics, under ``<prefix>/<table id>/``:

* ``events`` -- every bus event as the dashboard's SSE serves it (``TableEvent.to_json()``), QoS 1,
  not retained, in bus-id order;
* ``state`` -- ``Runtime.snapshot()`` after each batch of changes, QoS 1, **retained**, so a
  scoreboard that subscribes later gets the table as it is now;
* ``status`` -- ``online`` (retained) while connected; the broker's last will sets ``offline``
  when the link dies, and a clean stop publishes ``offline`` itself.

The publisher is a device adapter (``start``/``close``/``status``, name ``mqtt``) with its own
thread; it never blocks the referee. It reads the bus through a bounded ``Subscription`` and
remembers the last event id it handed to the broker. While the broker is away nothing is queued:
the bus's replay log holds the events, and on (re)connection everything after that id still held
is published, then the retained state; ids that fell out of the log are counted as ``skipped`` in
``status()`` (nothing is invented). Reconnection is paho's, with a capped exponential backoff.

paho-mqtt is imported only when a publisher starts: ``tableref`` without ``[mqtt]`` never loads it.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from scorer.core.types import TableRefError

if TYPE_CHECKING:
    from tableref.runtime import Runtime
    from tableref.service import Subscription, TableEvent

log = logging.getLogger(__name__)

ONLINE = "online"
OFFLINE = "offline"


class MqttError(TableRefError, ValueError):
    """An MQTT setting cannot be used (topic level with a wildcard ...), or paho-mqtt is missing."""


def check_topic(text: str, *, what: str, allow_slash: bool) -> str:
    """A topic prefix or level we can publish under: no wildcards, no empty levels, no NUL."""
    if not text:
        raise MqttError(f"{what} must not be empty")
    bad = sorted({c for c in text if c in "+#\0"})
    if bad:
        raise MqttError(f"{what} {text!r} must not contain {' '.join(repr(c) for c in bad)} (MQTT wildcards)")
    if not allow_slash and "/" in text:
        raise MqttError(f"{what} {text!r} must be one topic level (no '/')")
    if allow_slash and (text.startswith("/") or text.endswith("/") or "//" in text):
        raise MqttError(f"{what} {text!r} must not start or end with '/' or have an empty level")
    if len(text.encode("utf-8")) > 200:
        raise MqttError(f"{what} is too long (at most 200 bytes)")
    return text


def table_id_from_name(name: str) -> str:
    """``"Table 1"`` -> ``"table-1"``: one topic level made from the table's name."""
    slug = re.sub(r"[^\w-]+", "-", name.strip().lower()).strip("-")
    return slug or "table"


@dataclass(frozen=True, slots=True)
class MqttSettings:
    host: str
    port: int = 1883
    topic_prefix: str = "tableref"
    table_id: str = "table"
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    keepalive: int = 30
    reconnect_min: float = 1.0  # paho's backoff: doubled per failed attempt, capped at reconnect_max
    reconnect_max: float = 30.0
    max_queued: int = 1000  # messages handed to paho and not yet acknowledged (QoS 1)

    @property
    def base(self) -> str:
        return f"{self.topic_prefix}/{self.table_id}"

    @property
    def broker(self) -> str:
        return f"{self.host}:{self.port}"


def _dumps(obj: Any) -> bytes:
    # the same encoding as the dashboard's SSE (web/stream.py): UTF-8, Chinese kept as is
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class MqttPublisher:
    """Publishes the runtime's events and state to an MQTT broker (see the module doc)."""

    name = "mqtt"
    emulated = False

    def __init__(self, settings: MqttSettings, *, poll: float = 0.1, order_wait: float = 2.0,
                 wall: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.poll = poll
        self.order_wait = order_wait  # on reconnect, how long to let paho resend what was in flight first
        self.wall = wall
        self.topic_events = f"{settings.base}/events"
        self.topic_state = f"{settings.base}/state"
        self.topic_status = f"{settings.base}/status"
        self._runtime: Runtime | None = None
        self._client: Any = None
        self._sub: Subscription | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        # state shared with paho's network thread (under _lock)
        self._connected = False
        self._ever_connected = False
        self._catch_up = False
        self._late = False
        self._down_since: float | None = None
        self._logged_down = False
        self._last_error: str | None = None
        self._connections = 0
        self._outages = 0
        self._last_outage_seconds: float | None = None
        # the worker's own counters (read under _lock by status())
        self._last_sent = 0
        self._events_sent = 0
        self._states_sent = 0
        self._republished = 0
        self._skipped = 0
        self._resubscribed = 0
        self._queue_full = 0
        self._in_flight: list[Any] = []  # MQTTMessageInfo of QoS 1 messages not yet acknowledged

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, runtime: "Runtime") -> None:
        try:
            import paho.mqtt.client as mqtt
        except ImportError:
            self._last_error = "paho-mqtt is not installed (pip install paho-mqtt)"
            raise MqttError(self._last_error) from None
        from tableref.runtime import BUS_IDS_PER_BOOT

        s = self.settings
        self._runtime = runtime
        bus = runtime.events()
        # every event of this process start is ours to publish, even those before start()
        self._last_sent = runtime.boot * BUS_IDS_PER_BOOT
        self._sub = bus.subscribe()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"tableref-{s.table_id}-{os.getpid()}",
                             protocol=mqtt.MQTTv311, clean_session=True)
        if s.username is not None:
            client.username_pw_set(s.username, s.password)
        if s.tls:
            try:
                client.tls_set(ca_certs=s.ca_file)
            except (OSError, ValueError) as exc:
                self._sub.close()
                self._last_error = f"TLS set-up failed: {exc}"
                raise MqttError(f"MQTT {self._last_error}") from None
        client.will_set(self.topic_status, OFFLINE, qos=1, retain=True)
        client.reconnect_delay_set(min_delay=s.reconnect_min, max_delay=s.reconnect_max)  # type: ignore[arg-type]
        client.max_queued_messages_set(s.max_queued)
        client.connect_timeout = 5.0
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        self._client = client
        with self._lock:
            self._down_since = self.wall()
        client.connect_async(s.host, s.port, keepalive=s.keepalive)
        client.loop_start()  # paho's thread: connects, and reconnects with the capped backoff
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop publishing; say ``offline`` (retained) if the broker is there. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None and self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        client = self._client
        if client is not None:
            with self._lock:
                connected = self._connected
            if connected:
                try:
                    client.publish(self.topic_status, OFFLINE, qos=1, retain=True).wait_for_publish(timeout=2.0)
                except (ValueError, RuntimeError):
                    pass
            with self._lock:
                self._connected = False
            client.disconnect()
            client.loop_stop()
        if self._sub is not None:
            self._sub.close()

    # -- paho's callbacks (its network thread) ----------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if reason_code.is_failure:
            with self._lock:
                self._last_error = f"broker refused the connection: {reason_code}"
                first = not self._logged_down
                self._logged_down = True
            if first:
                log.warning("MQTT broker %s refused the connection (%s); retrying", self.settings.broker, reason_code)
            return
        client.publish(self.topic_status, ONLINE, qos=1, retain=True)
        now = self.wall()
        with self._lock:
            down_for = None if self._down_since is None else now - self._down_since
            was_outage = self._ever_connected
            self._late = was_outage or self._logged_down  # what the catch-up sends was held back by an outage
            self._connected = True
            self._ever_connected = True
            self._catch_up = True  # the worker republishes what was missed, then the retained state
            self._connections += 1
            if was_outage and down_for is not None:
                self._last_outage_seconds = round(down_for, 3)
            self._down_since = None
            self._logged_down = False
            self._last_error = None
        if was_outage:
            log.info("MQTT broker %s is back after %.1f s", self.settings.broker, down_for or 0.0)
        else:
            log.info("MQTT: publishing to %s under %s/", self.settings.broker, self.settings.base)

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        with self._lock:
            self._last_error = f"cannot connect to {self.settings.broker}"
            first = not self._logged_down
            self._logged_down = True
        if first:  # one line per outage, not one per retry
            log.warning("MQTT broker %s not reachable; the table goes on, retrying every %g-%g s",
                        self.settings.broker, self.settings.reconnect_min, self.settings.reconnect_max)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        with self._lock:
            if not self._connected:
                return
            self._connected = False
            if self._closed:
                return
            self._outages += 1
            self._down_since = self.wall()
            self._last_error = f"connection lost: {reason_code}"
            self._logged_down = True
        log.warning("MQTT broker %s lost (%s); the table goes on, reconnecting", self.settings.broker, reason_code)

    # -- the publishing thread ----------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # the publisher must go on; the bus still holds what was not sent
                log.warning("MQTT publisher step failed", exc_info=True)
                with self._lock:
                    self._catch_up = True
                self._stop.wait(self.poll)

    def _step(self) -> None:
        sub = self._sub
        assert sub is not None and self._runtime is not None
        first = sub.get(timeout=self.poll)
        if sub.dropped:
            # we fell behind and the bus let go of our queue: read again, from its replay log
            sub.close()
            self._sub = self._runtime.events().subscribe()
            with self._lock:
                self._resubscribed += 1
                self._catch_up = True
            return
        with self._lock:
            connected, catch_up = self._connected, self._catch_up
        if not connected:
            return  # nothing handed to paho while the broker is away: the bus log keeps the events
        if catch_up:
            self._do_catch_up()
            return
        batch = [first] if first is not None else []
        while True:
            more = sub.get(timeout=0)
            if more is None:
                break
            batch.append(more)
        batch = [e for e in batch if e.id > self._last_sent]
        if not batch:
            self._prune_in_flight()
            return
        if batch[0].id > self._last_sent + 1:
            # not expected while subscribed (the bus numbers every event); the log may still hold them
            self._do_catch_up()
            return
        sent = self._send_events(batch)
        if sent < len(batch):
            with self._lock:
                self._catch_up = True
        if sent:
            self._send_state()

    def _do_catch_up(self) -> None:
        assert self._runtime is not None
        self._wait_in_flight()
        bus = self._runtime.events()
        held = bus.since(self._last_sent)
        missing = 0
        if held and held[0].id > self._last_sent + 1:
            missing = held[0].id - self._last_sent - 1
        elif not held and bus.last_id > self._last_sent:
            missing = bus.last_id - self._last_sent
        if missing:
            log.warning("MQTT: %d events were no longer held by the table's event log and were not published", missing)
            with self._lock:
                self._skipped += missing
            if not held:
                self._last_sent = bus.last_id
        with self._lock:
            late = self._late
        sent = self._send_events(held)
        if late:
            with self._lock:
                self._republished += sent
        if sent < len(held):
            return  # paho's queue is full: try again on the next step
        self._send_state()
        with self._lock:
            self._catch_up = False

    def _send_events(self, events: list["TableEvent"]) -> int:
        sent = 0
        for event in events:
            if not self._publish(self.topic_events, _dumps(event.to_json()), retain=False):
                break
            self._last_sent = event.id
            sent += 1
        with self._lock:
            self._events_sent += sent
        return sent

    def _send_state(self) -> None:
        assert self._runtime is not None
        snap = self._runtime.snapshot()
        if self._publish(self.topic_state, _dumps(snap), retain=True):
            with self._lock:
                self._states_sent += 1

    def _publish(self, topic: str, payload: bytes, *, retain: bool) -> bool:
        import paho.mqtt.client as mqtt

        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc == mqtt.MQTT_ERR_QUEUE_SIZE:
            with self._lock:
                self._queue_full += 1
            return False
        # MQTT_ERR_NO_CONN: the link dropped just now; paho keeps the QoS 1 message and sends it
        # after the reconnection, so it counts as handed over
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            self._in_flight.append(info)
        self._prune_in_flight()
        return True

    def _prune_in_flight(self) -> None:
        keep = []
        for info in self._in_flight:
            try:
                if not info.is_published():
                    keep.append(info)
            except (ValueError, RuntimeError):
                pass
        self._in_flight = keep

    def _wait_in_flight(self) -> None:
        """After a reconnection paho resends what was in flight; wait (briefly) for that to be
        acknowledged so the republished events follow it in order."""
        deadline = time.monotonic() + self.order_wait
        while not self._stop.is_set():
            self._prune_in_flight()
            if not self._in_flight or time.monotonic() >= deadline:
                return
            self._stop.wait(0.01)

    # -- the dashboard's device page ---------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        with self._lock:
            if self._client is None and self._last_error is not None:
                state = "error"  # did not start (paho-mqtt missing, TLS set-up)
            elif self._closed or self._client is None:
                state = "stopped"
            elif self._connected:
                state = "connected"
            elif self._ever_connected or self._logged_down:
                state = "down"
            else:
                state = "connecting"
            return {
                "state": state,
                "broker": self.settings.broker,
                "tls": self.settings.tls,
                "topics": f"{self.settings.base}/{{events,state,status}}",
                "last_sent_id": self._last_sent or None,
                "events_sent": self._events_sent,
                "states_sent": self._states_sent,
                "in_flight": len(self._in_flight),
                "connections": self._connections,
                "outages": self._outages,
                "down_since": _iso(self._down_since) if state == "down" and self._down_since is not None else None,
                "last_outage_seconds": self._last_outage_seconds,
                "republished": self._republished,
                "skipped": self._skipped,
                "queue_full": self._queue_full,
                "resubscribed": self._resubscribed,
                "last_error": self._last_error,
                "emulated": False,
            }
