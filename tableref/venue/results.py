"""The venue's results: every finished game of every table, and the players across games (SQLite).

Fed by the tables' final states over MQTT (``game_from_snapshot``; a state with an ``outcome`` is
the table's last word on a game, retained, so a venue that was off when the game ended still gets
it) and by importing exported game records (``tableref.venue.records``). A game is stored once:
its *fingerprint* (game, game number, time of the last move, final totals) is the same whether it
came over MQTT or from the table's exported record, and a final state sent again after a reconnect
changes nothing.

Players are matched by name, case- and width-insensitively (``name_key``: NFKC, case-folded, spaces
collapsed). The organiser can merge two spellings (``merge``; undone with ``unmerge``); the
standings then count both as one player, shown under the name merged into. A seat without a name
(a table that does not know who sits there) is kept in the game but is nobody's result.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import sqlite3
import threading
import time
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from scorer.core.types import Message, TableRefError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,              -- mqtt | import
    table_id TEXT,                     -- the table's MQTT id (mqtt) or NULL (import)
    table_name TEXT NOT NULL,
    game TEXT NOT NULL,
    game_no INTEGER,
    version INTEGER,
    finished TEXT NOT NULL,            -- UTC, ISO 8601
    recorded TEXT NOT NULL,
    termination TEXT
);
CREATE TABLE IF NOT EXISTS results (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    colour TEXT NOT NULL,
    name TEXT,                         -- as the table knew it; NULL: an unnamed seat
    name_key TEXT,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    winner INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS results_name ON results(name_key);
CREATE TABLE IF NOT EXISTS merges (
    name_key TEXT PRIMARY KEY,
    into_key TEXT NOT NULL,
    at TEXT NOT NULL,
    actor TEXT
);
"""


class ResultsError(TableRefError, ValueError):
    """A results operation that cannot be done; ``message`` is bilingual for the venue page."""

    def __init__(self, message: Message, code: str = "refused") -> None:
        super().__init__(message.en)
        self.message = message
        self.code = code


def name_key(name: str) -> str:
    """How names are matched: "  ALICE " == "alice" == "ａｌｉｃｅ"."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def utc_iso(value: Any) -> str | None:
    """An ISO time (any offset) or epoch seconds as UTC ``YYYY-MM-DDTHH:MM:SSZ``; None if unreadable."""
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            moment = datetime.fromtimestamp(float(value), timezone.utc)
        elif isinstance(value, str) and value:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(frozen=True, slots=True)
class PlayerResult:
    colour: str
    name: str | None
    score: int
    rank: int
    winner: bool


@dataclass(frozen=True, slots=True)
class FinishedGame:
    source: str  # "mqtt" | "import"
    table_id: str | None
    table_name: str
    game: str
    game_no: int | None
    version: int | None
    finished: str  # as the table wrote it (the time of the last move); part of the fingerprint
    players: tuple[PlayerResult, ...]
    termination: str | None = None

    @property
    def fingerprint(self) -> str:
        totals = sorted((p.colour, p.score) for p in self.players)
        raw = json.dumps([self.game, self.game_no, self.finished, totals], separators=(",", ":"))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def ranks(scores: Sequence[tuple[str, int, Sequence[int]]], winners: Sequence[str]) -> dict[str, int]:
    """Competition ranks ("1, 2, 2, 4") by total then tie-break key; the outcome's winners share
    rank 1 (a game's own end can decide it, as a shared victory does)."""
    out = {w: 1 for w in winners}
    rest = [s for s in scores if s[0] not in out]
    rest.sort(key=lambda s: (s[1], tuple(s[2])), reverse=True)
    start = len(out) + 1
    for i, (colour, total, tiebreak) in enumerate(rest):
        if i and (total, tuple(tiebreak)) == (rest[i - 1][1], tuple(rest[i - 1][2])):
            out[colour] = out[rest[i - 1][0]]
        else:
            out[colour] = start + i
    return out


def players_from_scoreboard(scoreboard: Mapping[str, Any], winners: Sequence[str],
                            names: Mapping[str, str]) -> tuple[PlayerResult, ...]:
    rows = [p for p in scoreboard.get("players") or [] if isinstance(p, Mapping)]
    scores = [(str(p["player"]), int(p.get("total", 0)), [int(x) for x in p.get("tiebreak") or []]) for p in rows]
    rank = ranks(scores, [str(w) for w in winners])
    out = []
    for colour, total, _ in scores:
        name = names.get(colour)
        name = name.strip() if isinstance(name, str) and name.strip() and name.strip() != colour else None
        out.append(PlayerResult(colour, name, total, rank[colour], colour in winners))
    return tuple(out)


def game_from_snapshot(table_id: str, table_name: str, snap: Mapping[str, Any]) -> FinishedGame | None:
    """The finished game a table's state describes, or None while it is not over."""
    outcome = snap.get("outcome")
    scores = snap.get("scores")
    if not isinstance(outcome, Mapping) or not isinstance(scores, Mapping) or not snap.get("game"):
        return None
    last = snap.get("last_move") if isinstance(snap.get("last_move"), Mapping) else {}
    finished = last.get("at")
    finished = str(finished) if finished is not None else f"v{snap.get('version')}"
    names = snap.get("player_names") if isinstance(snap.get("player_names"), Mapping) else {}
    return FinishedGame("mqtt", table_id, table_name, str(snap["game"]), _int(snap.get("game_no")), _int(snap.get("version")),
                        finished, players_from_scoreboard(scores, outcome.get("winners") or [], names),
                        str(outcome.get("termination") or "") or None)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


class ResultsStore:
    """One SQLite file (``<data>/venue-results.sqlite``). Thread-safe through a lock."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.RLock()
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise ResultsError(Message.t('tableref.venue.results.has_results_schema_this_version', path=path, row=row[0], SCHEMA_VERSION=SCHEMA_VERSION))
        except sqlite3.Error as exc:
            raise ResultsError(Message.t('tableref.venue.results.cannot_open_the_results_store', path=path, exc=exc)) from exc
        # what arrives with every retained final state (again after each reconnect) is checked here, not in SQL
        self._fingerprints = {r[0] for r in self._db.execute("SELECT fingerprint FROM games")}
        self._open_games = {(r[0], r[1]): (r[2], r[3], r[4]) for r in self._db.execute(
            "SELECT table_id, game_no, id, version, game FROM games WHERE source='mqtt' AND game_no IS NOT NULL")}
        self._closed = False

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()

    def _tx(self) -> "_Tx":
        return _Tx(self._db)

    # -- recording ----------------------------------------------------------------------------------
    def add(self, game: FinishedGame) -> int | None:
        """Store a finished game; its id, or None when it is already stored."""
        fp = game.fingerprint
        with self._lock:
            if fp in self._fingerprints:
                return None
            with self._tx():
                cur = self._db.execute(
                    "INSERT INTO games(fingerprint, source, table_id, table_name, game, game_no, version, finished, recorded, termination)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (fp, game.source, game.table_id, game.table_name, game.game, game.game_no, game.version,
                     utc_iso(game.finished) or now_iso(), now_iso(), game.termination))
                game_id = int(cur.lastrowid)  # type: ignore[arg-type]
                self._db.executemany(
                    "INSERT INTO results(game_id, seat, colour, name, name_key, score, rank, winner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(game_id, seat, p.colour, p.name, name_key(p.name) if p.name else None, p.score, p.rank, int(p.winner))
                     for seat, p in enumerate(game.players)])
            self._fingerprints.add(fp)
            if game.source == "mqtt" and game.table_id is not None and game.game_no is not None:
                self._open_games[(game.table_id, game.game_no)] = (game_id, game.version, game.game)
            return game_id

    def reopened(self, table_id: str, snap: Mapping[str, Any]) -> bool:
        """A table's state says a game recorded as finished goes on (an undo after the end): the
        result is withdrawn until the game ends again. True if one was removed."""
        game_no, version = _int(snap.get("game_no")), _int(snap.get("version"))
        if game_no is None or version is None or snap.get("outcome") is not None:
            return False
        with self._lock:
            found = self._open_games.get((table_id, game_no))
            if found is None:
                return False
            game_id, recorded_version, game = found
            if snap.get("game") != game or recorded_version is None or version <= recorded_version:
                return False
            fp = self._db.execute("SELECT fingerprint FROM games WHERE id=?", (game_id,)).fetchone()
            with self._tx():
                self._db.execute("DELETE FROM games WHERE id=?", (game_id,))
            del self._open_games[(table_id, game_no)]
            if fp is not None:
                self._fingerprints.discard(fp[0])
            return True

    def delete(self, game_id: int) -> bool:
        with self._lock:
            row = self._db.execute("SELECT fingerprint, table_id, game_no FROM games WHERE id=?", (game_id,)).fetchone()
            if row is None:
                return False
            with self._tx():
                self._db.execute("DELETE FROM games WHERE id=?", (game_id,))
            self._fingerprints.discard(row[0])
            self._open_games.pop((row[1], row[2]), None)
            return True

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # -- players and merges -------------------------------------------------------------------------
    def _merges(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._db.execute("SELECT name_key, into_key FROM merges")}

    def _display_names(self, merges: Mapping[str, str]) -> dict[str, str]:
        """canonical key -> the latest spelling of that very key (a merged-away spelling only if none)."""
        out: dict[str, str] = {}
        fallback: dict[str, str] = {}
        for key, name in self._db.execute(
                "SELECT r.name_key, r.name FROM results r JOIN games g ON g.id = r.game_id WHERE r.name_key IS NOT NULL "
                "ORDER BY g.finished, g.id"):
            canonical = merges.get(key, key)
            (out if canonical == key else fallback)[canonical] = name
        return {**fallback, **out}

    def players(self) -> list[dict[str, Any]]:
        """Every name seen, with the player it counts as."""
        with self._lock:
            merges = self._merges()
            names = self._display_names(merges)
            rows = self._db.execute(
                "SELECT r.name_key, r.name, COUNT(*) FROM results r JOIN games g ON g.id = r.game_id WHERE r.name_key IS NOT NULL "
                "GROUP BY r.name_key ORDER BY r.name_key").fetchall()
        return [{"key": key, "name": name, "games": n, "merged_into": names.get(merges[key]) if key in merges else None}
                for key, name, n in rows]

    def merge(self, source: str, into: str, actor: str | None = None) -> dict[str, Any]:
        """Count every game of ``source`` as ``into``'s from now on."""
        src, dst = name_key(source), name_key(into)
        with self._lock:
            known = {r[0] for r in self._db.execute("SELECT DISTINCT name_key FROM results WHERE name_key IS NOT NULL")}
            for who, key in ((source, src), (into, dst)):
                if key not in known:
                    raise ResultsError(Message.t('tableref.venue.results.no_player_called_in_the', who=who),
                                       code="not_found")
            merges = self._merges()
            target = merges.get(dst, dst)
            if target == src or merges.get(src) == target or src == target:
                raise ResultsError(Message.t('tableref.venue.results.already_counts_as', source=source, into=into),
                                   code="conflict")
            with self._tx():
                self._db.execute("INSERT OR REPLACE INTO merges(name_key, into_key, at, actor) VALUES (?, ?, ?, ?)",
                                 (src, target, now_iso(), actor))
                self._db.execute("UPDATE merges SET into_key=? WHERE into_key=?", (target, src))
            return {"from": src, "into": target, "name": self._display_names(self._merges()).get(target, into)}

    def unmerge(self, name: str) -> bool:
        """Let a merged spelling count as its own player again; True if it was merged."""
        key = name_key(name)
        with self._lock, self._tx():
            return self._db.execute("DELETE FROM merges WHERE name_key=?", (key,)).rowcount > 0

    # -- reading ----------------------------------------------------------------------------------
    def games(self, limit: int = 50, game: str | None = None) -> list[dict[str, Any]]:
        """The latest finished games, newest first, with each seat's result."""
        with self._lock:
            merges = self._merges()
            names = self._display_names(merges)
            where, args = ("WHERE game=?", [game]) if game else ("", [])
            rows = self._db.execute(
                f"SELECT id, source, table_id, table_name, game, game_no, finished, termination FROM games {where} "
                "ORDER BY finished DESC, id DESC LIMIT ?", [*args, limit]).fetchall()
            seats: dict[int, list[dict[str, Any]]] = {r[0]: [] for r in rows}
            if rows:
                marks = ",".join("?" * len(rows))
                for gid, colour, name, key, score, rank, winner in self._db.execute(
                        f"SELECT game_id, colour, name, name_key, score, rank, winner FROM results WHERE game_id IN ({marks}) "
                        "ORDER BY game_id, seat", [r[0] for r in rows]):
                    canonical = merges.get(key, key) if key else None
                    seats[gid].append({"colour": colour, "name": name, "player": names.get(canonical) if canonical else None,
                                       "score": score, "rank": rank, "winner": bool(winner)})
        return [{"id": r[0], "source": r[1], "table_id": r[2], "table": r[3], "game": r[4], "game_no": r[5], "finished": r[6],
                 "termination": r[7], "players": seats[r[0]]} for r in rows]

    def standings(self, game: str | None = None) -> list[dict[str, Any]]:
        """Per player (merged spellings as one): games, wins, average rank, points; best first
        (most wins, then the better average rank, then more games)."""
        with self._lock:
            merges = self._merges()
            names = self._display_names(merges)
            where, args = ("AND g.game=?", [game]) if game else ("", [])
            rows = self._db.execute(
                "SELECT r.name_key, r.score, r.rank, r.winner, g.finished, g.game FROM results r JOIN games g ON g.id = r.game_id "
                f"WHERE r.name_key IS NOT NULL {where}", args).fetchall()
        table: dict[str, dict[str, Any]] = {}
        for key, score, rank, winner, finished, game_id in rows:
            canonical = merges.get(key, key)
            row = table.setdefault(canonical, {"key": canonical, "name": names.get(canonical, canonical), "games": 0, "wins": 0,
                                               "rank_sum": 0, "points": 0, "best": None, "last": "", "by_game": {}})
            row["games"] += 1
            row["wins"] += int(winner)
            row["rank_sum"] += rank
            row["points"] += score
            row["best"] = score if row["best"] is None else max(row["best"], score)
            row["last"] = max(row["last"], finished)
            row["by_game"][game_id] = row["by_game"].get(game_id, 0) + 1
        out = []
        for row in table.values():
            games = row.pop("games")
            rank_sum = row.pop("rank_sum")
            out.append(dict(row, games=games, avg_rank=round(rank_sum / games, 2), avg_points=round(row["points"] / games, 1)))
        out.sort(key=lambda r: (-r["wins"], r["avg_rank"], -r["games"], r["name"].casefold()))
        for i, row in enumerate(out):
            row["place"] = i + 1 if i == 0 or (row["wins"], row["avg_rank"]) != (out[i - 1]["wins"], out[i - 1]["avg_rank"]) \
                else out[i - 1]["place"]
        return out

    def game_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT game FROM games ORDER BY game")]

    def csv(self) -> str:
        """Every seat of every game, one row each (the player column is after merges)."""
        with self._lock:
            merges = self._merges()
            names = self._display_names(merges)
            rows = self._db.execute(
                "SELECT g.finished, g.table_name, g.table_id, g.game, g.game_no, g.source, r.name, r.name_key, r.colour, r.score, "
                "r.rank, r.winner FROM games g JOIN results r ON r.game_id = g.id ORDER BY g.finished, g.id, r.seat").fetchall()
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(["finished_utc", "table", "table_id", "game", "game_no", "source", "player", "name_recorded", "colour",
                    "score", "rank", "winner"])
        for finished, table, table_id, game, game_no, source, name, key, colour, score, rank, winner in rows:
            player = names.get(merges.get(key, key), name) if key else ""
            w.writerow([finished, table, table_id or "", game, "" if game_no is None else game_no, source, player, name or "",
                        colour, score, rank, int(winner)])
        return out.getvalue()


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")

