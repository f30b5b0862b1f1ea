"""Card readers: players tap the cards they play on a UART RFID reader beside the board.

Layers, as for the sensor board: a serial transport (pyserial, one reader thread, reconnect with
a capped backoff), a pure decoder per reader model (bytes in, uid reads out), a pure hold filter
(a card lying on the reader is one tap, not a stream), and the registry that says which card a
uid is. ``CardReader`` is the interface the rest of tableref uses; ``SerialCardReader`` is the
real one and ``FakeCardReader`` its twin for tests and the demo.

Reader models plug in as a ``UidDecoder``:

* ``Rdm6300Decoder`` -- 125 kHz EM4100 reader, 9600 baud, transmit only. Each frame is
  0x02, 10 ASCII hex characters of data (5 bytes: version + 32-bit id), 2 ASCII hex characters
  of checksum (XOR of the 5 data bytes), 0x03; it is repeated while a card is in the field.
* A PN532 (13.56 MHz, HSU at 115200 baud) is command/response: its decoder would return the
  wake-up + SAMConfiguration command from ``start()``, an InListPassiveTarget command from
  ``poll(now)`` every ~100 ms, and parse the ACK/response frames in ``feed()``. The transport,
  the hold filter, the registry and the listeners need no change for it.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Protocol, Union

import serial

from firmware_bridge.link import ReconnectPolicy
from hardware.tag_registry import Card, RegistryError, TagItem, TagRegistry, normalise_uid
from scorer.core import TableRefError

log = logging.getLogger("hardware.card_reader")


class CardReaderError(TableRefError, OSError):
    """The card reader's port cannot be used."""


# ---- decoding ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UidRead:
    """One good frame from a reader: the uid as upper-case hex."""

    uid: str


@dataclass(frozen=True, slots=True)
class BadRead:
    """Bytes that were not a good frame, and why (``checksum``, ``format``)."""

    reason: str
    raw: bytes


Decoded = Union[UidRead, BadRead]


class UidDecoder(Protocol):
    name: str
    baudrate: int

    def start(self) -> bytes: ...                 # bytes to send when the port opens

    def poll(self, now: float) -> bytes: ...      # bytes to send now (active readers poll)

    def feed(self, data: bytes) -> list[Decoded]: ...


STX = 0x02
ETX = 0x03
RDM6300_FRAME = 14
_HEXDIGITS = frozenset(b"0123456789ABCDEFabcdef")


def rdm6300_frame(uid: str) -> bytes:
    """The frame an RDM6300 sends for a 5-byte (10 hex digit) EM4100 uid."""
    text = uid.upper()
    if len(text) != 10 or any(c not in "0123456789ABCDEF" for c in text):
        raise ValueError(f"an EM4100 uid is 10 hex digits, not {uid!r}")
    data = bytes.fromhex(text)
    check = 0
    for b in data:
        check ^= b
    return bytes([STX]) + text.encode("ascii") + f"{check:02X}".encode("ascii") + bytes([ETX])


class Rdm6300Decoder:
    """Pure RDM6300 frame decoder; keeps a partial frame between reads and resyncs on 0x02."""

    name = "rdm6300"
    baudrate = 9600

    def __init__(self) -> None:
        self._buf = bytearray()
        self.garbage_bytes = 0

    def start(self) -> bytes:
        return b""

    def poll(self, now: float) -> bytes:
        return b""

    def feed(self, data: bytes) -> list[Decoded]:
        buf = self._buf
        buf.extend(data)
        out: list[Decoded] = []
        while True:
            start = buf.find(STX)
            if start < 0:
                self.garbage_bytes += len(buf)
                buf.clear()
                break
            if start:
                self.garbage_bytes += start
                del buf[:start]
            if len(buf) < RDM6300_FRAME:
                break
            frame = bytes(buf[:RDM6300_FRAME])
            body = frame[1:13]
            if frame[13] != ETX or any(c not in _HEXDIGITS for c in body):
                # Not a frame after all: this 0x02 was noise. Look for the next one.
                out.append(BadRead("format", frame))
                del buf[:1]
                continue
            data = bytes.fromhex(body[:10].decode("ascii"))
            check = 0
            for b in data:
                check ^= b
            if check != int(body[10:12], 16):
                out.append(BadRead("checksum", frame))
                del buf[:RDM6300_FRAME]
                continue
            out.append(UidRead(body[:10].decode("ascii").upper()))
            del buf[:RDM6300_FRAME]
        return out


class HoldFilter:
    """A card held on the reader is reported once. It counts as lifted after ``release_after``
    seconds without a read; a different card is a new tap at once. Pure; time comes in."""

    def __init__(self, release_after: float = 0.5) -> None:
        self.release_after = release_after
        self._uid: str | None = None
        self._last = 0.0

    def seen(self, uid: str, now: float) -> bool:
        """True if this read is a new tap."""
        if uid == self._uid and now - self._last <= self.release_after:
            self._last = now
            return False
        self._uid, self._last = uid, now
        return True

    def held(self, now: float) -> str | None:
        return self._uid if self._uid is not None and now - self._last <= self.release_after else None


# ---- taps -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardTap:
    """A card put on a reader. ``item`` is None for a uid no registry knows (never guessed)."""

    reader: str
    uid: str
    at: float
    item: TagItem | None

    @property
    def card(self) -> Card | None:
        return self.item if isinstance(self.item, Card) else None


@dataclass(frozen=True, slots=True)
class CardReaderHealth:
    reader: str
    connected: bool
    port: str | None
    taps: int
    unknown: int
    frames_good: int
    frames_bad: int
    garbage_bytes: int
    reconnects: int
    last_error: str | None

    def to_json(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


TapListener = Callable[[CardTap], None]


class CardReader:
    """The interface: subscribe to taps, start, close, health. Subclasses feed ``_read``."""

    def __init__(self, name: str, registry: TagRegistry, *, clock: Callable[[], float] = time.monotonic,
                 release_after: float = 0.5) -> None:
        self.name = name
        self.registry = registry
        self.clock = clock
        self._filter = HoldFilter(release_after)
        self._listeners: list[TapListener] = []
        self._lock = threading.Lock()
        self.taps = 0
        self.unknown = 0
        self.frames_good = 0
        self.frames_bad = 0

    def subscribe(self, listener: TapListener) -> None:
        self._listeners.append(listener)

    def start(self) -> "CardReader":
        return self

    def close(self) -> None:
        pass

    def __enter__(self) -> "CardReader":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self, uid: str) -> CardTap | None:
        """A good read arrived: a tap if it is a new card on the reader."""
        now = self.clock()
        with self._lock:
            self.frames_good += 1
            if not self._filter.seen(uid, now):
                return None
            self.taps += 1
        try:
            item = self.registry.lookup(uid)
        except RegistryError:
            item = None
        if item is None:
            result = self.registry.offer(uid)   # enrolment, when armed, names it now
            item = result.item if result.enrolled else None
            if item is None:
                self.unknown += 1
                log.warning("card reader %s: unknown card %s (enrol it to name it)", self.name, uid)
            else:
                log.info("card reader %s: %s", self.name, result.message.en)
        elif not isinstance(item, Card):
            log.warning("card reader %s: tag %s is %r, not a card", self.name, uid, item)
        tap = CardTap(self.name, uid, now, item)
        for listener in list(self._listeners):
            try:
                listener(tap)
            except Exception:
                log.exception("card reader %s: tap listener failed", self.name)
        return tap


class FakeCardReader(CardReader):
    """The twin for tests and the demo: ``tap(uid)`` is a card read by the real pipeline."""

    def __init__(self, registry: TagRegistry, name: str = "fake", **kw: object) -> None:
        super().__init__(name, registry, **kw)  # type: ignore[arg-type]

    def tap(self, uid: str) -> CardTap | None:
        return self._read(normalise_uid(uid))

    def health(self) -> CardReaderHealth:
        return CardReaderHealth(self.name, True, None, self.taps, self.unknown, self.frames_good,
                                self.frames_bad, 0, 0, None)


class SerialCardReader(CardReader):
    """A reader on a serial port (Pi UART or USB adapter), read by one thread that reconnects."""

    def __init__(
        self,
        port: str,
        registry: TagRegistry,
        *,
        decoder: Callable[[], UidDecoder] = Rdm6300Decoder,
        name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        release_after: float = 0.5,
        read_timeout: float = 0.05,
        policy: ReconnectPolicy = ReconnectPolicy(),
    ) -> None:
        self._decoder_factory = decoder
        probe = decoder()
        super().__init__(name or f"{probe.name}@{port}", registry, clock=clock, release_after=release_after)
        self.port = port
        self.baudrate = probe.baudrate
        self.read_timeout = read_timeout
        self.policy = policy
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._connected = False
        self._connections = 0
        self._garbage = 0
        self._last_error: str | None = None

    def start(self) -> "SerialCardReader":
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"card-reader-{self.name}", daemon=True)
            self._thread.start()
        return self

    def close(self, timeout: float = 2.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def health(self) -> CardReaderHealth:
        return CardReaderHealth(self.name, self._connected, self.port, self.taps, self.unknown,
                                self.frames_good, self.frames_bad, self._garbage,
                                max(self._connections - 1, 0), self._last_error)

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                port = serial.Serial(self.port, self.baudrate, timeout=self.read_timeout)
            except (serial.SerialException, OSError, ValueError) as exc:
                if self._last_error != str(exc):
                    log.warning("card reader %s: cannot open %s: %s; retrying", self.name, self.port, exc)
                self._last_error = str(exc)
                self._stop.wait(self.policy.delay(attempt))
                attempt += 1
                continue
            self._connections += 1
            self._connected = True
            if self._connections > 1:
                log.warning("card reader %s: reconnected on %s", self.name, self.port)
            try:
                self._serve(port)
                attempt = 0
            except (serial.SerialException, OSError, TypeError) as exc:
                self._last_error = str(exc)
                log.warning("card reader %s: lost %s: %s; reconnecting", self.name, self.port, exc)
            finally:
                self._connected = False
                try:
                    port.close()
                except (serial.SerialException, OSError):
                    pass
            self._stop.wait(self.policy.delay(attempt))
            attempt += 1

    def _serve(self, port: serial.Serial) -> None:
        decoder = self._decoder_factory()
        port.reset_input_buffer()
        hello = decoder.start()
        if hello:
            port.write(hello)
        while not self._stop.is_set():
            request = decoder.poll(self.clock())
            if request:
                port.write(request)
            data = port.read(max(1, port.in_waiting))
            if not data:
                continue
            before = getattr(decoder, "garbage_bytes", 0)
            for item in decoder.feed(data):
                if isinstance(item, UidRead):
                    self._read(item.uid)
                else:
                    self.frames_bad += 1
                    log.warning("card reader %s: bad frame (%s) rejected: %s", self.name, item.reason, item.raw.hex(" "))
            self._garbage += getattr(decoder, "garbage_bytes", 0) - before
