"""One connection to the venue's broker, for whoever needs one: the table's publisher and the
venue's subscriber share it (docs/runtime.md "MQTT", docs/venue.md).

``MqttLink`` wraps a paho-mqtt client: account and TLS, the last will, paho's reconnection with
a capped exponential backoff, the subscriptions renewed on every connection (a clean session: the
broker then sends the retained messages again), and the connection's health for a status page
(``state``, ``connections``, ``outages``, ``down_since`` ...). It knows nothing of a runtime or a
configuration file: it is given settings and callbacks, which run on paho's network thread.

paho-mqtt is imported only when a link starts.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tableref.mqtt.topics import MqttError

log = logging.getLogger("tableref.mqtt")


@dataclass(frozen=True, slots=True)
class BrokerSettings:
    """How to reach the broker (no topics: those belong to the user of the link)."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: str | None = None
    keepalive: int = 30
    reconnect_min: float = 1.0  # paho's backoff: doubled per failed attempt, capped at reconnect_max
    reconnect_max: float = 30.0
    max_queued: int = 1000  # messages handed to paho and not yet acknowledged (QoS 1)

    @property
    def broker(self) -> str:
        return f"{self.host}:{self.port}"


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class MqttLink:
    """A paho client that reconnects by itself and reports its health (see the module doc).

    ``on_up(late)`` runs after every (re)connection, once the birth message and the subscriptions
    are sent; ``late`` is true when the broker was missing for a while (an outage, or absent at
    start). ``on_down(reason)`` runs when the connection is lost or an attempt fails.
    ``on_message(topic, payload, retained)`` runs for each message received.
    """

    def __init__(self, settings: BrokerSettings, *, client_id: str, will: tuple[str, str] | None = None,
                 birth: tuple[str, str] | None = None, subscriptions: Sequence[str] = (),
                 on_up: Callable[[bool], None] | None = None, on_down: Callable[[str], None] | None = None,
                 on_message: Callable[[str, bytes, bool], None] | None = None,
                 goes_on: str = "retrying", wall: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.client_id = client_id
        self.will = will
        self.birth = birth
        self.subscriptions = list(subscriptions)
        self.on_up = on_up
        self.on_down = on_down
        self.on_message = on_message
        self.goes_on = goes_on  # what the log line says happens meanwhile ("the table goes on")
        self.wall = wall
        self.client: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._connected = False
        self._ever_connected = False
        self._down_since: float | None = None
        self._logged_down = False
        self._last_error: str | None = None
        self._connections = 0
        self._outages = 0
        self._last_outage_seconds: float | None = None
        self._messages = 0

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Create the client and connect in the background; raises ``MqttError`` when paho-mqtt
        is missing or TLS cannot be set up (the state is then ``error``)."""
        try:
            import paho.mqtt.client as mqtt
        except ImportError:
            self._last_error = "paho-mqtt is not installed (pip install paho-mqtt)"
            raise MqttError(self._last_error) from None
        s = self.settings
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id, protocol=mqtt.MQTTv311,
                             clean_session=True)
        if s.username is not None:
            client.username_pw_set(s.username, s.password)
        if s.tls:
            try:
                client.tls_set(ca_certs=s.ca_file)
            except (OSError, ValueError) as exc:
                self._last_error = f"TLS set-up failed: {exc}"
                raise MqttError(f"MQTT {self._last_error}") from None
        if self.will is not None:
            client.will_set(self.will[0], self.will[1], qos=1, retain=True)
        client.reconnect_delay_set(min_delay=s.reconnect_min, max_delay=s.reconnect_max)  # type: ignore[arg-type]
        client.max_queued_messages_set(s.max_queued)
        client.connect_timeout = 5.0
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client
        with self._lock:
            self._down_since = self.wall()
        client.connect_async(s.host, s.port, keepalive=s.keepalive)
        client.loop_start()  # paho's thread: connects, and reconnects with the capped backoff

    def close(self, final: tuple[str, str] | None = None) -> None:
        """Disconnect; if connected, first publish ``final`` (topic, payload; retained). Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            connected = self._connected
        client = self.client
        if client is None:
            return
        if connected and final is not None:
            try:
                client.publish(final[0], final[1], qos=1, retain=True).wait_for_publish(timeout=2.0)
            except (ValueError, RuntimeError):
                pass
        with self._lock:
            self._connected = False
        client.disconnect()
        client.loop_stop()

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._connected

    @property
    def closed(self) -> bool:
        return self._closed

    def publish(self, topic: str, payload: bytes | str, *, retain: bool, qos: int = 1) -> Any:
        """Hand one message to paho (``MQTTMessageInfo``; its ``rc`` says if paho took it)."""
        return self.client.publish(topic, payload, qos=qos, retain=retain)

    def subscribe(self, topic: str) -> None:
        """Subscribe now and after every reconnection."""
        self.subscriptions.append(topic)
        if self.connected:
            self.client.subscribe(topic, qos=1)

    def unsubscribe(self, topic: str) -> None:
        if topic in self.subscriptions:
            self.subscriptions.remove(topic)
        if self.connected:
            self.client.unsubscribe(topic)

    # -- paho's callbacks (its network thread) ----------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if reason_code.is_failure:
            reason = f"broker refused the connection: {reason_code}"
            with self._lock:
                self._last_error = reason
                first = not self._logged_down
                self._logged_down = True
            if first:
                log.warning("MQTT broker %s refused the connection (%s); retrying", self.settings.broker, reason_code)
            self._call_down(reason)
            return
        if self.birth is not None:
            client.publish(self.birth[0], self.birth[1], qos=1, retain=True)
        if self.subscriptions:
            client.subscribe([(t, 1) for t in self.subscriptions])
        now = self.wall()
        with self._lock:
            down_for = None if self._down_since is None else now - self._down_since
            was_outage = self._ever_connected
            late = was_outage or self._logged_down
            self._connected = True
            self._ever_connected = True
            self._connections += 1
            if was_outage and down_for is not None:
                self._last_outage_seconds = round(down_for, 3)
            self._down_since = None
            self._logged_down = False
            self._last_error = None
        if was_outage:
            log.info("MQTT broker %s is back after %.1f s", self.settings.broker, down_for or 0.0)
        else:
            log.info("MQTT: connected to %s as %s", self.settings.broker, self.client_id)
        if self.on_up is not None:
            try:
                self.on_up(late)
            except Exception:  # a callback must not take paho's thread down
                log.warning("MQTT on_up callback failed", exc_info=True)

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        reason = f"cannot connect to {self.settings.broker}"
        with self._lock:
            self._last_error = reason
            first = not self._logged_down
            self._logged_down = True
        if first:  # one line per outage, not one per retry
            log.warning("MQTT broker %s not reachable; %s, retrying every %g-%g s",
                        self.settings.broker, self.goes_on, self.settings.reconnect_min, self.settings.reconnect_max)
        self._call_down(reason)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        reason = f"connection lost: {reason_code}"
        with self._lock:
            if not self._connected:
                return
            self._connected = False
            if self._closed:
                return
            self._outages += 1
            self._down_since = self.wall()
            self._last_error = reason
            self._logged_down = True
        log.warning("MQTT broker %s lost (%s); %s, reconnecting", self.settings.broker, reason_code, self.goes_on)
        self._call_down(reason)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self._lock:
            self._messages += 1
        if self.on_message is None:
            return
        try:
            self.on_message(msg.topic, msg.payload, bool(msg.retain))
        except Exception:  # one bad message must not stop the others
            log.warning("MQTT message on %s could not be handled", msg.topic, exc_info=True)

    def _call_down(self, reason: str) -> None:
        if self.on_down is None or self._closed:
            return
        try:
            self.on_down(reason)
        except Exception:
            log.warning("MQTT on_down callback failed", exc_info=True)

    # -- health -----------------------------------------------------------------------------------
    def state(self) -> str:
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self.client is None and self._last_error is not None:
            return "error"  # did not start (paho-mqtt missing, TLS set-up)
        if self._closed or self.client is None:
            return "stopped"
        if self._connected:
            return "connected"
        if self._ever_connected or self._logged_down:
            return "down"
        return "connecting"

    def status(self) -> dict[str, Any]:
        with self._lock:
            state = self._state()
            return {
                "state": state,
                "broker": self.settings.broker,
                "tls": self.settings.tls,
                "connections": self._connections,
                "outages": self._outages,
                "down_since": _iso(self._down_since) if state == "down" and self._down_since is not None else None,
                "last_outage_seconds": self._last_outage_seconds,
                "last_error": self._last_error,
                "messages_received": self._messages,
            }
