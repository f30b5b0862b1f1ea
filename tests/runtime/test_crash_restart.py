"""``tableref run`` as a real process, killed with SIGKILL mid-game and restarted: no accepted
move is lost and none is applied twice. The sensor board is emulated in this test process on a
pseudo-terminal behind a stable link path, so it outlives the referee like a real board does."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.emulator import EmulatedSensorBoard
from firmware_bridge.wiring import WiringMap
from scorer.core import Piece
from scorer.games.china.board import load_board
from tableref.demo import piece_uids, wait_until, write_registry

PLAYERS = ("blue", "green", "red")
ROOT = Path(__file__).resolve().parents[2]


class Table:
    """The physical table: tags on antennas of the emulated board."""

    def __init__(self, tmp: Path) -> None:
        board = load_board("china-a")
        self.spaces = list(board.sites) + [p.dragon for p in board.provinces]
        self.antenna = {s: i for i, s in enumerate(self.spaces)}
        self.uids = piece_uids(PLAYERS)
        self.emulator = EmulatedSensorBoard(antennas=len(self.spaces), link_path=tmp / "sensor-board", seed=11)

    def put(self, space: str, owner: str, kind: str = "house") -> None:
        self.emulator.place(self.antenna[space], self.uids[Piece(owner, kind)].pop(0))

    def close(self) -> None:
        self.emulator.close()


def write_config(tmp: Path, table: Table) -> Path:
    write_registry(tmp / "tags.json", PLAYERS)
    wiring = WiringMap.of({i: s for s, i in table.antenna.items()}, board="china-a")
    (tmp / "wiring.json").write_text(json.dumps(wiring.to_json()))
    cfg = tmp / "table.toml"
    cfg.write_text(f"""
[table]
name = "crash test"
data_dir = "data"

[game]
id = "china"
board = "china-a"
players = ["blue", "green", "red"]

[referee]
settle_seconds = 0.15
complete_grace_seconds = 0.3
quiet_timeout_seconds = 1.0

[devices.sensor_board]
port = "{tmp / 'sensor-board'}"
tags = "tags.json"
antennas = "wiring.json"

[gpio]
enabled = true
pin_factory = "mock"

[web]
enabled = false
""")
    return cfg


def start(cfg: Path, log: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = open(log, "ab")
    return subprocess.Popen([sys.executable, "-m", "tableref", "run", "--config", str(cfg), "--no-web", "--lang", "en"],
                            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=str(cfg.parent))


def stored_moves(db_path: Path) -> list[dict[str, Any]]:
    """The game's moves after undos, read straight from the store (another process writes it)."""
    if not db_path.exists():
        return []
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT seq, type, data FROM events WHERE game = (SELECT MAX(id) FROM games) ORDER BY seq").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        db.close()
    moves: list[dict[str, Any]] = []
    for _seq, type_, data in rows:
        d = json.loads(data)
        if type_ == "move":
            moves.extend(d["moves"])
        elif type_ == "undo":
            del moves[len(moves) - len(d["undone"]):]
    return moves


def live(log: Path) -> bool:
    return log.exists() and "sensor-board: live" in log.read_text(errors="replace")


@pytest.mark.slow
def test_kill_9_mid_game_loses_no_move_and_applies_none_twice(tmp_path: Path) -> None:
    table = Table(tmp_path)
    cfg = write_config(tmp_path, table)
    db = tmp_path / "data" / "table.sqlite"
    log = tmp_path / "run.log"
    script = [
        ("blue", ["lu-1"]),
        ("green", ["lu-2", "lu-3"]),
        ("red", ["lu-4"]),  # Lu full: scores; one piece in a province with pieces: quiet timeout
        ("blue", ["wei-1"]),
    ]
    def placed(i: int) -> int:
        return sum(len(sp) for _, sp in script[: i + 1])

    proc = start(cfg, log)
    try:
        assert wait_until(lambda: live(log), 30), log.read_text(errors="replace")
        kills = 0
        for i, (owner, spaces) in enumerate(script):
            for s in spaces:
                table.put(s, owner)
            if i % 2 == 0:
                # killed while the move is still settling on the table (seen, not yet accepted)
                assert wait_until(lambda: sum(len(v) for v in table.emulator.firmware_table().values()) == placed(i), 10)
                assert len(stored_moves(db)) == i
            else:
                # killed right after the move was committed
                assert wait_until(lambda: len(stored_moves(db)) == i + 1, 20), log.read_text(errors="replace")
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            kills += 1
            proc = start(cfg, log)
            assert wait_until(lambda: len(stored_moves(db)) == i + 1, 30), log.read_text(errors="replace")
        assert kills == len(script)
        # a quiet period longer than the quiet timeout: nothing is re-read as a new move
        assert not wait_until(lambda: len(stored_moves(db)) > len(script), 2.0)
        got = [(m["player"], [p["space"] for p in m["pieces"]]) for m in stored_moves(db)]
        assert got == script
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        table.close()
    # the store is a consistent SQLite file with unique state versions
    con = sqlite3.connect(str(db))
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    seqs = [r[0] for r in con.execute("SELECT seq FROM events WHERE game = 1 ORDER BY seq")]
    assert seqs == list(range(len(seqs)))
    scores = [json.loads(r[0]) for r in con.execute("SELECT data FROM events WHERE game = 1 AND type = 'score'")]
    assert len(scores) == 1 and scores[0]["effects"][0]["kind"] == "province_scored"  # Lu, scored exactly once
