"""Every fault of the issue over a real pseudo-terminal: the emulated firmware on one end, the
Pi's SensorBoard (pyserial reader thread, framer, session, reconnect policy) on the other.

Expected each time: nothing lost, nothing invented, a clear log line, counters that show it.
"""

from __future__ import annotations

import json
import logging
import time

import pytest

from hardware.tag_registry import TagRegistry
from scorer.core import Piece

from sensor_rig import SPACES, uid, wait_for

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _warnings(caplog):
    caplog.set_level(logging.INFO)


def play(rig, moves):
    for what, *args in moves:
        getattr(rig, what)(*args)
        time.sleep(0.03)


OPENING = [("place", 0, uid(0)), ("place", 1, uid(1)), ("place", 7, uid(2)), ("place", 7, uid(3))]
MIDGAME = [("move", uid(0), 2), ("place", 3, uid(4)), ("move", uid(1), 4), ("place", 7, uid(5)), ("move", uid(4), 5)]


def test_baseline_without_faults(make_rig):
    rig = make_rig()
    play(rig, OPENING + MIDGAME)
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    h = rig.health()
    assert h.state == "live" and h.frames_bad == 0 and h.counter("naks_sent") == 0
    assert h.to_json()["counters"]["frames_good"] == h.frames_good > 10
    dragon = [r for r in rig.board.latest().readings if r.space == "wei-dragon"][0]
    assert sum(n for _, n in dragon.pieces) == 3           # several tags on one antenna


def test_garbage_between_frames(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    for _ in range(5):
        rig.emu.inject("garbage", n=40)
        play(rig, [("move", uid(0), 6), ("move", uid(0), 2)])
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    assert rig.health().counter("garbage_chunks") >= 1
    assert "garbage between frames" in caplog.text


def test_flipped_bits(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    rig.emu.inject("flip", count=4)
    play(rig, MIDGAME)
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    h = rig.health()
    assert h.counter("crc_errors") + h.counter("garbage_chunks") >= 4
    assert h.counter("naks_sent") >= 1
    assert "CRC mismatch" in caplog.text or "garbage" in caplog.text


def test_truncated_frames(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    rig.emu.inject("truncate", count=3)
    play(rig, MIDGAME)
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    h = rig.health()
    assert h.frames_bad >= 3 and rig.emu.cable_counts()["truncate"] == 3
    assert "dropped" in caplog.text or "garbage" in caplog.text


def test_duplicated_and_reordered_frames(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    rig.emu.inject("duplicate", count=3)
    rig.emu.inject("reorder", count=2)
    play(rig, MIDGAME)
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    h = rig.health()
    assert h.counter("duplicates") >= 3 and h.counter("out_of_order") >= 1
    assert "duplicate frame" in caplog.text and "arrived before" in caplog.text


def test_lost_frames(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    rig.emu.inject("drop", count=3)
    play(rig, MIDGAME)
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    assert rig.health().counter("naks_sent") >= 1


def test_cable_pulled_and_put_back_at_the_same_path(make_rig, caplog):
    rig = make_rig(link_path=True)
    play(rig, OPENING)
    rig.settle()
    before = rig.count()
    rig.emu.unplug()
    wait_for(lambda: rig.health().state in ("backoff", "searching"), 5, "the link to notice")
    path = rig.emu.replug()          # USB power: the board reboots too
    assert path == str(rig.emu.link_path)
    wait_for(lambda: rig.health().reconnects == 1 and rig.health().state == "live", 5, "reconnect")
    rig.settle()
    assert rig.count() == before     # nothing moved: nothing new reported
    assert rig.health().counter("device_reboots") == 1
    assert "link lost" in caplog.text and "reconnected" in caplog.text and "no change" in caplog.text
    # Moves while unplugged come back as exactly the real differences.
    rig.emu.unplug()
    rig.move(uid(0), 5)
    rig.remove(uid(3))
    rig.emu.replug()
    wait_for(lambda: rig.health().reconnects == 2, 5, "second reconnect")
    rig.settle()
    assert rig.count() == before + 1
    last, previous = rig.observations[-1].board(), rig.observations[-2].board()
    diff = previous.diff(last)
    assert {(s, p) for s, p, _ in diff.added} == {("wei-6", rig.pieces[uid(0)])}
    assert {(s, p) for s, p, _ in diff.removed} == {("wei-1", rig.pieces[uid(0)]), ("wei-dragon", rig.pieces[uid(3)])}


def test_cable_put_back_on_a_different_path_found_by_usb_id(make_rig, caplog):
    rig = make_rig(by_usb_id=True)
    play(rig, OPENING)
    rig.settle()
    first = rig.health().port
    assert first == rig.emu.pty_name
    rig.emu.unplug()
    rig.move(uid(1), 6)
    new = rig.emu.replug(new_path=True)
    assert new != first
    wait_for(lambda: rig.health().port == new and rig.health().state == "live", 5, "reconnect on the new path")
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    assert rig.health().reconnects == 1 and rig.health().board_id == rig.emu.board_id.hex().upper()
    assert "reconnected on" in caplog.text


def test_device_rebooting_mid_game(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING + MIDGAME[:2])
    rig.settle()
    before = rig.count()
    boot = rig.health().boot_id
    rig.emu.reboot()
    wait_for(lambda: rig.health().boot_id not in (None, boot) and rig.health().state == "live", 5, "resync")
    time.sleep(0.2)
    assert rig.count() == before
    play(rig, MIDGAME[2:])
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    assert rig.health().counter("device_reboots") == 1
    assert "device rebooted" in caplog.text


def test_unknown_tag_is_reported_and_can_be_enrolled(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    stranger = "04FFEEDDCCBBAA"
    rig.emu.place(4, stranger)

    def reading():
        obs = rig.board.latest()
        return [r for r in obs.readings if r.space == "wei-5"][0]

    wait_for(lambda: reading().unknown == (stranger,), 5, "the unknown tag")
    assert reading().pieces == ()                      # never guessed
    assert rig.health().counter("unknown_tags") == 1
    assert "unknown tag 04FFEEDDCCBBAA on wei-5" in caplog.text
    # Enrolment: the next unknown tag presented becomes the piece the user names.
    rig.registry.begin_enrolment(Piece("red", "emissary"))
    rig.emu.remove(4, stranger)
    rig.emu.place(7, stranger)
    wait_for(lambda: Piece("red", "emissary") in rig.board.latest().board().pieces("wei-dragon"), 5, "enrolled piece")
    saved = json.loads(rig.registry.path.read_text())
    assert saved["tags"][stranger] == {"owner": "red", "kind": "emissary"}
    assert TagRegistry.load(rig.registry.path).piece(stranger) == Piece("red", "emissary")
    assert rig.registry.enrolment is None


def test_tag_flickering_at_the_edge_of_an_antenna(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    rig.settle()
    before = rig.count()
    rig.emu.place(5, uid(9), pattern="10")     # a new tag half over antenna 5: never confirmed
    rig.emu.place(0, uid(0), pattern="100")    # a placed tag slipping to the edge: stays
    wait_for(lambda: rig.health().counter("flicker") >= 10, 5, "flicker counted")
    time.sleep(0.2)
    assert rig.count() == before               # no arrival, no departure invented
    rig.settle()
    assert "flickering read" in caplog.text


def test_burst_of_20_moves_in_one_second(make_rig):
    rig = make_rig(pieces=24)
    for n in range(20):
        rig.place(n % 7, uid(n))
    rig.settle()
    start = time.monotonic()
    for n in range(20):
        rig.move(uid(n), (n % 7 + 1 + n % 3) % 7)
        time.sleep(0.045)
    assert time.monotonic() - start < 1.2
    rig.settle()
    rig.assert_nothing_lost_or_invented()
    assert rig.health().frames_bad == 0


def test_reader_fault_keeps_the_pieces_and_is_reported(make_rig, caplog):
    rig = make_rig()
    play(rig, OPENING)
    rig.settle()
    before = rig.count()
    rig.emu.inject("reader-fault", antenna=1)
    wait_for(lambda: rig.health().faulty_antennas == (1,), 5, "the fault report")
    assert rig.count() == before
    assert "READER_FAULT on antenna 1" in caplog.text
    rig.emu.inject("reader-fault", antenna=1, on=False)
    wait_for(lambda: rig.health().faulty_antennas == (), 5, "recovery")
    rig.settle()


def test_one_percent_corruption_both_ways(make_rig):
    rig = make_rig(seed=5)
    play(rig, OPENING)
    rig.settle()
    rig.emu.inject("corrupt", rate=0.01)
    for n in range(4, 16):
        rig.place(n % 7, uid(n))
        time.sleep(0.03)
    for n in range(4, 16, 3):
        rig.move(uid(n), (n + 3) % 7)
        time.sleep(0.03)
    rig.settle(10)
    rig.emu.inject("corrupt", rate=0.0)
    rig.assert_nothing_lost_or_invented()
    assert rig.health().frames_bad > 0 and rig.emu.cable_counts().get("corrupted_bytes", 0) > 0


def test_health_is_json_for_the_dashboard(make_rig):
    rig = make_rig()
    wait_for(lambda: rig.health().last_heartbeat_at is not None, 5, "a heartbeat")
    data = json.loads(json.dumps(rig.health().to_json()))
    assert data["state"] == "live" and data["antennas"] == 8 and data["protocol"] == "1.1"
    assert {"frames_good", "frames_bad", "resent_by_device", "unknown_tags", "flicker"} <= set(data["counters"])
    assert data["last_heartbeat_at"] is not None
    assert set(SPACES.values()) == {r.space for r in rig.board.latest().readings}
