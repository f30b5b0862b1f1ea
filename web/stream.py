"""Live updates by server-sent events.

* Every event carries its bus id (``id:``), so a browser that reconnects sends
  ``Last-Event-ID`` and gets every event it missed, in order, from the bus's replay log.
* When the log no longer holds what the client missed, the stream says ``event: reset`` and the
  page reloads the full state and history instead of showing a hole.
* A ``: keepalive`` comment every ``SSE_KEEPALIVE`` seconds: a dead client is only noticed when
  a write fails, and that is what frees its thread and its subscription.
* A subscriber that stops reading overflows its bounded queue and is dropped by the bus; its
  stream then ends and the browser reconnects with ``Last-Event-ID``.
* At most ``SSE_MAX_STREAMS`` streams at once (each holds a server thread): beyond that the
  answer is 503 with ``Retry-After``, so page and API requests always find a thread.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Iterator

from flask import Blueprint, Response, current_app, request

from scorer.core import i18n
from scorer.core.types import Message
from tableref.service import EventBus, Subscription, TableEvent
from web.app import WebContext, ctx
from web.errors import BadInput, Unavailable

stream = Blueprint("stream", __name__)

WAKE = 0.5  # a stream looks at the stop/disconnect signals at least this often


def format_event(event: TableEvent) -> bytes:
    body = event.to_json()
    body["at_text"] = i18n.at_texts(body.get("at"))  # the time as each language writes it (Babel), once for all streams
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return f"id: {event.id}\ndata: {data}\n\n".encode("utf-8")


class EncodedEvents:
    """Each event serialised once for all streams (a full state is ~10 KB of JSON; fifty tablets
    must not each encode it again). Keeps the most recent ``size`` encodings."""

    def __init__(self, size: int = 256):
        self._size = size
        self._cache: dict[int, bytes] = {}
        self._lock = threading.Lock()

    def get(self, event: TableEvent) -> bytes:
        with self._lock:
            found = self._cache.get(event.id)
        if found is not None:
            return found
        encoded = format_event(event)
        with self._lock:
            self._cache[event.id] = encoded
            while len(self._cache) > self._size:
                del self._cache[next(iter(self._cache))]
        return encoded


def _control(name: str, payload: dict[str, object]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def _since() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("since")
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise BadInput(Message.t('web.stream.last_event_id_must_be.2'), field="since") from None
    if value < 0:
        raise BadInput(Message.t('web.stream.last_event_id_must_be'), field="since")
    return value


KEEPALIVE = b": keepalive\n\n"


def event_stream(c: WebContext, bus: EventBus, sub: Subscription, since: int | None, keepalive: float,
                 retry_ms: int) -> Iterator[bytes]:
    """The body of one stream. Subscribed *before* reading the replay log, so nothing published in
    between is lost; duplicates are skipped by id."""
    generation = c.stream_generation
    try:
        yield f"retry: {retry_ms}\n\n".encode()
        last = bus.last_id
        sent = last if since is None else since
        if since is not None:
            oldest = bus.oldest_id()
            if since > last or (since < last and (oldest is None or oldest > since + 1)):
                # missed more than the log holds (or the server restarted with other ids)
                yield _control("reset", {"last_id": last})
                sent = last
            else:
                for event in bus.since(since):
                    yield c.encoded.get(event)
                    sent = event.id
        yield _control("hello", {"last_id": sent})
        quiet_since = time.monotonic()
        while not c.stopping.is_set() and c.stream_generation == generation:
            event = sub.get(timeout=min(keepalive, WAKE))
            if event is None:
                if sub.dropped and sub.queue.empty():
                    return  # too slow: the browser reconnects and replays from its last id
                if time.monotonic() - quiet_since >= keepalive:
                    yield KEEPALIVE
                    quiet_since = time.monotonic()
                continue
            if event.id <= sent:
                continue
            yield c.encoded.get(event)
            sent = event.id
            quiet_since = time.monotonic()
    finally:
        sub.close()


@stream.get("/api/stream")
def live() -> Response:
    c = ctx()
    since = _since()
    cfg = current_app.config
    with c.streams_lock:
        if c.streams >= int(cfg["SSE_MAX_STREAMS"]):
            raise Unavailable(Message.t('web.stream.too_many_live_screens_are'), retry_after=5.0)
        c.streams += 1
    bus = c.service.events()
    sub = bus.subscribe()
    released = []

    def release() -> None:
        """Runs when the server closes the response, whether or not the body was ever started."""
        if not released:
            released.append(True)
            sub.close()
            with c.streams_lock:
                c.streams -= 1

    body = event_stream(c, bus, sub, since, float(cfg["SSE_KEEPALIVE"]), int(cfg["SSE_RETRY_MS"]))
    # No request context inside the body: it needs none (everything is passed in), and each
    # stream may then be closed from any thread in any order.
    resp = Response(body, mimetype="text/event-stream")
    resp.call_on_close(release)
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
