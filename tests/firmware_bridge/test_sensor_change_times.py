"""Protocol 1.1: the sensor board keeps when each antenna last changed and sends it to a host that
asks, so moves made while the link was down (or the Pi's referee was not running) can be ordered
afterwards. Backward compatible both ways: a 1.0 host never asks and sees 1.0 frames; a 1.0
firmware ignores the request and the host then knows only when it learned of each change."""

from __future__ import annotations

import time

import pytest

from firmware_bridge.firmware.tablefw import wire
from firmware_bridge.firmware.tablefw.device import Device
from firmware_bridge.firmware.tablefw.fakes import FakeReaderArray
from firmware_bridge.firmware.tablefw.scanner import Scanner
from firmware_bridge.framing import Framer
from firmware_bridge.session import Session, SessionState
from sensor_rig import SPACES, uid, wait_for

A = bytes.fromhex("04A1B2C3D4E580")
B = bytes.fromhex("04A1B2C3D4E581")


def test_payloads_with_and_without_change_times() -> None:
    assert wire.parse_tag_times(wire.tag_payload(3, True, A, 123456)) == (3, True, A, 123456)
    assert wire.parse_tag_times(wire.tag_payload(3, True, A)) == (3, True, A, None)
    assert wire.parse_tag(wire.tag_payload(3, True, A, 7)) == (3, True, A)
    assert len(wire.tag_payload(3, True, A)) == 3 + len(A)  # 1.0 layout unchanged
    assert wire.parse_snap_entry_times(wire.snap_entry_payload(1, 9, [A, B], 0xFFFFFFFF)) == (1, 9, [A, B], 0xFFFFFFFF)
    assert wire.parse_snap_entry_times(wire.snap_entry_payload(1, 9, [A])) == (1, 9, [A], None)
    assert wire.parse_snap_end_times(wire.snap_end_payload(1, 2, 3, 0xBEEF, 99)) == (1, 2, 3, 0xBEEF, 99)
    assert wire.parse_snap_end(wire.snap_end_payload(1, 2, 3, 0xBEEF)) == (1, 2, 3, 0xBEEF)
    for bad in (wire.tag_payload(3, True, A) + b"\x01", wire.snap_entry_payload(1, 9, [A]) + b"\x01\x02"):
        with pytest.raises(ValueError):
            (wire.parse_tag_times if len(bad) < 14 else wire.parse_snap_entry_times)(bad)


class Wire:
    """A device and what it wrote, driven by hand (ms clock)."""

    def __init__(self, timestamps: bool = True) -> None:
        self.out = bytearray()
        self.readers = FakeReaderArray(4)
        self.scanner = Scanner(self.readers, 4, 2, 3, 8)
        self.now = 1000
        self.dev = Device(self.scanner, b"\x01\x02", 0xCAFE0042, self.out.extend, now=self.now, timestamps=timestamps)

    def sweep(self, n: int = 3, ms: int = 10) -> None:
        for _ in range(n):
            self.now += ms
            self.dev.poll(self.now, steps=4)

    def host(self, ftype: int, num: int = 0) -> None:
        self.dev.receive(wire.encode(ftype, self.dev.tag, num), self.now)

    def frames(self) -> list[tuple[int, int, bytes]]:
        got = [wire.parse(c) for c in wire.Splitter().feed(bytes(self.out))]
        self.out.clear()
        return [(ftype, num, payload) for status, ftype, _tag, num, payload in got if status == wire.OK]


def test_a_host_that_does_not_ask_sees_the_10_frames() -> None:
    w = Wire()
    w.host(wire.T_SYNC)  # a 1.0 host: num 0
    w.readers.place(1, A)
    w.sweep()
    w.host(wire.T_SNAP_REQ)
    w.sweep()
    frames = w.frames()
    hello = [f for f in frames if f[0] == wire.T_HELLO][-1]
    assert hello[1] == 0 and wire.parse_hello(hello[2])[1] == 1  # announces 1.1, sends 1.0
    tags = [p for t, _n, p in frames if t == wire.T_TAG]
    assert tags and all(len(p) == 3 + p[2] for p in tags)
    assert all(len(p) == 7 for t, _n, p in frames if t == wire.T_SNAP_END)


def test_a_host_that_asks_gets_change_times_on_the_heartbeat_clock() -> None:
    w = Wire()
    w.host(wire.T_SYNC, wire.X_TIMES)
    w.sweep(1)
    w.readers.place(1, A)
    w.sweep(3)
    placed_at = w.now - w.dev.booted_at
    w.sweep(30)
    w.host(wire.T_SNAP_REQ)
    w.sweep(2)
    frames = w.frames()
    hello = [f for f in frames if f[0] == wire.T_HELLO][-1]
    assert hello[1] & wire.X_TIMES
    (tag,) = {wire.parse_tag_times(p) for t, _n, p in frames if t == wire.T_TAG}  # resent copies are identical
    assert tag[:3] == (1, True, A) and placed_at - 40 <= tag[3] <= placed_at
    (entry,) = {(a, b, tuple(c), d) for a, b, c, d in (wire.parse_snap_entry_times(p) for t, _n, p in frames if t == wire.T_SNAP_ENTRY)}
    assert entry[3] == tag[3]  # the snapshot keeps the time of the change, not of the snapshot
    (end,) = {wire.parse_snap_end_times(p) for t, _n, p in frames if t == wire.T_SNAP_END}
    assert end[4] >= tag[3] + 250


def test_a_10_firmware_ignores_the_request_and_the_host_copes() -> None:
    w = Wire(timestamps=False)
    w.host(wire.T_SYNC, wire.X_TIMES)
    w.readers.place(1, A)
    w.sweep(3)
    frames = w.frames()
    hello = [f for f in frames if f[0] == wire.T_HELLO][-1]
    assert hello[1] == 0 and wire.parse_hello(hello[2])[1] == 0
    assert all(len(p) == 3 + p[2] for t, _n, p in frames if t == wire.T_TAG)


def test_the_session_puts_device_times_on_its_own_clock() -> None:
    """In memory, device and host wired together; the host clock runs 500 s ahead of the device's."""
    w = Wire()
    s = Session(lambda data: w.dev.receive(data, w.now))
    framer = Framer()

    def pump() -> None:
        s.feed(framer.feed(bytes(w.out)), 500.0 + w.now / 1000.0)
        w.out.clear()

    s.connected(500.0 + w.now / 1000.0)
    for _ in range(40):
        w.sweep(1, ms=25)
        pump()
    assert s.state is SessionState.LIVE and s.times_on
    w.readers.place(2, A)
    w.sweep(3, ms=25)
    placed = 500.0 + (w.now - 0) / 1000.0
    pump()
    assert s.table == {2: frozenset({A})}
    assert placed - 0.1 <= s.changed[2] <= placed + 0.001


@pytest.fixture
def rig_with_link(make_rig):
    return make_rig(link_path=True)


def _offline_turns(rig, gap: float = 0.4) -> tuple[list[str], float]:
    """Unplug; put a piece on antennas 0, 1, 2 every ``gap`` s; plug back in (no reboot)."""
    rig.settle()
    rig.emu.unplug()
    wait_for(lambda: rig.board.link.state.value != "live", 5, "the link to notice")
    spaces = []
    for antenna in (2, 0, 1):
        rig.place(antenna, uid(antenna))
        spaces.append(SPACES[antenna])
        time.sleep(gap)
    back = time.monotonic()
    rig.emu.replug(reboot=False)
    rig.settle(10)
    return spaces, back


def test_over_the_pty_the_order_of_changes_made_offline_survives(rig_with_link) -> None:
    spaces, back = _offline_turns(rig_with_link)
    when = {r.space: r.changed_at for r in rig_with_link.board.latest().readings if r.space in spaces}
    times = [when[s] for s in spaces]
    assert all(t is not None for t in times)
    assert times == sorted(times), when
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert all(0.25 <= g <= 0.6 for g in gaps), gaps   # 0.4 s apart, as placed
    assert times[-1] < back


def test_over_the_pty_a_10_firmware_gives_one_time_for_everything_changed_offline(rig_with_link) -> None:
    rig = rig_with_link
    rig.emu.timestamps = False
    rig.emu.reboot()
    wait_for(lambda: rig.board.link.session.hello is not None and rig.board.link.session.hello.minor == 0, 5, "the 1.0 hello")
    wait_for(lambda: rig.board.link.state.value == "live", 5, "live again")
    spaces, back = _offline_turns(rig)
    assert not rig.board.link.session.times_on
    when = {r.space: r.changed_at for r in rig.board.latest().readings if r.space in spaces}
    assert len({when[s] for s in spaces}) == 1 and when[spaces[0]] >= back
