"""The RDM6300 card reader: exact frames, bad checksums rejected, a held card reported once."""

from __future__ import annotations

import logging
import time

import pytest

from hardware.card_reader import (
    BadRead,
    CardTap,
    FakeCardReader,
    HoldFilter,
    Rdm6300Decoder,
    SerialCardReader,
    UidRead,
    rdm6300_frame,
)
from hardware.card_reader_emulator import EmulatedRdm6300
from hardware.tag_registry import Card, TagRegistry

# 1A ^ 00 ^ 3B ^ 5C ^ 7E = 03: the checksum characters are "03" (and equal ETX, an edge case).
FIXTURE = bytes([0x02]) + b"1A003B5C7E" + b"03" + bytes([0x03])


def test_frame_fixture_is_exact():
    assert rdm6300_frame("1a003b5c7e") == FIXTURE
    assert len(FIXTURE) == 14
    assert Rdm6300Decoder().feed(FIXTURE) == [UidRead("1A003B5C7E")]


def test_bad_checksum_is_rejected():
    bad = FIXTURE[:11] + b"04" + FIXTURE[13:]
    out = Rdm6300Decoder().feed(bad + FIXTURE)
    assert out == [BadRead("checksum", bad), UidRead("1A003B5C7E")]


def test_split_reads_noise_and_false_starts_resync():
    d = Rdm6300Decoder()
    stream = b"\xff\x13noise" + b"\x02zz" + FIXTURE + rdm6300_frame("0102030405")
    got = []
    for i in range(0, len(stream), 3):
        got += d.feed(stream[i:i + 3])
    uids = [x.uid for x in got if isinstance(x, UidRead)]
    assert uids == ["1A003B5C7E", "0102030405"]
    assert any(isinstance(x, BadRead) and x.reason == "format" for x in got)
    assert d.garbage_bytes >= 7


def test_lower_case_hex_is_accepted():
    frame = bytes([2]) + b"1a003b5c7e03" + bytes([3])
    assert Rdm6300Decoder().feed(frame) == [UidRead("1A003B5C7E")]


def test_hold_filter_reports_a_held_card_once():
    f = HoldFilter(release_after=0.5)
    reads = [f.seen("A", t / 10) for t in range(0, 30)]       # held for 3 s, read every 0.1 s
    assert reads.count(True) == 1
    assert f.seen("A", 4.0)                                     # lifted and tapped again
    assert f.seen("B", 4.1)                                     # another card at once
    assert f.held(4.2) == "B" and f.held(9.0) is None


def test_fake_reader_maps_cards_through_the_registry(caplog):
    reg = TagRegistry(tags={"1A003B5C7E": Card("red")})
    now = [0.0]
    reader = FakeCardReader(reg, clock=lambda: now[0])
    taps: list[CardTap] = []
    reader.subscribe(taps.append)
    reader.tap("1A003B5C7E")
    reader.tap("1A003B5C7E")                 # still held
    now[0] = 2.0
    reader.tap("0102030405")                 # unknown: reported, not guessed
    assert [(t.uid, t.card) for t in taps] == [("1A003B5C7E", Card("red")), ("0102030405", None)]
    assert "unknown card 0102030405" in caplog.text
    assert reader.health().unknown == 1 and reader.health().taps == 2


def test_enrolment_names_an_unknown_card_on_its_first_tap():
    reg = TagRegistry()
    reg.begin_enrolment(Card("violet"))
    reader = FakeCardReader(reg)
    tap = reader.tap("0102030405")
    assert tap is not None and tap.card == Card("violet")
    assert reg.card("0102030405") == Card("violet")


def wait_for(pred, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    raise AssertionError("timed out")


@pytest.mark.timeout(30)
def test_serial_reader_over_a_pty(caplog):
    caplog.set_level(logging.INFO)
    reg = TagRegistry(tags={"1A003B5C7E": Card("red"), "0102030405": Card("wall-7")})
    with EmulatedRdm6300(repeat_s=0.03) as emu:
        reader = SerialCardReader(emu.device_path, reg, release_after=0.3)
        taps: list[CardTap] = []
        reader.subscribe(taps.append)
        with reader:
            wait_for(lambda: reader.health().connected)
            emu.hold("1A003B5C7E")
            wait_for(lambda: len(taps) == 1 and emu.frames_sent >= 6)
            emu.send_raw(FIXTURE[:11] + b"FF" + FIXTURE[13:])        # bad checksum in the stream
            emu.lift()
            time.sleep(0.5)                                         # lifted long enough
            emu.hold("0102030405")
            wait_for(lambda: len(taps) == 2)
            emu.lift()
            time.sleep(0.1)
            assert [t.card for t in taps] == [Card("red"), Card("wall-7")]
            h = reader.health()
            assert h.frames_bad >= 1 and h.frames_good >= 6 and h.taps == 2
            assert "bad frame (checksum) rejected" in caplog.text
            assert h.to_json()["port"] == emu.device_path
