"""The sensor board as the rest of tableref sees it: a source of ``Observation`` values.

Composition: ``SensorLink`` (port, framer, session, reconnect) gives antenna -> tags tables; the
wiring map and the tag registry turn them into one reading per covered space. An observation is
published only when what it says differs from the last one, so a resync after a reconnect that
found nothing new publishes nothing. Unknown tags are offered to the registry (enrolment) and
reported in the reading's ``unknown``; they are never guessed.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from typing import Callable

from firmware_bridge.link import LinkHealth, SensorLink
from firmware_bridge.tag_table import Table
from firmware_bridge.wiring import Mapped, WiringMap, map_table, observation
from hardware.tag_registry import TagItem, TagRegistry
from scorer.core.observation import Observation

log = logging.getLogger("firmware_bridge.board")

ObservationListener = Callable[[Observation], None]


class SensorBoard:
    def __init__(
        self,
        link: SensorLink,
        wiring: WiringMap,
        registry: TagRegistry,
        *,
        clock: Callable[[], float] = time.monotonic,
        queue_size: int = 64,
    ) -> None:
        self.link = link
        self.wiring = wiring
        self.registry = registry
        self.clock = clock
        self.observations: queue.Queue[Observation] = queue.Queue(maxsize=queue_size)
        self._listeners: list[ObservationListener] = []
        self._lock = threading.RLock()
        self._table: Table | None = None
        self._last: Observation | None = None
        self._seen_unknown: set[tuple[object, str]] = set()
        self._seen_unmapped: set[tuple[int, str]] = set()
        self._unknown_count = 0
        self._unmapped_count = 0
        self._emitted = 0
        link.add_listener(self._on_table)
        registry.subscribe(self._on_registry)

    # ---- lifecycle ----

    def start(self) -> "SensorBoard":
        self.link.start()
        return self

    def close(self) -> None:
        self.link.close()

    def __enter__(self) -> "SensorBoard":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- outputs ----

    def subscribe(self, listener: ObservationListener) -> None:
        """Called (on the link's thread) with every new observation; keep it quick."""
        self._listeners.append(listener)

    def latest(self) -> Observation | None:
        return self._last

    def health(self) -> LinkHealth:
        h = self.link.health()
        extra = (("unknown_tags", self._unknown_count), ("unmapped_tags", self._unmapped_count),
                 ("observations", self._emitted))
        return dataclasses.replace(h, counters=h.counters + extra)

    # ---- inputs ----

    def _on_table(self, table: Table) -> None:
        with self._lock:
            self._table = table
            self._publish()

    def _on_registry(self, uid: str, item: TagItem | None) -> None:
        with self._lock:
            if self._table is not None:
                self._publish()

    def _publish(self) -> None:
        assert self._table is not None
        changed = self.link.changed()
        mapped = map_table(self._table, self.wiring, self.registry, changed)
        if self._offer_unknown(mapped):
            mapped = map_table(self._table, self.wiring, self.registry, changed)
        self._report(mapped)
        if self._last is not None and self._last.readings == mapped.readings:
            return
        obs = observation(mapped, self.clock())
        self._last = obs
        self._emitted += 1
        while True:
            try:
                self.observations.put_nowait(obs)
                break
            except queue.Full:   # a slow consumer gets the newest positions, not a backlog
                try:
                    self.observations.get_nowait()
                except queue.Empty:
                    pass
        for listener in list(self._listeners):
            try:
                listener(obs)
            except Exception:
                log.exception("sensor-board: observation listener failed")

    def _offer_unknown(self, mapped: Mapped) -> bool:
        if self.registry.enrolment is None:
            return False
        enrolled = False
        for _space, uid in mapped.unknown:
            result = self.registry.offer(uid)
            if result.enrolled:
                log.info("sensor-board: %s", result.message.en)
                enrolled = True
        return enrolled

    def _report(self, mapped: Mapped) -> None:
        """Log each unknown or unmapped tag once per appearance and count it."""
        unknown = {(space, uid) for space, uid in mapped.unknown}
        unknown |= {(space, uid) for space, uid, _card in mapped.not_pieces}
        for space, uid in sorted(unknown - self._seen_unknown):
            self._unknown_count += 1
            card = next((c for s, u, c in mapped.not_pieces if s == space and u == uid), None)
            if card is not None:
                log.warning("sensor-board: tag %s on %s is %r, not a piece; reported as unknown", uid, space, card)
            else:
                log.warning("sensor-board: unknown tag %s on %s; reported as unknown (enrol it to name it)", uid, space)
        self._seen_unknown = unknown
        unmapped = set(mapped.unmapped)
        for antenna, uid in sorted(unmapped - self._seen_unmapped):
            self._unmapped_count += 1
            log.warning("sensor-board: tag %s on antenna %d, which the wiring map %s does not place; ignored",
                        uid, antenna, self.wiring.board)
        self._seen_unmapped = unmapped
