"""Event store (real SQLite file, WAL) and the event-sourced session: replay, undo policy, exports."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from scorer.core import BoardDiff, Piece
from scorer.games.china.moves import Exchange, Place, Placement
from scorer.records import parse_record, replay
from tableref.cli import main
from tableref.session import Session, SessionError
from tableref.store import EventStore, NewEvent, StaleWrite, StoreError

SETUP = {"players": ["blue", "green", "red"], "board": "china-a"}


def place(player: str, *pieces: tuple[str, str]) -> Place:
    return Place(player, tuple(Placement(kind, space) for kind, space in pieces))  # type: ignore[arg-type]


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


def open_session(path: Path, published: list | None = None) -> tuple[EventStore, Session]:
    store = EventStore(str(path))
    pub = (lambda t, d: published.append((t, d))) if published is not None else None
    return store, Session.resume_or_start(store, "china", SETUP, clock=Clock(), wall=lambda: "2024-01-01T00:00:00Z", publish=pub)


def test_store_is_wal_with_full_sync_and_rejects_a_duplicate_sequence(tmp_path: Path) -> None:
    store = EventStore(str(tmp_path / "t.sqlite"))
    assert store.journal_mode() == "wal"
    g = store.create_game("china", SETUP, "w")
    store.append(g, 0, [NewEvent("a", {"x": 1})], 0.0, "w")
    with pytest.raises(StaleWrite):
        store.append(g, 0, [NewEvent("b", {})], 0.0, "w")
    store.append(g, 1, [NewEvent("c", {})], 0.0, "w")
    with pytest.raises(StaleWrite):
        store.append(g, 1, [NewEvent("d", {})], 0.0, "w")
    assert [e.type for e in store.events(g)] == ["a", "c"]
    assert store.next_boot() == 1 and store.next_boot() == 2
    store.close()
    store.close()  # idempotent
    # another process-style reader sees committed data while nothing is open
    db = sqlite3.connect(str(tmp_path / "t.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2


def test_batch_is_all_or_nothing(tmp_path: Path) -> None:
    store = EventStore(str(tmp_path / "t.sqlite"))
    g = store.create_game("china", SETUP, "w")
    store.append(g, 1, [NewEvent("x", {})], 0.0, "w")
    with pytest.raises(StaleWrite):
        store.append(g, 0, [NewEvent("a", {}), NewEvent("b", {})], 0.0, "w")  # seq 1 taken: a is rolled back
    assert [e.seq for e in store.events(g)] == [1]


def test_missing_read_only_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        EventStore(str(tmp_path / "none.sqlite"), read_only=True)


def test_session_resumes_exactly_and_never_applies_a_move_twice(tmp_path: Path) -> None:
    published: list = []
    store, s = open_session(tmp_path / "t.sqlite", published)
    s.record_move([place("blue", ("house", "wei-1"))], "complete", "referee", "blue")
    s.record_move([place("green", ("house", "wei-2"), ("house", "wei-3"))], "complete", "referee", "green")
    # told only after the commit: every published event is in the store
    stored = {(e.seq, e.type) for e in store.events(s.game_no)}
    assert {(d["seq"], t) for t, d in published} <= stored
    before = (s.state, s.version, s.seq)
    store.close()
    store2, s2 = open_session(tmp_path / "t.sqlite")
    assert (s2.state, s2.version, s2.seq) == before
    assert len(s2.moves()) == 2
    # a second writer with the same state version is rejected, nothing applied twice
    with pytest.raises(StaleWrite):
        stale = Session.resume(store2, s2.game_no, clock=Clock(), wall=lambda: "w")
        s2.record_move([place("red", ("house", "wei-4"))], "complete", "referee")
        stale.record_move([place("red", ("house", "wei-4"))], "complete", "referee")
    store2.close()
    store3, s3 = open_session(tmp_path / "t.sqlite")
    assert len(s3.moves()) == 3


def test_province_scoring_is_stored_as_a_score_change(tmp_path: Path) -> None:
    store, s = open_session(tmp_path / "t.sqlite")
    # Lu has 4 sites on china-a: fill it, one house per turn pair
    s.record_move([place("blue", ("house", "lu-1"))], "complete", "referee")
    s.record_move([place("green", ("house", "lu-2"), ("house", "lu-3"))], "complete", "referee")
    s.record_move([place("red", ("house", "lu-4"))], "complete", "referee")
    types = [e.type for e in store.events(s.game_no)]
    assert types.count("score") == 1
    score = [e for e in store.events(s.game_no) if e.type == "score"][0]
    assert any(e["kind"] == "province_scored" for e in score.data["effects"])
    assert s.totals() == {"blue": 2, "green": 4, "red": 2}


def test_undo_policy(tmp_path: Path) -> None:
    store, s = open_session(tmp_path / "t.sqlite")
    assert s.undo_refusal(False, False) is not None  # nothing to undo
    s.record_move([place("blue", ("house", "wei-1"))], "complete", "referee")
    assert s.undo_refusal(False, others_acted=True) is not None
    assert s.undo_refusal(False, others_acted=False) is None
    s.record_undo("button", False)
    assert s.undo_wait == (place("blue", ("house", "wei-1")),)
    assert s.moves() == []
    s.record_move([place("blue", ("house", "wei-2"))], "complete", "referee")
    s.record_move([place("green", ("house", "wei-3"))], "complete", "referee")
    s.record_undo("button", False)
    msg = s.undo_refusal(False, False)
    assert msg is not None and "PIN" in msg.en and msg.zh  # no stepping back across another player's action
    assert s.undo_refusal(True, False) is None
    s.record_undo("admin", True)
    assert s.moves() == []
    # a declared move revealed hidden information
    s.record_move([Exchange("blue")], "declared", "dashboard")
    assert "hidden" in s.undo_refusal(False, False).en  # type: ignore[union-attr]
    # an override is undone only with the PIN
    s.record_override((), BoardDiff(added=(("qi-1", Piece("red", "house"), 1),)), "admin", None)
    assert "override" in s.undo_refusal(False, False).en  # type: ignore[union-attr]
    s.record_undo("admin", True)
    assert s.offset == BoardDiff()
    store.close()
    # undo, waits and offsets all survive a restart
    store, s2 = open_session(tmp_path / "t.sqlite")
    assert s2.moves() == [Exchange("blue")] and s2.offset == BoardDiff()


def test_undo_wait_survives_a_restart_until_the_table_matched(tmp_path: Path) -> None:
    store, s = open_session(tmp_path / "t.sqlite")
    s.record_move([place("blue", ("house", "wei-1"))], "complete", "referee")
    s.record_undo("button", False)
    store.close()
    store, s = open_session(tmp_path / "t.sqlite")
    assert s.undo_wait is not None
    s.record("table_matched", {})
    store.close()
    store, s = open_session(tmp_path / "t.sqlite")
    assert s.undo_wait is None


def test_exports_json_record_that_tableref_score_reads_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, s = open_session(tmp_path / "t.sqlite")
    s.record_move([place("blue", ("house", "lu-1"))], "complete", "referee")
    s.record_move([place("green", ("house", "lu-2"), ("house", "lu-3"))], "complete", "referee")
    s.record_move([place("red", ("house", "lu-4"))], "complete", "referee")
    doc = s.export_record()
    result = replay(parse_record(doc))
    assert result.ok and result.applied == 3
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    assert main(["score", str(path)]) == 0
    totals = {p["player"]: p["total"] for p in json.loads(capsys.readouterr().out)["scoreboard"]["players"]}
    assert totals == s.totals()
    # the same through `tableref export` from the store file (read-only, as while the referee runs)
    assert main(["export", "--store", str(tmp_path / "t.sqlite"), "--out", str(tmp_path / "x.json")]) == 0
    assert json.loads((tmp_path / "x.json").read_text())["moves"] == doc["moves"]
    assert main(["export", "--store", str(tmp_path / "t.sqlite"), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("seq,wall,type")
    assert main(["export", "--store", str(tmp_path / "t.sqlite"), "--game", "9"]) == 2
    rows = list(csv.DictReader(io.StringIO(s.export_csv())))
    assert [r["type"] for r in rows][:3] == ["game_started", "move", "move"]
    assert rows[-1]["total_green"] == "4"
    assert any(r["description_zh"] for r in rows)


def test_a_tampered_log_is_reported_not_silently_replayed(tmp_path: Path) -> None:
    store, s = open_session(tmp_path / "t.sqlite")
    s.record_move([place("blue", ("house", "wei-1"))], "complete", "referee")
    store.append(s.game_no, s.seq, [NewEvent("move", {"moves": [{"type": "place", "player": "blue",
                                                                    "pieces": [{"kind": "house", "space": "wei-2"}]}]})], 0.0, "w")
    store.close()
    with pytest.raises(SessionError, match="does not replay"):
        open_session(tmp_path / "t.sqlite")
