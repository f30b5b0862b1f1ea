"""An emulated sensor board on a pseudo-terminal: the real firmware logic (tablefw's Scanner and
Device) with fake readers, and a "cable" that can damage what goes through it on demand.

Used by the tests, the benchmark, the demo and ``tableref emulate sensor-board``. The Pi side
opens ``device_path`` exactly as it would open /dev/ttyACM0.

Cable model: the device's bytes go through a fault stage (garbage, flipped bits, truncation,
duplication, reordering, loss, random corruption) and, at a configured baud rate, are paced at
10 bit times per byte like a UART. ``unplug()`` closes the pty (the Pi's read fails like a
pulled USB cable); ``replug()`` makes a new one, at the same path (a stable symlink, as udev's
/dev/serial/by-id gives) or a new path, and by default reboots the device as USB power would.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import random
import select
import threading
import time
import tty
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Callable

from firmware_bridge.firmware.tablefw import wire
from firmware_bridge.firmware.tablefw.device import Device
from firmware_bridge.firmware.tablefw.fakes import FakeReaderArray
from firmware_bridge.firmware.tablefw.scanner import Scanner
from firmware_bridge.transport import PICO_MICROPYTHON_PID, PICO_MICROPYTHON_VID, PortInfo
from hardware.tag_registry import normalise_uid
from scorer.core import TableRefError

log = logging.getLogger("firmware_bridge.emulator")


class EmulatorError(TableRefError, ValueError):
    """A bad command for the emulator (unknown fault, antenna out of range ...)."""


class Fault(StrEnum):
    GARBAGE = "garbage"            # n random bytes between two frames
    FLIP = "flip"                  # one bit flipped in each of the next `count` frames
    TRUNCATE = "truncate"          # the next `count` frames cut short
    DUPLICATE = "duplicate"        # the next `count` frames sent twice
    REORDER = "reorder"            # the next frame held back and sent after the one behind it
    DROP = "drop"                  # the next `count` frames lost
    CORRUPT = "corrupt"            # from now on each byte damaged with probability `rate`
    FLICKER = "flicker"            # a tag seen only some scans (`pattern`, e.g. "10")
    READER_FAULT = "reader-fault"  # an antenna's reader stops answering (`on=False` to mend)
    CUT = "cut"                    # nothing passes either way, the port stays open (`on=False` to mend)


@dataclass(frozen=True, slots=True)
class Emitted:
    """A tag event as the firmware emitted it (for latency measurements)."""

    antenna: int
    uid: bytes
    present: bool
    seq: int
    at: float   # time.perf_counter()


def parse_uid(uid: str | bytes) -> bytes:
    if isinstance(uid, (bytes, bytearray)):
        data = bytes(uid)
    else:
        data = bytes.fromhex(normalise_uid(uid))
    if len(data) not in wire.UID_LENGTHS:
        raise EmulatorError(f"an NFC uid has 4, 7 or 10 bytes, not {len(data)}")
    return data


class _Cable:
    """The fault stage between the device and the pty. Called with frames, returns bytes to send."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pending: dict[Fault, int] = {}
        self.garbage: list[int] = []
        self.rate_out = 0.0
        self.rate_in = 0.0
        self.held: bytes | None = None
        self.cut = False
        self.counts: dict[str, int] = {}

    def _count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def arm(self, fault: Fault, count: int) -> None:
        self.pending[fault] = self.pending.get(fault, 0) + count

    def _take(self, fault: Fault) -> bool:
        n = self.pending.get(fault, 0)
        if n <= 0:
            return False
        self.pending[fault] = n - 1
        self._count(str(fault))
        return True

    def frame(self, frame: bytes) -> list[bytes]:
        if self.cut:
            self._count("cut_frames")
            return []
        out: list[bytes] = []
        while self.garbage:
            n = self.garbage.pop(0)
            out.append(bytes(self.rng.getrandbits(8) for _ in range(n)))
            self._count("garbage")
        sequenced = len(frame) > 2 and wire.is_sequenced(_frame_type(frame))
        if sequenced:
            if self._take(Fault.DROP):
                return out
            if self._take(Fault.FLIP):
                b = bytearray(frame)
                i = self.rng.randrange(1, len(b) - 1)
                b[i] ^= 1 << self.rng.randrange(8)
                frame = bytes(b)
            elif self._take(Fault.TRUNCATE):
                frame = frame[: max(2, len(frame) // 2)]
            if self.held is None and self._take(Fault.REORDER):
                self.held = frame
                return out
            frames = [frame, frame] if self._take(Fault.DUPLICATE) else [frame]
            if self.held is not None:
                frames.append(self.held)
                self.held = None
            out.extend(frames)
        else:
            out.append(frame)
        if self.rate_out:
            out = [self.corrupt(x, self.rate_out) for x in out]
        return out

    def corrupt(self, data: bytes, rate: float) -> bytes:
        rng = self.rng
        b = bytearray(data)
        for i in range(len(b)):
            if rng.random() < rate:
                b[i] ^= 1 << rng.randrange(8)
                self._count("corrupted_bytes")
        return bytes(b)


def _frame_type(frame: bytes) -> int:
    """Type byte of an encoded frame (the COBS code byte comes first)."""
    body = wire.cobs_decode(frame.strip(b"\x00"))
    return body[0] if body else 0


class EmulatedSensorBoard:
    """The firmware on a pty. Thread-safe: every public method may be called from any thread."""

    def __init__(
        self,
        antennas: int = 16,
        *,
        board_id: bytes = bytes.fromhex("E6614104039A2F2B"),
        baudrate: int | None = 115200,
        sweep_ms: float = 5.0,
        link_path: str | os.PathLike[str] | None = None,
        seed: int | None = None,
        arrive_hits: int = 2,
        depart_misses: int = 3,
        max_tags: int = 8,
        heartbeat_ms: int = 250,
        on_emit: Callable[[Emitted], None] | None = None,
        timestamps: bool = True,
    ) -> None:
        if not 1 <= antennas <= 254:
            raise EmulatorError("antennas must be 1..254")
        self.antennas = antennas
        self.board_id = board_id
        self.baudrate = baudrate
        self.sweep_ms = sweep_ms
        self.link_path = Path(link_path) if link_path is not None else None
        self.rng = random.Random(seed)
        self.arrive_hits = arrive_hits
        self.depart_misses = depart_misses
        self.max_tags = max_tags
        self.heartbeat_ms = heartbeat_ms
        self.on_emit = on_emit
        self.timestamps = timestamps  # False: a protocol 1.0 firmware, without change times (takes effect at a reboot)
        self.readers = FakeReaderArray(antennas)
        self._lock = threading.RLock()
        self._cable = _Cable(self.rng)
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._out: queue.Queue[tuple[bytes, float] | None] = queue.Queue()
        self._line_free = time.perf_counter()
        self._master: int | None = None
        self._slave: int | None = None
        self._pty_name: str | None = None
        self.boots = 0
        self.device: Device
        self.unread_drops = 0
        self._reboot_locked()
        self._open_pty()
        self._loop = threading.Thread(target=self._run, name="emulated-sensor-board", daemon=True)
        self._writer = threading.Thread(target=self._write_loop, name="emulated-sensor-cable", daemon=True)
        self._loop.start()
        self._writer.start()

    # ---- the pty ----

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._pty_name = os.ttyname(slave)
        if self.link_path is not None:
            tmp = self.link_path.with_name(self.link_path.name + ".new")
            if tmp.is_symlink() or tmp.exists():
                tmp.unlink()
            os.symlink(self._pty_name, tmp)
            os.replace(tmp, self.link_path)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        if self.link_path is not None and self.link_path.is_symlink():
            self.link_path.unlink()

    @property
    def device_path(self) -> str:
        """The path the Pi opens: the stable link if one was asked for, else the pty itself."""
        if self.link_path is not None:
            return str(self.link_path)
        assert self._pty_name is not None
        return self._pty_name

    @property
    def pty_name(self) -> str | None:
        return self._pty_name

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def comports(self) -> list[PortInfo]:
        """What ``serial.tools.list_ports.comports()`` would list for this board."""
        if not self.plugged:
            return []
        return [PortInfo(self._pty_name or "", PICO_MICROPYTHON_VID, PICO_MICROPYTHON_PID,
                         self.board_id.hex().upper(), "Board in FS mode (emulated)")]

    # ---- the firmware ----

    def _now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _reboot_locked(self) -> None:
        self.boots += 1
        scanner = Scanner(self.readers, self.antennas, self.arrive_hits, self.depart_misses, self.max_tags)
        boot_id = self.rng.getrandbits(32)
        byte_time = int(10_000_000 / self.baudrate) if self.baudrate else 0
        self.device = Device(scanner, self.board_id, boot_id, self._emit_frame, now=self._now_ms(),
                             heartbeat_ms=self.heartbeat_ms, byte_time_us=byte_time, timestamps=self.timestamps)
        self.device.on_event = self._on_event

    def _on_event(self, kind: int, antenna: int, uid: bytes, seq: int) -> None:
        if self.on_emit is not None:
            self.on_emit(Emitted(antenna, uid, kind == 1, seq, time.perf_counter()))

    def _emit_frame(self, frame: bytes) -> None:
        """Queue the frame for the wire. At a baud rate, each chunk gets the time its last byte
        leaves a real UART, scheduled now (as the firmware's own estimate is), so a writer thread
        that wakes late catches up instead of shifting everything after it."""
        for chunk in self._cable.frame(frame):
            due = 0.0
            if self.baudrate:
                self._line_free = max(self._line_free, time.perf_counter()) + len(chunk) * 10 / self.baudrate
                due = self._line_free
            self._out.put((chunk, due))

    def _run(self) -> None:
        next_sweep = time.monotonic()
        while not self._stop.is_set():
            master = self._master
            # Come back within a millisecond while frames wait for the line (the firmware's
            # main loop is that fast between two antenna scans); otherwise at the next sweep.
            limit = 0.001 if self.device.busy() else 0.005
            timeout = max(0.0, min(next_sweep - time.monotonic(), limit))
            data = b""
            if master is not None:
                try:
                    ready, _, _ = select.select([master], [], [], timeout)
                    if ready:
                        data = os.read(master, 4096)
                except (OSError, ValueError):
                    data = b""   # unplugged under our feet, or nobody has the slave open
                    self._stop.wait(timeout)
            else:
                self._stop.wait(timeout)
            with self._lock:
                if data and self._cable.cut:
                    data = b""   # the host's bytes are lost on a cut cable too
                if data and self._master is not None:
                    if self._cable.rate_in:
                        data = self._cable.corrupt(data, self._cable.rate_in)
                    self.device.receive(data, self._now_ms())
                now = time.monotonic()
                if now >= next_sweep:
                    self.device.poll(self._now_ms(), steps=self.antennas)
                    next_sweep = max(next_sweep + self.sweep_ms / 1000, now)
                else:
                    self.device.service(self._now_ms())

    def _write_loop(self) -> None:
        while True:
            item = self._out.get()
            if item is None:
                return
            chunk, due = item
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            master = self._master
            if master is None:
                continue   # unplugged: bytes go nowhere
            try:
                os.write(master, chunk)
            except BlockingIOError:
                self.unread_drops += 1   # the Pi is not reading and the pty buffer is full
            except OSError as exc:
                if exc.errno not in (errno.EIO, errno.EBADF):
                    log.warning("emulated sensor board: write failed: %s", exc)

    # ---- the table ----

    def place(self, antenna: int, uid: str | bytes, pattern: str = "1") -> None:
        with self._lock:
            try:
                self.readers.place(antenna, parse_uid(uid), pattern)
            except ValueError as exc:
                raise EmulatorError(str(exc)) from exc

    def remove(self, antenna: int, uid: str | bytes) -> None:
        with self._lock:
            try:
                self.readers.remove(antenna, parse_uid(uid))
            except (KeyError, ValueError) as exc:
                raise EmulatorError(str(exc).strip("'\"")) from exc

    def move(self, src: int, dst: int, uid: str | bytes) -> None:
        with self._lock:
            self.remove(src, uid)
            self.place(dst, uid)

    def clear(self) -> None:
        with self._lock:
            self.readers.clear()

    def firmware_table(self) -> dict[int, list[bytes]]:
        """The debounced table inside the emulated firmware."""
        with self._lock:
            return self.device.scanner.table()

    # ---- faults ----

    def inject(self, fault: str | Fault, **params: object) -> None:
        try:
            f = Fault(fault)
        except ValueError:
            raise EmulatorError(f"unknown fault {fault!r}; known: {', '.join(x.value for x in Fault)}") from None
        with self._lock:
            count = int(params.pop("count", 1))  # type: ignore[arg-type]
            if f is Fault.GARBAGE:
                self._cable.garbage.append(int(params.pop("n", 24)))  # type: ignore[arg-type]
            elif f in (Fault.FLIP, Fault.TRUNCATE, Fault.DUPLICATE, Fault.REORDER, Fault.DROP):
                self._cable.arm(f, count)
            elif f is Fault.CORRUPT:
                rate = float(params.pop("rate", 0.01))  # type: ignore[arg-type]
                direction = str(params.pop("direction", "both"))
                if not 0 <= rate < 1 or direction not in ("both", "out", "in"):
                    raise EmulatorError("corrupt needs 0 <= rate < 1 and direction both|out|in")
                if direction in ("both", "out"):
                    self._cable.rate_out = rate
                if direction in ("both", "in"):
                    self._cable.rate_in = rate
            elif f is Fault.FLICKER:
                antenna = int(params.pop("antenna"))  # type: ignore[arg-type]
                self.place(antenna, params.pop("uid"), str(params.pop("pattern", "10")))  # type: ignore[arg-type]
            elif f is Fault.CUT:
                self._cable.cut = bool(params.pop("on", True))
            elif f is Fault.READER_FAULT:
                antenna = int(params.pop("antenna"))  # type: ignore[arg-type]
                try:
                    self.readers.set_fault(antenna, bool(params.pop("on", True)))
                except ValueError as exc:
                    raise EmulatorError(str(exc)) from exc
            if params:
                raise EmulatorError(f"{f.value}: unexpected parameter(s) {', '.join(params)}")

    def cable_counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._cable.counts)

    # ---- power and cable ----

    def reboot(self) -> None:
        """The microcontroller resets: a new boot id, an empty table, the tags still in place."""
        with self._lock:
            self._cable.held = None
            self._reboot_locked()

    def unplug(self) -> None:
        with self._lock:
            self._close_pty()

    def replug(self, *, new_path: bool = False, reboot: bool = True) -> str:
        """Plug back in: a new pty; at the same stable path unless ``new_path``. -> the new path."""
        with self._lock:
            previous = self._pty_name
            if self.plugged:
                self._close_pty()
            if new_path:
                self.link_path = None
                # The kernel reuses the lowest free pty number; keep it busy to get another one,
                # as a board that comes back as ttyACM1 instead of ttyACM0.
                spare = os.openpty()
                try:
                    self._open_pty()
                    if self._pty_name == previous:
                        stale = (self._master, self._slave)
                        self._open_pty()
                        for fd in stale:
                            os.close(fd)  # type: ignore[arg-type]
                finally:
                    for fd in spare:
                        os.close(fd)
            else:
                self._open_pty()
            if reboot:
                self._reboot_locked()
            else:
                self.device.hello(self._now_ms())
            return self.device_path

    def close(self) -> None:
        """Stop the threads and close the pty. Idempotent."""
        self._stop.set()
        self._out.put(None)
        for t in (self._loop, self._writer):
            if t is not threading.current_thread():
                t.join(2.0)
        with self._lock:
            self._close_pty()

    def __enter__(self) -> "EmulatedSensorBoard":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
