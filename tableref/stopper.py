"""Ctrl-C and SIGTERM as an event the main thread waits on (``Stopper``), for every long-running
command: ``tableref run``, ``venue`` and ``emulate``."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any


class Stopper:
    """Ctrl-C and SIGTERM set ``event`` instead of killing threads mid-write.

    The event is set by a helper thread, never by the Python-level signal handler. That handler
    runs on the main thread, and only once the main thread is interrupted: a signal delivered just
    before the main thread blocks in ``event.wait()``, or to another thread (POSIX lets the kernel
    pick any thread that does not block it), did not wake it, and ``tableref run`` then sat in
    ``event.wait()`` until systemd's SIGKILL, 10 s later. A handler that sets the event could also
    run while the main thread holds that event's own lock (inside ``wait``), and wait for itself.
    So the C-level handler writes the signal's number to a pipe (``signal.set_wakeup_fd``) from
    whichever thread receives it, at once, and the ``signals`` thread reads it and sets the event.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.event = threading.Event()
        self._old: dict[int, Any] = {}
        self._old_wakeup: int | None = None
        self._pipe: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Stopper":
        if threading.current_thread() is not threading.main_thread():
            return self  # tests calling main() from a thread: no signals here
        r, w = os.pipe()  # both ends close on exec (a restore's exec starts afresh)
        os.set_blocking(w, False)  # the C handler must never block
        self._pipe = (r, w)
        self._thread = threading.Thread(target=self._watch, args=(r,), name="signals", daemon=True)
        self._thread.start()
        self._old_wakeup = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        for sig in self.SIGNALS:
            self._old[sig] = signal.signal(sig, _on_signal)
        return self

    def _watch(self, r: int) -> None:
        try:
            while True:
                data = os.read(r, 64)
                if not data:  # __exit__ closed the write end
                    return
                for number in data:
                    if number in self.SIGNALS:
                        self.event.set()
        except OSError:
            return
        finally:
            os.close(r)

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()
        if self._pipe is None:
            return
        _r, w = self._pipe
        self._pipe = None
        signal.set_wakeup_fd(-1 if self._old_wakeup is None else self._old_wakeup)
        os.close(w)  # the watcher reads the end of the pipe, closes its end and returns (not waited for)


def _on_signal(signum: int, frame: Any) -> None:
    """The Python-level handler of SIGINT and SIGTERM under ``Stopper``: nothing. It must exist (the
    C handler behind it writes to the wakeup pipe), and it takes no lock (see ``Stopper``)."""
