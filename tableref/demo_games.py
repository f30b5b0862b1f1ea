"""The demos of the other games (``tableref demo --game``): what one game's demo is (``GameDemo``; each
game's module ``tableref.demo_<game>`` defines one as ``DEMO``), finding it, and wiring the same
emulated runtime as China's demo for it, with a tag for every piece its set-up and script put down.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorer.core.types import Message, Piece
from scorer.referee.reconciler import ReconcilerSettings
from tableref.demo_camera import add_camera, camera_note, demo_layout, wants_camera
from tableref.demo_script import GAME_DEMOS, Step
from tableref.demo_table import Demo, DemoError, DemoTable
from tableref.runtime import Runtime
from tableref.table import TableSettings


@dataclass(frozen=True)
class GameDemo:
    """A scripted demo of one game: its set-up, the spaces with an antenna under them, the script and
    the lines that introduce it. Each game's module (``tableref.demo_<game>``) defines ``DEMO``."""

    game_id: str
    setup: dict[str, Any]
    spaces: tuple[str, ...]
    script: tuple[Step, ...]
    intro: Message
    player_names: tuple[tuple[str, str], ...] = ()
    notes: tuple[Message, ...] = ()
    quiet_timeout: float = 4.0  # at speed 1 (scaled down with --speed like China's)
    close_on_complete: bool = True  # False: a complete reading waits (for a declaration, the next player, the timeout)
    camera: bool = False  # the synthetic camera reads the board too (its vision layout: the game's board kit)
    rfid_regions: tuple[str, ...] = ()  # with the camera: antennas only under the spaces of these layout regions
    # (a space without a region counts as its own: Zhang Yi's areas)
    camera_fill: float | None = None  # the board's share of the camera's frame (None: the renderer's default)
    enrol: bool = False  # with the camera: enrol the table before the game even with the sensor board (as a user does)
    camera_only_gap: str = ""  # why the camera alone cannot play this script ("" when it can)

    def initial_board(self) -> Any:
        """What the table shows after the game's set-up (Cheops: the pyramid's treasures and laws)."""
        from scorer.core.game import SetupOptions
        from scorer.core.registry import get_game

        game = get_game(self.game_id)
        return game.visible_board(game.setup(SetupOptions.from_json(self.setup)))


NO_CAMERA_NOTE = Message.t("tableref.demo.note_no_vision_layout")


def game_demo(game_id: str) -> GameDemo:
    import importlib

    if game_id not in GAME_DEMOS:
        raise DemoError(f"no demo for {game_id!r} (choose from china, {', '.join(GAME_DEMOS)})")
    demo: GameDemo = importlib.import_module(f"tableref.demo_{game_id}").DEMO
    return demo


def script_uids(script: tuple[Step, ...], initial: Any = None, first: int = 0xD0000000) -> dict[Piece, list[str]]:
    """One tag per piece of the set-up and per piece the script ever puts down."""
    count: dict[Piece, int] = {}
    for space in (initial.spaces() if initial is not None else ()):
        for piece, n in initial.pieces(space).items():
            count[piece] = count.get(piece, 0) + n
    for step in script:
        for _space, owner, kind in step.put:
            piece = Piece(owner, kind)
            count[piece] = count.get(piece, 0) + 1
    out: dict[Piece, list[str]] = {}
    n = first
    for piece in sorted(count, key=lambda p: (p.owner, p.kind)):
        out[piece] = []
        for _ in range(count[piece]):
            out[piece].append(f"{n:08X}")
            n += 1
    return out


def build_game_demo(gd: GameDemo, data_dir: Path, *, settle: float = 0.4, complete_grace: float = 0.8,
                    quiet_timeout: float = 4.0, camera: bool | None = None, camera_only: bool = False,
                    camera_fps: float = 4.0) -> Demo:
    """The same runtime as China's demo for another game: mock GPIO, the emulated sensor board with
    an antenna under every space in ``gd.spaces`` and, for a demo with ``gd.camera`` (``camera``
    None: when it is installed), the synthetic camera over the board's vision layout; then the
    antennas lie only under ``gd.rfid_regions``. ``camera_only``: no sensor board at all (enrol the
    camera first: ``enrol_camera``)."""
    from firmware_bridge.board import SensorBoard
    from firmware_bridge.emulator import EmulatedSensorBoard
    from firmware_bridge.link import ReconnectPolicy, SensorLink
    from firmware_bridge.transport import PortSpec
    from firmware_bridge.wiring import WiringMap
    from hardware.gpio import GpioPins
    from hardware.tag_registry import TagRegistry
    from tableref.devices import GpioDevice, SensorBoardDevice

    data_dir.mkdir(parents=True, exist_ok=True)
    layout = demo_layout(gd.game_id, gd.setup) if gd.camera or camera_only else None
    use_camera = wants_camera(layout, camera, camera_only)
    rfid_spaces = list(gd.spaces)
    if use_camera:
        rfid_spaces = [] if camera_only else [s for s in gd.spaces
                                              if not gd.rfid_regions or (layout.space(s).region or s) in gd.rfid_regions]
        notes = [camera_note(camera_only, camera_fps, gd.rfid_regions)]
    else:
        notes = [NO_CAMERA_NOTE]
    initial = gd.initial_board()
    uids = script_uids(gd.script, initial)
    registry = TagRegistry(data_dir / "tags.json", {uid: piece for piece, us in uids.items() for uid in us})
    registry.save()
    antenna_of = {s: i for i, s in enumerate(rfid_spaces)}
    settings = TableSettings(settle=settle, reconciler=ReconcilerSettings(complete_grace=complete_grace, quiet_timeout=quiet_timeout,
                                                                          close_on_complete=gd.close_on_complete),
                             name="demo table", player_names=gd.player_names)
    runtime = Runtime(store_path=str(data_dir / "demo.sqlite"), game_id=gd.game_id, setup=dict(gd.setup), settings=settings,
                      registry=registry)
    emulator = None
    if not camera_only:
        wiring = WiringMap.of({i: s for s, i in antenna_of.items()}, board=gd.game_id)
        emulator = EmulatedSensorBoard(antennas=len(rfid_spaces), seed=5, max_tags=16)
        link = SensorLink(PortSpec(path=emulator.device_path), policy=ReconnectPolicy(initial=0.05, cap=1.0))
        sensor = SensorBoard(link, wiring, registry)
        runtime.add_device(SensorBoardDevice(sensor, emulator=emulator))
    synthetic = add_camera(runtime, layout, data_dir, camera_fps, fill=gd.camera_fill) if use_camera else None
    if synthetic is not None and gd.enrol:  # nothing the camera reads counts before its enrolment (``enrol_camera``)
        from tableref.camera_enrolment import HOLD

        runtime.devices_["camera"].hold(HOLD)
    gpio = GpioDevice(GpioPins(), pin_factory="mock", expected_sources=(0 if camera_only else 1) + (synthetic is not None))
    runtime.add_device(gpio)
    table = DemoTable(emulator, antenna_of, uids, synthetic)
    seen = set(antenna_of) | (set(layout.space_ids) if synthetic is not None else set())
    missing = sorted(set(initial.spaces()) - seen)
    if missing:
        raise DemoError(f"the set-up puts pieces on spaces nothing sees: {', '.join(missing)}")
    for space in initial.spaces():  # the players set the game up before the referee starts
        for piece, n in sorted(initial.pieces(space).items()):
            for _ in range(n):
                table.put(space, piece)
    return Demo(runtime, table, gpio, None, data_dir, [*notes, *gd.notes], initial)
