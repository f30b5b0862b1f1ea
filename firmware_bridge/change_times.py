"""When each antenna changed, on the host's clock. A protocol 1.1 device stamps its changes with
its own uptime; heartbeats (and snapshot ends) tell how its clock relates to ours, and after a
snapshot every antenna gets a time -- the device's where it sent one, else the moment we learned.
The referee orders moves by these times.
"""

from __future__ import annotations

from collections import deque

from firmware_bridge.tag_table import Table


class DeviceClock:
    """The device's uptime on our clock, from the offsets the recent heartbeats show."""

    def __init__(self) -> None:
        self._offsets: deque[float] = deque(maxlen=40)   # our clock minus the device's, per heartbeat

    def observe(self, now: float, t_ms: int) -> None:
        """The device said its uptime was ``t_ms`` when the frame arrived at ``now``."""
        self._offsets.append(now - t_ms / 1000.0)

    def forget(self) -> None:
        """Another boot: another clock."""
        self._offsets.clear()

    def device_time(self, t_ms: int | None, now: float) -> float:
        """A device change time on our clock (``now`` when there is none, or no clock offset yet).

        Each heartbeat gives our clock minus the device's plus the delay on the way; the smallest
        recent one is the offset with the least delay in it."""
        if t_ms is None or not self._offsets:
            return now
        return min(now, min(self._offsets) + t_ms / 1000.0)


def stamp_snapshot(changed: dict[int, float], clock: DeviceClock, old: Table | None, new: Table,
                   times: dict[int, int], now: float) -> None:
    """Change times after a snapshot, into ``changed``: the device's where it sent them; otherwise
    ``now`` for every antenna that differs from what we believed (we cannot know when it changed)."""
    for antenna in set(new) | set(old or {}):
        if antenna in times:
            changed[antenna] = clock.device_time(times[antenna], now)
        elif old is None or old.get(antenna) != new.get(antenna):
            changed[antenna] = now
