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
import os
import select
import shlex
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
    from tableref.stopper import Stopper

    script: list[Command] | None = None
    if args.script:
        try:
            with open(args.script, encoding="utf-8") as f:
                script = parse_script(f)
        except OSError as exc:
            raise ScriptError(f"cannot read script: {exc}") from exc
    if not 1 <= args.antennas <= 254:
        raise ScriptError("--antennas must be 1..254")
    board = EmulatedSensorBoard(args.antennas, baudrate=args.baud or None, link_path=args.link,
                                seed=args.seed, sweep_ms=args.sweep_ms)
    # Ctrl-C and SIGTERM reach the main thread through ``Stopper`` (a wakeup pipe, never a handler that
    # takes the event's lock: one that did could wait for itself inside ``stop.wait``). The commands
    # run on their own thread, so a stop is seen at once even while it blocks reading stdin.
    with Stopper() as stopper:
        stop = stopper.event
        failed: list[BaseException] = []

        def commands() -> None:
            sleep = lambda s: stop.wait(s)  # noqa: E731 - a wait that a stop ends
            try:
                if script is not None:
                    finished = all(stop.is_set() or run_command(board, cmd, sleep) for cmd in script)
                    if not finished or args.exit_after_script:
                        stop.set()
                elif _interactive(board, sys.stdin, stop, sleep) is False:
                    stop.set()
            except BaseException as exc:  # reported by the main thread, which owns the exit code
                failed.append(exc)
                stop.set()

        try:
            print(board.device_path, flush=True)
            worker = threading.Thread(target=commands, name="emulate-commands", daemon=True)
            worker.start()
            stop.wait()
            worker.join(timeout=1.0)  # between commands at once; a read of stdin is left to the exit
            if failed:
                raise failed[0]
            return 0
        finally:
            board.close()


def _interactive(board: object, stream: TextIO, stop: threading.Event, sleep: Callable[[float], None]) -> bool:
    """Commands from stdin; a bad line is reported and skipped. False after ``quit``."""
    for i, line in enumerate(_lines(stream, stop), 1):
        if stop.is_set():
            return False
        try:
            cmd = parse_line(line, i)
            if cmd is not None and not run_command(board, cmd, sleep):
                return False
        except ScriptError as exc:
            print(f"tableref emulate: {exc}", file=sys.stderr, flush=True)
    return True


def _lines(stream: TextIO, stop: threading.Event, poll: float = 0.2) -> Iterable[str]:
    """``stream``'s lines until it ends or ``stop`` is set. A real file descriptor is read without
    its buffer, only when ``select`` says a read will not block: a thread left blocked in a buffered
    read of stdin holds that buffer's lock, and the interpreter's exit then aborts on it."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        yield from stream  # an in-memory stream never blocks
        return
    pending = b""
    while not stop.is_set():
        if not select.select([fd], [], [], poll)[0]:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        pending += chunk
        *whole, pending = pending.split(b"\n")
        for raw in whole:
            yield raw.decode("utf-8", "replace") + "\n"
    if pending and not stop.is_set():
        yield pending.decode("utf-8", "replace")


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
