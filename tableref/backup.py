"""Backup and restore of a table's data folder (event stores, captured boards, the camera's table
model, tag registries, dashboard settings) as one ``.tar.gz``.

* The archive starts with ``MANIFEST.json``: format, version, when, which table, and every file
  with its size and SHA-256. A restore reads the whole archive into a folder beside the data
  first and checks it against the manifest (sizes, sums, no missing or extra member, no path
  outside the folder, every SQLite file passing ``PRAGMA integrity_check``); only then are the
  current files swapped for it. A truncated or corrupted archive is a ``BackupError`` with a clear
  reason, and the data folder is left exactly as it was.
* SQLite files are copied with SQLite's online backup API (a consistent snapshot while the
  referee writes), never as raw bytes of a live file; their ``-wal``/``-shm`` companions are left out.
* The table's own secrets stay with the table: the dashboard's session key and admin PIN hash are
  not archived, and a restore keeps the current ones.
* The files a restore replaced stay in ``.before-restore/`` inside the data folder until the next
  restore (undo a mistaken restore by hand from there).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import tarfile
import tempfile
import time
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

from scorer.core.types import TableRefError

FORMAT = "tableref-backup"
VERSION = 1
MANIFEST = "MANIFEST.json"
SQLITE_MAGIC = b"SQLite format 3\x00"
LOCK_FILE = ".tableref.lock"
PREVIOUS = ".before-restore"
# never archived, kept as they are by a restore: the table's own secrets
SECRETS = frozenset({"web/secret.key", "web/admin.json"})
_CHUNK = 1 << 16


class BackupError(TableRefError, ValueError):
    """A backup cannot be made, or an archive cannot be restored (the reason says which and why)."""


@dataclass(frozen=True, slots=True)
class Entry:
    path: str  # relative, '/'-separated
    size: int
    sha256: str
    kind: str  # "sqlite" or "file"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "sha256": self.sha256, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Manifest:
    created: str
    table: str
    files: tuple[Entry, ...]

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.files)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "created": self.created, "table": self.table,
                "files": [e.to_json() for e in self.files]}


# -- what is in a data folder --------------------------------------------------------------------

def is_secret(text: str) -> bool:
    """The dashboard's session key or PIN hash, wherever its folder sits (the demo nests it one deeper)."""
    return any(text == s or text.endswith("/" + s) for s in SECRETS)


def _skipped(rel: PurePosixPath, sqlite_names: set[str]) -> bool:
    """Working files that are not data: locks, temporary files, restores in progress, the copy kept
    by the last restore, SQLite companions, and the secrets."""
    text = rel.as_posix()
    if is_secret(text) or text == LOCK_FILE:
        return True
    if any(part.startswith((".restore-", ".incoming-", ".backup-")) or part == PREVIOUS for part in rel.parts):
        return True
    name = rel.name
    if name.startswith(".") and name.endswith(".tmp"):
        return True
    for suffix in ("-wal", "-shm", "-journal"):
        if name.endswith(suffix) and (rel.parent / name[: -len(suffix)]).as_posix() in sqlite_names:
            return True
    return False


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def data_files(data_dir: Path) -> list[tuple[PurePosixPath, Path, str]]:
    """(relative path, absolute path, kind) of every file a backup takes, sorted."""
    found: list[tuple[PurePosixPath, Path]] = []
    for root, dirs, files in os.walk(data_dir):
        dirs.sort()
        for name in sorted(files):
            full = Path(root) / name
            if full.is_symlink() or not full.is_file():
                continue
            found.append((PurePosixPath(full.relative_to(data_dir).as_posix()), full))
    sqlite_names = {rel.as_posix() for rel, full in found if is_sqlite(full)}
    return [(rel, full, "sqlite" if rel.as_posix() in sqlite_names else "file")
            for rel, full in found if not _skipped(rel, sqlite_names)]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def snapshot_sqlite(src: Path, dst: Path) -> None:
    """A consistent copy of a live SQLite database (the online backup API; writers may go on)."""
    try:
        source = sqlite3.connect(f"file:{src}?mode=ro", uri=True, timeout=10.0)
        try:
            target = sqlite3.connect(dst)
            try:
                source.backup(target)
                target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file (the service turns WAL on again)
            finally:
                target.close()
        finally:
            source.close()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot copy the database {src}: {exc}") from exc


# -- creating -------------------------------------------------------------------------------------

def create_backup(data_dir: str | Path, out_file: str | Path, *, table: str = "") -> Manifest:
    """Archive ``data_dir`` into ``out_file`` (written to a temporary name, then renamed: a failed
    backup never leaves a file that looks like one)."""
    data = Path(data_dir)
    if not data.is_dir():
        raise BackupError(f"no data folder at {data}")
    out = Path(out_file)
    out.parent.mkdir(parents=True, exist_ok=True)
    entries: list[Entry] = []
    with tempfile.TemporaryDirectory(prefix="tableref-backup-") as staging_name:
        staging = Path(staging_name)
        for rel, full, kind in data_files(data):
            copy = staging / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            try:
                if kind == "sqlite":
                    snapshot_sqlite(full, copy)
                else:
                    shutil.copyfile(full, copy)
            except FileNotFoundError:  # removed since the folder was listed (a temporary file): not data
                continue
            except OSError as exc:
                raise BackupError(f"cannot read {full}: {exc.strerror or exc}") from exc
            entries.append(Entry(rel.as_posix(), copy.stat().st_size, _sha256(copy), kind))
        manifest = Manifest(datetime.now(timezone.utc).isoformat(timespec="seconds"), table, tuple(entries))
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        try:
            with tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as tar:
                body = (json.dumps(manifest.to_json(), ensure_ascii=False, indent=1) + "\n").encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mtime, info.mode = len(body), int(time.time()), 0o644
                tar.addfile(info, io.BytesIO(body))
                for e in entries:
                    info = tar.gettarinfo(str(staging / e.path), arcname=e.path)
                    info.uid = info.gid = 0
                    info.uname = info.gname = ""
                    info.mode = 0o600
                    with open(staging / e.path, "rb") as fh:
                        tar.addfile(info, fh)
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, out)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return manifest


def default_name(table: str, when: datetime | None = None) -> str:
    """``tableref-backup-<table>-<UTC time>.tar.gz``."""
    slug = re.sub(r"[^a-z0-9]+", "-", table.lower()).strip("-") or "table"
    stamp = (when or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"tableref-backup-{slug}-{stamp}.tar.gz"


# -- checking ----------------------------------------------------------------------------------------

_DAMAGED = "the archive is damaged (truncated or corrupted)"


def _manifest_from(doc: Any) -> Manifest:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BackupError(f"not a tableref backup ({MANIFEST} does not say format {FORMAT!r})")
    if doc.get("version") != VERSION:
        raise BackupError(f"backup format version {doc.get('version')!r}; this tableref reads version {VERSION}")
    files = doc.get("files")
    if not isinstance(files, list):
        raise BackupError(f"{MANIFEST}: 'files' is not a list")
    entries = []
    for f in files:
        try:
            e = Entry(str(f["path"]), int(f["size"]), str(f["sha256"]), str(f.get("kind", "file")))
        except (TypeError, KeyError, ValueError):
            raise BackupError(f"{MANIFEST}: a file entry is malformed: {f!r}") from None
        _safe_path(e.path)
        entries.append(e)
    return Manifest(str(doc.get("created", "")), str(doc.get("table", "")), tuple(entries))


def _safe_path(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if not name or rel.is_absolute() or ".." in rel.parts or "\\" in name or rel.as_posix() != name.rstrip("/"):
        raise BackupError(f"the archive names a path outside the data folder: {name!r}")
    if _skipped(rel, set()):
        raise BackupError(f"the archive contains {name!r}, which a backup never holds")
    return rel


def _extract(archive: Path, into: Path) -> tuple[dict[str, Any], dict[str, tuple[int, str]]]:
    """Every member into ``into`` with its size and SHA-256; the manifest's JSON."""
    manifest_doc: dict[str, Any] | None = None
    seen: dict[str, tuple[int, str]] = {}
    try:
        with gzip.open(archive, "rb") as gz, tarfile.open(fileobj=gz, mode="r|") as tar:
            for member in tar:
                if member.name == MANIFEST:
                    fh = tar.extractfile(member)
                    assert fh is not None
                    if member.size > 16 << 20:
                        raise BackupError(f"{MANIFEST} is implausibly large ({member.size} bytes)")
                    try:
                        manifest_doc = json.loads(fh.read().decode("utf-8"))
                    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                        raise BackupError(f"{MANIFEST} is not valid JSON: {exc}") from None
                    continue
                if not member.isfile():
                    raise BackupError(f"the archive holds {member.name!r}, which is not a plain file")
                rel = _safe_path(member.name)
                if rel.as_posix() in seen:
                    raise BackupError(f"the archive holds {member.name!r} twice")
                target = into / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                h = hashlib.sha256()
                size = 0
                src = tar.extractfile(member)
                assert src is not None
                with open(target, "wb") as out:
                    for chunk in iter(lambda: src.read(_CHUNK), b""):
                        h.update(chunk)
                        size += len(chunk)
                        out.write(chunk)
                seen[rel.as_posix()] = (size, h.hexdigest())
            while gz.read(_CHUNK):  # to the end of the stream, where gzip checks its CRC and length
                pass
    except BackupError:
        raise
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise BackupError(f"{_DAMAGED}: {exc or type(exc).__name__}") from None
    except OSError as exc:  # gzip: "Not a gzipped file", "CRC check failed" ...; or the disk
        if exc.errno is None:
            raise BackupError(f"{_DAMAGED}: {exc}") from None
        raise BackupError(f"cannot unpack the archive: {exc.strerror or exc}") from None
    if manifest_doc is None:
        raise BackupError(f"not a tableref backup: no {MANIFEST} in the archive")
    return manifest_doc, seen


def _check(manifest: Manifest, seen: dict[str, tuple[int, str]], folder: Path) -> None:
    listed = {e.path: e for e in manifest.files}
    missing = sorted(set(listed) - set(seen))
    if missing:
        raise BackupError(f"{_DAMAGED}: {len(missing)} file(s) of the manifest are missing, first {missing[0]!r}")
    extra = sorted(set(seen) - set(listed))
    if extra:
        raise BackupError(f"the archive holds files its manifest does not list, first {extra[0]!r}")
    for path, e in listed.items():
        size, digest = seen[path]
        if size != e.size or digest != e.sha256:
            raise BackupError(f"{_DAMAGED}: {path} does not match its SHA-256 in the manifest")
        if e.kind == "sqlite":
            _check_sqlite(folder / path, path)


def _check_sqlite(path: Path, name: str) -> None:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # creates no -wal/-shm beside it
        try:
            rows = db.execute("PRAGMA integrity_check").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise BackupError(f"the database {name} in the archive cannot be read: {exc}") from None
    if rows != [("ok",)]:
        raise BackupError(f"the database {name} in the archive fails SQLite's integrity check: {rows[0][0]}")


def verify_backup(archive: str | Path, into: str | Path | None = None) -> Manifest:
    """Check an archive completely; with ``into``, leave its files there (for a restore)."""
    path = Path(archive)
    if not path.is_file():
        raise BackupError(f"no backup file at {path}")
    if into is None:
        with tempfile.TemporaryDirectory(prefix="tableref-verify-") as tmp:
            return verify_backup(path, tmp)
    folder = Path(into)
    folder.mkdir(parents=True, exist_ok=True)
    doc, seen = _extract(path, folder)
    manifest = _manifest_from(doc)
    _check(manifest, seen, folder)
    return manifest


# -- restoring -----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Restored:
    manifest: Manifest
    previous: Path  # where the replaced files are now


def _chown_tree(folder: Path, uid: int, gid: int) -> None:
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)
    os.chown(folder, uid, gid)


def restore_backup(archive: str | Path, data_dir: str | Path) -> Restored:
    """Replace the data folder's files by the archive's, after checking the archive completely.

    The archive is unpacked into ``<data>/.restore-*`` and checked there; the current files then
    move to ``<data>/.before-restore/`` and the unpacked ones into place (renames on one file
    system); a failure while swapping puts the old files back. The secrets (``SECRETS``) stay.
    Run as root on a folder owned by the service's user, the restored files get that owner."""
    data = Path(data_dir)
    data.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=data))
    try:
        manifest = verify_backup(archive, staging)
        owner = data.stat()
        if hasattr(os, "geteuid") and os.geteuid() == 0 and owner.st_uid != 0:
            _chown_tree(staging, owner.st_uid, owner.st_gid)
        previous = data / PREVIOUS
        if previous.exists():
            shutil.rmtree(previous)
        previous.mkdir()
        _swap(data, staging, previous)
        return Restored(manifest, previous)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap(data: Path, staging: Path, previous: Path) -> None:
    keep = {LOCK_FILE, staging.name, previous.name}
    moved_out: list[str] = []
    moved_in: list[str] = []
    secrets_back: list[str] = []
    try:
        for entry in sorted(os.listdir(data)):
            if entry not in keep:
                os.replace(data / entry, previous / entry)
                moved_out.append(entry)
        for entry in sorted(os.listdir(staging)):
            os.replace(staging / entry, data / entry)
            moved_in.append(entry)
        for secret in sorted(SECRETS):  # the table's own secrets stay
            if (previous / secret).exists():
                top = secret.split("/")[0]
                if not (data / top).exists():
                    moved_in.append(top)  # made here: removed again by a rollback
                (data / secret).parent.mkdir(parents=True, exist_ok=True)
                os.replace(previous / secret, data / secret)
                secrets_back.append(secret)
    except OSError as exc:
        for secret in secrets_back:
            os.replace(data / secret, previous / secret)
        for entry in moved_in:
            path = data / entry
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        for entry in moved_out:
            os.replace(previous / entry, data / entry)
        raise BackupError(f"the restore could not replace the files ({exc.strerror or exc}); the data folder is as it was") from exc


def describe(manifest: Manifest) -> str:
    """One line: how many files, how big, from when and which table."""
    sqlite = sum(1 for e in manifest.files if e.kind == "sqlite")
    table = f" of {manifest.table!r}" if manifest.table else ""
    return (f"backup{table} made {manifest.created}: {len(manifest.files)} files ({sqlite} databases), "
            f"{manifest.total_bytes / 1e6:.1f} MB")


def outside_files(data_dir: str | Path, files: Iterable[str | None]) -> list[str]:
    """Configured files (tag registry, wiring, table model) that live outside the data folder and
    so are not in its backup."""
    data = Path(data_dir).resolve()
    out = []
    for f in files:
        if f and os.path.exists(f) and data not in Path(f).resolve().parents:
            out.append(str(f))
    return out
