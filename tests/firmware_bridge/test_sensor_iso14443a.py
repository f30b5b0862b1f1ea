"""Multi-tag inventory (anticollision, cascade levels, halt) against simulated tags."""

from __future__ import annotations

import random

import pytest

from firmware_bridge.firmware.tablefw import iso14443a as iso
from firmware_bridge.firmware.tablefw.fakes import FakeField


def test_crc_a_reference_values():
    assert iso.crc_a(bytes([0x50, 0x00])) == bytes([0x57, 0xCD])   # HLTA
    assert iso.crc_a(bytes([0xE0, 0x50])) == bytes([0xBC, 0xA5])   # RATS


def scan(uids, limit=12):
    field = FakeField(uids)
    field.field(True)
    try:
        return iso.inventory(field, limit)
    finally:
        field.field(False)


def test_single_tags_of_every_uid_size():
    for uid in (bytes.fromhex("1A2B3C4D"), bytes.fromhex("04A1B2C3D4E580"), bytes(range(1, 11))):
        assert scan([uid]) == [uid]


def test_empty_field_and_field_off():
    assert scan([]) == []
    field = FakeField([bytes.fromhex("04A1B2C3D4E580")])
    assert iso.inventory(field, 8) == []   # field never switched on


def test_tags_sharing_their_first_cascade_level():
    # NXP 7-byte uids of one batch often share bytes 0..2, i.e. the whole level-1 part.
    uids = [bytes.fromhex("04A1B2C3D4E580"), bytes.fromhex("04A1B2C3D4E581"), bytes.fromhex("04A1B2FFD4E580")]
    assert sorted(scan(uids)) == sorted(uids)


@pytest.mark.parametrize("seed", range(5))
def test_random_mixtures_are_listed_completely(seed):
    rng = random.Random(seed)
    for _ in range(40):
        prefix = bytes([0x04, rng.getrandbits(8), rng.getrandbits(8)])
        uids = set()
        for _ in range(rng.randint(1, 8)):
            kind = rng.random()
            if kind < 0.5:
                uids.add(prefix + bytes(rng.getrandbits(8) for _ in range(4)))
            elif kind < 0.8:
                u = bytes(rng.getrandbits(8) for _ in range(4))
                if u[0] != iso.CT:
                    uids.add(u)
            else:
                uids.add(bytes(rng.getrandbits(8) for _ in range(10)))
        assert sorted(scan(sorted(uids))) == sorted(uids)


def test_inventory_stops_one_past_the_limit():
    uids = [bytes([4, 0, 0, 0, 0, 0, i]) for i in range(6)]
    assert len(scan(uids, limit=3)) == 4


def test_halted_tags_stay_quiet_until_the_field_resets():
    uid = bytes.fromhex("04A1B2C3D4E580")
    field = FakeField([uid])
    field.field(True)
    assert iso.inventory(field, 4) == [uid]
    assert iso.inventory(field, 4) == []          # halted: REQA does not wake it
    assert iso.request(field, wake=True)          # WUPA does
    field.field(False)
    field.field(True)
    assert iso.inventory(field, 4) == [uid]
