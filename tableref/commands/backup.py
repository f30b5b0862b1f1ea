"""``tableref backup create|verify|restore``: the table's data folder as one checked archive
(``tableref.backup``). The folder comes from ``--config`` (its ``[table] data_dir``) or ``--data-dir``.

A restore refuses while the service runs on the same folder (stop it first, or restore from the
dashboard's settings page) and changes nothing unless the whole archive checks out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scorer.core.types import TableRefError


class BackupArgError(TableRefError, ValueError):
    pass


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("backup", help="back up or restore the table's data folder (event stores, boards, calibrations, tags)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", metavar="ACTION")

    def where(q: argparse.ArgumentParser) -> None:
        g = q.add_mutually_exclusive_group(required=True)
        g.add_argument("--config", metavar="TABLE.toml", help="the table's configuration (its data folder)")
        g.add_argument("--data-dir", metavar="DIR", help="the data folder itself")

    c = actions.add_parser("create", help="write a .tar.gz of the data folder with a manifest of SHA-256 sums")
    where(c)
    c.add_argument("-o", "--output", metavar="FILE|DIR", default=".",
                   help="the archive, or a folder for tableref-backup-<table>-<time>.tar.gz (default: here)")
    c.set_defaults(func=cmd_create)

    v = actions.add_parser("verify", help="check an archive completely without restoring it")
    v.add_argument("archive")
    v.set_defaults(func=cmd_verify)

    r = actions.add_parser("restore", help="replace the data folder's files by the archive's (the service must be stopped)")
    r.add_argument("archive")
    where(r)
    r.set_defaults(func=cmd_restore)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _folder(args: argparse.Namespace) -> tuple[Path, str, list[str]]:
    """The data folder, the table's name, and configured files that live outside it."""
    if args.data_dir:
        return Path(args.data_dir), Path(args.data_dir).resolve().name, []
    from tableref.backup import outside_files
    from tableref.config import load_config

    config = load_config(args.config)
    files = [config.sensor_board.tags, config.sensor_board.antennas, config.card_reader.cards, config.camera.model, config.camera.tags]
    return Path(config.data_dir), config.name, outside_files(config.data_dir, files)


def cmd_create(args: argparse.Namespace) -> int:
    from tableref.backup import create_backup, default_name, describe

    folder, table, outside = _folder(args)
    out = Path(args.output)
    if out.is_dir():
        out = out / default_name(table)
    manifest = create_backup(folder, out, table=table)
    print(out)
    print(describe(manifest))
    for f in outside:
        print(f"note: {f} is outside the data folder and not in this backup", file=sys.stderr)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from tableref.backup import describe, verify_backup

    manifest = verify_backup(args.archive)
    print(f"ok: {describe(manifest)}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from tableref.appliance import DataFolderBusy, DataLock
    from tableref.backup import describe, restore_backup

    folder, _table, _outside = _folder(args)
    try:
        lock = DataLock(folder, purpose="tableref backup restore").acquire()
    except DataFolderBusy as exc:
        raise BackupArgError(f"{exc}: stop the service first (sudo systemctl stop tableref), "
                             "or restore from the dashboard's settings page") from None
    try:
        restored = restore_backup(args.archive, folder)
    finally:
        lock.release()
    print(f"restored {describe(restored.manifest)} into {folder}")
    print(f"the files it replaced are in {restored.previous}")
    return 0
