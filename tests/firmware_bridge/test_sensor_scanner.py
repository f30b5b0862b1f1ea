"""Debouncing and the antenna -> tags table of the firmware, with the fake reader array."""

from __future__ import annotations

from firmware_bridge.firmware.tablefw.fakes import FakeReaderArray
from firmware_bridge.firmware.tablefw.scanner import (
    EV_ARRIVE,
    EV_DEPART,
    EV_READER_FAULT,
    EV_READER_OK,
    EV_TOO_MANY,
    Scanner,
)

A = bytes.fromhex("04A1B2C3D4E580")
B = bytes.fromhex("04A1B2C3D4E581")


def make(antennas=4, **kw):
    readers = FakeReaderArray(antennas)
    return readers, Scanner(readers, antennas, **kw)


def sweeps(scanner, n):
    events = []
    for _ in range(n):
        events += scanner.sweep()
    return events


def test_arrival_needs_consecutive_hits_and_departure_consecutive_misses():
    readers, s = make(arrive_hits=2, depart_misses=3)
    readers.place(1, A)
    assert sweeps(s, 1) == []
    assert sweeps(s, 1) == [(EV_ARRIVE, 1, A)]
    readers.remove(1, A)
    assert sweeps(s, 2) == []
    assert sweeps(s, 1) == [(EV_DEPART, 1, A)]
    assert s.table() == {}


def test_edge_flicker_never_confirms_and_never_departs():
    readers, s = make(arrive_hits=2, depart_misses=3)
    readers.place(0, A, "10")          # absent tag seen every other scan: never arrives
    assert sweeps(s, 20) == []
    assert s.flicker >= 9 and s.last_flicker_antenna == 0
    readers.place(2, B)                # present tag, then at the edge: seen 1 scan in 3
    sweeps(s, 2)
    readers.place(2, B, "100")
    assert sweeps(s, 30) == []
    assert s.table() == {2: [B]}


def test_fast_move_departs_old_antenna_without_waiting_for_misses():
    readers, s = make(arrive_hits=2, depart_misses=5)
    readers.place(0, A)
    sweeps(s, 2)
    readers.remove(0, A)
    readers.place(3, A)
    events = sweeps(s, 2)
    assert events == [(EV_DEPART, 0, A), (EV_ARRIVE, 3, A)]
    assert s.table() == {3: [A]}


def test_tag_across_two_antennas_stays_where_it_was_first():
    readers, s = make(arrive_hits=2, depart_misses=3)
    readers.place(1, A)
    sweeps(s, 2)
    readers.place(2, A)                # now both antennas see it, every scan
    assert sweeps(s, 10) == []
    assert s.table() == {1: [A]}


def test_reader_fault_keeps_tags_and_reports_fault_and_recovery():
    readers, s = make(arrive_hits=2, depart_misses=3, fault_after=3)
    readers.place(1, A)
    sweeps(s, 2)
    readers.set_fault(1)
    readers.remove(1, A)
    events = sweeps(s, 5)
    assert events == [(EV_READER_FAULT, 1, None)]
    assert s.table() == {1: [A]}       # a dead reader is not an empty antenna
    readers.set_fault(1, False)
    events = sweeps(s, 3)
    assert events == [(EV_READER_OK, 1, None), (EV_DEPART, 1, A)]


def test_move_away_from_a_faulty_reader_is_allowed():
    readers, s = make(arrive_hits=2, depart_misses=3, fault_after=1)
    readers.place(1, A)
    sweeps(s, 2)
    readers.set_fault(1)
    readers.place(2, A)
    events = sweeps(s, 3)
    assert (EV_DEPART, 1, A) in events and (EV_ARRIVE, 2, A) in events
    assert s.table() == {2: [A]}


def test_several_tags_per_antenna_and_the_limit():
    readers, s = make(antennas=2, arrive_hits=1, depart_misses=1, max_tags=3)
    uids = [bytes([4, 0, 0, 0, 0, 0, i]) for i in range(5)]
    for u in uids[:3]:
        readers.place(0, u)
    assert len(sweeps(s, 1)) == 3
    for u in uids[3:]:
        readers.place(0, u)
    events = sweeps(s, 1)
    assert events == [(EV_TOO_MANY, 0, None)]
    assert len(s.table()[0]) == 3


def test_scans_one_antenna_per_step_in_order():
    readers, s = make(antennas=3)
    for _ in range(7):
        s.step()
    assert readers.scans == [3, 2, 2]
    assert s.sweeps == 2
