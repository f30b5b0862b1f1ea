"""Layer 2 of the Pi side: bytes in, typed frames out. Pure: no I/O, no clock, no threads.

The byte layout is the firmware's own ``tablefw.wire`` (one copy for both ends); this module turns
it into typed values and classifies everything that is not a good frame, so that the session can
count and log each kind of damage. A frame is only ever delivered whole and with a good CRC: the
Pi never acts on a partial or corrupt frame.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Union

from firmware_bridge.firmware.tablefw import wire


class FrameType(IntEnum):
    HELLO = wire.T_HELLO
    HEARTBEAT = wire.T_HEARTBEAT
    ERROR = wire.T_ERROR
    TAG = wire.T_TAG
    SNAP_BEGIN = wire.T_SNAP_BEGIN
    SNAP_ENTRY = wire.T_SNAP_ENTRY
    SNAP_END = wire.T_SNAP_END
    SYNC = wire.T_SYNC
    ACK = wire.T_ACK
    NAK = wire.T_NAK
    SNAP_REQ = wire.T_SNAP_REQ

    @property
    def sequenced(self) -> bool:
        return wire.is_sequenced(self.value)


class ErrorCode(IntEnum):
    READER_FAULT = wire.E_READER_FAULT
    READER_OK = wire.E_READER_OK
    TOO_MANY_TAGS = wire.E_TOO_MANY_TAGS
    HISTORY_LOST = wire.E_HISTORY_LOST
    BAD_FRAME = wire.E_BAD_FRAME
    UNKNOWN_COMMAND = wire.E_UNKNOWN_COMMAND
    OUTBOX_OVERFLOW = wire.E_OUTBOX_OVERFLOW
    STALE_HOST = wire.E_STALE_HOST


class Damage(Enum):
    """Why a chunk of bytes between two delimiters was not a frame."""

    GARBAGE = "garbage"        # not COBS, or too short to be a frame: noise between frames
    CRC = "crc"                # well-formed but the CRC does not match: flipped bits, truncation
    OVERSIZED = "oversized"    # no delimiter for longer than any frame can be
    MALFORMED = "malformed"    # good CRC, but a type or payload this protocol does not know


@dataclass(frozen=True, slots=True)
class Frame:
    type: FrameType
    tag: int
    num: int
    payload: bytes

    @property
    def seq(self) -> int:
        return self.num


@dataclass(frozen=True, slots=True)
class BadFrame:
    damage: Damage
    size: int
    detail: str = ""


Item = Union[Frame, BadFrame]


class Framer:
    """Keeps the partial tail between reads and resynchronises on the next delimiter."""

    def __init__(self) -> None:
        self._splitter = wire.Splitter()

    def feed(self, data: bytes) -> list[Item]:
        before = self._splitter.oversized
        out: list[Item] = []
        for chunk in self._splitter.feed(data):
            status, ftype, tag, num, payload = wire.parse(chunk)
            if status == wire.OK:
                try:
                    out.append(Frame(FrameType(ftype), tag, num, payload))
                except ValueError:
                    out.append(BadFrame(Damage.MALFORMED, len(chunk), f"unknown frame type 0x{ftype:02x}"))
            elif status == wire.ERR_CRC:
                out.append(BadFrame(Damage.CRC, len(chunk)))
            else:
                out.append(BadFrame(Damage.GARBAGE, len(chunk)))
        for _ in range(self._splitter.oversized - before):
            out.append(BadFrame(Damage.OVERSIZED, wire.MAX_ENCODED))
        return out

    @property
    def pending(self) -> int:
        """Bytes held back waiting for a delimiter."""
        return len(self._splitter.buf)


def encode_command(ftype: FrameType, tag: int, num: int = 0) -> bytes:
    """A host -> device frame (SYNC, ACK, NAK, SNAP_REQ)."""
    if ftype not in (FrameType.SYNC, FrameType.ACK, FrameType.NAK, FrameType.SNAP_REQ):
        raise ValueError(f"{ftype.name} is not a host command")
    return wire.encode(int(ftype), tag, num)


# ---- typed payloads ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    major: int
    minor: int
    boot_id: int
    next_seq: int
    antennas: int
    max_tags: int
    board_id: str
    firmware: str


@dataclass(frozen=True, slots=True)
class Heartbeat:
    next_seq: int
    uptime_ms: int
    sweeps: int
    digest: int
    settled: bool
    consistent: bool
    flicker: int
    reader_errors: int
    rx_bad: int
    resent: int
    last_flicker_antenna: int | None


@dataclass(frozen=True, slots=True)
class DeviceError:
    code: ErrorCode | int
    antenna: int | None
    detail: int
    text: str

    @property
    def name(self) -> str:
        return self.code.name if isinstance(self.code, ErrorCode) else f"code {self.code}"


@dataclass(frozen=True, slots=True)
class TagEvent:
    antenna: int
    present: bool
    uid: bytes
    t_ms: int | None = None   # protocol 1.1: device uptime (ms) when the change was debounced


@dataclass(frozen=True, slots=True)
class SnapBegin:
    snap_id: int
    antennas: int
    entries: int


@dataclass(frozen=True, slots=True)
class SnapEntry:
    snap_id: int
    antenna: int
    uids: tuple[bytes, ...]
    t_ms: int | None = None   # protocol 1.1: device uptime (ms) of the antenna's last change


@dataclass(frozen=True, slots=True)
class SnapEnd:
    snap_id: int
    entries: int
    tags: int
    digest: int
    t_ms: int | None = None   # protocol 1.1: device uptime (ms) when the snapshot was taken


Message = Union[Hello, Heartbeat, DeviceError, TagEvent, SnapBegin, SnapEntry, SnapEnd]


def _antenna(a: int) -> int | None:
    return None if a == wire.NO_ANTENNA else a


def _hello(p: bytes) -> Hello:
    major, minor, boot_id, next_seq, antennas, max_tags, board_id, fw = wire.parse_hello(p)
    return Hello(major, minor, boot_id, next_seq, antennas, max_tags, board_id.hex().upper(),
                 fw.decode("ascii", "replace"))


def _heartbeat(p: bytes) -> Heartbeat:
    seq, up, sweeps, digest, flags, flicker, rerr, rxbad, resent, lfa = wire.parse_heartbeat(p)
    return Heartbeat(seq, up, sweeps, digest, bool(flags & wire.F_SETTLED), bool(flags & wire.F_CONSISTENT),
                     flicker, rerr, rxbad, resent, _antenna(lfa))


def _error(p: bytes) -> DeviceError:
    code, antenna, detail, text = wire.parse_error(p)
    try:
        typed: ErrorCode | int = ErrorCode(code)
    except ValueError:
        typed = code
    return DeviceError(typed, _antenna(antenna), detail, text.decode("ascii", "replace"))


def _tag(p: bytes) -> TagEvent:
    antenna, present, uid, t_ms = wire.parse_tag_times(p)
    return TagEvent(antenna, present, uid, t_ms)


def _snap_entry(p: bytes) -> SnapEntry:
    snap_id, antenna, uids, t_ms = wire.parse_snap_entry_times(p)
    return SnapEntry(snap_id, antenna, tuple(uids), t_ms)


_DECODERS = {
    FrameType.HELLO: _hello,
    FrameType.HEARTBEAT: _heartbeat,
    FrameType.ERROR: _error,
    FrameType.TAG: _tag,
    FrameType.SNAP_BEGIN: lambda p: SnapBegin(*wire.parse_snap_begin(p)),
    FrameType.SNAP_ENTRY: _snap_entry,
    FrameType.SNAP_END: lambda p: SnapEnd(*wire.parse_snap_end_times(p)),
}


class MalformedPayload(ValueError):
    pass


def decode(frame: Frame) -> Message:
    """The typed content of a device frame; MalformedPayload if it does not parse."""
    decoder = _DECODERS.get(frame.type)
    if decoder is None:
        raise MalformedPayload(f"{frame.type.name} is not a device frame")
    try:
        return decoder(frame.payload)
    except (ValueError, IndexError, struct.error) as exc:
        raise MalformedPayload(f"{frame.type.name}: {exc}") from exc
