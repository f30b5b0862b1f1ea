"""The waitress server: start, answer, cap streams by threads, stop cleanly."""

from __future__ import annotations

import http.client
import json

import pytest

from web.app import create_app
from web.server import make_server, reserved_threads


def test_start_answer_stop(data_dir, service):
    app = create_app(service, data_dir=data_dir, config={"PIN_HASH_METHOD": "pbkdf2:sha256:1000"})
    server = make_server(app, "127.0.0.1", 0, threads=12)
    assert app.config["SSE_MAX_STREAMS"] == 12 - reserved_threads(12) == 8
    assert reserved_threads(66) == 8 and reserved_threads(16) == 4
    assert server.url == f"http://127.0.0.1:{server.port}/"
    server.start()
    assert server.wait_ready(10)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/state")
    resp = conn.getresponse()
    assert resp.status == 200 and json.loads(resp.read())["game"] == "china"
    conn.close()
    server.stop()
    server.stop()  # idempotent
    assert not server.wait_ready(0.3)


def test_too_few_threads(data_dir, service):
    app = create_app(service, data_dir=data_dir)
    with pytest.raises(ValueError):
        make_server(app, "127.0.0.1", 0, threads=5)


@pytest.mark.allow_error_logs  # a waitress worker finishing a request pulls the same trigger and logs it
def test_stop_when_the_loop_trigger_is_already_closed(data_dir, service, monkeypatch):
    """CI saw stop() fail with EBADF once: the waitress loop's trigger pipe was gone. stop() still
    closes the listening socket and returns. (The pipe is not really closed here: a test closing an fd
    the server closes again could close whatever the process opened under that number meanwhile.)"""
    import errno

    app = create_app(service, data_dir=data_dir, config={"PIN_HASH_METHOD": "pbkdf2:sha256:1000"})
    server = make_server(app, "127.0.0.1", 0, threads=8).start()
    assert server.wait_ready(10)

    def gone() -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(server._server.trigger, "_physical_pull", gone)
    server.stop(timeout=2.0)
    assert not server.wait_ready(0.3)
