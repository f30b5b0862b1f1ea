"""Layer 1 of the Pi side: bytes over a serial port (pyserial), and finding that port.

Nothing here knows about frames. ``SerialTransport`` is opened, read and written by exactly one
thread (the link's reader thread); every failure surfaces as ``TransportLost`` so the reconnect
policy has one thing to handle.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

import serial
import serial.tools.list_ports

from scorer.core import TableRefError

# MicroPython on a Raspberry Pi Pico enumerates as 2E8A:0005 (Raspberry Pi, "Board in FS mode").
PICO_MICROPYTHON_VID = 0x2E8A
PICO_MICROPYTHON_PID = 0x0005


class TransportLost(TableRefError, OSError):
    """The port went away (cable pulled, device reset) or could not be opened."""


class PortNotFound(TransportLost):
    """No port matches the configuration right now (the board may simply be unplugged)."""


class Transport(Protocol):
    """What the link needs from a byte pipe. SerialTransport is the real one; tests use ptys."""

    name: str

    def read(self) -> bytes: ...            # waits at most the read timeout; b"" if nothing came

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PortInfo:
    """The part of ``serial.tools.list_ports`` ListPortInfo we use (fakes provide the same)."""

    device: str
    vid: int | None = None
    pid: int | None = None
    serial_number: str | None = None
    description: str = ""


def find_port(
    vid: int = PICO_MICROPYTHON_VID,
    pid: int = PICO_MICROPYTHON_PID,
    serial_number: str | None = None,
    comports: Callable[[], Iterable[object]] = serial.tools.list_ports.comports,
) -> str | None:
    """The device path of the first port with this USB id (and serial number, if given)."""
    matches = []
    for port in comports():
        if getattr(port, "vid", None) != vid or getattr(port, "pid", None) != pid:
            continue
        if serial_number is not None and (getattr(port, "serial_number", None) or "").upper() != serial_number.upper():
            continue
        matches.append(str(getattr(port, "device")))
    return sorted(matches)[0] if matches else None


@dataclass(frozen=True, slots=True)
class PortSpec:
    """How to find the sensor board: a fixed path, or a USB id (plus serial number) to look up."""

    path: str | None = None
    vid: int = PICO_MICROPYTHON_VID
    pid: int = PICO_MICROPYTHON_PID
    serial_number: str | None = None
    baudrate: int = 115200

    def describe(self) -> str:
        if self.path:
            return self.path
        sn = f" serial {self.serial_number}" if self.serial_number else ""
        return f"USB {self.vid:04X}:{self.pid:04X}{sn}"


class PortResolver:
    """Turns a PortSpec into a device path at each connection attempt (paths change on replug)."""

    def __init__(self, spec: PortSpec, comports: Callable[[], Iterable[object]] | None = None) -> None:
        self.spec = spec
        self.comports = comports or serial.tools.list_ports.comports

    def resolve(self) -> str:
        spec = self.spec
        if spec.path:
            if not os.path.exists(spec.path):
                raise PortNotFound(f"{spec.path} does not exist")
            return spec.path
        path = find_port(spec.vid, spec.pid, spec.serial_number, self.comports)
        if path is None:
            raise PortNotFound(f"no serial port with {spec.describe()}")
        return path


class SerialTransport:
    """A pyserial port in raw mode. Reads wait up to ``read_timeout`` so the reader thread can
    run its timers; the first byte wakes it at once, the rest of what is waiting comes with it."""

    def __init__(self, path: str, baudrate: int = 115200, read_timeout: float = 0.01) -> None:
        self.name = path
        self._lock = threading.Lock()
        try:
            self._port = serial.Serial(path, baudrate=baudrate, timeout=read_timeout, write_timeout=1.0,
                                       exclusive=True)
            self._port.reset_input_buffer()   # bytes from before we came are from another session
        except (serial.SerialException, OSError, ValueError) as exc:
            raise TransportLost(f"cannot open {path}: {exc}") from exc

    def read(self) -> bytes:
        try:
            first = self._port.read(1)
            if not first:
                return b""
            waiting = self._port.in_waiting
            return first + (self._port.read(waiting) if waiting else b"")
        except (serial.SerialException, OSError, TypeError) as exc:
            raise TransportLost(f"{self.name}: {exc}") from exc

    def write(self, data: bytes) -> None:
        with self._lock:
            try:
                self._port.write(data)
            except (serial.SerialException, OSError, TypeError) as exc:
                raise TransportLost(f"{self.name}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            try:
                self._port.close()
            except (serial.SerialException, OSError):
                pass
