"""Serving the dashboard with waitress, a production WSGI server that holds long-lived streams.

Each open event stream occupies one waitress thread, so the pool must be larger than the number
of screens; ``Server`` caps live streams at ``threads - reserved_threads(threads)`` so pages and the API
always find a free thread (a surplus screen gets 503 + Retry-After and its browser retries).

    server = make_server(app, "0.0.0.0", 8080, threads=64).start()   # background thread
    if server.wait_ready(10):                                         # answers /api/health
        print(server.url)                                             # "http://HOST:PORT/"
    ...
    server.stop()

or ``serve(app, host, port, threads)``, which blocks until interrupted.
"""

from __future__ import annotations

import http.client
import threading
import time
from typing import Any

from flask import Flask
from waitress.server import create_server

DEFAULT_THREADS = 64


def reserved_threads(threads: int) -> int:
    """Threads kept free of event streams for pages and the API (a page load fetches a few things)."""
    return max(4, threads // 8)


class Server:
    """A waitress server for one app, with an explicit lifecycle (start, wait_ready, stop)."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8080, threads: int = DEFAULT_THREADS,
                 **waitress_options: Any):
        if threads < 6:
            raise ValueError("threads must be at least 6 (4 kept for pages and the API, 2 for streams)")
        self.app = app
        app.config["SSE_MAX_STREAMS"] = min(int(app.config.get("SSE_MAX_STREAMS", 10**6)), threads - reserved_threads(threads))
        options = {
            "threads": threads,
            "connection_limit": max(100, threads * 4),
            "channel_timeout": 120,
            "cleanup_interval": 10,
            "ident": "tableref",
            "clear_untrusted_proxy_headers": True,
            # A waitress response buffer keeps everything written to it until it is rotated at
            # outbuf_high_watermark (16 MB by default), spilling to a temp file past
            # outbuf_overflow (1 MB). An event stream never ends, so with the defaults every
            # tablet would hold ~1 MB of RAM and grow a temp file on the SD card. Rotating at
            # 256 KB bounds each stream to a few hundred KB in memory and never touches the disk.
            # The watermark also applies back-pressure: a writer to a stuck client blocks (its own
            # thread only) until the data drains or channel_timeout closes the connection.
            "outbuf_high_watermark": 256 * 1024,
            "outbuf_overflow": 1024 * 1024,
        }
        options.update(waitress_options)
        self._server = create_server(app, host=host, port=port, **options)
        self.host = host
        self.port = int(self._server.effective_port)  # type: ignore[union-attr]
        self._thread: threading.Thread | None = None
        self._stopped = False

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def run(self) -> None:
        """Serve in this thread until ``stop`` is called from another thread."""
        self._server.run()

    def start(self) -> "Server":
        self._thread = threading.Thread(target=self.run, name=f"waitress-{self.port}", daemon=True)
        self._thread.start()
        return self

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """Poll ``/api/health`` until it answers 200 (True) or the deadline passes (False)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("::1" if self.host == "::" else self.host)
        return wait_ready(host, self.port, timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """End the live streams, then close every connection and the worker threads, all within
        ``timeout`` seconds (one deadline for the three waits). Idempotent.

        Streams notice ``stopping`` within half a second and finish their response; only then are
        the sockets closed (from the server's own loop thread), so no worker writes to a closed
        socket.
        """
        ctx = self.app.extensions["tableref"]
        ctx.stopping.set()
        deadline = time.monotonic() + timeout
        streams_until = min(deadline, time.monotonic() + 3.0)
        while ctx.streams > 0 and time.monotonic() < streams_until:
            time.sleep(0.02)
        if self._stopped:
            return
        self._stopped = True
        server = self._server

        def close_all() -> None:
            for channel in list(server._map.values()):  # type: ignore[union-attr]
                if channel is not server and channel is not server.trigger:  # type: ignore[union-attr]
                    channel.handle_close()
            server.close()

        # workers first (they wake the loop through its trigger when a task ends), then the sockets
        server.task_dispatcher.shutdown(timeout=max(0.0, deadline - time.monotonic()))  # type: ignore[union-attr]
        if self._thread is not None and self._thread.is_alive():
            try:
                server.trigger.pull_trigger(close_all)  # type: ignore[union-attr]  (runs in the loop thread)
            except OSError:
                # The trigger's pipe is already gone (seen once in CI: EBADF, the loop thread's trigger
                # closed under it). The loop cannot be woken, so close from here; the loop thread is a
                # daemon and ends on its next poll of the closed sockets.
                close_all()
            self._thread.join(timeout=max(0.05, deadline - time.monotonic()))
        else:
            close_all()


def wait_ready(host: str, port: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(host, port, timeout=1.0)
            conn.request("GET", "/api/health")
            ok = conn.getresponse().status == 200
            conn.close()
            if ok:
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def make_server(app: Flask, host: str = "127.0.0.1", port: int = 8080, threads: int = DEFAULT_THREADS,
                **waitress_options: Any) -> Server:
    return Server(app, host, port, threads, **waitress_options)


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8080, threads: int = DEFAULT_THREADS) -> None:
    """Serve until interrupted (Ctrl-C); for callers that have nothing else to run."""
    server = make_server(app, host, port, threads).start()
    try:
        while server._thread is not None and server._thread.is_alive():
            server._thread.join(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
