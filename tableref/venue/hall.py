"""The venue's picture of its tables, built from the broker's messages (no MQTT, no web here).

``Hall.handle(table_id, kind, payload, retained)`` takes each ``state``/``status``/``info``
message of a table; every change of a tile is published on the venue's own ``EventBus`` as a
``tile`` event (the page's live stream), the broker's health as ``broker``, a table removed as
``tile_removed``. A table is never dropped because the broker went away: the tiles keep the last
known state, and the retained messages sent again on reconnection bring every table back.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from tableref.mqtt.topics import OFFLINE, ONLINE
from tableref.service import EventBus
from tableref.venue.tiles import last_move_time, make_tile, natural_key

TILE = "tile"
TILE_REMOVED = "tile_removed"
BROKER = "broker"
RESULTS = "results"

StateHook = Callable[[str, str, dict[str, Any]], None]


@dataclass
class _Table:
    info: dict[str, Any] | None = None
    online: bool | None = None
    last_seen: float | None = None  # the last live message (or, found retained offline, its last move)
    heard: float = 0.0  # the last message of any kind, retained or live
    tile: dict[str, Any] = field(default_factory=dict)


class Hall:
    """Every table's tile, and the broker's state; thread-safe (paho's thread writes, pages read)."""

    def __init__(self, bus: EventBus, *, clock: Callable[[], float] = time.time, on_state: StateHook | None = None) -> None:
        self.bus = bus
        self.clock = clock
        self.on_state = on_state  # (table_id, table name, snapshot) for every state received: the results
        self._lock = threading.Lock()
        self._tables: dict[str, _Table] = {}
        self._summaries: dict[str, dict[str, Any]] = {}  # table_id -> the tile made from the last state
        self._broker: dict[str, Any] = {"state": "connecting", "since": clock(), "last_error": None}
        self.messages = 0
        self.bad_messages = 0

    # -- messages ---------------------------------------------------------------------------------
    def handle(self, table_id: str, kind: str, payload: bytes, retained: bool) -> None:
        """One message of a table. Bad JSON is counted and ignored (the next state repairs the tile)."""
        now = self.clock()
        snap: dict[str, Any] | None = None
        with self._lock:
            self.messages += 1
            table = self._tables.get(table_id)
            if not payload:  # a retained message cleared: the table is being retired
                if table is not None:
                    if kind == "state":
                        self._summaries.pop(table_id, None)
                    elif kind == "info":
                        table.info = None
                    elif kind == "status":
                        table.online = None
                    if table_id not in self._summaries and table.info is None and table.online is None:
                        del self._tables[table_id]
                        self.bus.publish(TILE_REMOVED, {"id": table_id}, now)
                        return
                    self._refresh(table_id, table, now)
                return
            if table is None:
                table = self._tables[table_id] = _Table()
            table.heard = now
            try:
                if kind == "status":
                    text = payload.decode("utf-8", "replace").strip()
                    online = True if text == ONLINE else False if text == OFFLINE else None
                    if online is False and table.online is not False:
                        # gone now, or (retained, found at start) gone since its last move
                        table.last_seen = now if not retained else table.last_seen
                    table.online = online
                else:
                    doc = json.loads(payload)
                    if not isinstance(doc, dict):
                        raise ValueError("not a JSON object")
                    if kind == "state":
                        snap = doc
                        self._summaries[table_id] = make_tile(table_id, doc, None)
                        if table.last_seen is None:
                            table.last_seen = last_move_time(doc)
                    elif kind == "info":
                        table.info = doc
            except (ValueError, UnicodeDecodeError):
                self.bad_messages += 1
                return
            if (not retained and table.online is not False) or table.online is True:
                table.last_seen = now  # heard live, or said online by the broker (so connected now)
            self._refresh(table_id, table, now)
            name = self._tables[table_id].tile.get("name", table_id)
        if snap is not None and self.on_state is not None:
            self.on_state(table_id, name, snap)

    def _refresh(self, table_id: str, table: _Table, now: float) -> None:
        """Remake the tile; publish it when something shown changed."""
        base = self._summaries.get(table_id) or make_tile(table_id, None, None)
        tile = dict(base)
        info_tile = make_tile(table_id, None, table.info)
        tile["dashboard_url"] = info_tile["dashboard_url"]
        if table.info and table.info.get("name"):
            tile["name"] = info_tile["name"]
        tile["online"] = table.online
        tile["last_seen"] = table.last_seen if table.online is not True else None
        tile["has_state"] = table_id in self._summaries
        if tile != table.tile:
            table.tile = tile
            self.bus.publish(TILE, tile, now)

    def mark_unheard(self, since: float) -> list[str]:
        """After the broker came back: a table said online but not heard of since ``since`` (its
        offline will died with a broker that restarted without persistence) is shown as unknown."""
        changed = []
        now = self.clock()
        with self._lock:
            for table_id, table in self._tables.items():
                if table.online is True and table.heard < since:
                    table.online = None
                    self._refresh(table_id, table, now)
                    changed.append(table_id)
        return changed

    def forget(self, table_id: str) -> bool:
        """Drop a table's tile (it was retired); True if it was there."""
        with self._lock:
            if self._tables.pop(table_id, None) is None:
                return False
            self._summaries.pop(table_id, None)
            self.bus.publish(TILE_REMOVED, {"id": table_id}, self.clock())
            return True

    # -- the broker -------------------------------------------------------------------------------
    def broker_up(self) -> None:
        with self._lock:
            if self._broker["state"] == "connected":
                return
            self._broker = {"state": "connected", "since": self.clock(), "last_error": None}
            self.bus.publish(BROKER, dict(self._broker), self._broker["since"])

    def broker_down(self, reason: str) -> None:
        with self._lock:
            if self._broker["state"] == "down" and self._broker["last_error"] == reason:
                return
            since = self._broker["since"] if self._broker["state"] in ("down", "connecting") else self.clock()
            self._broker = {"state": "down", "since": since, "last_error": reason}
            self.bus.publish(BROKER, dict(self._broker), self.clock())

    def results_changed(self, count: int) -> None:
        self.bus.publish(RESULTS, {"games": count}, self.clock())

    # -- reading ----------------------------------------------------------------------------------
    def tiles(self) -> list[dict[str, Any]]:
        with self._lock:
            tiles = [dict(t.tile) for t in self._tables.values() if t.tile]
        return sorted(tiles, key=lambda t: (natural_key(str(t.get("name", ""))), t["id"]))

    def tile(self, table_id: str) -> dict[str, Any] | None:
        with self._lock:
            table = self._tables.get(table_id)
            return dict(table.tile) if table is not None and table.tile else None

    def broker(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._broker)

    def view(self) -> dict[str, Any]:
        """Everything the page starts from; ``event_id`` first, so the stream replays anything newer."""
        last = self.bus.last_id
        return {"event_id": last, "tiles": self.tiles(), "broker": self.broker(), "server_time": self.clock()}
