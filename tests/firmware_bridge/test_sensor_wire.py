"""The wire format, pinned with byte fixtures (the same ones docs/sensor-protocol.md shows)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.firmware.tablefw import wire

UID = bytes.fromhex("04A1B2C3D4E580")


def test_crc16_ccitt_false_check_value():
    assert wire.crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(
    "raw, encoded",
    [
        ("00", "0101"),
        ("0000", "010101"),
        ("001100", "01021101"),
        ("11220033", "0311220233"),
        ("11223344", "0511223344"),
        ("11000000", "0211010101"),
        (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
        ("00" + bytes(range(1, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
        (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
    ],
)
def test_cobs_reference_vectors(raw, encoded):
    assert wire.cobs_encode(bytes.fromhex(raw)) == bytes.fromhex(encoded)
    assert wire.cobs_decode(bytes.fromhex(encoded)) == bytes.fromhex(raw)


@settings(deadline=None)
@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data):
    enc = wire.cobs_encode(data)
    assert 0 not in enc
    assert wire.cobs_decode(enc) == data


def test_tag_frame_fixture():
    frame = wire.encode(wire.T_TAG, 0x5A, 7, wire.tag_payload(3, True, UID))
    assert frame.hex(" ") == "00 04 10 5a 07 0d 03 01 07 04 a1 b2 c3 d4 e5 80 ca d7 00"
    assert wire.parse(frame[1:-1]) == (wire.OK, wire.T_TAG, 0x5A, 7, bytes.fromhex("030107") + UID)


def test_ack_frame_fixture():
    assert wire.encode(wire.T_ACK, 0x5A, 7).hex(" ") == "00 04 82 5a 07 03 08 b4 00"


def test_every_single_bit_flip_is_rejected():
    frame = wire.encode(wire.T_TAG, 0x5A, 7, wire.tag_payload(3, True, UID))
    body = bytearray(frame[1:-1])
    for i in range(len(body)):
        for bit in range(8):
            damaged = bytearray(body)
            damaged[i] ^= 1 << bit
            for chunk in bytes(damaged).split(b"\x00"):
                if chunk:
                    assert wire.parse(chunk)[0] != wire.OK, (i, bit)


def test_truncated_frames_are_rejected():
    frame = wire.encode(wire.T_TAG, 0x5A, 7, wire.tag_payload(3, True, UID))
    for n in range(1, len(frame) - 2):
        assert wire.parse(frame[1:1 + n])[0] != wire.OK


def test_splitter_keeps_partial_frames_and_drops_empty_chunks():
    f1 = wire.encode(wire.T_HEARTBEAT, 1, 0, b"x")
    f2 = wire.encode(wire.T_TAG, 1, 2, wire.tag_payload(0, False, UID))
    stream = f1 + f2
    sp = wire.Splitter()
    chunks = []
    for i in range(len(stream)):
        chunks += sp.feed(stream[i:i + 1])
    assert [wire.parse(c)[1] for c in chunks] == [wire.T_HEARTBEAT, wire.T_TAG]


def test_splitter_resyncs_after_an_oversized_run():
    sp = wire.Splitter()
    good = wire.encode(wire.T_TAG, 1, 2, wire.tag_payload(0, False, UID))
    chunks = sp.feed(b"\x01" * 1000 + good)
    assert sp.oversized == 1
    assert [wire.parse(c)[0] for c in chunks] == [wire.OK]


def test_payload_round_trips():
    hello = wire.hello_payload(0xDEADBEEF, 1, 65, 8, b"\xe6\x61\x41\x04", b"tablefw 1.0")
    assert wire.parse_hello(hello) == (1, wire.PROTO_MINOR, 0xDEADBEEF, 1, 65, 8, b"\xe6\x61\x41\x04", b"tablefw 1.0")
    hb = wire.heartbeat_payload(9, 1234, 55, 0xBEEF, 3, 4, 5, 6, 7, 2)
    assert wire.parse_heartbeat(hb) == (9, 1234, 55, 0xBEEF, 3, 4, 5, 6, 7, 2)
    assert wire.parse_tag(wire.tag_payload(3, False, UID)) == (3, False, UID)
    assert wire.parse_snap_begin(wire.snap_begin_payload(4, 65, 300)) == (4, 65, 300)
    uids = [UID, bytes(4), bytes(range(10))]
    assert wire.parse_snap_entry(wire.snap_entry_payload(4, 9, uids)) == (4, 9, uids)
    assert wire.parse_snap_end(wire.snap_end_payload(4, 300, 12, 0x1234)) == (4, 300, 12, 0x1234)
    assert wire.parse_error(wire.error_payload(1, 7, 3, b"x")) == (1, 7, 3, b"x")


@pytest.mark.parametrize("bad", [b"", b"\x03\x01", b"\x03\x02\x07" + UID, b"\x03\x01\x03abc"])
def test_bad_tag_payloads_raise(bad):
    with pytest.raises(ValueError):
        wire.parse_tag(bad)


def test_sequence_arithmetic_wraps():
    assert wire.seq_next(0xFFFF) == 0
    assert wire.seq_diff(0, 0xFFFF) == 1
    assert wire.seq_diff(0xFFFF, 0) == -1
    assert wire.seq_diff(5, 5) == 0


def test_table_digest_ignores_order_and_empty_antennas():
    a = {3: [UID, bytes(4)], 1: [bytes(range(4))], 7: []}
    b = {1: [bytes(range(4))], 3: [bytes(4), UID]}
    assert wire.table_digest(a) == wire.table_digest(b)
    assert wire.table_digest(a) != wire.table_digest({3: [UID], 1: [bytes(range(4))]})


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash_the_parser(data):
    sp = wire.Splitter()
    for chunk in sp.feed(data):
        status, ftype, tag, num, payload = wire.parse(chunk)
        assert status in (wire.OK, wire.ERR_COBS, wire.ERR_SHORT, wire.ERR_CRC)


def test_every_example_in_the_protocol_document_is_a_valid_frame():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "sensor-protocol.md").read_text()
    examples = [line.split("wire:", 1)[1] for line in doc.splitlines() if line.strip().startswith("wire:")]
    assert len(examples) >= 11
    for text in examples:
        frame = bytes.fromhex(text)
        assert frame[0] == 0 and frame[-1] == 0
        status, ftype, tag, num, payload = wire.parse(frame[1:-1])
        assert status == wire.OK and tag == 0x5A, text
        assert wire.encode(ftype, tag, num, payload) == frame
