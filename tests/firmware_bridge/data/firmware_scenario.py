# Runs under CPython and under the MicroPython unix port; the test compares their output.
# MicroPython-safe on purpose: no f-strings with format specs, no typing.
import sys

sys.path.insert(0, sys.argv[1])

from tablefw import iso14443a, wire
from tablefw.device import Device
from tablefw.fakes import FakeField, FakeReaderArray
from tablefw.scanner import Scanner

out = bytearray()
readers = FakeReaderArray(6)
scanner = Scanner(readers, 6, 2, 3, 8)
dev = Device(scanner, b"\x01\x02\x03", 0xCAFEBABE, out.extend, now=0, byte_time_us=87)
clock = [0]


def sweep(n):
    for _ in range(n):
        clock[0] += 5
        dev.poll(clock[0], steps=6)


def host(ftype, num=0):
    dev.receive(wire.encode(ftype, dev.tag, num), clock[0])


A = bytes([4, 1, 2, 3, 4, 5, 6])
B = bytes([4, 1, 2, 3, 4, 5, 7])
readers.place(1, A)
sweep(3)
host(wire.T_SNAP_REQ)
sweep(1)
readers.place(2, B, "10")
readers.place(3, B)
sweep(4)
readers.remove(1, A)
readers.place(4, A)
sweep(4)
host(wire.T_NAK, 1)
host(wire.T_ACK, 3)
readers.set_fault(5)
sweep(5)
clock[0] += 300
dev.service(clock[0])
host(wire.T_SYNC)
# protocol 1.1: a host that asks for change times gets them in TAG, SNAP_ENTRY and SNAP_END
host(wire.T_SYNC, wire.X_TIMES)
readers.remove(3, B)
sweep(4)
host(wire.T_SNAP_REQ)
sweep(2)

events = []
for chunk in wire.Splitter().feed(bytes(out)):
    status, ftype, tag, num, payload = wire.parse(chunk)
    events.append("%d:%02x:%d:%s" % (status, ftype, num, payload.hex()))
print(len(out), "%04x" % wire.crc16(out))
for e in events:
    print(e)
for chunk in wire.Splitter().feed(bytes(out)):
    status, ftype, tag, num, payload = wire.parse(chunk)
    if status == wire.OK and ftype == wire.T_TAG:
        print("tag", wire.parse_tag_times(payload)[3])
    elif status == wire.OK and ftype == wire.T_SNAP_ENTRY:
        print("entry", wire.parse_snap_entry_times(payload)[3])
    elif status == wire.OK and ftype == wire.T_SNAP_END:
        print("end", wire.parse_snap_end_times(payload)[4])
print("table", sorted((a, [u.hex() for u in us]) for a, us in scanner.table().items()))
print("flicker", scanner.flicker, "errors", scanner.reader_errors)

field = FakeField([A, B, bytes([0x11, 0x22, 0x33, 0x44]), bytes(range(1, 11))])
field.field(True)
print("inventory", sorted(u.hex() for u in iso14443a.inventory(field, 8)))
print("crc_a", iso14443a.crc_a(bytes([0x50, 0])).hex())
