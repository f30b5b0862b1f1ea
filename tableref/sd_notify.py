"""systemd's service notification protocol (sd_notify(3)), without libsystemd.

Under a unit with ``Type=notify`` systemd passes the path of a unix datagram socket in
``$NOTIFY_SOCKET`` (a leading ``@`` means the abstract namespace); the service sends
newline-separated ``KEY=VALUE`` assignments to it: ``READY=1`` once it serves, ``WATCHDOG=1`` at
least every ``$WATCHDOG_USEC`` microseconds when the unit has ``WatchdogSec=``, ``STOPPING=1``
when it shuts down, ``STATUS=...`` for ``systemctl status``. Outside systemd there is no socket
and every call is a no-op, so the same code runs on a laptop.

``Watchdog`` pings only while a health check passes: a referee whose worker thread is stuck
stops pinging, and systemd kills and restarts it (``Restart=on-failure``).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Callable, Mapping

log = logging.getLogger(__name__)


def _address(path: str) -> str | bytes:
    if path.startswith("@"):  # abstract namespace: a NUL byte instead of the '@'
        return b"\0" + path[1:].encode()
    return path


class Notifier:
    """Sends notifications to ``$NOTIFY_SOCKET``; ``enabled`` is False (and sends nothing) without one."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.socket_path = env.get("NOTIFY_SOCKET") or None
        self.watchdog_usec = _watchdog_usec(env)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.socket_path is not None

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between pings (half the watchdog timeout, as sd_watchdog_enabled(3) advises), or None."""
        return None if self.watchdog_usec is None else self.watchdog_usec / 2e6

    def send(self, **fields: str | int) -> bool:
        """One datagram ``KEY=VALUE\\n...``; False when there is no socket or the send failed."""
        if self.socket_path is None:
            return False
        payload = "\n".join(f"{k.upper()}={v}" for k, v in fields.items()).encode()
        try:
            with self._lock, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(_address(self.socket_path))
                sock.sendall(payload)
            return True
        except OSError as exc:  # systemd gone (shutdown) or a wrong path: never fatal for the service
            log.warning("sd_notify to %s failed: %s", self.socket_path, exc)
            return False

    def ready(self, status: str | None = None) -> bool:
        fields: dict[str, str | int] = {"ready": 1, "mainpid": os.getpid()}
        if status:
            fields["status"] = status
        return self.send(**fields)

    def status(self, text: str) -> bool:
        return self.send(status=text)

    def ping(self) -> bool:
        return self.send(watchdog=1)

    def stopping(self, status: str | None = None) -> bool:
        fields: dict[str, str | int] = {"stopping": 1}
        if status:
            fields["status"] = status
        return self.send(**fields)


def _watchdog_usec(env: Mapping[str, str]) -> int | None:
    """``$WATCHDOG_USEC`` if it is meant for this process (``$WATCHDOG_PID`` absent or ours)."""
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    pid = env.get("WATCHDOG_PID")
    if usec <= 0 or (pid and pid != str(os.getpid())):
        return None
    return usec


class Watchdog:
    """A thread that sends ``WATCHDOG=1`` every ``interval`` seconds while ``healthy()`` is true.

    A failed or raising health check skips the ping (and says so once in the log): systemd then
    notices the missing pings after ``WatchdogSec`` and restarts the service."""

    def __init__(self, notifier: Notifier, healthy: Callable[[], bool], interval: float | None = None) -> None:
        self.notifier = notifier
        self.healthy = healthy
        self.interval = interval if interval is not None else notifier.watchdog_interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pings = 0
        self.skipped = 0

    def start(self) -> "Watchdog":
        if self.interval is None or not self.notifier.enabled or self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="sd-watchdog", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        assert self.interval is not None
        warned = False
        while not self._stop.wait(self.interval):
            try:
                ok = bool(self.healthy())
            except Exception:
                ok = False
            if self._stop.is_set():  # stopped during the health check: no ping after STOPPING=1
                return
            if ok:
                self.notifier.ping()
                self.pings += 1
                warned = False
            else:
                self.skipped += 1
                if not warned:
                    log.warning("health check failed: no watchdog ping (systemd restarts the service if this lasts)")
                    warned = True

    def close(self, timeout: float = 0.5) -> None:
        """Stop pinging. Waits at most ``timeout`` for the thread (it may be inside a health check,
        which can take seconds; it sends nothing more once stopped)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
