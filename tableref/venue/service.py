"""The venue service: one broker connection, the hall of tiles, the results store and the venue's
event bus, built in one place (``tableref venue``; docs/venue.md).

Threads: paho's network thread delivers every message to ``Hall.handle`` and, for each state, to
the results; the web server's threads only read (``view``, ``standings`` ...) or call the
organiser's actions (merge, import, retire), each behind the PIN and the CSRF token.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from scorer.core.types import Message
from tableref import __version__
from tableref.mqtt.discovery import DEFAULT_PREFIX, config_filter
from tableref.mqtt.link import BrokerSettings, MqttLink
from tableref.mqtt.topics import TableTopics, parse_table_topic, venue_subscriptions
from tableref.service import EventBus
from tableref.venue.hall import Hall
from tableref.venue.results import ResultsError, ResultsStore, game_from_snapshot

log = logging.getLogger("tableref.venue")

RESULTS_FILE = "venue-results.sqlite"


@dataclass(frozen=True, slots=True)
class VenueSettings:
    broker: BrokerSettings
    data_dir: str
    topic_prefix: str = "tableref"
    discovery_prefix: str = DEFAULT_PREFIX
    name: str = ""
    retire_wait: float = 1.0  # seconds to collect a retired table's retained discovery configs
    silent_after: float = 60.0  # after a broker outage, a table not heard of for this long is shown as unknown


class VenueService:
    """See the module doc. ``events()`` is the venue page's live stream (web.stream serves it)."""

    def __init__(self, settings: VenueSettings, *, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.bus = EventBus(keep=4000)
        self.results = ResultsStore(os.path.join(settings.data_dir, RESULTS_FILE))
        self.hall = Hall(self.bus, clock=clock, on_state=self._on_state)
        self.link = MqttLink(settings.broker, client_id=f"tableref-venue-{os.getpid()}-{secrets.token_hex(3)}",
                             subscriptions=venue_subscriptions(settings.topic_prefix), on_up=self._on_up,
                             on_down=self.hall.broker_down, on_message=self._on_message,
                             goes_on="the venue screen keeps the last known state", wall=clock)
        self._retiring: dict[str, set[str]] = {}  # config filter -> retained configs seen
        self._retire_lock = threading.Lock()
        self._started = False
        self._silence_timer: threading.Timer | None = None

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "VenueService":
        if not self._started:
            self._started = True
            self.link.start()
        return self

    def stop(self) -> None:
        if self._silence_timer is not None:
            self._silence_timer.cancel()
        self.link.close()
        self.results.close()

    def __enter__(self) -> "VenueService":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the web layer reads -------------------------------------------------------------------
    def events(self) -> EventBus:
        return self.bus

    @property
    def name(self) -> str:
        return self.settings.name

    def view(self) -> dict[str, Any]:
        return dict(self.hall.view(), venue={"name": self.settings.name, "prefix": self.settings.topic_prefix,
                                             "broker": self.settings.broker.broker, "games_recorded": self.results.count()})

    def status(self) -> dict[str, Any]:
        return {"link": self.link.status(), "tables": len(self.hall.tiles()), "messages": self.hall.messages,
                "bad_messages": self.hall.bad_messages, "games_recorded": self.results.count(), "version": __version__}

    # -- paho's thread ----------------------------------------------------------------------------
    def _on_up(self, late: bool) -> None:
        self.hall.broker_up()
        if late:  # back after an outage: tables that died meanwhile may have lost their "offline"
            if self._silence_timer is not None:
                self._silence_timer.cancel()
            self._silence_timer = threading.Timer(self.settings.silent_after, self.hall.mark_unheard, args=(self.clock(),))
            self._silence_timer.daemon = True
            self._silence_timer.start()

    def _on_message(self, topic: str, payload: bytes, retained: bool) -> None:
        parsed = parse_table_topic(self.settings.topic_prefix, topic)
        if parsed is not None:
            self.hall.handle(parsed[0], parsed[1], payload, retained)
            return
        with self._retire_lock:
            for flt, seen in self._retiring.items():
                if _matches(flt, topic):
                    (seen.add if payload else seen.discard)(topic)

    def _on_state(self, table_id: str, name: str, snap: dict[str, Any]) -> None:
        """Every state a table publishes: a final one is a result, a reopened game withdraws one."""
        try:
            game = game_from_snapshot(table_id, name, snap)
            if game is not None:
                if self.results.add(game) is not None:
                    log.info("venue: %s finished game %s (%s)", name, game.game_no, game.game)
                    self.hall.results_changed(self.results.count())
            elif self.results.reopened(table_id, snap):
                log.info("venue: %s reopened game %s; its result is withdrawn until it ends", name, snap.get("game_no"))
                self.hall.results_changed(self.results.count())
        except (ResultsError, ValueError, TypeError, KeyError):
            log.warning("venue: the final state of %s could not be recorded", table_id, exc_info=True)

    # -- the organiser's actions ------------------------------------------------------------------
    def import_record(self, doc: Any, *, table: str | None, names: Mapping[str, str] | None,
                      finished: str | None = None) -> dict[str, Any]:
        from tableref.venue.records import game_from_record

        game = game_from_record(doc, table=table, names=names, finished=finished)
        game_id = self.results.add(game)
        if game_id is not None:
            self.hall.results_changed(self.results.count())
        return {"id": game_id, "duplicate": game_id is None, "game": game.game, "table": game.table_name,
                "players": [{"colour": p.colour, "name": p.name, "score": p.score, "rank": p.rank} for p in game.players]}

    def merge(self, source: str, into: str, actor: str) -> dict[str, Any]:
        out = self.results.merge(source, into, actor)
        self.hall.results_changed(self.results.count())
        return out

    def unmerge(self, name: str) -> bool:
        done = self.results.unmerge(name)
        if done:
            self.hall.results_changed(self.results.count())
        return done

    def delete_result(self, game_id: int) -> bool:
        done = self.results.delete(game_id)
        if done:
            self.hall.results_changed(self.results.count())
        return done

    def retire(self, table_id: str) -> dict[str, Any]:
        """Remove an offline table from the broker for good: its retained state, status and info,
        and every Home Assistant entity it announced; then its tile. Refused while it is online."""
        tile = self.hall.tile(table_id)
        if tile is None:
            raise ResultsError(Message.t('tableref.venue.service.no_table_at_this_venue', table_id=table_id), code="not_found")
        if tile.get("online") is not False:
            raise ResultsError(Message.t('tableref.venue.service.is_online_switch_it_off', tile=tile['name']), code="conflict")
        if not self.link.connected:
            raise ResultsError(Message.t('tableref.venue.service.the_broker_is_not_reachable'),
                               code="unavailable")
        topics = TableTopics(self.settings.topic_prefix, table_id)
        flt = config_filter(self.settings.discovery_prefix, topics)
        with self._retire_lock:
            self._retiring[flt] = set()
        try:
            self.link.subscribe(flt)
            threading.Event().wait(self.settings.retire_wait)  # the broker sends the retained configs at once
            with self._retire_lock:
                configs = sorted(self._retiring[flt])
            infos = [self.link.publish(t, b"", retain=True) for t in [*configs, *topics.retained]]
            for info in infos:
                info.wait_for_publish(timeout=5.0)
        finally:
            self.link.unsubscribe(flt)
            with self._retire_lock:
                self._retiring.pop(flt, None)
        self.hall.forget(table_id)
        log.info("venue: table %s retired (%d Home Assistant entities removed)", table_id, len(configs))
        return {"id": table_id, "name": tile["name"], "entities_removed": len(configs)}


def _matches(pattern: str, topic: str) -> bool:
    """MQTT topic filter match for ``+`` levels (the retire filter has no ``#``)."""
    p, t = pattern.split("/"), topic.split("/")
    return len(p) == len(t) and all(a == "+" or a == b for a, b in zip(p, t))
