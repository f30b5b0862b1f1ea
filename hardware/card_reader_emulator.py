"""An emulated RDM6300 on a pseudo-terminal: while a card is held it repeats its frame, as the
real module does, at 9600 baud. For the tests and the demo; the Pi side opens ``device_path``.
"""

from __future__ import annotations

import os
import threading
import time
import tty

from hardware.card_reader import rdm6300_frame


class EmulatedRdm6300:
    def __init__(self, *, repeat_s: float = 0.05, baudrate: int = 9600) -> None:
        self.repeat_s = repeat_s
        self.baudrate = baudrate
        master, slave = os.openpty()
        tty.setraw(slave)
        self._master, self._slave = master, slave
        self.device_path = os.ttyname(slave)
        self._held: bytes | None = None
        self._raw: list[bytes] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.frames_sent = 0
        self._thread = threading.Thread(target=self._run, name="emulated-rdm6300", daemon=True)
        self._thread.start()

    def hold(self, uid: str) -> None:
        """Put a card on the reader (it stays until ``lift``)."""
        with self._lock:
            self._held = rdm6300_frame(uid)
        self._wake.set()

    def lift(self) -> None:
        with self._lock:
            self._held = None

    def send_raw(self, data: bytes) -> None:
        """Bytes as they come (a damaged frame, noise)."""
        with self._lock:
            self._raw.append(bytes(data))
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                chunks = self._raw
                self._raw = []
                if self._held is not None:
                    chunks.append(self._held)
            for chunk in chunks:
                master = self._master
                if master is None:  # closed while this thread slept
                    return
                try:
                    os.write(master, chunk)
                except OSError:
                    return
                self.frames_sent += 1
                time.sleep(len(chunk) * 10 / self.baudrate)
            self._wake.wait(self.repeat_s)
            self._wake.clear()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(2.0)
        # Forget the numbers before closing: a second close() must not close whatever the process
        # has opened under the same numbers since (another test's server pipe, say).
        fds, self._master, self._slave = (self._master, self._slave), None, None
        for fd in fds:
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "EmulatedRdm6300":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
