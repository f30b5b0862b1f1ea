"""Backup and restore of the table's data folder from the dashboard (docs/web.md "Backup").

Both are admin actions behind the PIN and the CSRF token, like every other change:

* ``POST /api/backup`` answers with the archive (``tableref.backup``) as a download;
* ``POST /api/backup/restore`` takes an archive as the raw request body, checks it completely
  (manifest, SHA-256 of every file, SQLite integrity) and hands it to the service, which stops,
  swaps the data folder and starts again (``tableref.appliance``). A damaged archive is a 400 with
  the reason, and nothing is changed.
* ``GET /api/backup`` says whether this dashboard can restore (only under ``tableref run``).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from flask import Blueprint, Flask, Response, current_app, jsonify, request, send_file

from scorer.core.types import Message
from web.app import ctx, require_admin
from web.errors import BadInput, NotSupported

MAX_BYTES = 512 * 1024 * 1024  # an archive of a busy table is a few MB; this only stops a runaway upload

bp = Blueprint("backup", __name__, url_prefix="/api/backup")


@dataclass(frozen=True)
class BackupPlace:
    folder: Path  # the data folder a backup takes
    on_restore: Callable[[Path], None] | None


def install(app: Flask, folder: Path, on_restore: Callable[[Path], None] | None) -> None:
    app.extensions["tableref_backup"] = BackupPlace(folder, on_restore)
    app.config.setdefault("BACKUP_MAX_BYTES", MAX_BYTES)
    app.register_blueprint(bp)


def _place() -> BackupPlace:
    return current_app.extensions["tableref_backup"]


def _table_name() -> str:
    """The name the admin gave the table on the dashboard, else the configuration's."""
    table = ctx().service.snapshot().get("table")
    configured = table.get("name") if isinstance(table, dict) else None
    return ctx().settings.get().get("table_name") or str(configured or "table")


@bp.get("")
def info() -> Response:
    return jsonify({"restore": _place().on_restore is not None,
                    "max_bytes": int(current_app.config["BACKUP_MAX_BYTES"])})


@bp.post("")
def create() -> Response:
    require_admin()
    from tableref.backup import BackupError, create_backup, default_name

    place = _place()
    name = default_name(_table_name())
    tmp = place.folder / f".backup-{secrets.token_hex(6)}.tar.gz"
    try:
        create_backup(place.folder, tmp, table=_table_name())
        fh = open(tmp, "rb")
    except BackupError as exc:
        raise BadInput(Message.t('web.backup.no_backup_made', exc=exc)) from None
    finally:
        tmp.unlink(missing_ok=True)  # the open file stays readable until it is sent
    return send_file(fh, mimetype="application/gzip", as_attachment=True, download_name=name, max_age=0)


@bp.post("/restore")
def restore() -> tuple[Response, int]:
    require_admin()
    from tableref.backup import BackupError, describe, verify_backup

    place = _place()
    if place.on_restore is None:
        raise NotSupported(Message.t('web.backup.this_dashboard_cannot_restore_a'))
    request.max_content_length = int(current_app.config["BACKUP_MAX_BYTES"])
    incoming = place.folder / f".incoming-{secrets.token_hex(6)}.tar.gz"
    handed_over = False
    try:
        size = 0
        with open(incoming, "wb") as out:
            for chunk in iter(lambda: request.stream.read(1 << 16), b""):
                size += len(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if size == 0:
            raise BadInput(Message.t('web.backup.send_the_backup_file_as'))
        try:
            manifest = verify_backup(incoming)
        except BackupError as exc:
            raise BadInput(Message.t('web.backup.the_backup_was_not_restored', exc=exc), code="bad_backup") from None
        place.on_restore(incoming)
        handed_over = True
    finally:
        if not handed_over:
            incoming.unlink(missing_ok=True)
    return jsonify({"ok": True, "restarting": True, "files": len(manifest.files), "summary": describe(manifest),
                    "message": Message.t('web.backup.backup_checked_files_the_referee', files=len(manifest.files)).to_json()}), 202
