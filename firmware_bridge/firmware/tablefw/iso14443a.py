# ISO/IEC 14443-3 type A inventory: list every tag in one reader's field.
#
# Several tags on one antenna are normal (a dragon space holds many emissaries, a house stands on
# a fortress), so a scan is a loop: REQA wakes the tags that are not halted, the bit-oriented
# anticollision of each cascade level singles one out (at a collision we take the branch with
# the bit set), SELECT confirms it, HLTA puts it to sleep, and the next REQA finds the next one.
# Switching the field off afterwards returns every tag to IDLE for the next scan.
#
# The reader is reached through one small, bit-level seam (``pcd``):
#   pcd.transceive(data, tx_last_bits, rx_align) -> (status, resp, rx_last_bits, coll_pos)
# ``tx_last_bits``: valid bits of the last byte sent (0 = all 8). ``rx_align``: bit position in
# resp[0] where the first received bit is stored (lower bits are 0). ``coll_pos``: 1-based
# position, counted from the first received bit, of the first bit where tags answered differently.
# rc522.py implements it on the MFRC522's registers, fakes.FakeField on simulated tags. Portable.

ST_OK = 0
ST_TIMEOUT = 1
ST_COLLISION = 2
ST_ERROR = 3

REQA = 0x26
WUPA = 0x52
HLTA = 0x50
CT = 0x88
SEL = (0x93, 0x95, 0x97)
SAK_INCOMPLETE = 0x04


def crc_a(data):
    """CRC_A of ISO/IEC 14443-3 (init 0x6363, reflected poly 0x8408); returns the 2 bytes to send."""
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return bytes([crc & 0xFF, (crc >> 8) & 0xFF])


def request(pcd, wake=False):
    """True if at least one tag answered (an ATQA collision also means tags are there)."""
    st, resp, _bits, _coll = pcd.transceive(bytes([WUPA if wake else REQA]), 7, 0)
    if st == ST_COLLISION:
        return True
    return st == ST_OK and len(resp) == 2


def _anticollision(pcd, sel):
    """Resolve one cascade level; -> 5 bytes (4 uid bytes + BCC) or None."""
    known = bytearray(5)
    known_bits = 0
    for _ in range(33):
        whole = known_bits // 8
        partial = known_bits % 8
        nvb = ((2 + whole) << 4) | partial
        frame = bytes([sel, nvb]) + bytes(known[:whole + (1 if partial else 0)])
        st, resp, _bits, coll = pcd.transceive(frame, partial, partial)
        if st != ST_OK and st != ST_COLLISION:
            return None
        for i in range(len(resp)):
            j = whole + i
            if j >= 5:
                break
            if i == 0 and partial:
                mask = (0xFF << partial) & 0xFF
                known[j] = (known[j] & ~mask & 0xFF) | (resp[0] & mask)
            else:
                known[j] = resp[i]
        if st == ST_OK:
            if whole + len(resp) < 5:
                return None
            break
        pos = known_bits + coll   # absolute, 1-based
        if coll < 1 or pos > 32:
            return None
        byte_i = (pos - 1) // 8
        bit_i = (pos - 1) % 8
        known[byte_i] = (known[byte_i] & ((1 << bit_i) - 1)) | (1 << bit_i)
        known_bits = pos
    else:
        return None
    if known[4] != known[0] ^ known[1] ^ known[2] ^ known[3]:
        return None
    return bytes(known)


def select(pcd):
    """Single out one READY tag through the cascade levels; -> its uid (4, 7 or 10 bytes) or None."""
    uid = bytearray()
    for sel in SEL:
        cl = _anticollision(pcd, sel)
        if cl is None:
            return None
        frame = bytes([sel, 0x70]) + cl
        st, resp, _bits, _coll = pcd.transceive(frame + crc_a(frame), 0, 0)
        if st != ST_OK or len(resp) != 3 or crc_a(resp[:1]) != bytes(resp[1:]):
            return None
        sak = resp[0]
        if sak & SAK_INCOMPLETE:
            if cl[0] != CT:
                return None
            uid.extend(cl[1:4])
        else:
            uid.extend(cl[0:4])
            return bytes(uid)
    return None


def halt(pcd):
    frame = bytes([HLTA, 0x00])
    pcd.transceive(frame + crc_a(frame), 0, 0)   # a halted tag does not answer


def inventory(pcd, limit, retries=2):
    """Every tag in the field, up to ``limit + 1`` (one more than allowed shows an overfull antenna)."""
    uids = []
    failures = 0
    while len(uids) <= limit:
        if not request(pcd):
            break
        uid = select(pcd)
        if uid is None:
            failures += 1
            if failures > retries:
                break
            continue
        if uid not in uids:
            uids.append(uid)
        halt(pcd)
    return uids
