"""``tableref demo``: the real runtime on any machine, with emulated devices.

* the sensor board: the real firmware logic (``firmware_bridge.emulator.EmulatedSensorBoard``) on a
  pseudo-terminal, read by the real Pi-side bridge (``SensorLink`` + ``SensorBoard``);
* the camera: the synthetic camera of ``vision``/``hardware`` when it is installed (see
  ``camera_available``); without it the sensor board covers every space;
* GPIO through gpiozero's mock pin factory (the script presses the buttons on the mock pins);
* a card reader twin (``hardware.card_reader.FakeCardReader``) fed by the real tag registry.

This module wires China's demo (``build_demo``) and is the demo's entry point: ``tableref demo``
and the tests import from here what the parts define. ``DemoTable`` (``tableref.demo_table``) is the
physical table: it turns "put a red house on qi-1" into a tag placed on the antenna under qi-1 (and
a rendered piece for the camera). ``run_script`` (``tableref.demo_runner``) plays
``tableref.demo_script.SCRIPT`` and checks after each step that the referee answered as expected;
``enrol_camera`` (``tableref.demo_enrol``) enrols the synthetic camera as a user does; the other
games' demos are ``tableref.demo_games``.
"""

from __future__ import annotations

import os
from pathlib import Path

from scorer.core.types import Message
from scorer.referee.reconciler import ReconcilerSettings
from tableref.demo_camera import add_camera, camera_available, demo_layout, wants_camera
from tableref.demo_enrol import enrol_camera
from tableref.demo_games import GameDemo, build_game_demo, game_demo
from tableref.demo_runner import run_script, run_step, wait_until
from tableref.demo_script import GAME_DEMOS, SCRIPT, SETUP, Step
from tableref.demo_table import Demo, DemoError, DemoStopped, DemoTable, card_uids, piece_uids, write_registry
from tableref.runtime import Runtime
from tableref.table import TableSettings

DEMO_PIN = "2468"


# Antennas only under Wei and Lu: the camera alone covers the other provinces (and confirms these).
RFID_PROVINCES = ("wei", "lu")


def build_demo(data_dir: Path, *, settle: float = 0.4, complete_grace: float = 0.8, quiet_timeout: float = 4.0,
               camera: bool | None = None, camera_fps: float = 4.0, players: tuple[str, ...] | None = None,
               camera_only: bool = False) -> Demo:
    """The demo runtime with its emulated devices (not started). ``camera=None``: use the synthetic
    camera when it is installed. ``camera_only``: no sensor board at all; the synthetic camera alone,
    read by ``vision.table_reader.TableReader``, sees the board (enrol it first: ``enrol_camera``)."""
    from firmware_bridge.board import SensorBoard
    from firmware_bridge.emulator import EmulatedSensorBoard
    from firmware_bridge.link import ReconnectPolicy, SensorLink
    from firmware_bridge.transport import PortSpec
    from firmware_bridge.wiring import WiringMap
    from hardware.card_reader import FakeCardReader
    from hardware.gpio import GpioPins
    from scorer.games.china.board import load_board
    from tableref.devices import CardReaderDevice, GpioDevice, SensorBoardDevice

    data_dir.mkdir(parents=True, exist_ok=True)
    players = tuple(players or SETUP["players"])
    board = load_board(SETUP["board"])
    spaces = list(board.sites) + [p.dragon for p in board.provinces]
    notes: list[Message] = []
    layout = demo_layout("china", SETUP)
    use_camera = wants_camera(layout, camera, camera_only)
    rfid_spaces = spaces
    if use_camera and camera_only:
        rfid_spaces = []
        notes.append(Message.t("tableref.demo.note_camera_only", fps=f"{camera_fps:g}"))
    elif use_camera:
        rfid_spaces = [s for s in spaces if s.split("-")[0] in RFID_PROVINCES]
        notes.append(Message.t("tableref.demo.note_camera", fps=f"{camera_fps:g}", provinces=RFID_PROVINCES))
    else:
        notes.append(Message.t("tableref.demo.note_no_camera"))
    antenna_of = {s: i for i, s in enumerate(rfid_spaces)}
    registry = write_registry(data_dir / "tags.json", players)
    settings = TableSettings(settle=settle, reconciler=ReconcilerSettings(complete_grace=complete_grace, quiet_timeout=quiet_timeout),
                             name="demo table", player_names=(("blue", "Zhang San"), ("green", "Li Si"), ("red", "Wang Wu")))
    runtime = Runtime(store_path=str(data_dir / "demo.sqlite"), game_id="china", setup=dict(SETUP, players=list(players)), settings=settings,
                      registry=registry)
    emulator = None
    if not camera_only:
        wiring = WiringMap.of({i: s for s, i in antenna_of.items()}, board=board.id)
        emulator = EmulatedSensorBoard(antennas=len(rfid_spaces), seed=5)
        link = SensorLink(PortSpec(path=emulator.device_path), policy=ReconnectPolicy(initial=0.05, cap=1.0))
        sensor = SensorBoard(link, wiring, registry)
        runtime.add_device(SensorBoardDevice(sensor, emulator=emulator))
    cards = FakeCardReader(registry, name="demo-reader")
    runtime.add_device(CardReaderDevice(cards, emulated=True))
    synthetic = add_camera(runtime, layout, data_dir, camera_fps) if use_camera else None
    gpio = GpioDevice(GpioPins(), pin_factory="mock", expected_sources=(0 if camera_only else 1) + (synthetic is not None))
    runtime.add_device(gpio)
    table = DemoTable(emulator, antenna_of, piece_uids(players), synthetic)
    return Demo(runtime, table, gpio, cards, data_dir, notes)


def demo_data_dir(arg: str | None) -> tuple[Path, bool]:
    """The folder for the demo's store and files, and whether it is temporary."""
    if arg:
        return Path(arg), False
    import tempfile

    return Path(tempfile.mkdtemp(prefix="tableref-demo-")), True


def intro() -> Message:
    return Message.t('tableref.demo.tableref_demo_a_scripted_game')


__all__ = ["DEMO_PIN", "Demo", "DemoError", "DemoStopped", "DemoTable", "GAME_DEMOS", "GameDemo", "build_demo", "build_game_demo", "enrol_camera", "game_demo",
           "run_script", "demo_data_dir", "intro", "os",
           # what the parts define, for the demo's callers (tableref demo, the tests): one place to import from
           "SCRIPT", "SETUP", "Step", "camera_available", "card_uids", "piece_uids", "run_step", "wait_until", "wants_camera",
           "write_registry"]
