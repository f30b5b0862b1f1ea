"""The event store: an append-only SQLite log of everything the referee decided.

Every accepted move, flag, correction, undo, override and score change is committed here
*before* anyone is told (event-sourcing, boardgame.io style): a power cut loses nothing that was
announced, and a restart replays the log to the exact state it had.

* WAL journal, ``synchronous=FULL``: a commit that returned is on the disk.
* Each game has its own increasing ``seq`` (the state version). ``UNIQUE(game, seq)`` rejects a
  stale or duplicate write instead of applying something twice.
* A batch (a move and the score change it caused) is one transaction: all or nothing.
* ``boot`` counts process starts; the runtime uses it to keep event ids increasing across restarts.

The store is used by one writer thread (the referee loop). Readers (exports, tests, another
process) open their own connection; WAL lets them read while the referee writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from scorer.core.types import TableRefError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    started_wall TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open'   -- open | finished | abandoned
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    at REAL NOT NULL,
    wall TEXT NOT NULL,
    actor TEXT,
    data TEXT NOT NULL,
    UNIQUE (game, seq)
);
"""


class StoreError(TableRefError, OSError):
    """The event store cannot be opened or written."""


class StaleWrite(StoreError):
    """An event with this sequence number already exists: someone else wrote first."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    id: int
    game: int
    seq: int
    type: str
    at: float
    wall: str
    actor: str | None
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "seq": self.seq, "type": self.type, "at": self.at,
                "wall": self.wall, "actor": self.actor, "data": self.data}


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    game: str
    setup: dict[str, Any]
    started_wall: str
    status: str


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    data: dict[str, Any]
    actor: str | None = None


class EventStore:
    """One SQLite file. Thread-safe for one writer plus readers through a lock on the connection."""

    def __init__(self, path: str, *, read_only: bool = False) -> None:
        self.path = path
        self._lock = threading.RLock()
        try:
            if read_only:
                if not os.path.exists(path):
                    raise StoreError(f"event store {path} does not exist")
                self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
            else:
                parent = os.path.dirname(os.path.abspath(path))
                os.makedirs(parent, exist_ok=True)
                self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("PRAGMA foreign_keys=ON")
                self._db.executescript(_SCHEMA)
                self._check_version()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open event store {path}: {exc}") from exc
        self._closed = False

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise StoreError(f"event store {self.path} has schema {row[0]}, this version reads {SCHEMA_VERSION}")

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self, timeout: float | None = None) -> bool:
        """Close the connection once no write is under way: waits for one at most ``timeout`` seconds
        (None: as long as it takes). False when it is still under way (the file is left as the last
        commit made it: WAL and ``synchronous=FULL``)."""
        if not self._lock.acquire(timeout=-1 if timeout is None else max(0.0, timeout)):
            return False
        try:
            if not self._closed:
                self._closed = True
                self._db.close()
        finally:
            self._lock.release()
        return True

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def journal_mode(self) -> str:
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    # -- meta ----------------------------------------------------------------------------------
    def next_boot(self) -> int:
        """Count one more process start (committed) and return the new count."""
        with self._lock, self._tx():
            row = self._db.execute("SELECT value FROM meta WHERE key='boot'").fetchone()
            boot = (int(row[0]) if row else 0) + 1
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('boot', ?)", (str(boot),))
            return boot

    # -- games ---------------------------------------------------------------------------------
    def create_game(self, game: str, setup: dict[str, Any], wall: str) -> int:
        with self._lock, self._tx():
            cur = self._db.execute(
                "INSERT INTO games(game, setup, started_wall) VALUES (?, ?, ?)",
                (game, json.dumps(setup, ensure_ascii=False, sort_keys=True), wall),
            )
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def set_status(self, game_no: int, status: str) -> None:
        if status not in ("open", "finished", "abandoned"):
            raise ValueError(f"unknown game status {status!r}")
        with self._lock, self._tx():
            self._db.execute("UPDATE games SET status=? WHERE id=?", (status, game_no))

    def games(self) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute("SELECT id, game, setup, started_wall, status FROM games ORDER BY id").fetchall()
        return [GameRow(r[0], r[1], json.loads(r[2]), r[3], r[4]) for r in rows]

    def game(self, game_no: int) -> GameRow:
        for g in self.games():
            if g.id == game_no:
                return g
        raise StoreError(f"no game {game_no} in {self.path}")

    def latest_game(self) -> GameRow | None:
        games = self.games()
        return games[-1] if games else None

    # -- events -------------------------------------------------------------------------------
    def append(self, game_no: int, seq: int, events: Iterable[NewEvent], at: float, wall: str) -> list[StoredEvent]:
        """Append events with ``seq``, ``seq+1`` ... in one durable transaction; all or nothing."""
        out: list[StoredEvent] = []
        with self._lock:
            try:
                with self._tx():
                    for i, ev in enumerate(events):
                        data = json.dumps(ev.data, ensure_ascii=False, sort_keys=True)
                        cur = self._db.execute(
                            "INSERT INTO events(game, seq, type, at, wall, actor, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (game_no, seq + i, ev.type, at, wall, ev.actor, data),
                        )
                        out.append(StoredEvent(int(cur.lastrowid), game_no, seq + i, ev.type, at, wall, ev.actor, ev.data))  # type: ignore[arg-type]
            except sqlite3.IntegrityError as exc:
                raise StaleWrite(f"event {seq} of game {game_no} already stored ({exc})") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write to event store {self.path}: {exc}") from exc
        return out

    def events(self, game_no: int, after_seq: int = -1) -> list[StoredEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, seq, type, at, wall, actor, data FROM events WHERE game=? AND seq>? ORDER BY seq",
                (game_no, after_seq),
            ).fetchall()
        return [StoredEvent(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7])) for r in rows]

    def last_seq(self, game_no: int) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events WHERE game=?", (game_no,)).fetchone()
        return -1 if row[0] is None else int(row[0])

    def _tx(self) -> "_Transaction":
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")


def iter_all(path: str) -> Iterator[tuple[GameRow, list[StoredEvent]]]:
    """Every game with its events, read-only (for exports and inspection)."""
    with EventStore(path, read_only=True) as store:
        for g in store.games():
            yield g, store.events(g.id)
