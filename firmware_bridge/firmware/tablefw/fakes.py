# A faithful fake of the reader array, for the tests and the emulator (portable).
#
# It obeys the same contract as the MFRC522 array in main.py: ``read(antenna)`` returns the uids
# the antenna's field powers on this scan, raises ReaderError while the reader is faulty. A tag
# can be given a visibility pattern (e.g. "10" = seen every other scan of that antenna) to play a
# tag lying at the edge of an antenna.

from .scanner import ReaderError


class FakeReaderArray:
    def __init__(self, antennas):
        self.antennas = antennas
        self.fields = [dict() for _ in range(antennas)]   # uid -> pattern string ("1" = always)
        self.scans = [0] * antennas
        self.faulty = set()

    def _check(self, antenna):
        if not 0 <= antenna < self.antennas:
            raise ValueError("no antenna %d (0..%d)" % (antenna, self.antennas - 1))

    def place(self, antenna, uid, pattern="1"):
        self._check(antenna)
        if not pattern or any(c not in "01" for c in pattern) or "1" not in pattern:
            raise ValueError("pattern must be made of 0 and 1 and contain a 1")
        self.fields[antenna][bytes(uid)] = pattern

    def remove(self, antenna, uid):
        self._check(antenna)
        uid = bytes(uid)
        if uid not in self.fields[antenna]:
            raise KeyError("tag not on antenna %d" % antenna)
        del self.fields[antenna][uid]

    def clear(self):
        for f in self.fields:
            f.clear()

    def set_fault(self, antenna, faulty=True):
        self._check(antenna)
        if faulty:
            self.faulty.add(antenna)
        else:
            self.faulty.discard(antenna)

    def read(self, antenna):
        n = self.scans[antenna]
        self.scans[antenna] = n + 1
        if antenna in self.faulty:
            raise ReaderError("reader %d not answering" % antenna)
        out = []
        for uid, pattern in self.fields[antenna].items():
            if pattern[n % len(pattern)] == "1":
                out.append(uid)
        return out


# ---- a simulated RF field with ISO/IEC 14443-3 type A tags, at the bit level ----------------

from . import iso14443a as _iso

_IDLE = 0
_READY = 1
_ACTIVE = 2
_HALT = 3


class _FakeTag:
    def __init__(self, uid):
        if len(uid) not in (4, 7, 10):
            raise ValueError("uid must have 4, 7 or 10 bytes")
        self.uid = bytes(uid)
        self.state = _IDLE
        self.level = 0
        levels = []
        u = self.uid
        while len(u) > 4:
            levels.append(bytes([_iso.CT]) + u[:3])
            u = u[3:]
        levels.append(u)
        self.cl = [c + bytes([c[0] ^ c[1] ^ c[2] ^ c[3]]) for c in levels]

    def atqa(self):
        return bytes([(0x00, 0x40, 0x80)[len(self.cl) - 1] | 0x04, 0x00])


def _bit(data, i):
    return (data[i // 8] >> (i % 8)) & 1


class FakeField:
    """The tags one antenna powers, answering like real tags (states, cascade, collisions, CRC_A)."""

    def __init__(self, uids=()):
        self.tags = [_FakeTag(u) for u in uids]
        self.on = False
        self.frames = 0

    def field(self, on):
        if not on:
            for t in self.tags:
                t.state = _IDLE
                t.level = 0
        self.on = on

    def transceive(self, data, tx_last_bits=0, rx_align=0):
        self.frames += 1
        if not self.on:
            return (_iso.ST_TIMEOUT, b"", 0, 0)
        cmd = data[0]
        if len(data) == 1 and tx_last_bits == 7 and cmd in (_iso.REQA, _iso.WUPA):
            woken = [t for t in self.tags if t.state == _IDLE or (cmd == _iso.WUPA and t.state == _HALT)]
            for t in woken:
                t.state = _READY
                t.level = 0
            return self._answer([t.atqa() for t in woken], 0, 16, 0)
        if cmd in _iso.SEL and len(data) >= 2:
            level = _iso.SEL.index(cmd)
            ready = [t for t in self.tags if t.state == _READY and t.level == level]
            nvb = data[1]
            if nvb == 0x70:
                if len(data) != 9 or _iso.crc_a(data[:7]) != bytes(data[7:9]):
                    return (_iso.ST_TIMEOUT, b"", 0, 0)
                # Every tag whose part matches is selected (7-byte uids of one maker often share
                # their cascade-level-1 part); the others fall back to IDLE.
                chosen = [t for t in ready if t.cl[level] == bytes(data[2:7])]
                for t in ready:
                    if t not in chosen:
                        t.state = _IDLE
                if not chosen:
                    return (_iso.ST_TIMEOUT, b"", 0, 0)
                sak = 0x00
                for t in chosen:
                    if level + 1 < len(t.cl):
                        t.level = level + 1
                        sak = _iso.SAK_INCOMPLETE
                    else:
                        t.state = _ACTIVE
                return (_iso.ST_OK, bytes([sak]) + _iso.crc_a(bytes([sak])), 0, 0)
            known_bits = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
            if known_bits < 0 or known_bits > 32 or tx_last_bits != (nvb & 0x0F) or rx_align != (nvb & 0x0F):
                return (_iso.ST_ERROR, b"", 0, 0)
            sent = data[2:]
            match = [t for t in ready if all(_bit(t.cl[level], i) == _bit(sent, i) for i in range(known_bits))]
            return self._answer([t.cl[level] for t in match], known_bits, 40, rx_align)
        if cmd == _iso.HLTA and len(data) == 4 and _iso.crc_a(data[:2]) == bytes(data[2:]):
            for t in self.tags:
                if t.state == _ACTIVE:
                    t.state = _HALT
            return (_iso.ST_TIMEOUT, b"", 0, 0)
        for t in self.tags:
            if t.state in (_READY, _ACTIVE):
                t.state = _IDLE
        return (_iso.ST_TIMEOUT, b"", 0, 0)

    def _answer(self, answers, first_bit, total_bits, rx_align):
        """Superpose the tags' answers from ``first_bit`` on, as a reader receives them."""
        if not answers:
            return (_iso.ST_TIMEOUT, b"", 0, 0)
        nbits = total_bits - first_bit
        out = bytearray((rx_align + nbits + 7) // 8)
        coll = 0
        for k in range(nbits):
            i = first_bit + k
            bits = [_bit(a, i) for a in answers]
            value = bits[0]
            if not coll and any(b != value for b in bits):
                coll = k + 1
            if coll:
                value = 0   # ValuesAfterColl cleared: bits from the collision on read as 0
            pos = rx_align + k
            out[pos // 8] |= value << (pos % 8)
        if coll:
            return (_iso.ST_COLLISION, bytes(out), 0, coll)
        return (_iso.ST_OK, bytes(out), (rx_align + nbits) % 8, 0)
