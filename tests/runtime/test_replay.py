"""Replaying a stored game step by step (tableref.replay) from a real event store written by the
referee: the board, scores, turn and flag of every step; undone moves kept and marked; the last
step equal to the live table; the runtime's read-only access and the dashboard's replay API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_rig import SETUP, play_game_with_a_flag_and_an_undo
from scorer.core import SetupOptions, get_game
from tableref.replay import ReplayError, ReplayReader, fold_steps
from tableref.runtime import Runtime
from tableref.store import EventStore


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, dict]:
    """A store holding one game: a move, a flag raised and cleared, two moves, an undo; and the
    live snapshot the referee published last."""
    path = tmp_path / "table.sqlite"
    rig = play_game_with_a_flag_and_an_undo(path)
    live = dict(rig.table.last_snapshot)
    rig.close()
    return path, live


def test_every_step_shows_the_table_as_it_was(stored: tuple[Path, dict]) -> None:
    path, live = stored
    with EventStore(str(path), read_only=True) as store:
        (row,) = store.games()
        events = store.events(row.id)
        steps = fold_steps(row, events, player_names={"blue": "Alice"}, table_name="Table 5")
    assert [s["type"] for s in steps] == ["game_started", "move", "flag_raised", "flag_cleared", "move", "move", "undo"]
    assert [s["step"] for s in steps] == list(range(7)) and steps[0]["seq"] == 0
    boards = [sorted(s["board"]) for s in steps]
    assert boards == [[], ["wei-1"], ["wei-1"], ["wei-1"], ["qi-1", "wei-1"], ["qi-1", "wei-1", "yan-1"], ["qi-1", "wei-1"]]
    assert [s["turn"]["active"] for s in steps] == [["blue"], ["green"], ["green"], ["green"], ["red"], ["blue"], ["red"]]
    flag = steps[2]["flag"]
    assert flag["spaces"] == ["qi-2"] and flag["violations"][0]["rule"] == "place.empty_province_one_piece"
    assert flag["diff"] == flag["residual"] and flag["message"]["zh"]  # drawn by the board page as the live flag is
    assert all(s["flag"] is None for i, s in enumerate(steps) if i != 2)
    assert [s["undone"] for s in steps] == [False] * 5 + [True, False]
    assert steps[1]["last_move"]["spaces"] == ["wei-1"] and steps[5]["last_move"]["spaces"] == ["yan-1"]
    assert steps[1]["description"]["en"] == "blue: house on wei-1" and steps[6]["description"]["en"].startswith("Undone")
    assert steps[1]["player_names"] == {"blue": "Alice", "green": "green", "red": "red"} and steps[1]["table"]["name"] == "Table 5"

    # scores: the engine's own, move by move
    game = get_game("china")
    state = game.setup(SetupOptions.from_json(SETUP))
    accepted = [e for e in events if e.type == "move"]
    for step, upto in ((1, 1), (4, 2), (5, 3)):
        state = game.setup(SetupOptions.from_json(SETUP))
        for e in accepted[:upto]:
            for m in e.data["moves"]:
                state = game.apply(state, game.move_from_json(m))
        assert steps[step]["scores"] == game.score(state).to_json()

    # the last step is the table as the referee last published it
    last = steps[-1]
    for key in ("board", "scores", "turn", "outcome", "moves", "board_id"):
        assert last[key] == live[key], key


def test_the_reader_refolds_only_when_new_events_are_stored(stored: tuple[Path, dict], tmp_path: Path) -> None:
    path, _ = stored
    reader = ReplayReader(str(path), table_name="Table 5")
    (info,) = reader.games()
    assert info["game_no"] == 1 and info["status"] == "open" and info["game_name"]["en"]
    game = reader.game(1)
    assert len(game["steps"]) == 7 and set(game["steps"][0]) == {"step", "seq", "type", "wall", "actor", "description", "undone",
                                                                 "player"}
    assert reader.steps(1) is reader.steps(1)  # cached while nothing new was stored
    step = reader.step(1, 2)
    assert step["steps"] == 7 and step["flag"]["spaces"] == ["qi-2"]
    with pytest.raises(ReplayError):
        reader.step(1, 7)
    with pytest.raises(ReplayError):
        reader.game(2)

    rt = Runtime(store_path=str(path), game_id="china", setup=SETUP)  # resumes the stored game
    rt.start()
    try:
        assert rt.declare({"type": "exchange", "player": "red"}, "test").ok
        steps = rt.replay(1)["steps"]
        assert len(steps) == 8 and steps[-1]["type"] == "move" and steps[-1]["description"]["en"] == "red exchanges a card"
        assert rt.replay_step(1, 7)["turn"]["active"] == ["blue"]
        assert rt.replay_games()[0]["last_seq"] == steps[-1]["seq"]
    finally:
        rt.stop()


def test_the_dashboards_replay_api(stored: tuple[Path, dict], tmp_path: Path) -> None:
    from web.app import create_app
    from web.fake import FakeTableService

    path, _ = stored
    rt = Runtime(store_path=str(path), game_id="china", setup=SETUP).start()
    try:
        client = create_app(rt, data_dir=tmp_path / "web").test_client()
        assert client.get("/api/replay").get_json()["games"][0]["game_no"] == 1
        game = client.get("/api/replay/1").get_json()
        assert game["board_id"] == "china-a" and len(game["steps"]) == 7
        step = client.get("/api/replay/1/2").get_json()
        assert step["flag"]["spaces"] == ["qi-2"] and sorted(step["board"]) == ["wei-1"]
        missing = client.get("/api/replay/1/70")
        assert missing.status_code == 404 and missing.get_json()["error"]["message"]["zh"]
        assert client.get("/api/replay/9").status_code == 404
        page = client.get("/board?replay=1&step=2").get_data(as_text=True)
        assert 'id="replay"' in page and "replay.js" in page
    finally:
        rt.stop()
    fake = create_app(FakeTableService(setup=SETUP), data_dir=tmp_path / "web2").test_client()
    assert fake.get("/api/replay").get_json() == {"available": False, "games": []}  # nothing stored: no replay button
    assert json.loads(fake.get("/api/replay/1").get_data())["error"]["code"] == "not_supported"
