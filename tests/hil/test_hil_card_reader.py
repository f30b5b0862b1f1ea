"""The RDM6300 125 kHz card reader on the Pi's UART (docs/hil.md, "Card reader"): the UART is
enabled and free of the serial console, a card tap is read once with a valid checksum, and a
card held on the reader is one tap, not many."""

from __future__ import annotations

import os
import threading

import pytest

from hil_rig import ask, setting, wait_until


def test_the_uart_is_there_and_not_the_serial_console() -> None:
    port = setting("UART", "/dev/serial0")
    assert os.path.exists(port), f"{port} missing: enable the UART (raspi-config > Interface Options > Serial Port)"
    cmdline = open("/proc/cmdline").read()
    target = os.path.basename(os.path.realpath(port))
    assert f"console={target}" not in cmdline and "console=serial0" not in cmdline, \
        "the serial console uses the UART: raspi-config > Serial Port > login shell: No, hardware: Yes"


@pytest.fixture
def reader(tmp_path):
    from hardware.card_reader import SerialCardReader
    from hardware.tag_registry import TagRegistry

    taps: list = []
    tapped = threading.Event()
    r = SerialCardReader(setting("UART", "/dev/serial0"), TagRegistry(tmp_path / "cards.json"))
    r.subscribe(lambda tap: (taps.append(tap), tapped.set()))
    r.start()
    r.taps_seen, r.tapped = taps, tapped  # type: ignore[attr-defined]
    yield r
    r.close()


def test_a_card_tap_is_read_once_with_a_good_checksum(reader) -> None:
    ask("Tap a 125 kHz card on the reader, then take it away")
    assert reader.tapped.wait(float(setting("WAIT", "30"))), f"no card read: {reader.health().to_json()}"
    wait_until(lambda: False, 2.0)  # let the reader repeat the card while it is near
    assert len(reader.taps_seen) == 1, [t.uid for t in reader.taps_seen]
    assert reader.frames_bad == 0 and len(reader.taps_seen[0].uid) == 10


def test_a_card_held_on_the_reader_is_one_tap_and_a_second_tap_is_another(reader) -> None:
    ask("Hold a card on the reader for 3 seconds, take it away, then tap it again")
    assert wait_until(lambda: len(reader.taps_seen) >= 2, float(setting("WAIT", "30")) + 5)
    assert len({t.uid for t in reader.taps_seen}) == 1 and reader.frames_good > len(reader.taps_seen)
