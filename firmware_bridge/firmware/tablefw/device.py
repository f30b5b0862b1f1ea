# The firmware's side of the protocol: hello, sequenced events with a resend history, snapshots,
# heartbeats and error frames. Portable (MicroPython and CPython): time comes in as ``now`` (ms,
# monotonic, never wrapping) and bytes go out through the injected ``write`` callable.
#
# Reliability in one paragraph (docs/sensor-protocol.md has the rest): every table change is a
# sequenced frame kept in ``history`` until the host acknowledges it. The host asks for a resend
# (NAK) as soon as it sees a gap or a corrupt frame; the device also resends on its own when an
# acknowledgement is overdue. When the resend history cannot serve a request, or when events pile
# up faster than the host takes them, the device falls back to a fresh snapshot: the table is
# small, so resynchronising is always possible and nothing the host believes can stay wrong.

from . import wire
from .scanner import EV_ARRIVE, EV_DEPART, EV_READER_FAULT, EV_READER_OK, EV_TOO_MANY

FIRMWARE = b"tablefw 1.1"
SNAP_UIDS_PER_FRAME = 8


class Device:
    def __init__(self, scanner, board_id, boot_id, write, now=0, firmware=FIRMWARE, window=96,
                 outbox_limit=256, rto_ms=40, rto_max_ms=1000, resend_burst=4, heartbeat_ms=250,
                 settle_sweeps=None, byte_time_us=0, nak_guard_ms=1, tx_lookahead_ms=6, timestamps=True):
        self.scanner = scanner
        self.board_id = board_id
        self.boot_id = boot_id & 0xFFFFFFFF
        self.tag = self.boot_id & 0xFF
        self.write = write
        self.firmware = firmware
        self.window = window
        self.outbox_limit = outbox_limit
        self.rto_ms = rto_ms
        self.rto_max_ms = rto_max_ms
        self.resend_burst = resend_burst
        self.nak_guard_ms = nak_guard_ms
        self.heartbeat_ms = heartbeat_ms
        self.settle_sweeps = scanner.arrive_hits if settle_sweeps is None else settle_sweeps
        # On a UART link (not USB) a frame takes time to leave: 10 bit times per byte. Timers
        # then count from when the frame is out, so a long backlog does not look like a loss.
        self.byte_time_us = byte_time_us
        self.tx_done_at = now
        # ... and new frames wait in the outbox while the line is busy for more than
        # ``tx_lookahead_ms``, so that a resend goes out next instead of behind a backlog.
        self.tx_lookahead_ms = tx_lookahead_ms
        self.now = now
        self.splitter = wire.Splitter()
        self.next_seq = 1
        self.history = []      # [seq, frame, last sent ms, resent ms or None]; oldest first, unacked
        self.outbox = []       # (type, payload, scanner event or None) waiting for the window
        self.booted_at = now
        self.rto = rto_ms
        self.last_heartbeat = None
        self.snapshot_wanted = False
        self.snap_id = 0
        self.last_hello_at = None
        self.stats_rx_bad = 0
        self.stats_resent = 0
        self.stats_rx_frames = 0
        self.on_event = None   # optional hook(kind, antenna, uid, seq): the emulator timestamps here
        # Change times (protocol 1.1): when each antenna last changed, in ms of uptime (the
        # heartbeat's clock), kept across any outage of the link; sent only to a host that asks.
        self.can_time = timestamps
        self.times = False
        self.changed = {}
        self.hello(now)

    # ---- inputs ----------------------------------------------------------------------------

    def poll(self, now, steps=1):
        """Scan ``steps`` antennas, then run the timers. Call it in the main loop."""
        self.now = now
        for _ in range(steps):
            for ev in self.scanner.step():
                self._scanner_event(ev)
        self.service(now)

    def receive(self, data, now):
        self.now = now
        for chunk in self.splitter.feed(data):
            status, ftype, tag, num, _payload = wire.parse(chunk)
            if status != wire.OK:
                self.stats_rx_bad += 1
                continue
            self.stats_rx_frames += 1
            self._command(ftype, tag, num, now)
        self.service(now)

    # ---- timers ----------------------------------------------------------------------------

    def settled(self):
        return self.scanner.sweeps >= self.settle_sweeps

    def service(self, now):
        self.now = now
        if self.snapshot_wanted and self.settled():
            self.snapshot_wanted = False
            self._queue_snapshot()
        self._pump(now)
        if self.history:
            oldest = self.history[0]
            if now - oldest[2] >= self.rto:
                self._resend(0, 1, now)   # the oldest only: the host NAKs anything else it lacks
                self.rto = min(self.rto * 2, self.rto_max_ms)
        if self.last_heartbeat is None or now - self.last_heartbeat >= self.heartbeat_ms:
            self.heartbeat(now)

    def heartbeat(self, now):
        self.last_heartbeat = now
        s = self.scanner
        flags = (wire.F_SETTLED if self.settled() else 0) | (0 if self.outbox else wire.F_CONSISTENT)
        payload = wire.heartbeat_payload(self.next_seq, now - self.booted_at, s.sweeps,
                                         wire.table_digest(s.table()), flags, s.flicker,
                                         s.reader_errors, self.stats_rx_bad, self.stats_resent,
                                         s.last_flicker_antenna)
        self._send(wire.encode(wire.T_HEARTBEAT, self.tag, 0, payload), now)

    def hello(self, now):
        """Announce this boot and start a fresh sequence space for the host (history dropped)."""
        self.history = []
        self.outbox = []
        self.rto = self.rto_ms
        self.last_hello_at = now
        payload = wire.hello_payload(self.boot_id, self.next_seq, self.scanner.antennas,
                                     self.scanner.max_tags, self.board_id, self.firmware,
                                     wire.PROTO_MINOR if self.can_time else 0)
        self._send(wire.encode(wire.T_HELLO, self.tag, wire.X_TIMES if self.times else 0, payload), now)

    def error(self, code, antenna=wire.NO_ANTENNA, detail=0, text=b""):
        frame = wire.encode(wire.T_ERROR, self.tag, 0, wire.error_payload(code, antenna, detail, text))
        self._send(frame, self.now)

    # ---- internals -------------------------------------------------------------------------

    def _send(self, frame, now):
        """Write a frame; return when it will have left the wire (``now`` on USB)."""
        if self.byte_time_us:
            start = now if now > self.tx_done_at else self.tx_done_at
            self.tx_done_at = start + (len(frame) * self.byte_time_us + 999) // 1000
        else:
            self.tx_done_at = now
        self.now = now
        self.write(frame)
        return self.tx_done_at

    def _scanner_event(self, ev):
        kind, antenna, uid = ev
        if kind == EV_ARRIVE or kind == EV_DEPART:
            t = self.now - self.booted_at
            self.changed[antenna] = t
            self._queue(wire.T_TAG, wire.tag_payload(antenna, kind == EV_ARRIVE, uid, t if self.times else None), ev)
        elif kind == EV_READER_FAULT:
            self.error(wire.E_READER_FAULT, antenna, self.scanner.failures[antenna], b"reader not answering")
        elif kind == EV_READER_OK:
            self.error(wire.E_READER_OK, antenna, 0, b"reader answers again")
        elif kind == EV_TOO_MANY:
            self.error(wire.E_TOO_MANY_TAGS, antenna, self.scanner.max_tags, b"more tags than the reader can list")

    def _queue(self, ftype, payload, ev=None):
        if len(self.outbox) >= self.outbox_limit:
            # The host is not keeping up: drop the backlog and describe the table afresh instead.
            self.outbox = []
            self.error(wire.E_OUTBOX_OVERFLOW, wire.NO_ANTENNA, self.outbox_limit, b"backlog replaced by a snapshot")
            self._queue_snapshot()
            return
        self.outbox.append((ftype, payload, ev))

    def _queue_snapshot(self):
        for ftype, _p, _e in self.outbox:
            if ftype == wire.T_SNAP_BEGIN:
                return   # one is already waiting to go out; it will be current enough
        table = self.scanner.table()
        self.snap_id = (self.snap_id + 1) & 0xFF
        entries = []
        tags = 0
        for antenna in sorted(table):
            uids = table[antenna]
            tags += len(uids)
            t = self.changed.get(antenna, 0) if self.times else None
            for i in range(0, len(uids), SNAP_UIDS_PER_FRAME):
                entries.append(wire.snap_entry_payload(self.snap_id, antenna, uids[i:i + SNAP_UIDS_PER_FRAME], t))
        self.outbox.append((wire.T_SNAP_BEGIN, wire.snap_begin_payload(self.snap_id, self.scanner.antennas, len(entries)), None))
        for p in entries:
            self.outbox.append((wire.T_SNAP_ENTRY, p, None))
        taken = (self.now - self.booted_at) if self.times else None
        self.outbox.append((wire.T_SNAP_END, wire.snap_end_payload(self.snap_id, len(entries), tags, wire.table_digest(table), taken), None))

    def busy(self):
        """True while frames wait in the outbox (the main loop should come back soon)."""
        return bool(self.outbox)

    def _pump(self, now):
        while self.outbox and len(self.history) < self.window:
            if self.byte_time_us and self.tx_done_at - now > self.tx_lookahead_ms:
                break
            ftype, payload, ev = self.outbox.pop(0)
            seq = self.next_seq
            self.next_seq = wire.seq_next(seq)
            frame = wire.encode(ftype, self.tag, seq, payload)
            if not self.history:
                self.rto = self.rto_ms
            entry = [seq, frame, now, None]
            self.history.append(entry)
            if ev is not None and self.on_event is not None:
                self.on_event(ev[0], ev[1], ev[2], seq)
            entry[2] = self._send(frame, now)

    def _resend(self, start, count, now):
        end = min(len(self.history), start + count)
        for i in range(start, end):
            entry = self.history[i]
            entry[2] = entry[3] = self._send(entry[1], now)
            self.stats_resent += 1

    def _index_of(self, seq):
        if not self.history:
            return None
        i = wire.seq_diff(seq, self.history[0][0])
        if 0 <= i < len(self.history):
            return i
        return None

    def _ack(self, seq):
        """Everything up to and including ``seq`` arrived. False if ``seq`` was never sent."""
        if wire.seq_diff(seq, self.next_seq) >= 0:
            return False
        dropped = 0
        while self.history and wire.seq_diff(self.history[0][0], seq) <= 0:
            self.history.pop(0)
            dropped += 1
        if dropped:
            self.rto = self.rto_ms
        return True

    def _command(self, ftype, tag, num, now):
        if ftype == wire.T_SYNC:
            self.times = self.can_time and bool(num & wire.X_TIMES)
            self.hello(now)
            return
        if ftype not in (wire.T_ACK, wire.T_NAK, wire.T_SNAP_REQ):
            self.error(wire.E_UNKNOWN_COMMAND, wire.NO_ANTENNA, ftype, b"unknown command")
            return
        if tag != self.tag:
            self._stale_host(tag, now, b"host uses an old boot tag")
        elif ftype == wire.T_SNAP_REQ:
            self.snapshot_wanted = True
        elif ftype == wire.T_ACK:
            if not self._ack(num):
                self._stale_host(num, now, b"host acknowledges frames never sent")
        else:
            self._nak(num, now)

    def _stale_host(self, detail, now, text):
        """The host talks about another boot or another sequence space: tell it who we are now."""
        if self.last_hello_at is None or now - self.last_hello_at >= 100:
            self.error(wire.E_STALE_HOST, wire.NO_ANTENNA, detail, text)
            self.hello(now)

    def _nak(self, seq, now):
        """The host has everything before ``seq`` and asks for ``seq`` onwards."""
        if wire.seq_diff(seq, self.next_seq) > 0 or not self._ack((seq - 1) & 0xFFFF):
            self._stale_host(seq, now, b"host asks for frames never sent")
            return
        if seq == self.next_seq:
            return   # nothing missing: the host saw a corrupt frame that was not one of ours
        i = self._index_of(seq)
        if i is None:
            if wire.seq_diff(seq, self.next_seq) < 0:
                self.error(wire.E_HISTORY_LOST, wire.NO_ANTENNA, seq, b"cannot resend; starting afresh")
                self.hello(now)
            return
        # A NAK that comes before our resent copy can have reached the host asks for what is
        # already on its way (``resent`` is when that copy leaves the wire).
        resent = self.history[i][3]
        if resent is not None and now - resent < self.nak_guard_ms:
            return
        self._resend(i, self.resend_burst, now)
