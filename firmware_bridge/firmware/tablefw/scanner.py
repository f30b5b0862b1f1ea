# Antenna scanning and debouncing: one antenna per step, a confirmed antenna -> tags table.
#
# Portable (MicroPython and CPython). The reader is injected: anything with
# ``read(antenna) -> list of uid bytes`` that raises ReaderError when the reader itself fails
# (not when there is simply no tag). main.py passes the MFRC522 array, the tests and the emulator
# pass fakes.
#
# Rules (docs/sensor-board-hardware.md explains why):
# * a tag is confirmed on an antenna after ``arrive_hits`` consecutive scans of that antenna saw it;
# * a confirmed tag departs after ``depart_misses`` consecutive scans missed it;
# * a uid is on at most one antenna. A tag confirmed on B that becomes confirmed on A moves at
#   once (depart B, arrive A) -- but only if B's latest scan missed it (or B's reader is down), so
#   a tag lying across two antennas stays where it was first seen instead of flapping;
# * a reader fault is not a departure: the antenna keeps its tags until its reader answers again;
# * broken streaks (a confirmed tag missed then seen again, a new tag seen then gone before it was
#   confirmed) are counted as ``flicker``: suppressed transient reads.

EV_ARRIVE = 1
EV_DEPART = 2
EV_READER_FAULT = 3
EV_READER_OK = 4
EV_TOO_MANY = 5


class ReaderError(Exception):
    """The reader of an antenna did not answer (bus fault, reader unpowered); not 'no tag'."""


class Scanner:
    def __init__(self, reader, antennas, arrive_hits=2, depart_misses=3, max_tags=8, fault_after=3):
        if antennas < 1 or antennas > 254:
            raise ValueError("antennas must be 1..254")
        self.reader = reader
        self.antennas = antennas
        self.arrive_hits = arrive_hits
        self.depart_misses = depart_misses
        self.max_tags = max_tags
        self.fault_after = fault_after
        self.confirmed = [dict() for _ in range(antennas)]    # uid -> consecutive misses
        self.candidates = [dict() for _ in range(antennas)]   # uid -> consecutive hits
        self.where = {}                                        # uid -> antenna
        self.failures = [0] * antennas
        self.faulty = set()
        self.overfull = set()
        self.next_antenna = 0
        self.sweeps = 0
        self.flicker = 0
        self.last_flicker_antenna = 0xFF
        self.reader_errors = 0

    def table(self):
        """antenna -> sorted list of uids, only antennas with tags."""
        out = {}
        for a in range(self.antennas):
            if self.confirmed[a]:
                out[a] = sorted(self.confirmed[a])
        return out

    def tag_count(self):
        return len(self.where)

    def sweep(self):
        events = []
        for _ in range(self.antennas):
            events.extend(self.step())
        return events

    def step(self):
        """Scan the next antenna; return the events it caused as (kind, antenna, uid) tuples."""
        a = self.next_antenna
        self.next_antenna = a + 1
        if self.next_antenna >= self.antennas:
            self.next_antenna = 0
            self.sweeps += 1
        events = []
        try:
            seen = self.reader.read(a)
        except ReaderError:
            self.reader_errors += 1
            self.failures[a] += 1
            if self.failures[a] == self.fault_after:
                self.faulty.add(a)
                events.append((EV_READER_FAULT, a, None))
            return events
        if self.failures[a]:
            self.failures[a] = 0
            if a in self.faulty:
                self.faulty.discard(a)
                events.append((EV_READER_OK, a, None))
        seen = set(seen)
        if len(seen) > self.max_tags:
            if a not in self.overfull:
                self.overfull.add(a)
                events.append((EV_TOO_MANY, a, None))
            seen = set(sorted(seen)[:self.max_tags])
        else:
            self.overfull.discard(a)
        self._update(a, seen, events)
        return events

    def _flickered(self, a):
        self.flicker += 1
        self.last_flicker_antenna = a

    def _update(self, a, seen, events):
        confirmed = self.confirmed[a]
        candidates = self.candidates[a]
        for uid in list(confirmed):
            if uid in seen:
                if confirmed[uid]:
                    self._flickered(a)
                confirmed[uid] = 0
            else:
                confirmed[uid] += 1
                if confirmed[uid] >= self.depart_misses:
                    del confirmed[uid]
                    del self.where[uid]
                    events.append((EV_DEPART, a, uid))
        for uid in list(candidates):
            if uid not in seen:
                del candidates[uid]
                self._flickered(a)
        for uid in seen:
            if uid in confirmed:
                continue
            hits = candidates.get(uid, 0) + 1
            if hits < self.arrive_hits:
                candidates[uid] = hits
                continue
            candidates[uid] = self.arrive_hits   # capped: stays a candidate while blocked
            other = self.where.get(uid)
            if other is not None:
                if self.confirmed[other][uid] == 0 and other not in self.faulty:
                    continue   # still seen where it was: lying across two antennas, stay put
                del self.confirmed[other][uid]
                events.append((EV_DEPART, other, uid))
            if len(confirmed) >= self.max_tags:
                continue
            del candidates[uid]
            confirmed[uid] = 0
            self.where[uid] = a
            events.append((EV_ARRIVE, a, uid))
