"""``tableref demo``: the real runtime on any machine, with emulated devices.

* the sensor board: the real firmware logic (``firmware_bridge.emulator.EmulatedSensorBoard``) on a
  pseudo-terminal, read by the real Pi-side bridge (``SensorLink`` + ``SensorBoard``);
* the camera: the synthetic camera of ``vision``/``hardware`` when it is installed (see
  ``camera_available``); without it the sensor board covers every space;
* GPIO through gpiozero's mock pin factory (the script presses the buttons on the mock pins);
* a card reader twin (``hardware.card_reader.FakeCardReader``) fed by the real tag registry.

``DemoTable`` is the physical table: it turns "put a red house on qi-1" into a tag placed on the
antenna under qi-1 (and a rendered piece for the camera). ``run_script`` plays
``tableref.demo_script.SCRIPT`` and checks after each step that the referee answered as expected.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

from scorer.core.types import Message, Piece, TableRefError
from scorer.referee.reconciler import ReconcilerSettings
from tableref.demo_camera import add_camera, camera_note, demo_layout
from tableref.demo_script import GAME_DEMOS, SCRIPT, SETUP, Step
from tableref.lang import BOTH, show
from tableref.runtime import Runtime
from tableref.table import TableSettings
from tableref.texts import join_messages

DEMO_PIN = "2468"
KIND_CODE = {"house": 1, "emissary": 2, "fortress": 3}
PLAYER_CODE = {"blue": 1, "green": 2, "violet": 3, "red": 4, "yellow": 5, "neutral": 6}
CARD_COLOURS = ("violet", "yellow", "orange", "green", "red")


class DemoError(TableRefError, RuntimeError):
    """The referee did not answer a scripted step as expected."""


class DemoStopped(Exception):
    """Ctrl-C or SIGTERM during the scripted game: the script stops where it is."""


def piece_uids(players: tuple[str, ...]) -> dict[Piece, list[str]]:
    """Tag uids for every piece of the game: 20 houses, 8 emissaries per player, 5 fortresses."""
    out: dict[Piece, list[str]] = {}
    for owner in players:
        for kind, n in (("house", 20), ("emissary", 8)):
            out[Piece(owner, kind)] = [f"A{PLAYER_CODE[owner]}{KIND_CODE[kind]:02X}00{i:02X}" for i in range(n)]
    out[Piece("neutral", "fortress")] = [f"A{PLAYER_CODE['neutral']}{KIND_CODE['fortress']:02X}00{i:02X}" for i in range(5)]
    return out


def card_uids() -> dict[str, str]:
    return {c: f"C{i + 1}000000" for i, c in enumerate(CARD_COLOURS)}


def write_registry(path: Path, players: tuple[str, ...]) -> Any:
    from hardware.tag_registry import Card, TagRegistry

    reg = TagRegistry(path)
    tags: dict[str, Any] = {}
    for piece, uids in piece_uids(players).items():
        for uid in uids:
            tags[uid] = piece
    for colour, uid in card_uids().items():
        tags[uid] = Card(colour)
    reg = TagRegistry(path, tags)
    reg.save()
    return reg


def camera_available() -> bool:
    """The synthetic camera is the vision helper's part; use it when it is installed."""
    import importlib.util

    return importlib.util.find_spec("hardware.camera") is not None


@dataclass
class DemoTable:
    """The physical table of the demo: pieces on spaces, seen by the emulated sensors."""

    emulator: Any
    antenna_of: dict[str, int]
    uids: dict[Piece, list[str]]
    camera: Any = None
    placed: dict[tuple[str, Piece], list[str]] = field(default_factory=dict)

    def put(self, space: str, piece: Piece) -> None:
        free = self.uids[piece]
        if not free:
            raise DemoError(f"no {piece.owner} {piece.kind} left in the box")
        uid = free.pop(0)
        self.placed.setdefault((space, piece), []).append(uid)
        if space in self.antenna_of:
            self.emulator.place(self.antenna_of[space], uid)
        if self.camera is not None:
            self.camera.place(space, piece)

    def take(self, space: str, piece: Piece) -> None:
        uids = self.placed.get((space, piece))
        if not uids:
            raise DemoError(f"no {piece.owner} {piece.kind} on {space} to take")
        uid = uids.pop()
        self.uids[piece].insert(0, uid)
        if space in self.antenna_of:
            self.emulator.remove(self.antenna_of[space], uid)
        if self.camera is not None:
            self.camera.remove(space, piece)

    def roll(self, value: int | None) -> None:
        """A die thrown into the dice tray, showing ``value`` (only the camera sees it); None: the tray emptied."""
        if self.camera is not None:
            self.camera.roll(*(() if value is None else (value,)))

    def hand(self, spaces: tuple[str, ...]) -> None:
        """A hand over the board (only the camera can see it; RFID readings are held back by it)."""
        if self.camera is None:
            return
        if spaces:
            self.camera.hand_over(spaces[0])
        else:
            self.camera.withdraw_hand()


@dataclass
class Demo:
    runtime: Runtime
    table: DemoTable
    gpio: Any
    cards: Any
    data_dir: Path
    notes: list[Message]
    initial: Any = None  # the board right after set-up (None: an empty table)

    def reset_table(self) -> None:
        """The players put the table back as the set-up left it (before the next game of --loop)."""
        want: dict[tuple[str, Piece], int] = {}
        if self.initial is not None:
            for space in self.initial.spaces():
                for piece, n in self.initial.pieces(space).items():
                    want[(space, piece)] = n
        self.table.roll(None)
        for key in set(self.table.placed) | set(want):
            have = len(self.table.placed.get(key, ()))
            for _ in range(have - want.get(key, 0)):
                self.table.take(*key)
            for _ in range(want.get(key, 0) - have):
                self.table.put(*key)

    def close(self) -> None:
        self.runtime.stop()
        if self.table.emulator is not None:
            self.table.emulator.close()


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


def wants_camera(layout: Any, camera: bool | None, camera_only: bool) -> bool:
    """Whether a demo hangs the synthetic camera over its board: ``camera`` None means when it is
    installed and the board has a vision layout; ``camera_only`` needs both."""
    if camera_only and camera is False:
        raise DemoError("--camera-only and --no-camera contradict each other")
    if camera_only and not camera_available():
        raise DemoError("--camera-only needs the synthetic camera (hardware.camera and vision are not installed)")
    if camera_only and layout is None:
        raise DemoError("--camera-only needs a vision layout of the demo's board; this game's demo has none")
    if layout is None:
        return False
    return camera_only or (camera_available() if camera is None else camera)


# -- the camera's enrolment -------------------------------------------------------------------------

def enrol_camera(demo: Demo, *, timeout: float = 30.0, out: TextIO = sys.stdout, stop: threading.Event | None = None,
                 langs: tuple[str, ...] = BOTH) -> Any:
    """Enrol the table as a user does on the dashboard's camera enrolment page, through the same
    runtime calls (``Runtime.camera_enrol``): the empty board photo, one piece of each type put on
    the planned spaces of the synthetic camera, the pieces photo, the pieces taken off, save. The
    referee ignores the camera meanwhile; returns the saved model. ``langs``: the languages of its lines."""
    from hardware.tag_registry import describe

    rt = demo.runtime
    cam = demo.table.camera
    if cam is None:
        raise DemoError("the camera enrolment needs the synthetic camera")

    def say(text: Message, prefix: str = "\n>>> ") -> None:
        out.write(prefix + show(text, langs) + "\n")  # one write: the console printer's thread writes between lines, not inside one
        out.flush()

    def step(name: str) -> Any:
        res = rt.camera_enrol(name, "demo dashboard")
        if not res.ok:
            raise DemoError(f"camera enrolment ({name}) refused: {res.message}")
        return res

    set_up = cam.board  # pieces the game's set-up put down (Zhang Yi's armies) come back after the photos
    if set_up.spaces():
        from scorer.core.types import Board
        from tableref.camera_enrolment import HOLD

        rt.devices_["camera"].hold(HOLD)  # as the enrolment does from its first photo on: the referee ignores the camera
        cam.set_board(Board())
    say(Message.t("tableref.demo.enrol_empty"))
    step("empty")
    plan = [(p["space"], Piece(p["owner"], p["kind"])) for p in rt.camera_enrolment()["plan"]]
    where = tuple(Message.t("tableref.demo.piece_on_space", piece=describe(p), space=space) for space, p in plan)
    say(Message.t("tableref.demo.enrol_pieces", where=where))
    for space, piece in plan:
        cam.place(space, piece)
    res = step("pieces")
    sizes = res.data["result"]["sizes"]
    learned = [Message.t("tableref.demo.learned_size", piece=describe(Piece(s["owner"], s["kind"])), area=f"{s['area_mm2']:.0f}",
                         nominal=f"{s['nominal_mm2']:.0f}") for s in sizes]
    say(Message.t("tableref.demo.learned", sizes=join_messages(learned)), prefix="    ")
    for space, piece in plan:
        cam.remove(space, piece)
    if set_up.spaces():  # set up before the model is saved: the referee reads the camera again from then on
        cam.set_board(set_up)
        grabbed = rt.devices()["camera"].get("frames", 0)  # a frame of the enrolment pieces may be in the reader still:
        wait_until(lambda: rt.devices()["camera"].get("frames", 0) >= grabbed + 2, 5.0, stop=stop)  # let it pass
    say(Message.t("tableref.demo.enrol_save"))
    step("save")
    camera = rt.devices_["camera"]
    if not wait_until(lambda: rt.devices().get("camera", {}).get("state") == "ok" and "held" not in rt.devices()["camera"], timeout,
                      stop=stop):
        if stop is not None and stop.is_set():
            raise DemoStopped()
        raise DemoError("the camera did not come back after its enrolment")
    return getattr(camera, "model", None)


# -- the script runner ------------------------------------------------------------------------------

def wait_until(cond: Callable[[], bool], timeout: float, poll: float = 0.02, stop: threading.Event | None = None) -> bool:
    """Poll ``cond`` until it holds (True) or ``timeout`` passes; a set ``stop`` ends the wait at once (False)."""
    deadline = time.monotonic() + timeout
    pause = stop.wait if stop is not None else time.sleep
    while time.monotonic() < deadline:
        if cond():
            return True
        if stop is not None and stop.is_set():
            return False
        pause(poll)
    return cond()


def _moves(rt: Runtime) -> int:
    return int(rt.snapshot().get("moves", -1))


def _open_reading(rt: Runtime) -> bool:
    """A legal move still waiting to close (a takeback after an undo is not one)."""
    pending = rt.snapshot().get("pending")
    return pending is not None and not pending.get("takeback")


def run_step(demo: Demo, step: Step, *, speed: float, timeout: float, out: TextIO, stop: threading.Event | None = None,
             langs: tuple[str, ...] = BOTH) -> None:
    """One scripted step, narrated in ``langs``; ``stop`` (Ctrl-C, SIGTERM) raises ``DemoStopped`` between actions
    and in every wait."""
    rt = demo.runtime
    if step.pause:
        if stop is not None and stop.wait(step.pause / max(speed, 0.01)):
            raise DemoStopped()
        if stop is None:
            time.sleep(step.pause / max(speed, 0.01))
    if stop is not None and stop.is_set():
        raise DemoStopped()
    print(f"\n>>> {show(step.say, langs)}", file=out, flush=True)
    if step.hand is not None:
        demo.table.hand(step.hand)
    for space, owner, kind in step.take:
        demo.table.take(space, Piece(owner, kind))
    for space, owner, kind in step.put:
        demo.table.put(space, Piece(owner, kind))
    for button in step.press:
        demo.gpio.press(button)
        wait_until(lambda: len(demo.gpio.results) > 0, 2.0, stop=stop)
    for colour in step.tap:
        demo.cards.tap(card_uids()[colour])
    if step.admin_undo:
        res = rt.undo("demo dashboard (admin PIN)", True)
        if not res.ok:
            raise DemoError(f"admin undo refused: {res.message}")
    if step.roll is not None and demo.table.camera is not None:
        demo.table.roll(step.roll)  # the camera reads it and enters the roll
    elif step.declare is not None:
        res = rt.declare(step.declare, "demo dashboard")
        if not res.ok:
            raise DemoError(f"declaration refused: {res.message} (the table shows: {rt.snapshot().get('pending')})")

    def check(what: str, cond: Callable[[], bool]) -> None:
        if not wait_until(cond, timeout, stop=stop):
            if stop is not None and stop.is_set():
                raise DemoStopped()
            snap = rt.snapshot()
            raise DemoError(f"step '{step.say.en}': {what} did not happen within {timeout:.0f} s "
                            f"(moves {snap.get('moves')}, flag {bool(snap.get('flag'))}, pending {snap.get('pending')})")

    if step.expect_flag:
        check(f"a flag for {step.expect_flag}", lambda: any(
            v["rule"] == step.expect_flag for v in ((rt.snapshot().get("flag") or {}).get("violations") or [])))
    if step.expect_clear:
        check("the flag clearing", lambda: rt.snapshot().get("flag") is None)
    if step.expect_undo_wait is not None:
        want = step.expect_undo_wait
        check("the undo wait " + ("starting" if want else "ending"), lambda: (rt.snapshot().get("undo_wait") is not None) == want)
    if step.expect_pending:
        check("a move read from the table", lambda: _open_reading(rt))
    if step.expect_moves is not None:
        n = step.expect_moves
        check(f"{n} accepted moves", lambda: _moves(rt) == n and not _open_reading(rt))
    if step.expect_over:
        check("the end of the game", lambda: rt.snapshot().get("outcome") is not None)
    follow = step.extra.get("expect_follow")
    if follow is not None:  # the rules moved pieces by themselves: the referee follows until the table matches
        check("the table following the rules" if follow else "the table matching the rules' board",
              lambda: (rt.snapshot().get("follow") is not None) == follow)
    scores = step.extra.get("expect_score")
    if scores:
        check(f"scores {scores}", lambda: {p["player"]: p["total"] for p in rt.snapshot()["scores"]["players"]} == scores)
    demo.gpio.results.clear()


def run_script(demo: Demo, *, speed: float = 1.0, timeout: float = 20.0, out: TextIO = sys.stdout,
               script: tuple[Step, ...] = SCRIPT, stop: threading.Event | None = None, langs: tuple[str, ...] = BOTH) -> None:
    for step in script:
        run_step(demo, step, speed=speed, timeout=timeout, out=out, stop=stop, langs=langs)


def demo_data_dir(arg: str | None) -> tuple[Path, bool]:
    """The folder for the demo's store and files, and whether it is temporary."""
    if arg:
        return Path(arg), False
    import tempfile

    return Path(tempfile.mkdtemp(prefix="tableref-demo-")), True


def intro() -> Message:
    return Message.t('tableref.demo.tableref_demo_a_scripted_game')


# -- demos of the other games --------------------------------------------------------------------------

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


__all__ = ["DEMO_PIN", "Demo", "DemoError", "DemoStopped", "DemoTable", "GAME_DEMOS", "GameDemo", "build_demo", "build_game_demo", "enrol_camera", "game_demo",
           "run_script", "demo_data_dir", "intro", "os"]
