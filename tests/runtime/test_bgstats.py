"""Results leave the Pi: a finished game as Board Game Stats' createPlay JSON and link, from the
referee (``Table.export_bgstats``) and from ``tableref export --format bgstats|record|csv`` on a
real event store -- the same JSON both ways."""

from __future__ import annotations

import csv
import io
import itertools
import json
from datetime import timezone
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from scorer.core import get_game
from scorer.core.game import SetupOptions
from scorer.records import load_record, parse_record, replay
from tableref.bgstats import CREATE_PLAY, NotFinished, bgstats_play, createplay_url, ranks
from tableref.cli import main
from tableref.service import EventBus
from tableref.session import Session
from tableref.store import EventStore
from tableref.table import Table, TableSettings

ROOT = Path(__file__).resolve().parents[2]
COMPLETE = ROOT / "examples" / "china-4p-complete.json"


def finished_store(path: Path, record: Path = COMPLETE) -> Path:
    """A real event store holding one finished game, replayed move by move as the referee stores them."""
    rec = load_record(str(record))
    walls = (f"2026-03-07T19:{m:02d}:{s:02d}.000+00:00" for m, s in itertools.product(range(60), range(0, 60, 15)))
    store = EventStore(str(path))
    session = Session.start(store, rec.game.id, rec.raw["setup"], clock=lambda: 0.0, wall=lambda: next(walls))
    for m in rec.moves:
        session.record_move((m,), "declared", "test")
    assert session.is_over()
    store.close()
    return path


def test_play_json_follows_the_createplay_format() -> None:
    rec = load_record(str(COMPLETE))
    state = replay(rec).state
    play = bgstats_play(game=rec.game, setup=rec.setup, state=state, started="2026-03-07T19:00:00+00:00",
                        ended="2026-03-07T20:34:40+00:00", play_id="cafe:7", names={"violet": "Mei", "blue": "Tom"},
                        location="Café 3", tz=timezone.utc)
    assert play["sourceName"] == "tableref" and play["sourcePlayId"] == "cafe:7"
    assert play["playDate"] == "2026-03-07 19:00:00" and play["durationMin"] == 95 and play["location"] == "Café 3"
    assert play["game"] == {"name": rec.game.name.en, "sourceGameId": "china", "highestWins": True, "noPoints": False}
    board = rec.game.score(state)
    by_id = {p["sourcePlayerId"]: p for p in play["players"]}
    assert set(by_id) == set(rec.setup.players)
    for p in board.players:
        assert by_id[p.player]["score"] == p.total
    winners = set(rec.game.outcome(state).winners)
    assert {k for k, p in by_id.items() if p["winner"]} == winners
    assert [p["rank"] for p in play["players"]] == sorted(p["rank"] for p in play["players"])
    assert all(by_id[w]["rank"] == 1 for w in winners)
    # the Emperor holder (first in seating order) starts
    assert [k for k, p in by_id.items() if p["startPlayer"]] == [rec.setup.players[0]]
    assert by_id["violet"]["name"] == "Mei" and by_id["violet"]["role"] == "violet"
    assert by_id["green"]["name"] == "green" and by_id["green"]["role"] == ""
    assert "tableref" in play["comments"]


def test_the_link_carries_exactly_the_play_json() -> None:
    play = {"sourceName": "tableref", "players": [{"name": "李 & Ann?", "score": 3}], "comments": "a=b&c"}
    url = createplay_url(play)
    assert url.startswith(CREATE_PLAY) and " " not in url and "&c" not in url
    (data,) = parse_qs(urlsplit(url).query)["data"]
    assert json.loads(data) == play


def test_ranks_share_places_and_skip_after_a_tie() -> None:
    assert ranks({"a": (10,), "b": (12,), "c": (10,), "d": (3,)}) == {"b": 1, "a": 2, "c": 2, "d": 4}


def test_an_unfinished_game_is_not_a_play() -> None:
    game = get_game("china")
    setup = SetupOptions.from_json({"players": ["blue", "green", "red"]})
    with pytest.raises(NotFinished):
        bgstats_play(game=game, setup=setup, state=game.setup(setup), started=None, ended=None, play_id="x")


def test_cli_export_bgstats_prints_what_the_referee_sends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store_path = finished_store(tmp_path / "t.sqlite")
    config = tmp_path / "table.toml"
    config.write_text('[table]\nname = "cafe-3"\nstore = "t.sqlite"\n'
                      '[game]\nid = "china"\nplayers = ["blue", "green", "red", "violet"]\nnames = { violet = "Mei" }\n')
    assert main(["export", "--store", str(store_path), "--format", "bgstats", "--config", str(config)]) == 0
    printed = json.loads(capsys.readouterr().out)
    store = EventStore(str(store_path))
    try:
        table = Table(store, EventBus(), "china", {"players": ["blue", "green", "red", "violet"]}, clock=lambda: 0.0,
                      wall=lambda: "", settings=TableSettings(name="cafe-3", player_names=(("violet", "Mei"),)))
        assert table.session.is_over()
        assert printed == table.export_bgstats()
    finally:
        store.close()
    assert printed["location"] == "cafe-3" and any(p["name"] == "Mei" for p in printed["players"])
    assert printed["durationMin"] >= 1 and len(printed["playDate"]) == 19


def test_cli_export_record_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store_path = finished_store(tmp_path / "t.sqlite")
    assert main(["export", "--store", str(store_path), "--format", "record"]) == 0
    record = json.loads(capsys.readouterr().out)
    result = replay(parse_record(record))
    original = load_record(str(COMPLETE))
    assert result.ok and result.applied == len(original.moves)
    assert result.record.game.score(result.state) == original.game.score(replay(original).state)
    assert main(["export", "--store", str(store_path), "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0][:3] == ["seq", "wall", "type"] and [r[2] for r in rows[1:]].count("move") == len(original.moves)
    assert rows[-1][2] in ("game_over", "score", "move")


def test_cli_export_bgstats_of_an_open_game_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = EventStore(str(tmp_path / "open.sqlite"))
    Session.start(store, "china", {"players": ["blue", "green", "red"]}, clock=lambda: 0.0, wall=lambda: "2026-01-01T00:00:00+00:00")
    store.close()
    assert main(["export", "--store", str(tmp_path / "open.sqlite"), "--format", "bgstats"]) == 2
    assert "not over yet" in capsys.readouterr().err
