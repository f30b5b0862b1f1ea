"""Where a table's messages live on the broker: one topic tree per table, shared by the table's
publisher and the venue's subscriber, so both read the layout from one place.

Under ``<prefix>/<table id>/``: ``events`` (not retained), ``state``, ``status`` and ``info``
(retained). Pure: no paho, no runtime, no configuration loader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scorer.core.types import TableRefError

ONLINE = "online"
OFFLINE = "offline"
KINDS = ("events", "state", "status", "info")


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
class TableTopics:
    """The four topics of one table."""

    prefix: str
    table_id: str

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table_id}"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def status(self) -> str:
        return f"{self.base}/status"

    @property
    def info(self) -> str:
        return f"{self.base}/info"

    @property
    def retained(self) -> tuple[str, str, str]:
        """What the broker keeps for this table (cleared when the table is retired)."""
        return (self.state, self.status, self.info)


def venue_subscriptions(prefix: str) -> list[str]:
    """What a venue subscribes to: every table's retained topics (the events are not needed:
    each batch of events is followed by the state, which also survives a venue restart)."""
    return [f"{prefix}/+/{kind}" for kind in ("state", "status", "info")]


def parse_table_topic(prefix: str, topic: str) -> tuple[str, str] | None:
    """``"tableref/t3/state"`` -> ``("t3", "state")``; None for a topic outside the layout."""
    head = prefix + "/"
    if not topic.startswith(head):
        return None
    rest = topic[len(head):].split("/")
    if len(rest) != 2 or not rest[0] or rest[1] not in KINDS:
        return None
    return rest[0], rest[1]
