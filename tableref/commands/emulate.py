"""``tableref emulate sensor-board``: the sensor-board firmware on a pseudo-terminal.

Prints the device path on a line of its own, then obeys commands from ``--script FILE`` or
stdin, one per line (``#`` starts a comment):

    place ANTENNA UID [PATTERN]    put a tag on an antenna (PATTERN of 0/1: seen on those scans)
    remove ANTENNA UID             take it away
    move FROM TO UID               remove + place
    wait SECONDS                   pause the script
    fault NAME [KEY=VALUE ...]     inject a fault: garbage n=, flip|truncate|duplicate|reorder|drop
                                   count=, corrupt rate= direction=both|out|in, flicker antenna=
                                   uid= pattern=, reader-fault antenna= on=true|false
    reboot                         the microcontroller resets
    unplug                         the USB cable is pulled
    replug [new-path] [keep-boot]  plugged back in (same path unless new-path; reboots unless keep-boot)
    quit                           stop

It keeps running after the script (or stdin) ends, until ``quit``, Ctrl-C or SIGTERM, unless
``--exit-after-script`` is given.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, TextIO

from scorer.core import TableRefError


class ScriptError(TableRefError, ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Command:
    line_no: int
    verb: str
    args: tuple[str, ...]


_ARITY = {
    "place": (2, 3),
    "remove": (2, 2),
    "move": (3, 3),
    "wait": (1, 1),
    "fault": (1, 10),
    "inject": (1, 10),
    "reboot": (0, 0),
    "unplug": (0, 0),
    "replug": (0, 2),
    "quit": (0, 0),
}


def parse_line(line: str, line_no: int) -> Command | None:
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ScriptError(f"line {line_no}: {exc}") from exc
    verb, args = words[0].lower(), tuple(words[1:])
    if verb not in _ARITY:
        raise ScriptError(f"line {line_no}: unknown command {verb!r} (known: {', '.join(sorted(_ARITY))})")
    lo, hi = _ARITY[verb]
    if not lo <= len(args) <= hi:
        raise ScriptError(f"line {line_no}: {verb} takes {lo}..{hi} argument(s), got {len(args)}")
    if verb in ("place", "remove", "move"):
        n = 2 if verb == "move" else 1
        for a in args[:n]:
            if not a.isdigit():
                raise ScriptError(f"line {line_no}: antenna must be a number, got {a!r}")
    if verb == "wait":
        try:
            if float(args[0]) < 0:
                raise ValueError
        except ValueError:
            raise ScriptError(f"line {line_no}: wait needs a number of seconds >= 0") from None
    if verb == "replug" and any(a not in ("new-path", "keep-boot") for a in args):
        raise ScriptError(f"line {line_no}: replug takes only new-path and keep-boot")
    if verb in ("fault", "inject") and any("=" not in a for a in args[1:]):
        raise ScriptError(f"line {line_no}: fault parameters are KEY=VALUE")
    return Command(line_no, "fault" if verb == "inject" else verb, args)


def parse_script(lines: Iterable[str]) -> list[Command]:
    out = []
    for i, line in enumerate(lines, 1):
        cmd = parse_line(line, i)
        if cmd is not None:
            out.append(cmd)
    return out


_TEXT_KEYS = frozenset({"uid", "pattern", "direction"})   # "0400..." and "010" stay text


def _value(text: str) -> object:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def run_command(board: object, cmd: Command, sleep: Callable[[float], None]) -> bool:
    """Execute one command on an EmulatedSensorBoard; False for ``quit``."""
    from firmware_bridge.emulator import EmulatedSensorBoard

    assert isinstance(board, EmulatedSensorBoard)
    a = cmd.args
    try:
        if cmd.verb == "place":
            board.place(int(a[0]), a[1], a[2] if len(a) > 2 else "1")
        elif cmd.verb == "remove":
            board.remove(int(a[0]), a[1])
        elif cmd.verb == "move":
            board.move(int(a[0]), int(a[1]), a[2])
        elif cmd.verb == "wait":
            sleep(float(a[0]))
        elif cmd.verb == "fault":
            params = {k.replace("-", "_"): v if k in _TEXT_KEYS else _value(v)
                      for k, v in (p.split("=", 1) for p in a[1:])}
            board.inject(a[0], **params)
        elif cmd.verb == "reboot":
            board.reboot()
        elif cmd.verb == "unplug":
            board.unplug()
        elif cmd.verb == "replug":
            path = board.replug(new_path="new-path" in a, reboot="keep-boot" not in a)
            print(path, flush=True)
        elif cmd.verb == "quit":
            return False
    except (TableRefError, KeyError, ValueError, TypeError) as exc:
        raise ScriptError(f"line {cmd.line_no}: {cmd.verb}: {exc}") from exc
    return True


def _sensor_board(args: argparse.Namespace) -> int:
    from firmware_bridge.emulator import EmulatedSensorBoard

    script: list[Command] | None = None
    if args.script:
        try:
            with open(args.script, encoding="utf-8") as f:
                script = parse_script(f)
        except OSError as exc:
            raise ScriptError(f"cannot read script: {exc}") from exc
    if not 1 <= args.antennas <= 254:
        raise ScriptError("--antennas must be 1..254")
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()
        raise KeyboardInterrupt   # also ends a blocking read of stdin

    # SIGINT too, explicitly: a process started in the background by a non-interactive shell
    # inherits SIGINT ignored, and Python then leaves Ctrl-C (or kill -INT) ignored
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    board = EmulatedSensorBoard(args.antennas, baudrate=args.baud or None, link_path=args.link,
                                seed=args.seed, sweep_ms=args.sweep_ms)
    try:
        print(board.device_path, flush=True)
        sleep = lambda s: stop.wait(s)  # noqa: E731 - interruptible by SIGTERM
        if script is not None:
            for cmd in script:
                if stop.is_set() or not run_command(board, cmd, sleep):
                    return 0
            if args.exit_after_script:
                return 0
        else:
            if _interactive(board, sys.stdin, stop, sleep) is False:
                return 0
        while not stop.is_set():
            stop.wait(0.5)
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        board.close()


def _interactive(board: object, stream: TextIO, stop: threading.Event, sleep: Callable[[float], None]) -> bool:
    """Commands from stdin; a bad line is reported and skipped. False after ``quit``."""
    for i, line in enumerate(stream, 1):
        if stop.is_set():
            return False
        try:
            cmd = parse_line(line, i)
            if cmd is not None and not run_command(board, cmd, sleep):
                return False
        except ScriptError as exc:
            print(f"tableref emulate: {exc}", file=sys.stderr, flush=True)
    return True


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("emulate", help="run an emulated device on a pseudo-terminal")
    devices = parser.add_subparsers(dest="device", metavar="DEVICE")
    sb = devices.add_parser("sensor-board", help="the sensor-board firmware with fake readers",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sb.add_argument("--script", metavar="FILE", help="commands to run (default: read stdin)")
    sb.add_argument("--antennas", type=int, default=16, help="number of antennas (default 16)")
    sb.add_argument("--link", metavar="PATH", help="also make PATH a symlink to the pty (stable across replug)")
    sb.add_argument("--baud", type=int, default=115200, help="pace output like a UART at this rate (0: no pacing)")
    sb.add_argument("--seed", type=int, default=None, help="seed for boot ids and faults")
    sb.add_argument("--sweep-ms", type=float, default=5.0, help="time for one scan of all antennas")
    sb.add_argument("--exit-after-script", action="store_true", help="stop when the script ends")
    sb.set_defaults(func=_sensor_board)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])
