"""Layer 3 of the Pi side: the protocol session. Pure: frames and the time come in, command
bytes go out through ``send``; no threads, no serial port, no clock of its own.

What it guarantees (docs/sensor-protocol.md, "Host behaviour"):

* sequenced frames are applied exactly once and in order: duplicates are dropped, early frames
  wait in a reorder buffer, gaps and corrupt frames trigger an immediate resend request (NAK);
* after every hello (first connection, reconnection, device reboot, device giving up on a resend)
  the table is rebuilt from a full snapshot and compared with what was believed before;
* the firmware's table digest in each heartbeat is compared with ours whenever both describe the
  same sequence number, so a drift nobody noticed still ends in a resync;
* every fault is counted in ``counters`` and logged once, with what was done about it;
* every antenna's last change has a time on our clock (``changed``): the device's own change time
  when it sends one (protocol 1.1, kept by the device across any outage of the link or of this
  program), else when we learned of the change. The referee orders moves by these times.

The counting and logging of faults is ``firmware_bridge.faults``; the table, its diff and a
snapshot being assembled, ``firmware_bridge.tag_table``; the device's clock on ours,
``firmware_bridge.change_times``.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Callable, Iterable

from firmware_bridge.change_times import DeviceClock, stamp_snapshot
from firmware_bridge.faults import Counters, add_device_counters, count_bad_frame, note_device_error
from firmware_bridge.firmware.tablefw import wire
from firmware_bridge.framing import (
    BadFrame,
    DeviceError,
    Frame,
    FrameType,
    Heartbeat,
    Hello,
    Item,
    MalformedPayload,
    SnapBegin,
    SnapEnd,
    SnapEntry,
    TagEvent,
    decode,
    encode_command,
)
from firmware_bridge.tag_table import PartialSnapshot, Table, table_diff, uid_hex

log = logging.getLogger("firmware_bridge.session")

class SessionState(StrEnum):
    WAITING_HELLO = "waiting_hello"
    WAITING_SNAPSHOT = "waiting_snapshot"
    LIVE = "live"
    INCOMPATIBLE = "incompatible"


class Session:
    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        sync_every: float = 0.5,
        snapshot_retry: float = 0.5,
        nak_interval: float = 0.01,
        suspect_for: float = 0.3,
        reorder_limit: int = 128,
        silence_after: float = 1.0,
    ) -> None:
        self._send = send
        self.sync_every = sync_every
        self.snapshot_retry = snapshot_retry
        self.nak_interval = nak_interval
        self.suspect_for = suspect_for
        self.reorder_limit = reorder_limit
        self.silence_after = silence_after
        self.counters = Counters()
        self.state = SessionState.WAITING_HELLO
        self.hello: Hello | None = None
        self.table: Table | None = None
        self.faulty_antennas: set[int] = set()
        self.last_heartbeat: Heartbeat | None = None
        self.last_heartbeat_at: float | None = None
        self.last_frame_at: float | None = None
        self._tag: int | None = None
        self._expected = 0
        self._reorder: dict[int, Frame] = {}
        self._snapshot: PartialSnapshot | None = None
        self._last_sync_at: float | None = None
        self._snapreq_at: float | None = None
        self._last_nak: tuple[int, float] | None = None
        self._suspect_since: float | None = None   # when we began to think a frame went missing
        self._device_base: dict[str, int] | None = None
        self._connected_at: float | None = None
        self._silence_logged = False
        self.changed: dict[int, float] = {}   # antenna -> when it last changed, on our clock
        self.times_on = False                 # the device sends change times (protocol 1.1)
        self._device_clock = DeviceClock()
        self._times_asked: int | None = None  # boot id we asked to switch change times on

    # ---- link events -------------------------------------------------------------------

    def connected(self, now: float) -> None:
        """A port was (re)opened: ask the device who it is; the table stays until a snapshot."""
        self.state = SessionState.WAITING_HELLO
        self._reorder.clear()
        self._snapshot = None
        self._connected_at = now
        self.last_frame_at = None
        self._silence_logged = False
        self._sync(now)

    def disconnected(self) -> None:
        self.state = SessionState.WAITING_HELLO
        self._reorder.clear()
        self._snapshot = None
        self._suspect_since = None

    # ---- input -------------------------------------------------------------------------

    def feed(self, items: Iterable[Item], now: float) -> bool:
        """Process what the framer produced; True if the table changed."""
        changed = False
        sequenced_seen = False
        for item in items:
            if isinstance(item, BadFrame):
                self._bad(item, now)
                continue
            self.last_frame_at = now
            self._silence_logged = False
            if item.type.sequenced:
                sequenced_seen = True
                changed |= self._sequenced(item, now)
            else:
                changed |= self._unsequenced(item, now)
        if sequenced_seen and self._tag is not None and self.state is not SessionState.INCOMPATIBLE:
            self._command(FrameType.ACK, (self._expected - 1) & 0xFFFF)
            self.counters.acks_sent += 1
        return changed

    def tick(self, now: float) -> None:
        """Timers: hello and snapshot retries, resend requests for held frames, silence."""
        if self.state is SessionState.INCOMPATIBLE:
            return
        if self.state is SessionState.WAITING_HELLO:
            if self._last_sync_at is None or now - self._last_sync_at >= self.sync_every:
                self._sync(now)
        elif self.state is SessionState.WAITING_SNAPSHOT and self._snapshot is None:
            self._request_snapshot(now)
        if self._suspect_since is not None:
            if self._reorder or now - self._suspect_since < self.suspect_for:
                self._nak(now)   # our NAK may have been lost too: ask again, the device filters
            else:
                self._suspect_since = None   # resend timer and heartbeat take it from here
        silent = self.silent_for(now)
        if silent is not None and silent >= self.silence_after:
            if not self._silence_logged:
                log.warning("sensor-board: no frame for %.1f s (heartbeats come every 0.25 s); asking the device to say hello", silent)
                self._silence_logged = True
            if self._last_sync_at is None or now - self._last_sync_at >= self.sync_every:
                self._sync(now)

    def silent_for(self, now: float) -> float | None:
        since = self.last_frame_at if self.last_frame_at is not None else self._connected_at
        return None if since is None else now - since

    @property
    def expected_seq(self) -> int:
        return self._expected

    @property
    def pending_frames(self) -> int:
        return len(self._reorder)

    # ---- damage ------------------------------------------------------------------------

    def _bad(self, item: BadFrame, now: float) -> None:
        count_bad_frame(self.counters, item)
        if self.state in (SessionState.WAITING_SNAPSHOT, SessionState.LIVE):
            self._nak(now, evidence=True)   # most likely the frame we expect next: ask at once

    # ---- sequenced frames --------------------------------------------------------------

    def _sequenced(self, frame: Frame, now: float) -> bool:
        c = self.counters
        if self._tag is None or frame.tag != self._tag or self.state is SessionState.WAITING_HELLO:
            c.stale_frames += 1
            log.info("sensor-board: frame seq %d from boot tag %02x ignored (no hello for it yet)", frame.seq, frame.tag)
            return False
        d = wire.seq_diff(frame.seq, self._expected)
        if d < 0:
            c.duplicates += 1
            log.warning("sensor-board: duplicate frame seq %d ignored (expecting %d)", frame.seq, self._expected)
            return False
        if d > 0:
            if frame.seq in self._reorder:
                c.duplicates += 1
                log.warning("sensor-board: duplicate of held frame seq %d ignored", frame.seq)
            elif d < self.reorder_limit:
                c.out_of_order += 1
                self._reorder[frame.seq] = frame
                log.warning("sensor-board: frame seq %d arrived before seq %d: held, resend requested", frame.seq, self._expected)
            else:
                log.warning("sensor-board: frame seq %d is %d ahead of seq %d: dropped, resend requested", frame.seq, d, self._expected)
            self._nak(now, evidence=True)
            return False
        changed = self._deliver(frame, now)
        while self._expected in self._reorder:
            changed |= self._deliver(self._reorder.pop(self._expected), now)
        if not self._reorder:
            self._suspect_since = None
        return changed

    def _deliver(self, frame: Frame, now: float) -> bool:
        self._expected = wire.seq_next(self._expected)
        try:
            msg = decode(frame)
        except MalformedPayload as exc:
            self.counters.malformed += 1
            self.counters.frames_bad += 1
            log.warning("sensor-board: %s; asking for a snapshot", exc)
            self._request_snapshot(now)
            return False
        self.counters.frames_good += 1
        if isinstance(msg, TagEvent):
            return self._tag_event(msg, now)
        if isinstance(msg, SnapBegin):
            self._snapshot = PartialSnapshot(msg)
            return False
        if isinstance(msg, SnapEntry):
            snap = self._snapshot
            if snap is None or snap.snap_id != msg.snap_id:
                log.warning("sensor-board: snapshot entry of snapshot %d without its beginning ignored", msg.snap_id)
                return False
            snap.add(msg)
            return False
        if isinstance(msg, SnapEnd):
            return self._snapshot_end(msg, now)
        return False

    def device_time(self, t_ms: int | None, now: float) -> float:
        """A device change time on our clock (``now`` when there is none, or no clock offset yet)."""
        return self._device_clock.device_time(t_ms, now)

    def _tag_event(self, ev: TagEvent, now: float) -> bool:
        if self.table is None or self.state is not SessionState.LIVE:
            return False   # the snapshot we are waiting for already contains it
        table = self.table
        here = set(table.get(ev.antenna, ()))
        at = self.device_time(ev.t_ms, now)
        if ev.present:
            for antenna, uids in list(table.items()):
                if ev.uid in uids and antenna != ev.antenna:
                    log.warning("sensor-board: tag %s arrived on antenna %d while still on %d; moved",
                                uid_hex(ev.uid), ev.antenna, antenna)
                    self._set(antenna, uids - {ev.uid})
                    self.changed[antenna] = at
            if ev.uid in here:
                return False
            here.add(ev.uid)
        else:
            if ev.uid not in here:
                log.warning("sensor-board: departure of tag %s from antenna %d that we did not have; asking for a snapshot",
                            uid_hex(ev.uid), ev.antenna)
                self._request_snapshot(now)
                return False
            here.discard(ev.uid)
        self._set(ev.antenna, here)
        self.changed[ev.antenna] = at
        log.debug("sensor-board: antenna %d %s %s", ev.antenna, "+" if ev.present else "-", uid_hex(ev.uid))
        return True

    def _set(self, antenna: int, uids: Iterable[bytes]) -> None:
        assert self.table is not None
        uids = frozenset(uids)
        if uids:
            self.table[antenna] = uids
        else:
            self.table.pop(antenna, None)

    def _snapshot_end(self, end: SnapEnd, now: float) -> bool:
        snap, self._snapshot = self._snapshot, None
        if snap is None or snap.snap_id != end.snap_id:
            log.warning("sensor-board: end of snapshot %d without its beginning ignored", end.snap_id)
            return False
        tags = snap.tags()
        if not snap.whole(end):
            log.warning("sensor-board: snapshot %d inconsistent (%d/%d entries, %d/%d tags); asking again",
                        end.snap_id, snap.got, end.entries, tags, end.tags)
            self._request_snapshot(now, force=True)
            return False
        new: Table = snap.result()
        old = self.table
        self.counters.snapshots += 1
        self.state = SessionState.LIVE
        self._snapreq_at = None
        if end.t_ms is not None:
            self._device_clock.observe(now, end.t_ms)
        stamp_snapshot(self.changed, self._device_clock, old, new, snap.times, now)
        if old is None:
            self.table = new
            log.info("sensor-board: snapshot received: %d tags on %d antennas", tags, len(new))
            return True
        diff = table_diff(old, new)
        self.table = new
        if not diff:
            log.info("sensor-board: resynchronised from snapshot: no change")
            return False
        self.counters.resyncs_changed += 1
        log.warning("sensor-board: resynchronised from snapshot: %d antenna(s) changed while we were not looking: %s",
                    len(diff), "; ".join(diff))
        return True

    # ---- unsequenced frames ------------------------------------------------------------

    def _unsequenced(self, frame: Frame, now: float) -> bool:
        try:
            msg = decode(frame)
        except MalformedPayload as exc:
            self.counters.malformed += 1
            self.counters.frames_bad += 1
            log.warning("sensor-board: %s", exc)
            return False
        self.counters.frames_good += 1
        if isinstance(msg, Hello):
            self._hello(msg, frame.tag, now, frame.num)
        elif isinstance(msg, Heartbeat):
            self._heartbeat(msg, frame.tag, now)
        elif isinstance(msg, DeviceError):
            note_device_error(self.counters, self.faulty_antennas, msg)
        return False

    def _hello(self, hello: Hello, tag: int, now: float, flags: int = 0) -> None:
        previous = self.hello
        if hello.major != wire.PROTO_MAJOR:
            if self.state is not SessionState.INCOMPATIBLE:
                log.error("sensor-board: device speaks protocol %d.%d, this bridge %d.%d: not using it",
                          hello.major, hello.minor, wire.PROTO_MAJOR, wire.PROTO_MINOR)
            self.state = SessionState.INCOMPATIBLE
            self.hello = hello
            return
        if previous is None or previous.boot_id != hello.boot_id or previous.board_id != hello.board_id:
            self._device_clock.forget()
        if previous is not None and (previous.boot_id != hello.boot_id or previous.board_id != hello.board_id):
            self.counters.device_reboots += 1
            self._device_base = None
            self.faulty_antennas.clear()
            if previous.board_id != hello.board_id:
                log.warning("sensor-board: a different board is connected (%s, was %s); resynchronising",
                            hello.board_id, previous.board_id)
            else:
                log.warning("sensor-board: device rebooted (boot %08x -> %08x); resynchronising from a snapshot",
                            previous.boot_id, hello.boot_id)
        elif previous is None:
            log.info("sensor-board: board %s (%s, protocol %d.%d, %d antennas, boot %08x)",
                     hello.board_id, hello.firmware, hello.major, hello.minor, hello.antennas, hello.boot_id)
        else:
            log.info("sensor-board: hello from the same boot %08x; resynchronising from a snapshot", hello.boot_id)
        self.hello = hello
        self._tag = tag
        self.times_on = bool(flags & wire.X_TIMES)
        if hello.minor >= 1 and not self.times_on and self._times_asked != hello.boot_id:
            # a 1.1 device that booted (or said hello) without change times: ask once per boot
            self._times_asked = hello.boot_id
            self._sync(now)
        self._expected = hello.next_seq
        self._reorder.clear()
        self._snapshot = None
        self._last_nak = None
        self._suspect_since = None
        self.state = SessionState.WAITING_SNAPSHOT
        self._request_snapshot(now, force=True)

    def _heartbeat(self, hb: Heartbeat, tag: int, now: float) -> None:
        self.last_heartbeat = hb
        self.last_heartbeat_at = now
        if self._tag is None or tag != self._tag:
            if self.state is not SessionState.WAITING_HELLO:
                log.warning("sensor-board: heartbeat from another boot (tag %02x); the device rebooted unseen, asking for hello", tag)
                self.state = SessionState.WAITING_HELLO
            if self._last_sync_at is None or now - self._last_sync_at >= self.sync_every / 5:
                self._sync(now)
            return
        self._device_base = add_device_counters(self.counters, self._device_base, hb)
        self._device_clock.observe(now, hb.uptime_ms)
        if self.state is SessionState.WAITING_HELLO:
            return
        ahead = wire.seq_diff(hb.next_seq, self._expected)
        if ahead == 0 and not self._reorder:
            self._suspect_since = None
        if ahead > 0:
            self._nak(now)   # frames were sent that we never saw (a lost tail)
        elif ahead < 0:
            log.warning("sensor-board: device sequence went back (%d < %d): asking for hello", hb.next_seq, self._expected)
            self.state = SessionState.WAITING_HELLO
            self._sync(now)
        elif (self.state is SessionState.LIVE and hb.consistent and self._snapshot is None
              and self.table is not None and wire.table_digest(self.table) != hb.digest):
            self.counters.digest_mismatches += 1
            log.warning("sensor-board: our table differs from the board's (digest %04x != %04x); asking for a snapshot",
                        wire.table_digest(self.table), hb.digest)
            self._request_snapshot(now)

    # ---- commands ----------------------------------------------------------------------

    def _command(self, ftype: FrameType, num: int = 0) -> None:
        self._send(encode_command(ftype, self._tag or 0, num))

    def _sync(self, now: float) -> None:
        self._last_sync_at = now
        self.counters.syncs_sent += 1
        self._command(FrameType.SYNC, wire.X_TIMES)   # "say hello, with change times if you can"

    def _request_snapshot(self, now: float, force: bool = False) -> None:
        """Ask for a snapshot; a request already on its way is not repeated before the retry time."""
        if self._tag is None:
            return
        if not force and self._snapreq_at is not None and now - self._snapreq_at < self.snapshot_retry:
            return
        self._snapreq_at = now
        self.counters.snapshot_requests += 1
        self._command(FrameType.SNAP_REQ)

    def _nak(self, now: float, evidence: bool = False) -> None:
        """Ask for everything from the expected frame on.

        Fresh evidence of a loss (a corrupt chunk, a frame out of order) asks at once -- the
        device ignores requests for copies still on the wire; the timer repeats a request at
        most every ``nak_interval``, in case the request itself was lost.
        """
        if self._tag is None:
            return
        if self._suspect_since is None:
            self._suspect_since = now
        last = self._last_nak
        interval = 0.002 if evidence else self.nak_interval
        if last is not None and last[0] == self._expected and now - last[1] < interval:
            return
        self._last_nak = (self._expected, now)
        self.counters.naks_sent += 1
        self._command(FrameType.NAK, self._expected)
