"""The table's MQTT publisher: its events and state on the venue's broker (``[mqtt]``, docs/runtime.md).

For a venue with many tables, one scoreboard (``tableref venue``, a tournament desk, Home
Assistant) subscribes to a broker instead of opening every table's dashboard. Topics, under
``<prefix>/<table id>/`` (``tableref.mqtt.topics``):

* ``events`` -- every bus event as the dashboard's SSE serves it (``TableEvent.to_json()``), QoS 1,
  not retained, in bus-id order;
* ``state`` -- the table's snapshot after each batch of changes, QoS 1, **retained**, so a
  scoreboard that subscribes later gets the table as it is now;
* ``status`` -- ``online`` (retained) while connected; the broker's last will sets ``offline``
  when the link dies, and a clean stop publishes ``offline`` itself;
* ``info`` -- retained: the table's name, its dashboard's address and the software version.

With ``discovery`` on (the default) it also announces the table to Home Assistant
(``tableref.mqtt.discovery``), and removes the entities it no longer has.

The publisher is a device adapter (``start``/``close``/``status``, name ``mqtt``) with its own
thread; it never blocks the referee. It is started with any *source* offering ``events()`` (an
``EventBus``) and ``snapshot()`` -- the runtime, or the dashboard's fake table -- and imports
neither the runtime nor the configuration loader. It reads the bus through a bounded
``Subscription`` and remembers the last event id it handed to the broker. While the broker is away
nothing is queued: the bus's replay log holds the events, and on (re)connection everything after
that id still held is published, then the retained state; ids that fell out of the log are counted
as ``skipped`` in ``status()`` (nothing is invented). Reconnection is ``MqttLink``'s (paho's, with a
capped exponential backoff).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from tableref import __version__
from tableref.mqtt.discovery import DEFAULT_PREFIX, config_filter, discovery_configs
from tableref.mqtt.link import BrokerSettings, MqttLink
from tableref.mqtt.topics import OFFLINE, ONLINE, MqttError, TableTopics

if TYPE_CHECKING:
    from tableref.service import EventBus, Subscription, TableEvent

log = logging.getLogger("tableref.mqtt")

SWEEP_DELAY = 2.0  # seconds after connecting: the broker has sent the retained discovery configs by then


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """A table's ``[mqtt]`` section: the broker, where its topics go, and Home Assistant discovery."""

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
    discovery: bool = True  # announce the table to Home Assistant
    discovery_prefix: str = DEFAULT_PREFIX
    dashboard_url: str | None = None  # published in ``info``; else the address the dashboard was started on

    @property
    def topics(self) -> TableTopics:
        return TableTopics(self.topic_prefix, self.table_id)

    @property
    def base(self) -> str:
        return self.topics.base

    @property
    def broker(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def connection(self) -> BrokerSettings:
        return BrokerSettings(host=self.host, port=self.port, username=self.username, password=self.password, tls=self.tls,
                              ca_file=self.ca_file, keepalive=self.keepalive, reconnect_min=self.reconnect_min,
                              reconnect_max=self.reconnect_max, max_queued=self.max_queued)


class TableSource(Protocol):
    """What the publisher reads: the runtime, or any service with an event bus and a snapshot."""

    def events(self) -> "EventBus": ...
    def snapshot(self) -> dict[str, Any]: ...


def dumps(obj: Any) -> bytes:
    """The encoding of every payload: the dashboard SSE's (UTF-8 JSON, Chinese kept as is)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class MqttPublisher:
    """Publishes a table's events and state to an MQTT broker (see the module doc)."""

    name = "mqtt"
    emulated = False

    def __init__(self, settings: MqttSettings, *, poll: float = 0.1, order_wait: float = 2.0,
                 wall: Callable[[], float] = time.time, sweep_delay: float = SWEEP_DELAY) -> None:
        self.settings = settings
        self.poll = poll
        self.order_wait = order_wait  # on reconnect, how long to let paho resend what was in flight first
        self.wall = wall
        self.sweep_delay = sweep_delay
        topics = settings.topics
        self.topics = topics
        self.topic_events = topics.events
        self.topic_state = topics.state
        self.topic_status = topics.status
        self.topic_info = topics.info
        self._config_filter = config_filter(settings.discovery_prefix, topics)
        self._source: TableSource | None = None
        self._link: MqttLink | None = None
        self._sub: Subscription | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        # shared with paho's network thread (under _lock)
        self._up = False  # connected, as far as the worker goes: set together with _catch_up
        self._catch_up = False
        self._late = False
        self._sweep_at: float | None = None
        self._seen_configs: set[str] = set()  # retained discovery configs of this table on the broker
        self._dashboard_url = settings.dashboard_url
        self._info_due = False
        # the worker's own state and counters (read under _lock by status())
        self._last_sent = 0
        self._events_sent = 0
        self._states_sent = 0
        self._republished = 0
        self._skipped = 0
        self._resubscribed = 0
        self._queue_full = 0
        self._announced: dict[str, Any] = {"key": None, "topics": set()}
        self._in_flight: list[Any] = []  # MQTTMessageInfo of QoS 1 messages not yet acknowledged

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, runtime: TableSource) -> None:
        s = self.settings
        self._source = runtime
        bus = runtime.events()
        # every event of this bus (this process start) is ours to publish, even those before start()
        self._last_sent = bus.first_id - 1
        self._sub = bus.subscribe()
        self._link = MqttLink(s.connection, client_id=f"tableref-{s.table_id}-{os.getpid()}", will=(self.topic_status, OFFLINE),
                              birth=(self.topic_status, ONLINE), subscriptions=[self._config_filter],
                              on_up=self._on_up, on_down=self._on_down, on_message=self._on_config, goes_on="the table goes on",
                              wall=self.wall)
        try:
            self._link.start()
        except MqttError:
            self._sub.close()
            raise
        log.info("MQTT: publishing to %s under %s/", s.broker, s.base)
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
        if self._link is not None:
            self._link.close(final=(self.topic_status, OFFLINE))
        if self._sub is not None:
            self._sub.close()

    def set_dashboard_url(self, url: str | None) -> None:
        """The dashboard's address, once it is known (``info``, and Home Assistant's device link)."""
        with self._lock:
            if url == self._dashboard_url:
                return
            self._dashboard_url = url
            self._info_due = True

    # -- paho's thread ------------------------------------------------------------------------------
    def _on_up(self, late: bool) -> None:
        with self._lock:
            self._up = True
            self._late = late  # what the catch-up sends was held back by an outage
            self._catch_up = True  # the worker republishes what was missed, then the retained state
            self._sweep_at = time.monotonic() + self.sweep_delay

    def _on_down(self, reason: str) -> None:
        with self._lock:
            self._up = False

    def _on_config(self, topic: str, payload: bytes, retained: bool) -> None:
        with self._lock:
            if payload:
                self._seen_configs.add(topic)
            else:
                self._seen_configs.discard(topic)

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
        sub, source, link = self._sub, self._source, self._link
        assert sub is not None and source is not None and link is not None
        first = sub.get(timeout=self.poll)
        if sub.dropped:
            # we fell behind and the bus let go of our queue: read again, from its replay log
            sub.close()
            self._sub = source.events().subscribe()
            with self._lock:
                self._resubscribed += 1
                self._catch_up = True
            return
        with self._lock:
            up, catch_up, info_due = self._up, self._catch_up, self._info_due
        if not up or not link.connected:
            return  # nothing handed to paho while the broker is away: the bus log keeps the events
        with self._lock:
            sweep = self._sweep_at is not None and time.monotonic() >= self._sweep_at
        if catch_up:
            self._do_catch_up()
            return
        if info_due:
            snap = source.snapshot()
            self._send_info(snap)
            self._announce(snap, force=True)
        if sweep:
            self._sweep()
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
        assert self._source is not None
        self._wait_in_flight()
        bus = self._source.events()
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
        snap = self._send_state(announce=False)
        self._send_info(snap)
        self._announce(snap, force=True)  # a restarted broker may have lost them: put back
        with self._lock:
            self._catch_up = False

    def _send_events(self, events: list["TableEvent"]) -> int:
        sent = 0
        for event in events:
            if not self._publish(self.topic_events, dumps(event.to_json()), retain=False):
                break
            self._last_sent = event.id
            sent += 1
        with self._lock:
            self._events_sent += sent
        return sent

    def _send_state(self, announce: bool = True) -> dict[str, Any]:
        assert self._source is not None
        snap = self._source.snapshot()
        if self._publish(self.topic_state, dumps(snap), retain=True):
            with self._lock:
                self._states_sent += 1
        if announce:
            self._announce(snap, force=False)
        return snap

    def _table_name(self, snap: dict[str, Any]) -> str:
        table = snap.get("table")
        name = table.get("name") if isinstance(table, dict) else None
        return str(name) if name else self.settings.table_id

    def _send_info(self, snap: dict[str, Any]) -> None:
        with self._lock:
            url, self._info_due = self._dashboard_url, False
        info = {"table_id": self.settings.table_id, "name": self._table_name(snap), "dashboard_url": url,
                "software": f"tableref {__version__}", "discovery": self.settings.discovery}
        if not self._publish(self.topic_info, dumps(info), retain=True):
            with self._lock:
                self._info_due = True

    # -- Home Assistant discovery -------------------------------------------------------------------
    def _announce(self, snap: dict[str, Any], *, force: bool) -> None:
        """Announce the table's entities when they change (players, names, table name, address)."""
        if not self.settings.discovery:
            return
        players = list(snap.get("players") or (snap.get("setup") or {}).get("players") or [])
        names = dict(snap.get("player_names") or {})
        name = self._table_name(snap)
        with self._lock:
            url = self._dashboard_url
        key = (tuple(players), tuple(sorted(names.items())), name, url)
        if not force and key == self._announced["key"]:
            return
        configs = discovery_configs(self.topics, discovery_prefix=self.settings.discovery_prefix, table_name=name,
                                    players=players, player_names=names, dashboard_url=url, version=__version__)
        ok = all([self._publish(topic, dumps(payload), retain=True) for topic, payload in configs.items()])
        for topic in self._announced["topics"] - configs.keys():
            ok = self._publish(topic, b"", retain=True) and ok  # a player who left with a new game
        self._announced = {"key": key if ok else None, "topics": set(configs)}

    def _sweep(self) -> None:
        """Remove configs of this table that it no longer announces (players of a game before a
        restart; everything if discovery was turned off)."""
        with self._lock:
            self._sweep_at = None
            stale = sorted(self._seen_configs - self._announced["topics"])
        for topic in stale:
            self._publish(topic, b"", retain=True)

    # -- handing messages to paho -------------------------------------------------------------------
    def _publish(self, topic: str, payload: bytes, *, retain: bool) -> bool:
        import paho.mqtt.client as mqtt

        assert self._link is not None
        info = self._link.publish(topic, payload, retain=retain)
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
        link = self._link
        if link is None:
            base: dict[str, Any] = {"state": "stopped", "broker": self.settings.broker, "tls": self.settings.tls,
                                    "connections": 0, "outages": 0, "down_since": None, "last_outage_seconds": None,
                                    "last_error": None}
        else:
            base = link.status()
            base.pop("messages_received", None)
            if self._closed and base["state"] != "error":
                base["state"] = "stopped"
        with self._lock:
            return {
                "state": base["state"],
                "broker": base["broker"],
                "tls": base["tls"],
                "topics": f"{self.settings.base}/{{events,state,status,info}}",
                "last_sent_id": self._last_sent or None,
                "events_sent": self._events_sent,
                "states_sent": self._states_sent,
                "in_flight": len(self._in_flight),
                "connections": base["connections"],
                "outages": base["outages"],
                "down_since": base["down_since"],
                "last_outage_seconds": base["last_outage_seconds"],
                "republished": self._republished,
                "skipped": self._skipped,
                "queue_full": self._queue_full,
                "resubscribed": self._resubscribed,
                "discovery": len(self._announced["topics"]) if self.settings.discovery else False,
                "dashboard_url": self._dashboard_url,
                "last_error": base["last_error"],
                "emulated": False,
            }
