"""The firmware's protocol side, driven frame by frame with a fake clock (no threads, no pty)."""

from __future__ import annotations

from firmware_bridge.firmware.tablefw import wire
from firmware_bridge.firmware.tablefw.device import Device
from firmware_bridge.firmware.tablefw.fakes import FakeReaderArray
from firmware_bridge.firmware.tablefw.scanner import Scanner

A = bytes.fromhex("04A1B2C3D4E580")
B = bytes.fromhex("04A1B2C3D4E581")


class Rig:
    def __init__(self, antennas=4, boot_id=0x12345678, **kw):
        self.readers = FakeReaderArray(antennas)
        self.scanner = Scanner(self.readers, antennas, arrive_hits=2, depart_misses=3)
        self.out = bytearray()
        self.now = 0
        self.splitter = wire.Splitter()
        self.dev = Device(self.scanner, b"\x01\x02", boot_id, self.out.extend, now=0, **kw)

    def frames(self):
        chunks = self.splitter.feed(bytes(self.out))
        self.out.clear()
        parsed = [wire.parse(c) for c in chunks]
        assert all(p[0] == wire.OK for p in parsed)
        return [(p[1], p[3], p[4]) for p in parsed]

    def seq_frames(self):
        return [f for f in self.frames() if wire.is_sequenced(f[0])]

    def sweep(self, n=1, dt=5):
        for _ in range(n):
            self.now += dt
            self.dev.poll(self.now, steps=self.scanner.antennas)

    def host(self, ftype, num=0, tag=None):
        self.dev.receive(wire.encode(ftype, self.dev.tag if tag is None else tag, num), self.now)


def test_boot_says_hello_with_version_boot_id_and_next_seq():
    r = Rig()
    (ftype, _num, payload), = r.frames()
    assert ftype == wire.T_HELLO
    major, minor, boot_id, next_seq, antennas, max_tags, board, fw = wire.parse_hello(payload)
    assert (major, boot_id, next_seq, antennas, board) == (1, 0x12345678, 1, 4, b"\x01\x02")


def test_snapshot_waits_until_the_first_sweeps_are_done():
    r = Rig()
    r.readers.place(2, A)
    r.frames()
    r.host(wire.T_SNAP_REQ)
    assert r.seq_frames() == []
    r.sweep(2)
    types = [f[0] for f in r.seq_frames()]
    # the arrival itself, then the snapshot that includes it
    assert types == [wire.T_TAG, wire.T_SNAP_BEGIN, wire.T_SNAP_ENTRY, wire.T_SNAP_END]


def test_events_are_sequenced_and_kept_until_acknowledged():
    r = Rig()
    r.sweep(2)
    r.frames()
    r.readers.place(0, A)
    r.readers.place(1, B)
    r.sweep(2)
    seqs = [f[1] for f in r.seq_frames()]
    assert seqs == [1, 2]
    assert len(r.dev.history) == 2
    r.host(wire.T_ACK, 1)
    assert [e[0] for e in r.dev.history] == [2]
    r.host(wire.T_ACK, 2)
    assert r.dev.history == []


def test_nak_resends_from_the_requested_frame_at_once():
    r = Rig()
    r.sweep(2)
    r.readers.place(0, A)
    r.readers.place(1, B)
    r.sweep(2)
    r.frames()
    r.host(wire.T_NAK, 2)
    resent = r.seq_frames()
    assert [f[1] for f in resent] == [2]
    assert [e[0] for e in r.dev.history] == [2]   # the NAK acknowledged 1
    r.host(wire.T_NAK, 2)                            # a repeat right away is already served
    assert r.seq_frames() == []


def test_overdue_ack_resends_the_oldest_with_growing_timeout():
    r = Rig(rto_ms=40)
    r.sweep(2)
    r.readers.place(0, A)
    r.sweep(2)
    r.frames()
    times = []
    for t in range(0, 400, 5):
        r.now += 5
        r.dev.service(r.now)
        if r.seq_frames():
            times.append(r.now)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps == sorted(gaps) and gaps[0] >= 40 and gaps[-1] > gaps[0]


def test_a_host_speaking_to_an_old_boot_gets_a_hello():
    r = Rig()
    r.frames()
    r.now += 200
    r.host(wire.T_ACK, 5, tag=r.dev.tag ^ 0xFF)
    types = [f[0] for f in r.frames()]
    assert wire.T_ERROR in types and wire.T_HELLO in types


def test_ack_of_a_frame_never_sent_gets_a_hello():
    r = Rig()
    r.frames()
    r.now += 200
    r.host(wire.T_ACK, 500)
    frames = r.frames()
    err = [wire.parse_error(f[2]) for f in frames if f[0] == wire.T_ERROR]
    assert err and err[0][0] == wire.E_STALE_HOST
    assert any(f[0] == wire.T_HELLO for f in frames)


def test_nak_for_a_frame_no_longer_kept_restarts_with_hello():
    r = Rig(window=4)
    r.sweep(2)
    for i in range(6):
        r.readers.place(i % 4, bytes([4, 0, 0, 0, 0, 0, i]))
    r.sweep(2)
    r.host(wire.T_ACK, 4)
    r.frames()
    r.host(wire.T_NAK, 2)
    frames = r.frames()
    assert wire.parse_error([f for f in frames if f[0] == wire.T_ERROR][0][2])[0] == wire.E_HISTORY_LOST
    assert any(f[0] == wire.T_HELLO for f in frames)


def test_backlog_beyond_the_outbox_becomes_a_snapshot():
    r = Rig(antennas=8, window=2, outbox_limit=4)
    r.sweep(2)
    r.frames()
    for i in range(8):
        r.readers.place(i, bytes([4, 0, 0, 0, 0, 0, i]))
    r.sweep(2)
    frames = r.frames()
    errors = [wire.parse_error(f[2])[0] for f in frames if f[0] == wire.T_ERROR]
    assert wire.E_OUTBOX_OVERFLOW in errors
    # drain: acknowledge everything as it comes
    got = []
    for _ in range(40):
        if r.dev.history:
            r.host(wire.T_ACK, r.dev.history[-1][0])
        got += [f for f in r.frames() if wire.is_sequenced(f[0])]
    assert got[-1][0] == wire.T_SNAP_END
    _sid, entries, tags, digest = wire.parse_snap_end(got[-1][2])
    assert tags == 8 and digest == wire.table_digest(r.scanner.table())


def test_heartbeat_reports_digest_counters_and_flags():
    r = Rig(heartbeat_ms=100)
    r.readers.place(1, A)
    r.sweep(2)
    r.host(wire.T_ACK, 1)
    r.frames()
    r.now += 100
    r.dev.service(r.now)
    hb = [wire.parse_heartbeat(f[2]) for f in r.frames() if f[0] == wire.T_HEARTBEAT][-1]
    next_seq, _up, sweeps, digest, flags = hb[:5]
    assert next_seq == 2 and sweeps == 2
    assert digest == wire.table_digest({1: [A]})
    assert flags & wire.F_SETTLED and flags & wire.F_CONSISTENT


def test_corrupt_host_frames_are_counted_and_ignored():
    r = Rig()
    r.frames()
    good = wire.encode(wire.T_SNAP_REQ, r.dev.tag, 0)
    bad = bytearray(good)
    bad[3] ^= 0x10
    r.dev.receive(bytes(bad) + b"junk\x00", 0)
    assert r.dev.stats_rx_bad == 2
    assert r.dev.snapshot_wanted is False


def test_uart_timing_counts_from_when_the_frame_has_left():
    r = Rig(byte_time_us=87, rto_ms=40)
    r.sweep(2)
    for i in range(4):
        r.readers.place(i, bytes([4, 0, 0, 0, 0, 0, i]))
    r.sweep(2)
    last_sent = r.dev.history[-1][2]
    assert last_sent > r.now   # still on the wire: 4 frames of ~17 bytes at 87 us per byte
