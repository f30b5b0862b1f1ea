"""The sensor board on USB serial (docs/hil.md, "Sensor board"): the Pi finds it, the link comes
up, a tag put on an antenna is seen there and its removal too, and a replug is survived."""

from __future__ import annotations

import pytest

from hil_rig import ask, setting, wait_until


@pytest.fixture
def link():
    from firmware_bridge.link import SensorLink
    from firmware_bridge.transport import PortSpec

    port = setting("SENSOR_PORT", "/dev/ttyACM0")
    link = SensorLink(PortSpec(path=None if port == "auto" else port)).start()
    yield link
    link.close()


def test_the_board_is_found_and_the_link_comes_up(link) -> None:
    from firmware_bridge.link import LinkState

    assert wait_until(lambda: link.state == LinkState.LIVE, 15), f"link {link.state}: {link.health().to_json()}"
    assert link.health().frames_bad == 0


def test_a_tag_on_an_antenna_is_seen_there_and_its_removal_too(link) -> None:
    from firmware_bridge.link import LinkState

    antenna = int(setting("ANTENNA", "0"))
    assert wait_until(lambda: link.state == LinkState.LIVE, 15)
    before = dict(link.table or {})
    ask(f"Put one tag on antenna {antenna}")
    seen = wait_until(lambda: (link.table or {}).get(antenna, frozenset()) - before.get(antenna, frozenset()))
    assert seen, f"nothing new on antenna {antenna}: {link.table}"
    others = {a: u for a, u in (link.table or {}).items() if a != antenna and u != before.get(a)}
    assert not others, f"the tag also showed on other antennas: {others} (crosstalk)"
    ask(f"Take the tag off antenna {antenna}")
    assert wait_until(lambda: not (set(seen) & set((link.table or {}).get(antenna, frozenset())))), "the removal was not seen"


def test_a_replugged_board_comes_back_without_a_restart(link) -> None:
    from firmware_bridge.link import LinkState

    assert wait_until(lambda: link.state == LinkState.LIVE, 15)
    ask("Unplug the sensor board's USB cable")
    assert wait_until(lambda: link.state != LinkState.LIVE), "the unplug was not noticed"
    ask("Plug it back in")
    assert wait_until(lambda: link.state == LinkState.LIVE, 30), f"link {link.state} after the replug"
