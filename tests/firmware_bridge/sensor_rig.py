"""A real pty rig: the emulated firmware on one side, the Pi's SensorBoard on the other.

Imported by conftest.py (the fixture) and by the tests (helpers); a plain module because the
test folders have no __init__.py.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import pytest

from firmware_bridge.board import SensorBoard
from firmware_bridge.emulator import EmulatedSensorBoard
from firmware_bridge.link import ReconnectPolicy, SensorLink
from firmware_bridge.transport import PortResolver, PortSpec
from firmware_bridge.wiring import WiringMap
from hardware.tag_registry import TagRegistry
from scorer.core import Board, Piece
from scorer.core.observation import Observation

ANTENNAS = 8
SPACES = {i: f"wei-{i + 1}" for i in range(ANTENNAS - 1)} | {ANTENNAS - 1: "wei-dragon"}


def uid(n: int) -> str:
    return f"04A1B2C3D4{n:04X}"


def wait_for(pred: Callable[[], object], timeout: float = 5.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.005)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@dataclass
class Rig:
    emu: EmulatedSensorBoard
    board: SensorBoard
    registry: TagRegistry
    pieces: dict[str, Piece]
    observations: list[Observation] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    truth: dict[str, int] = field(default_factory=dict)           # uid -> antenna
    history: dict[str, list[str]] = field(default_factory=dict)   # uid -> spaces it was put on

    def record(self, obs: Observation) -> None:
        with self.lock:
            self.observations.append(obs)

    def place(self, antenna: int, u: str) -> None:
        self.emu.place(antenna, u)
        self.truth[u] = antenna
        self.history.setdefault(u, []).append(SPACES[antenna])

    def remove(self, u: str) -> None:
        self.emu.remove(self.truth.pop(u), u)

    def move(self, u: str, antenna: int) -> None:
        self.emu.move(self.truth[u], antenna, u)
        self.truth[u] = antenna
        self.history.setdefault(u, []).append(SPACES[antenna])

    def expected(self) -> Board:
        return Board.from_placements((SPACES[a], self.pieces[u]) for u, a in self.truth.items() if u in self.pieces)

    def seen(self) -> Board | None:
        obs = self.board.latest()
        return None if obs is None else obs.board()

    def settle(self, timeout: float = 5.0) -> None:
        wait_for(lambda: self.seen() == self.expected() and self.emu_settled(), timeout, "the Pi to see the truth")

    def emu_settled(self) -> bool:
        want = {a: sorted(bytes.fromhex(u) for u, x in self.truth.items() if x == a) for a in set(self.truth.values())}
        return self.emu.firmware_table() == want

    def count(self) -> int:
        with self.lock:
            return len(self.observations)

    def trajectories(self) -> dict[str, list[str]]:
        """For each piece, the spaces it was observed on, in order, repeats collapsed."""
        by_piece = {p: u for u, p in self.pieces.items()}
        out: dict[str, list[str]] = {}
        with self.lock:
            for obs in self.observations:
                for r in obs.readings:
                    for piece, n in r.pieces:
                        assert n == 1, f"{piece} seen {n} times on {r.space}: invented"
                        u = by_piece[piece]
                        path = out.setdefault(u, [])
                        if not path or path[-1] != r.space:
                            path.append(r.space)
        return out

    def assert_nothing_lost_or_invented(self) -> None:
        """Every piece went exactly through the spaces it was put on, in order, never on two at once."""
        with self.lock:
            for obs in self.observations:
                placed = [p for r in obs.readings for p, _ in r.pieces]
                assert len(placed) == len(set(placed)), f"a piece on two spaces at once in {obs}"
        assert self.trajectories() == {u: h for u, h in self.history.items() if u in self.pieces}

    def health(self):
        return self.board.health()


@pytest.fixture
def make_rig(tmp_path):
    rigs: list[Rig] = []

    def make(*, link_path: bool = False, by_usb_id: bool = False, pieces: int = 24, baudrate: int | None = 115200,
             seed: int = 1) -> Rig:
        emu = EmulatedSensorBoard(ANTENNAS, seed=seed, sweep_ms=4, baudrate=baudrate,
                                  link_path=tmp_path / "ttySENSOR" if link_path else None)
        colours = ["red", "blue", "green", "yellow", "violet"]
        kinds = ["house", "emissary"]
        piece_of = {uid(n): Piece(colours[n % 5], f"{kinds[n % 2]}-{n}") for n in range(pieces)}
        registry = TagRegistry(tmp_path / "tags.json", piece_of)
        wiring = WiringMap.of(SPACES, board="wei-test")
        if by_usb_id:
            port = PortResolver(PortSpec(serial_number=emu.board_id.hex()), comports=emu.comports)
        else:
            port = PortResolver(PortSpec(path=emu.device_path))
        link = SensorLink(port, policy=ReconnectPolicy(initial=0.02, cap=0.2), dead_after=2.0)
        board = SensorBoard(link, wiring, registry)
        rig = Rig(emu, board, registry, piece_of)
        board.subscribe(rig.record)
        board.start()
        rigs.append(rig)
        wait_for(lambda: board.latest() is not None, 5, "the first observation")
        return rig

    yield make
    for rig in rigs:
        rig.board.close()
        rig.emu.close()
