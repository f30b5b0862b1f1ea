"""Live updates: server-sent events with replay from Last-Event-ID, reset when the log has a hole,
keepalives, slow and dead clients dropped, a cap on open streams."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any


from tableref.service import EventBus
from web.fake import FakeTableService
from web_testkit import SETUP, wait_for


class Stream:
    """Reads an SSE response from the Flask test client, message by message."""

    def __init__(self, resp: Any):
        assert resp.status_code == 200, resp.get_data(as_text=True)
        assert resp.mimetype == "text/event-stream"
        self.resp = resp
        self.it = iter(resp.response)
        self.buf = ""
        self.ended = False

    def next(self, timeout: float = 5.0) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while "\n\n" not in self.buf:
            if time.monotonic() > deadline:
                raise AssertionError("no SSE message in time")
            try:
                chunk = next(self.it)
            except StopIteration:
                self.ended = True
                return None
            self.buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        block, self.buf = self.buf.split("\n\n", 1)
        msg: dict[str, Any] = {"comment": None, "event": "message", "id": None, "data": None, "retry": None}
        for line in block.split("\n"):
            if line.startswith(":"):
                msg["comment"] = line[1:].strip()
            else:
                key, _, value = line.partition(": ")
                msg[key] = json.loads(value) if key == "data" else value
        return msg

    def until(self, pred, timeout: float = 5.0) -> list[dict[str, Any]]:
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = self.next(max(0.01, deadline - time.monotonic()))
            if m is None:
                return seen
            seen.append(m)
            if pred(m):
                return seen
        raise AssertionError(f"condition not met; saw {[(m['event'], m['id'], m['comment']) for m in seen]}")

    def close(self) -> None:
        self.resp.close()


def open_stream(app, headers=None, query="") -> Stream:
    client = app.test_client()
    return Stream(client.get("/api/stream" + query, headers=headers or {}, buffered=False))


def hello(m):
    return m["event"] == "hello"


def events_of(msgs):
    return [m for m in msgs if m["event"] == "message" and m["data"] is not None]


def exchange(svc: FakeTableService) -> None:
    svc.play({"type": "exchange", "player": svc.state.players[svc.state.active]})


def test_replay_from_last_event_id(app, service):
    for _ in range(3):
        exchange(service)
    ids = [e.id for e in service.events().since(0)]
    mid = ids[2]
    s = open_stream(app, {"Last-Event-ID": str(mid)})
    first = s.next()
    assert first["retry"] == "300"
    msgs = s.until(hello)
    got = [int(m["id"]) for m in events_of(msgs)]
    assert got == [i for i in ids if i > mid]
    assert all(m["data"]["id"] == int(m["id"]) for m in events_of(msgs))
    assert msgs[-1]["data"]["last_id"] == ids[-1]
    s.close()
    wait_for(lambda: service.events().subscribers == 0, what="unsubscribed")


def test_header_wins_over_query_and_live_events_follow(app, service):
    last = service.events().last_id
    s = open_stream(app, {"Last-Event-ID": str(last)}, query="?since=0")
    msgs = s.until(hello)
    assert events_of(msgs) == []
    exchange(service)
    msgs = s.until(lambda m: m["data"] is not None and m["event"] == "message" and m["data"]["type"] == "state")
    types = [m["data"]["type"] for m in events_of(msgs)]
    assert types == ["move_accepted", "state"]
    assert msgs[-1]["data"]["data"]["turn"]["active"] == ["green"]
    s.close()


def test_no_replay_without_an_id(app, service):
    s = open_stream(app)
    s.next()
    msgs = s.until(hello)
    assert events_of(msgs) == [] and msgs[-1]["data"]["last_id"] == service.events().last_id
    s.close()


def test_keepalive_comments(app):
    s = open_stream(app)
    s.until(hello)
    m = s.until(lambda m: m["comment"] == "keepalive", timeout=3)
    assert m[-1]["comment"] == "keepalive"
    s.close()


def test_reset_when_the_log_lost_what_was_missed(make_app):
    svc = FakeTableService(bus=EventBus(keep=4), setup=SETUP)
    for _ in range(5):
        exchange(svc)
    app = make_app(svc)
    s = open_stream(app, {"Last-Event-ID": "1"})
    msgs = s.until(hello)
    assert [m["event"] for m in msgs if m["event"] != "message"][:1] == ["reset"]
    assert events_of(msgs) == []
    s.close()
    ahead = open_stream(app, {"Last-Event-ID": str(svc.events().last_id + 50)})  # e.g. ids from another boot
    assert any(m["event"] == "reset" for m in ahead.until(hello))
    ahead.close()


def test_bad_last_event_id(app):
    r = app.test_client().get("/api/stream", headers={"Last-Event-ID": "abc"})
    assert r.status_code == 400


def test_slow_subscriber_is_dropped_then_catches_up(make_app):
    svc = FakeTableService(bus=EventBus(subscriber_queue=3), setup=SETUP)
    app = make_app(svc)
    s = open_stream(app, {"Last-Event-ID": str(svc.events().last_id)})
    s.until(hello)
    for _ in range(4):  # 8 events into a queue of 3
        exchange(svc)
    msgs = []
    while True:
        m = s.next()
        if m is None:
            break
        msgs.append(m)
    assert s.ended, "a dropped subscriber's stream ends so the browser reconnects"
    got = [int(m["id"]) for m in events_of(msgs)]
    assert len(got) == 3
    s.close()
    again = open_stream(app, {"Last-Event-ID": str(got[-1])})
    replay = [int(m["id"]) for m in events_of(again.until(hello))]
    assert got + replay == [e.id for e in svc.events().since(got[0] - 1)]
    again.close()


def test_stream_cap(make_app, service):
    app = make_app(service, SSE_MAX_STREAMS=2)
    a, b = open_stream(app), open_stream(app)
    r = app.test_client().get("/api/stream")
    assert r.status_code == 503 and r.headers["Retry-After"] == "5"
    a.close()
    c = open_stream(app)
    b.close()
    c.close()
    assert app.extensions["tableref"].streams == 0


def test_disconnect_streams(app):
    s = open_stream(app)
    s.until(hello)
    app.extensions["tableref"].disconnect_streams()
    while s.next(3) is not None:
        pass
    assert s.ended
    s.close()


# -- with the real server ------------------------------------------------------------------------

def _raw_stream(port: int, since: int | None = None) -> tuple[socket.socket, bytes]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    extra = f"Last-Event-ID: {since}\r\n" if since is not None else ""
    sock.sendall(f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
    data = b""
    while b"event: hello" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return sock, data


def test_dead_clients_are_dropped(live_server):
    ctx = live_server.app.extensions["tableref"]
    bus = live_server.service.events()
    socks = [_raw_stream(live_server.port)[0] for _ in range(5)]
    wait_for(lambda: ctx.streams == 5 and bus.subscribers == 5, what="5 streams")
    for s in socks:
        s.close()  # the tablet vanished: no FIN is sent in real life, but a write must fail either way
    wait_for(lambda: ctx.streams == 0 and bus.subscribers == 0, timeout=10, what="dead streams dropped")


def test_many_streams_get_every_event(live_server):
    svc = live_server.service
    since = svc.events().last_id
    results: dict[int, bytes] = {}

    def reader(i: int) -> None:
        sock, data = _raw_stream(live_server.port, since)
        sock.settimeout(5)
        while data.count(b'"type":"state"') < 1:
            data += sock.recv(65536)
        results[i] = data
        sock.close()

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    wait_for(lambda: live_server.app.extensions["tableref"].streams == 16, what="16 streams")
    exchange(svc)
    for t in threads:
        t.join(10)
    assert len(results) == 16
    assert all(b'"type":"move_accepted"' in d for d in results.values())
