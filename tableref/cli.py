"""``tableref`` command line. Each sub-command lives in its own module with a ``register``
function, so the parts (scoring, vision, emulator, runtime) add commands without touching
each other.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from scorer.core.types import TableRefError

# Modules that contribute sub-commands. Each has ``register(subparsers) -> None`` and sets
# ``func(args) -> int`` on its parsers. A module that is not importable is skipped with a note
# so that one missing optional part never takes the whole CLI down.
COMMAND_MODULES = [
    "tableref.commands.scoring",
    "tableref.commands.boards",
    "tableref.commands.emulate",
    "tableref.commands.run",
    "tableref.commands.export",
    "tableref.commands.config",
    "tableref.commands.vision",
    "tableref.commands.backup",
    "tableref.commands.venue",
    "tableref.commands.games",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tableref",
        description="Referee and live scoreboard for physical board games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    broken = []
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:  # an optional part missing here (e.g. no OpenCV): say so, keep the rest
            broken.append(f"{name.rsplit('.', 1)[-1]} ({exc})")
            continue
        module.register(sub)
    if broken:
        parser.epilog = "unavailable in this installation: " + "; ".join(broken)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except TableRefError as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
