"""What the sensor link has seen go wrong, counted and logged once each: damaged frames from the
framer, the firmware's own counts in its heartbeats, and the errors it reports. Kept apart from
the protocol session so that the bookkeeping of faults does not crowd the protocol's logic; the
session decides what to do about each fault.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields

from firmware_bridge.framing import BadFrame, Damage, DeviceError, ErrorCode, Heartbeat

# the session's own log: these are its faults, and log settings (and readers) know them by that name
log = logging.getLogger("firmware_bridge.session")


@dataclass(slots=True)
class Counters:
    """Everything the link has seen go wrong (and right). Monotonic over the life of the link."""

    frames_good: int = 0
    frames_bad: int = 0
    crc_errors: int = 0
    garbage_chunks: int = 0
    garbage_bytes: int = 0
    oversized: int = 0
    malformed: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    stale_frames: int = 0
    naks_sent: int = 0
    acks_sent: int = 0
    syncs_sent: int = 0
    snapshot_requests: int = 0
    snapshots: int = 0
    resyncs_changed: int = 0
    device_reboots: int = 0
    digest_mismatches: int = 0
    device_errors: int = 0
    flicker: int = 0
    reader_errors: int = 0
    device_rx_bad: int = 0
    resent_by_device: int = 0

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def count_bad_frame(c: Counters, item: BadFrame) -> None:
    """Count and log a damaged chunk of input by its kind of damage."""
    c.frames_bad += 1
    if item.damage is Damage.CRC:
        c.crc_errors += 1
        log.warning("sensor-board: corrupt frame (%d bytes, CRC mismatch) dropped", item.size)
    elif item.damage is Damage.MALFORMED:
        c.malformed += 1
        log.warning("sensor-board: malformed frame dropped: %s", item.detail)
    elif item.damage is Damage.OVERSIZED:
        c.oversized += 1
        log.warning("sensor-board: %d bytes without a frame delimiter dropped", item.size)
    else:
        c.garbage_chunks += 1
        c.garbage_bytes += item.size
        log.warning("sensor-board: %d bytes of garbage between frames skipped", item.size)


def add_device_counters(c: Counters, base: dict[str, int] | None, hb: Heartbeat) -> dict[str, int]:
    """Add what the firmware counted since the heartbeat that gave ``base`` (None: since boot);
    returns the new base. The firmware's counts are 16-bit and wrap."""
    values = {"flicker": hb.flicker, "reader_errors": hb.reader_errors, "device_rx_bad": hb.rx_bad,
              "resent_by_device": hb.resent}
    base = base or {k: 0 for k in values}
    deltas = {k: (v - base[k]) & 0xFFFF for k, v in values.items()}
    for k, d in deltas.items():
        setattr(c, k, getattr(c, k) + d)
    if deltas["flicker"]:
        where = "" if hb.last_flicker_antenna is None else f", last on antenna {hb.last_flicker_antenna}"
        log.warning("sensor-board: firmware suppressed %d flickering read(s)%s", deltas["flicker"], where)
    if deltas["device_rx_bad"]:
        log.warning("sensor-board: device received %d corrupt frame(s) from us", deltas["device_rx_bad"])
    if deltas["resent_by_device"]:
        log.info("sensor-board: device resent %d frame(s)", deltas["resent_by_device"])
    if deltas["reader_errors"]:
        log.warning("sensor-board: %d reader error(s) on the board", deltas["reader_errors"])
    return values


def note_device_error(c: Counters, faulty_antennas: set[int], err: DeviceError) -> None:
    """Count and log an error the device reported; a reader fault (or its recovery) marks its
    antenna in ``faulty_antennas``."""
    c.device_errors += 1
    where = "" if err.antenna is None else f" on antenna {err.antenna}"
    if err.code is ErrorCode.READER_FAULT and err.antenna is not None:
        faulty_antennas.add(err.antenna)
    elif err.code is ErrorCode.READER_OK and err.antenna is not None:
        faulty_antennas.discard(err.antenna)
        log.info("sensor-board: device reports %s%s: %s", err.name, where, err.text)
        return
    log.warning("sensor-board: device reports %s%s (detail %d): %s", err.name, where, err.detail, err.text)
