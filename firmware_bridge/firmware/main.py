# Raspberry Pi Pico (RP2040) entry point of the sensor-board firmware. MicroPython only.
#
# Copy to the Pico with mpremote (docs/sensor-board-hardware.md, "Flashing"):
#   mpremote cp -r firmware_bridge/firmware/tablefw :
#   mpremote cp firmware_bridge/firmware/main.py :main.py
#
# This is the only file that touches the hardware (machine, USB serial). Everything it runs --
# scanning, debouncing, the protocol -- lives in tablefw/ and is tested under CPython and under
# the MicroPython unix port with fake readers.
#
# Wiring (see the hardware doc for the full table):
#   SPI0  SCK GP18, MOSI GP19, MISO GP16 (through one 74HC125 buffer per reader), 1 MHz
#   chip select: A0..A3 = GP10..GP13 -> all 74HC154 (4-to-16);  G0..G2 = GP14, GP15, GP20 ->
#   74HC138 (3-to-8) whose outputs enable one 74HC154 each;  STROBE = GP21 -> 74HC138 /G2A.
#   Only one reader can ever be selected: the decoders make two at once impossible.
#   MFRC522 RST of every reader: GP22 (held high; pulsed low once at boot).

import os
import select
import sys
import time

import machine
import micropython
from machine import Pin, SPI

from tablefw.device import Device
from tablefw.rc522 import Rc522, Rc522Array
from tablefw.scanner import ReaderError, Scanner

ANTENNAS = 61          # must match the wiring map on the Pi (firmware_bridge/wiring/*.json)
MAX_TAGS = 8           # per antenna; a dragon space holds at most 8 emissaries in China
ARRIVE_HITS = 2
DEPART_MISSES = 3
SPI_BAUD = 1000000     # long board wiring: stay slow (the MFRC522 allows up to 10 MHz)

# Safe mode: a jumper from GP28 to GND at power-up leaves the REPL usable (for mpremote) instead
# of starting the firmware, which turns Ctrl-C off because 0x03 is data in our frames.
if Pin(28, Pin.IN, Pin.PULL_UP).value() == 0:
    raise SystemExit

micropython.kbd_intr(-1)   # the byte 0x03 is data here, not Ctrl-C

spi = SPI(0, baudrate=SPI_BAUD, polarity=0, phase=0, sck=Pin(18), mosi=Pin(19), miso=Pin(16))
addr_pins = [Pin(n, Pin.OUT, value=0) for n in (10, 11, 12, 13)]
group_pins = [Pin(n, Pin.OUT, value=0) for n in (14, 15, 20)]
strobe = Pin(21, Pin.OUT, value=1)
reset = Pin(22, Pin.OUT, value=0)
led = Pin(25, Pin.OUT, value=0)


def address(antenna):
    strobe.value(1)
    for i in range(4):
        addr_pins[i].value((antenna >> i) & 1)
    group = antenna >> 4
    for i in range(3):
        group_pins[i].value((group >> i) & 1)


def chip_select(on):
    strobe.value(0 if on else 1)


class Clock:
    """Milliseconds since boot that never wrap (ticks_ms wraps; the protocol timers must not)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.total = 0

    def __call__(self):
        t = time.ticks_ms()
        self.total += time.ticks_diff(t, self.last)
        self.last = t
        return self.total


def usb_write(data):
    sys.stdout.buffer.write(data)


def main():
    time.sleep_ms(1)
    reset.value(1)              # release every MFRC522 from hard power-down
    time.sleep_ms(50)
    clock = Clock()
    pcd = Rc522(spi, chip_select, time.sleep_ms)
    readers = Rc522Array(pcd, address, ANTENNAS, MAX_TAGS, reader_error=ReaderError)
    scanner = Scanner(readers, ANTENNAS, ARRIVE_HITS, DEPART_MISSES, MAX_TAGS)
    boot_id = int.from_bytes(os.urandom(4), "little")
    device = Device(scanner, machine.unique_id(), boot_id, usb_write, now=clock())
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    wdt = machine.WDT(timeout=4000)   # a hung loop reboots; the host notices the new boot id
    while True:
        device.poll(clock())
        while poller.poll(0):
            device.receive(sys.stdin.buffer.read(1), clock())
        led.value(1 if scanner.tag_count() else 0)
        wdt.feed()


main()
