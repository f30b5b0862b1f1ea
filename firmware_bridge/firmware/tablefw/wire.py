# The sensor-board wire format, shared by the firmware (MicroPython) and the Pi (CPython).
#
# One copy of the byte layout for both ends: docs/sensor-protocol.md describes it byte by byte
# and tests/firmware_bridge/test_wire.py pins it with fixtures. Keep this file MicroPython-safe:
# no typing, no dataclasses, no f-strings, only struct from the standard library.
#
# Frame on the wire:  0x00  COBS(body)  0x00
# body:               type:u8  tag:u8  num:u16  payload...  crc:u16      (little-endian)
# crc:                CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over type..payload

import struct

PROTO_MAJOR = 1
PROTO_MINOR = 1   # 1.1: change times (below); a 1.0 host never asks for them and sees 1.0 frames

# Change times (protocol 1.1). A host that wants them sets X_TIMES in the num of its SYNC; a device
# that can (minor >= 1) answers with a HELLO whose num has X_TIMES set, and from then on (until the
# next HELLO) appends a u32 time -- device uptime in ms, the heartbeat's clock -- to TAG payloads
# (when the change was debounced), to SNAP_ENTRY payloads (the antenna's last change) and to
# SNAP_END payloads (when the snapshot was taken). Old hosts never set the bit, so they never see
# the longer payloads; old devices ignore it, so a new host sees a plain HELLO and goes without.
X_TIMES = 0x01

# Device -> host, unsequenced (num carries 0).
T_HELLO = 0x01
T_HEARTBEAT = 0x02
T_ERROR = 0x03
# Device -> host, sequenced (num is the sequence number). The range 0x10..0x1F is sequenced.
T_TAG = 0x10
T_SNAP_BEGIN = 0x11
T_SNAP_ENTRY = 0x12
T_SNAP_END = 0x13
# Host -> device (num is the argument; tag is the device boot tag the host believes in).
T_SYNC = 0x81
T_ACK = 0x82
T_NAK = 0x83
T_SNAP_REQ = 0x84

# Error codes carried by T_ERROR.
E_READER_FAULT = 1
E_READER_OK = 2
E_TOO_MANY_TAGS = 3
E_HISTORY_LOST = 4
E_BAD_FRAME = 5
E_UNKNOWN_COMMAND = 6
E_OUTBOX_OVERFLOW = 7
E_STALE_HOST = 8

# Heartbeat flags.
F_SETTLED = 0x01      # the first full debounce sweeps after boot are done
F_CONSISTENT = 0x02   # every table change so far has a sequence number (digest is comparable)

# Parse results (no exceptions on the hot path; MicroPython-friendly).
OK = 0
ERR_COBS = 1
ERR_SHORT = 2
ERR_CRC = 3

HEADER = 4
MIN_BODY = HEADER + 2
MAX_BODY = 255        # longest body any frame may have (snapshot entries are split to fit)
MAX_ENCODED = MAX_BODY + 3
UID_LENGTHS = (4, 7, 10)   # ISO/IEC 14443-3 single, double and triple size UIDs
NO_ANTENNA = 0xFF


def is_sequenced(ftype):
    return 0x10 <= ftype <= 0x1F


def seq_next(seq):
    return (seq + 1) & 0xFFFF


def seq_diff(a, b):
    """a - b in 16-bit serial-number arithmetic (RFC 1982), in -32768..32767."""
    d = (a - b) & 0xFFFF
    return d - 0x10000 if d >= 0x8000 else d


def _crc_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    t = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ t[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data):
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    n = len(data)
    for i in range(n):
        b = data[i]
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF and i + 1 < n:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Decode one COBS block (without delimiters); None if it is not valid COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            return None
        end = i + code
        if end > n:
            return None
        out.extend(data[i + 1:end])
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(ftype, tag, num, payload=b""):
    body = bytearray(struct.pack("<BBH", ftype, tag & 0xFF, num & 0xFFFF))
    body.extend(payload)
    if len(body) + 2 > MAX_BODY:
        raise ValueError("frame body too long")
    body.extend(struct.pack("<H", crc16(body)))
    return b"\x00" + cobs_encode(body) + b"\x00"


def parse(chunk):
    """One delimiter-free chunk -> (status, type, tag, num, payload)."""
    body = cobs_decode(chunk)
    if body is None:
        return (ERR_COBS, 0, 0, 0, b"")
    if len(body) < MIN_BODY:
        return (ERR_SHORT, 0, 0, 0, b"")
    want = body[-2] | (body[-1] << 8)
    if crc16(memoryview(body)[:-2]) != want:
        return (ERR_CRC, 0, 0, 0, b"")
    ftype, tag, num = struct.unpack("<BBH", body[:HEADER])
    return (OK, ftype, tag, num, bytes(body[HEADER:-2]))


class Splitter:
    """Cuts a byte stream at 0x00 delimiters into chunks, keeping the partial tail.

    Empty chunks (two delimiters in a row) are dropped silently: every frame starts and ends with
    a delimiter exactly so that garbage before a frame cannot glue itself onto it. A chunk that
    grows past MAX_ENCODED without a delimiter is cut off and counted in ``oversized``; the bytes
    up to the next delimiter are discarded.
    """

    def __init__(self):
        self.buf = bytearray()
        self.skipping = False
        self.oversized = 0
        self.dropped_bytes = 0

    def feed(self, data):
        chunks = []
        buf = self.buf
        for b in data:
            if b == 0:
                if self.skipping:
                    self.skipping = False
                elif buf:
                    chunks.append(bytes(buf))
                buf = self.buf = bytearray()
            elif self.skipping:
                self.dropped_bytes += 1
            else:
                buf.append(b)
                if len(buf) > MAX_ENCODED:
                    self.oversized += 1
                    self.dropped_bytes += len(buf)
                    buf = self.buf = bytearray()
                    self.skipping = True
        return chunks


# ---- payloads ------------------------------------------------------------------------------

def hello_payload(boot_id, next_seq, antennas, max_tags, board_id, firmware, minor=PROTO_MINOR):
    return (struct.pack("<BBIHBB", PROTO_MAJOR, minor, boot_id & 0xFFFFFFFF, next_seq & 0xFFFF,
                        antennas, max_tags)
            + bytes([len(board_id)]) + board_id + bytes([len(firmware)]) + firmware)


def parse_hello(p):
    """-> (major, minor, boot_id, next_seq, antennas, max_tags, board_id, firmware)"""
    major, minor, boot_id, next_seq, antennas, max_tags = struct.unpack("<BBIHBB", p[:10])
    i = 10
    n = p[i]
    board_id = bytes(p[i + 1:i + 1 + n])
    i += 1 + n
    m = p[i]
    firmware = bytes(p[i + 1:i + 1 + m])
    if len(board_id) != n or len(firmware) != m or i + 1 + m != len(p):
        raise ValueError("hello payload length")
    return (major, minor, boot_id, next_seq, antennas, max_tags, board_id, firmware)


_HB = "<HIIHBHHHHB"


def heartbeat_payload(next_seq, uptime_ms, sweeps, digest, flags, flicker, reader_errors, rx_bad,
                      resent, last_flicker_antenna):
    return struct.pack(_HB, next_seq & 0xFFFF, uptime_ms & 0xFFFFFFFF, sweeps & 0xFFFFFFFF,
                       digest & 0xFFFF, flags, flicker & 0xFFFF, reader_errors & 0xFFFF,
                       rx_bad & 0xFFFF, resent & 0xFFFF, last_flicker_antenna)


def parse_heartbeat(p):
    """-> (next_seq, uptime_ms, sweeps, digest, flags, flicker, reader_errors, rx_bad, resent,
    last_flicker_antenna)"""
    if len(p) != struct.calcsize(_HB):
        raise ValueError("heartbeat payload length")
    return struct.unpack(_HB, p)


def error_payload(code, antenna, detail, text):
    return struct.pack("<BBH", code, antenna, detail & 0xFFFF) + text


def parse_error(p):
    """-> (code, antenna, detail, text)"""
    if len(p) < 4:
        raise ValueError("error payload length")
    code, antenna, detail = struct.unpack("<BBH", p[:4])
    return (code, antenna, detail, bytes(p[4:]))


def _check_uid(uid):
    if len(uid) not in UID_LENGTHS:
        raise ValueError("uid length")


def _time(t_ms):
    return b"" if t_ms is None else struct.pack("<I", t_ms & 0xFFFFFFFF)


def tag_payload(antenna, present, uid, t_ms=None):
    return bytes([antenna, 1 if present else 0, len(uid)]) + uid + _time(t_ms)


def parse_tag_times(p):
    """-> (antenna, present, uid, t_ms or None): with or without the 1.1 change time."""
    if len(p) < 3 or p[1] > 1 or len(p) not in (3 + p[2], 7 + p[2]):
        raise ValueError("tag payload length")
    n = 3 + p[2]
    uid = bytes(p[3:n])
    _check_uid(uid)
    t_ms = struct.unpack("<I", p[n:n + 4])[0] if len(p) == n + 4 else None
    return (p[0], p[1] == 1, uid, t_ms)


def parse_tag(p):
    """-> (antenna, present, uid)"""
    return parse_tag_times(p)[:3]


def snap_begin_payload(snap_id, antennas, entries):
    return struct.pack("<BBH", snap_id & 0xFF, antennas, entries)


def parse_snap_begin(p):
    """-> (snap_id, antennas, entries)"""
    if len(p) != 4:
        raise ValueError("snapshot begin payload length")
    return struct.unpack("<BBH", p)


def snap_entry_payload(snap_id, antenna, uids, t_ms=None):
    out = bytearray([snap_id & 0xFF, antenna, len(uids)])
    for uid in uids:
        out.append(len(uid))
        out.extend(uid)
    return bytes(out) + _time(t_ms)


def parse_snap_entry_times(p):
    """-> (snap_id, antenna, [uid, ...], t_ms or None): with or without the 1.1 change time."""
    if len(p) < 3:
        raise ValueError("snapshot entry payload length")
    snap_id, antenna, count = p[0], p[1], p[2]
    uids = []
    i = 3
    for _ in range(count):
        if i >= len(p):
            raise ValueError("snapshot entry truncated")
        n = p[i]
        uid = bytes(p[i + 1:i + 1 + n])
        _check_uid(uid)
        uids.append(uid)
        i += 1 + n
    if i == len(p):
        return (snap_id, antenna, uids, None)
    if i + 4 != len(p):
        raise ValueError("snapshot entry length")
    return (snap_id, antenna, uids, struct.unpack("<I", p[i:i + 4])[0])


def parse_snap_entry(p):
    """-> (snap_id, antenna, [uid, ...])"""
    return parse_snap_entry_times(p)[:3]


def snap_end_payload(snap_id, entries, tags, digest, t_ms=None):
    return struct.pack("<BHHH", snap_id & 0xFF, entries, tags, digest & 0xFFFF) + _time(t_ms)


def parse_snap_end_times(p):
    """-> (snap_id, entries, tags, digest, t_ms or None)"""
    if len(p) == 7:
        return struct.unpack("<BHHH", p) + (None,)
    if len(p) != 11:
        raise ValueError("snapshot end payload length")
    return struct.unpack("<BHHHI", p)


def parse_snap_end(p):
    """-> (snap_id, entries, tags, digest)"""
    return parse_snap_end_times(p)[:4]


def table_digest(table):
    """CRC-16 of the canonical form of an antenna -> uids table (empty antennas ignored).

    Both ends compute it: the heartbeat carries the firmware's, so the Pi notices a table that
    drifted without any frame being visibly lost.
    """
    crc = 0xFFFF
    for antenna in sorted(table):
        uids = sorted(table[antenna])
        if not uids:
            continue
        crc = crc16(bytes([antenna, len(uids)]), crc)
        for uid in uids:
            crc = crc16(bytes([len(uid)]), crc)
            crc = crc16(uid, crc)
    return crc
