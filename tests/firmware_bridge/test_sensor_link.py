"""Port discovery and the reconnect policy (layer 1 and 4), without and with a real pty."""

from __future__ import annotations

import logging

import pytest

from firmware_bridge.emulator import EmulatedSensorBoard
from firmware_bridge.link import LinkState, ReconnectPolicy, SensorLink
from firmware_bridge.transport import PortInfo, PortNotFound, PortResolver, PortSpec, TransportLost, find_port
from sensor_rig import wait_for

PORTS = [
    PortInfo("/dev/ttyUSB0", 0x10C4, 0xEA60, "0001"),
    PortInfo("/dev/ttyACM1", 0x2E8A, 0x0005, "E6614104039A2F2B"),
    PortInfo("/dev/ttyACM0", 0x2E8A, 0x0005, "E66141040000AAAA"),
    PortInfo("/dev/ttyS0"),
]


def test_find_port_by_usb_id_and_serial_number():
    assert find_port(comports=lambda: PORTS) == "/dev/ttyACM0"
    assert find_port(serial_number="e6614104039a2f2b", comports=lambda: PORTS) == "/dev/ttyACM1"
    assert find_port(0x10C4, 0xEA60, comports=lambda: PORTS) == "/dev/ttyUSB0"
    assert find_port(serial_number="nope", comports=lambda: PORTS) is None


def test_resolver_says_plainly_when_nothing_is_there(tmp_path):
    with pytest.raises(PortNotFound, match="USB 2E8A:0005 serial X"):
        PortResolver(PortSpec(serial_number="X"), comports=lambda: PORTS).resolve()
    with pytest.raises(PortNotFound, match="does not exist"):
        PortResolver(PortSpec(path=str(tmp_path / "ttyNONE"))).resolve()
    assert issubclass(PortNotFound, TransportLost) and issubclass(PortNotFound, OSError)


def test_backoff_grows_and_is_capped():
    p = ReconnectPolicy(initial=0.05, factor=1.8, cap=5.0)
    delays = [p.delay(n) for n in range(12)]
    assert delays[0] == 0.05 and delays == sorted(delays) and delays[-1] == 5.0
    assert p.delay(-3) == 0.05


@pytest.mark.timeout(30)
def test_link_waits_for_a_board_that_is_plugged_in_later(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    path = tmp_path / "ttySENSOR"
    link = SensorLink(PortSpec(path=str(path)), policy=ReconnectPolicy(0.01, 1.5, 0.05)).start()
    try:
        wait_for(lambda: link.health().connect_failures >= 5, 5, "failed attempts")
        assert link.state in (LinkState.BACKOFF, LinkState.SEARCHING)
        assert caplog.text.count("does not exist") == 1          # said once, not every attempt
        with EmulatedSensorBoard(4, link_path=path, seed=2) as emu:
            emu.place(2, "04A1B2C3D4E580")
            wait_for(lambda: link.table() == {2: frozenset([bytes.fromhex("04A1B2C3D4E580")])}, 5, "table")
            h = link.health()
            assert h.state is LinkState.LIVE and h.reconnects == 0 and h.port == str(path)
    finally:
        link.close()
        link.close()                                              # idempotent
    assert link.state is LinkState.STOPPED
