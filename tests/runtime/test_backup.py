"""Backup and restore of a data folder (tableref.backup, ``tableref backup``): real SQLite files in
WAL mode written while the backup runs, real archives, damaged on purpose."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import pytest

from tableref.appliance import DataLock
from tableref.backup import MANIFEST, BackupError, create_backup, restore_backup, verify_backup
from tableref.cli import main
from tableref.store import EventStore, NewEvent

ROOT = Path(__file__).resolve().parents[2]


def make_data(folder: Path, games: int = 3) -> EventStore:
    """A data folder as `tableref run` leaves it: an event store (open, WAL), the dashboard's files,
    a captured board, a table model and a tag registry."""
    (folder / "web" / "boards").mkdir(parents=True)
    (folder / "web" / "secret.key").write_bytes(os.urandom(48))
    (folder / "web" / "admin.json").write_text('{"hash": "pbkdf2:sha256:2000$a$b", "epoch": 1}')
    (folder / "web" / "settings.json").write_text(json.dumps({"table_name": "Red table"}))
    (folder / "web" / "boards" / "my-board.json").write_text(json.dumps({"id": "my-board", "sites": list(range(50))}))
    (folder / "table-model.npz").write_bytes(os.urandom(20000))
    (folder / "tags.json").write_text(json.dumps({"A1000000": {"owner": "blue", "kind": "house"}}))
    store = EventStore(str(folder / "table.sqlite"))
    for g in range(games):
        game = store.create_game("china", {"players": ["blue", "green"]}, "2026-01-01T00:00:00Z")
        store.append(game, 0, [NewEvent("move", {"n": i}) for i in range(20)], 1.0, "w")
    return store


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (what "untouched" means; the lock file is no data)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != ".tableref.lock":
            out[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def count_events(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        con.close()


def test_a_backup_of_a_live_store_is_consistent_and_leaves_out_secrets_and_companions(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = make_data(data)
    assert (data / "table.sqlite-wal").exists()  # a live WAL database, not a quiet file
    before = count_events(data / "table.sqlite")
    stop = threading.Event()
    written = [0]

    def writer() -> None:  # the referee goes on writing while the backup is taken
        game = store.create_game("china", {"players": ["blue", "green"]}, "w")
        seq = 0
        while not stop.is_set():
            store.append(game, seq, [NewEvent("move", {"n": seq}), NewEvent("score", {"n": seq})], 1.0, "w")
            seq += 2
            written[0] = seq

    t = threading.Thread(target=writer)
    t.start()
    try:
        time.sleep(0.05)
        manifest = create_backup(data, tmp_path / "b.tar.gz", table="Red table")
    finally:
        stop.set()
        t.join()
        store.close()
    names = {e.path for e in manifest.files}
    assert names == {"table.sqlite", "table-model.npz", "tags.json", "web/settings.json", "web/boards/my-board.json"}
    assert {e.kind for e in manifest.files if e.path == "table.sqlite"} == {"sqlite"}
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        members = tar.getnames()
        assert members[0] == MANIFEST and set(members[1:]) == names
        snapshot = tmp_path / "snap.sqlite"
        snapshot.write_bytes(tar.extractfile("table.sqlite").read())  # type: ignore[union-attr]
    con = sqlite3.connect(snapshot)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    counts = dict(con.execute("SELECT type, COUNT(*) FROM events GROUP BY type").fetchall())
    con.close()
    # a snapshot between two of the writer's transactions: never half a batch
    assert counts.get("move", 0) - before == counts.get("score", 0)
    assert before <= sum(counts.values()) <= before + written[0]
    assert verify_backup(tmp_path / "b.tar.gz").table == "Red table"


def test_restore_brings_every_file_back_and_keeps_the_tables_own_secrets(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_data(data).close()
    create_backup(data, tmp_path / "b.tar.gz")
    original = tree(data)
    # the table moves on: another game, a changed setting, a new PIN and session key
    store = EventStore(str(data / "table.sqlite"))
    store.create_game("china", {"players": ["red", "green"]}, "w")
    store.close()
    (data / "web" / "settings.json").write_text(json.dumps({"table_name": "changed"}))
    (data / "web" / "admin.json").write_text('{"hash": "new", "epoch": 2}')
    (data / "stray.txt").write_text("made after the backup")
    secret = (data / "web" / "secret.key").read_bytes()
    restored = restore_backup(tmp_path / "b.tar.gz", data)
    now = tree(data)
    assert (data / "web" / "secret.key").read_bytes() == secret
    assert json.loads((data / "web" / "admin.json").read_text())["epoch"] == 2  # the PIN stays as it is now
    for name in ("table-model.npz", "tags.json", "web/settings.json", "web/boards/my-board.json"):
        assert now[name] == original[name], name
    assert not (data / "stray.txt").exists() and (restored.previous / "stray.txt").exists()
    assert count_events(data / "table.sqlite") == 60
    assert len(EventStore(str(data / "table.sqlite")).games()) == 3
    assert not [p for p in data.iterdir() if p.name.startswith(".restore-")]


def _damaged(tmp_path: Path, good: bytes) -> list[tuple[str, bytes]]:
    flipped = []
    for where in (len(good) // 3, len(good) // 2, len(good) - 30):
        b = bytearray(good)
        b[where] ^= 0x5A
        flipped.append((f"flip@{where}", bytes(b)))
    truncated = [(f"cut@{n}", good[:n]) for n in (0, 10, len(good) // 2, len(good) - 8)]
    return flipped + truncated + [("not gzip", b"hello, this is not a backup\n" * 10)]


def test_a_damaged_archive_is_refused_with_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_data(data).close()
    create_backup(data, tmp_path / "b.tar.gz")
    good = (tmp_path / "b.tar.gz").read_bytes()
    (data / "web" / "settings.json").write_text(json.dumps({"table_name": "current"}))
    current = tree(data)
    for name, blob in _damaged(tmp_path, good):
        bad = tmp_path / "bad.tar.gz"
        bad.write_bytes(blob)
        with pytest.raises(BackupError) as err:
            restore_backup(bad, data)
        text = str(err.value)
        assert "damaged" in text or "not a tableref backup" in text or "no backup file" in text, (name, text)
        assert tree(data) == current, name
        assert sorted(p.name for p in data.iterdir() if p.name.startswith(".")) == [], name


def _archive(path: Path, members: dict[str, bytes], manifest: dict | None) -> None:
    with tarfile.open(path, "w:gz") as tar:
        items = ([(MANIFEST, json.dumps(manifest).encode())] if manifest is not None else []) + list(members.items())
        for name, body in items:
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))


def _entry(name: str, body: bytes) -> dict:
    return {"path": name, "size": len(body), "sha256": hashlib.sha256(body).hexdigest(), "kind": "file"}


@pytest.mark.parametrize("case, members, files, message", [
    ("traversal", {"../evil.txt": b"x"}, ["../evil.txt"], "outside the data folder"),
    ("absolute", {"/etc/evil": b"x"}, ["/etc/evil"], "outside the data folder"),
    ("secret", {"web/secret.key": b"x" * 48}, ["web/secret.key"], "never holds"),
    ("missing", {"a.txt": b"a"}, ["a.txt", "b.txt"], "missing"),
    ("extra", {"a.txt": b"a", "b.txt": b"b"}, ["a.txt"], "does not list"),
    ("no manifest", {"a.txt": b"a"}, None, "no MANIFEST.json"),
])
def test_archives_that_are_not_our_backups_are_refused(tmp_path: Path, case: str, members: dict, files: list | None, message: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "keep.txt").write_text("mine")
    manifest = None if files is None else {"format": "tableref-backup", "version": 1, "created": "", "table": "",
                                           "files": [_entry(f, members.get(f, b"zz")) for f in files]}
    _archive(tmp_path / "x.tar.gz", members, manifest)
    with pytest.raises(BackupError, match=message):
        restore_backup(tmp_path / "x.tar.gz", data)
    assert tree(data) == {"keep.txt": hashlib.sha256(b"mine").hexdigest()}
    assert not (tmp_path / "evil.txt").exists()


def test_a_database_that_fails_sqlites_integrity_check_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (a)")
    con.executemany("INSERT INTO t VALUES (?)", [(os.urandom(300),) for _ in range(200)])
    con.commit()
    con.close()
    body = bytearray(db.read_bytes())
    body[4096 * 3: 4096 * 3 + 12] = b"\x0d\xff\xff\xff\xff\x00" * 2  # a damaged b-tree page header, with a manifest that matches it
    entry = dict(_entry("table.sqlite", bytes(body)), kind="sqlite")
    _archive(tmp_path / "x.tar.gz", {"table.sqlite": bytes(body)},
             {"format": "tableref-backup", "version": 1, "created": "", "table": "", "files": [entry]})
    with pytest.raises(BackupError, match="integrity|cannot be read"):
        verify_backup(tmp_path / "x.tar.gz")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give files to another user")
def test_a_restore_run_as_root_gives_the_files_to_the_data_folders_owner(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_data(data).close()
    create_backup(data, tmp_path / "b.tar.gz")
    os.chown(data, 65534, 65534)  # the service's user owns its data folder
    manifest = restore_backup(tmp_path / "b.tar.gz", data).manifest
    for e in manifest.files:
        st = (data / e.path).stat()
        assert (st.st_uid, st.st_gid) == (65534, 65534), e.path
    assert (data / "web").stat().st_uid == 65534


def test_the_command_line_creates_verifies_and_restores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    make_data(data).close()
    out = tmp_path / "backups"
    out.mkdir()
    assert main(["backup", "create", "--data-dir", str(data), "-o", str(out)]) == 0
    archive = Path(capsys.readouterr().out.splitlines()[0])
    assert archive.parent == out and archive.name.startswith("tableref-backup-data-") and archive.name.endswith(".tar.gz")
    assert main(["backup", "verify", str(archive)]) == 0
    assert "5 files (1 databases)" in capsys.readouterr().out
    (tmp_path / "cut.tar.gz").write_bytes(archive.read_bytes()[:-40])
    current = tree(data)
    assert main(["backup", "restore", str(tmp_path / "cut.tar.gz"), "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged (truncated or corrupted)" in err
    assert tree(data) == current
    assert main(["backup", "restore", str(archive), "--data-dir", str(data)]) == 0


def test_the_command_line_restore_refuses_while_the_service_holds_the_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_data(data).close()
    create_backup(data, tmp_path / "b.tar.gz")
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from tableref.appliance import DataLock; "
                               f"DataLock({str(data)!r}).acquire(); print('locked', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        res = subprocess.run([sys.executable, "-m", "tableref", "backup", "restore", str(tmp_path / "b.tar.gz"),
                              "--data-dir", str(data)], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert res.returncode == 2
        assert f"in use by service (pid {holder.pid})" in res.stderr and "systemctl stop tableref" in res.stderr
    finally:
        holder.kill()  # kill -9: the kernel drops the lock with the process
        holder.wait()
    with DataLock(data):
        pass
    assert main(["backup", "restore", str(tmp_path / "b.tar.gz"), "--data-dir", str(data)]) == 0
