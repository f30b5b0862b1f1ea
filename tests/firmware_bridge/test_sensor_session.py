"""The Pi's framer + session against the real firmware Device, in memory with a fake clock.

Deterministic twins of the pty fault tests: the same faults, every interleaving reproducible.
"""

from __future__ import annotations

import logging
import random

import pytest

from firmware_bridge.firmware.tablefw import wire
from firmware_bridge.firmware.tablefw.device import Device
from firmware_bridge.firmware.tablefw.fakes import FakeReaderArray
from firmware_bridge.firmware.tablefw.scanner import Scanner
from firmware_bridge.framing import BadFrame, Damage, Frame, Framer, FrameType, decode, encode_command
from firmware_bridge.session import Session, SessionState

A = bytes.fromhex("04A1B2C3D4E580")
B = bytes.fromhex("04A1B2C3D4E581")
C = bytes.fromhex("1A2B3C4D")


class Pair:
    """A Device and a Session joined by an in-memory cable that can damage device frames."""

    def __init__(self, antennas=6, boot_id=0xA1, seed=0):
        self.readers = FakeReaderArray(antennas)
        self.antennas = antennas
        self.now_ms = 0
        self.to_host: list[bytes] = []
        self.to_dev: list[bytes] = []
        self.rng = random.Random(seed)
        self.mangle = None            # callable(frame) -> list[bytes]
        self.boot(boot_id)
        self.framer = Framer()
        self.session = Session(self.to_dev.append)
        self.changes = 0

    def boot(self, boot_id):
        scanner = Scanner(self.readers, self.antennas, arrive_hits=2, depart_misses=3)
        self.dev = Device(scanner, b"\xbb", boot_id, self._dev_write, now=self.now_ms)

    def _dev_write(self, frame):
        self.to_host.extend(self.mangle(frame) if self.mangle else [frame])

    @property
    def now(self):
        return self.now_ms / 1000

    def step(self, n=1, dt=5):
        for _ in range(n):
            self.now_ms += dt
            self.dev.poll(self.now_ms, steps=self.antennas)
            self.flush()
            self.session.tick(self.now)
            self.flush()

    def flush(self):
        for _ in range(50):
            if not self.to_host and not self.to_dev:
                return
            data = b"".join(self.to_host)
            self.to_host.clear()
            if data and self.session.feed(self.framer.feed(data), self.now):
                self.changes += 1
            cmds = b"".join(self.to_dev)
            self.to_dev.clear()
            if cmds:
                self.dev.receive(cmds, self.now_ms)

    def table(self):
        t = self.session.table
        return None if t is None else {a: set(u) for a, u in t.items()}

    def truth(self):
        return {a: set(u) for a, u in self.dev.scanner.table().items()}


def live_pair(**kw):
    p = Pair(**kw)
    p.session.connected(p.now)
    p.flush()
    p.step(4)
    assert p.session.state is SessionState.LIVE
    return p


def test_framer_classifies_damage():
    good = wire.encode(wire.T_TAG, 1, 1, wire.tag_payload(0, True, A))
    bad_crc = bytearray(good)
    bad_crc[-5] ^= 0x01   # a uid byte, not a COBS code byte
    unknown_type = wire.encode(0x7F, 1, 0)
    items = Framer().feed(b"\x00\x05garbage-ish" + bytes(bad_crc) + good + unknown_type)
    kinds = [i.damage if isinstance(i, BadFrame) else i.type for i in items]
    assert kinds == [Damage.GARBAGE, Damage.CRC, FrameType.TAG, Damage.MALFORMED]
    assert decode(items[2]).uid == A


def test_host_commands_have_fixed_bytes():
    assert encode_command(FrameType.ACK, 0x5A, 7).hex(" ") == "00 04 82 5a 07 03 08 b4 00"
    with pytest.raises(ValueError):
        encode_command(FrameType.TAG, 0, 0)


def test_connect_hello_snapshot_and_events():
    p = live_pair()
    assert p.table() == {}
    p.readers.place(2, A)
    p.readers.place(2, B)
    p.step(3)
    assert p.table() == {2: {A, B}} == p.truth()
    p.readers.remove(2, A)
    p.readers.place(5, A)
    p.step(3)
    assert p.table() == {2: {B}, 5: {A}} == p.truth()
    assert p.session.counters.frames_bad == 0


def test_first_snapshot_brings_what_was_there_before():
    p = Pair()
    p.readers.place(1, C)
    p.step(5)
    p.session.connected(p.now)
    p.step(3)
    assert p.table() == {1: {C}}


def run_with(p, mangle, moves=12):
    p.mangle = mangle
    rng = random.Random(7)
    tags = [bytes([4, 9, 9, 9, 9, 9, i]) for i in range(moves)]
    where = {}
    for t in tags:
        a = rng.randrange(p.antennas)
        p.readers.place(a, t)
        where[t] = a
        p.step(1)
    for t in tags[::2]:
        p.readers.remove(where[t], t)
        p.step(1)
    p.mangle = None
    p.step(400)   # heartbeats and resend timers settle everything
    return p


def test_flipped_truncated_duplicated_and_reordered_frames_change_nothing(caplog):
    caplog.set_level(logging.WARNING)
    p = live_pair()
    state = {"n": 0, "held": None}

    def mangle(frame):
        n = state["n"] = state["n"] + 1
        if not wire.is_sequenced(wire.cobs_decode(frame[1:-1])[0]):
            return [frame]
        if n % 5 == 0:
            b = bytearray(frame)
            b[4] ^= 0x20
            return [bytes(b)]
        if n % 7 == 0:
            return [frame[: len(frame) // 2]]
        if n % 4 == 0:
            return [frame, frame]
        if n % 6 == 0 and state["held"] is None:
            state["held"] = frame
            return []
        if state["held"] is not None:
            held, state["held"] = state["held"], None
            return [frame, held]
        return [frame]

    run_with(p, mangle)
    c = p.session.counters
    assert p.table() == p.truth()
    assert c.crc_errors + c.garbage_chunks > 0 and c.duplicates > 0 and c.out_of_order > 0
    assert c.naks_sent > 0
    assert "duplicate frame" in caplog.text and "arrived before" in caplog.text


def test_random_byte_corruption_both_ways_converges():
    p = live_pair(seed=3)
    rng = random.Random(11)

    def corrupt(data):
        b = bytearray(data)
        for i in range(len(b)):
            if rng.random() < 0.02:
                b[i] ^= 1 << rng.randrange(8)
        return bytes(b)

    original = p.dev.receive
    p.dev.receive = lambda data, now: original(corrupt(data), now)
    run_with(p, lambda f: [corrupt(f)])
    assert p.table() == p.truth()
    assert p.session.counters.frames_bad > 0
    assert p.dev.stats_rx_bad > 0


def test_lost_tail_frame_is_recovered_from_the_heartbeat():
    p = live_pair()
    drop = {"left": 1}

    def mangle(frame):
        if drop["left"] and wire.is_sequenced(wire.cobs_decode(frame[1:-1])[0]):
            drop["left"] -= 1
            return []
        return [frame]

    p.mangle = mangle
    p.readers.place(0, A)
    p.step(3)
    p.mangle = None
    assert p.table() == {}
    p.step(60)
    assert p.table() == {0: {A}}


def test_device_reboot_resyncs_and_emits_only_real_differences(caplog):
    caplog.set_level(logging.INFO)
    p = live_pair()
    p.readers.place(1, A)
    p.readers.place(3, B)
    p.step(4)
    changes = p.changes
    p.boot(0xB2)            # reboot: same tags in place
    p.step(80)
    assert p.session.counters.device_reboots == 1
    assert p.table() == {1: {A}, 3: {B}}
    assert p.changes == changes       # nothing new to report
    assert "device rebooted" in caplog.text and "no change" in caplog.text
    p.readers.remove(3, B)   # changed while rebooting
    p.boot(0xC3)
    p.step(80)
    assert p.table() == {1: {A}}
    assert p.changes == changes + 1
    assert p.session.counters.resyncs_changed == 1


def test_reboot_with_lost_hello_is_still_noticed():
    p = live_pair()
    p.readers.place(1, A)
    p.step(4)
    p.mangle = lambda f: [] if wire.cobs_decode(f[1:-1])[0] == wire.T_HELLO else [f]
    p.boot(0xB2)
    p.step(4)
    p.mangle = None
    p.readers.place(2, B)
    p.step(200)
    assert p.session.hello.boot_id == 0xB2
    assert p.table() == {1: {A}, 2: {B}}


def test_digest_mismatch_triggers_a_snapshot(caplog):
    p = live_pair()
    p.readers.place(1, A)
    p.step(4)
    p.session.table[4] = frozenset([C])     # a drift nobody saw
    p.step(120)
    assert p.session.counters.digest_mismatches == 1
    assert p.table() == {1: {A}}


@pytest.mark.allow_error_logs
def test_incompatible_protocol_version_is_refused(caplog):
    sent = []
    s = Session(sent.append)
    s.connected(0.0)
    hello = bytearray(wire.hello_payload(1, 1, 4, 8, b"\x01", b"fw", 0))
    hello[0] = 2
    s.feed(Framer().feed(wire.encode(wire.T_HELLO, 1, 0, bytes(hello))), 0.1)
    assert s.state is SessionState.INCOMPATIBLE
    assert "protocol 2.0" in caplog.text
    s.feed(Framer().feed(wire.encode(wire.T_TAG, 1, 1, wire.tag_payload(0, True, A))), 0.2)
    assert s.table is None


def test_frames_before_hello_are_not_acted_on():
    sent = []
    s = Session(sent.append)
    s.connected(0.0)
    s.feed([Frame(FrameType.TAG, 1, 1, wire.tag_payload(0, True, A))], 0.1)
    assert s.table is None and s.counters.stale_frames == 1


def test_silence_makes_the_session_ask_again():
    sent = []
    s = Session(sent.append, silence_after=1.0, sync_every=0.5)
    s.connected(0.0)
    for t in range(1, 30):
        s.tick(t / 10)
    syncs = [d for d in sent if wire.parse(d[1:-1])[1] == wire.T_SYNC]
    assert len(syncs) >= 5
    assert s.silent_for(3.0) == pytest.approx(3.0)
