"""Ming records, the example files and the score/check CLI, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.core.game import SetupOptions
from scorer.core.types import InvalidRecord
from scorer.games.ming import GAME
from scorer.games.ming.moves import MOVE_SCHEMA, TYPE_NAMES, move_from_json, move_to_json
from scorer.games.ming.simulate import random_game
from scorer.records import load_record, parse_record, replay, to_record

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
EXE = Path(sys.executable).with_name("tableref")


def tableref(*args):
    return subprocess.run([str(EXE), *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_every_move_type_round_trips_through_json():
    setup, moves, _ = random_game(5, 2, variants=("dragon_any_member",))
    seen = set()
    for m in moves:
        data = move_to_json(m)
        assert move_from_json(json.loads(json.dumps(data))) == m
        seen.add(data["type"])
    assert {"place_prince", "place_neutral", "place_family", "take_card", "move_prince", "return_cards"} <= seen
    extra = [
        {"type": "stay", "player": "red", "card": "dragon", "deploy": 2, "cloister": True},
        {"type": "pass", "player": "red"},
        {"type": "take_dragon", "player": "red", "province": "p2", "owner": "blue"},
        {"type": "return_cards", "player": "red", "total": 4},
        {"type": "send_back", "player": "red", "districts": ["p1d1", "p1d2"], "owner": "neutral"},
        {"type": "choose_start_player", "player": "red", "start": "blue"},
        {"type": "move_prince", "player": "red", "path": ["p1d2"]},
    ]
    for data in extra:
        assert move_to_json(move_from_json(data)) == data
    assert set(TYPE_NAMES.values()) == {t["if"]["properties"]["type"]["const"] for t in MOVE_SCHEMA["allOf"][:-1]}


def test_declared_flags():
    from scorer.games.ming.moves import ChooseStartPlayer, MovePrince, Pass, PlaceFamily, ReturnCards, TakeCard

    assert ReturnCards.declared and TakeCard.declared and Pass.declared and ChooseStartPlayer.declared
    assert not PlaceFamily.declared and not MovePrince.declared


@pytest.mark.parametrize("name", ["ming-4p-complete.json", "ming-2p-complete.json"])
def test_complete_examples_replay_to_the_end(name):
    rec = load_record(str(EXAMPLES / name))
    result = replay(rec)
    assert result.ok and GAME.outcome(result.state) is not None


def test_example_generator_is_deterministic():
    setup, moves, _ = random_game(7, players=4)
    doc = json.loads((EXAMPLES / "ming-4p-complete.json").read_text("utf-8"))
    assert doc["moves"] == [GAME.move_to_json(m) for m in moves]
    assert doc["setup"] == SetupOptions.from_json(setup).to_json()


def test_cli_score_complete_game():
    r = tableref("score", str(EXAMPLES / "ming-4p-complete.json"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    board = out["scoreboard"]
    assert board["final"] and board["provisional_data"] and board["categories"] == ["sets6", "city", "city_bonus", "cloisters", "sets5", "tiles"]
    for p in board["players"]:
        assert p["total"] == sum(p["breakdown"].values())
    assert any("return-card" in d for d in board["declared"])
    assert out["outcome"]["termination"] == "rounds_complete"


def test_cli_check_complete_game():
    r = tableref("check", str(EXAMPLES / "ming-2p-complete.json"))
    assert r.returncode == 0 and "game over" in r.stdout


def test_cli_check_names_the_illegal_move_rule_and_fix():
    r = tableref("check", str(EXAMPLES / "ming-3p-illegal.json"))
    assert r.returncode == 1
    doc = json.loads((EXAMPLES / "ming-3p-illegal.json").read_text("utf-8"))
    rec = parse_record(doc)
    bad = replay(rec)
    assert not bad.ok
    assert f"illegal move {bad.illegal_index + 1} " in r.stderr
    assert "rule move.ends_on_prince:" in r.stderr and "规则 move.ends_on_prince：" in r.stderr
    assert "fix:" in r.stderr and "改正：" in r.stderr
    r = tableref("score", str(EXAMPLES / "ming-3p-illegal.json"))
    assert r.returncode == 1
    assert json.loads(r.stdout)["illegal"]["violations"][0]["rule"] == "move.ends_on_prince"


@pytest.mark.parametrize(
    "text, needle",
    [
        ("{not json", "malformed JSON"),
        ('{"format": "tableref-record/1", "game": "ming", "setup": {"players": ["red", "blue"]}}', "'moves' is a required property"),
        ('{"format": "tableref-record/1", "game": "ming", "setup": {"players": ["red", "violet"]}, "moves": []}', "setup $.players[1]"),
        ('{"format": "tableref-record/1", "game": "ming", "setup": {"players": ["red", "blue"]}, "moves": '
         '[{"type": "stay", "player": "red", "deploy": 5}]}', "moves[0] $.deploy"),
        ('{"format": "tableref-record/1", "game": "ming", "setup": {"players": ["red", "blue"]}, "moves": '
         '[{"type": "fly", "player": "red"}]}', "moves[0] $.type"),
        ('{"format": "tableref-record/1", "game": "ming", "setup": {"players": ["red", "blue"], "board": "nowhere.json"}, "moves": []}', "file not found"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(tmp_path, text, needle):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    for cmd in ("score", "check"):
        r = tableref(cmd, str(path))
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], r.stderr
        assert "Traceback" not in r.stderr


def test_record_in_progress_reports_the_awaited_input(tmp_path):
    setup, moves, _ = random_game(9, 3)
    doc = to_record(GAME, SetupOptions.from_json(setup), moves[:120])
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    r = tableref("score", str(path))
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert out["outcome"] is None and out["turn"]["active"] and out["turn"]["phase"]


def test_setup_errors_are_invalid_records():
    with pytest.raises(InvalidRecord):
        GAME.setup(SetupOptions.from_json({"players": ["red", "blue"], "return_cards": [1, 2]}))


def test_dashboard_view_is_json_and_keeps_hands_secret():
    setup, moves, _ = random_game(2, 3)
    s = GAME.setup(SetupOptions.from_json(setup))
    for m in moves[:80]:
        s = GAME.apply(s, m)
    view = json.loads(json.dumps(GAME.state_to_json(s)))
    assert set(view["hand_sizes"]) == set(s.players)
    assert "hands" not in view and "horse" not in json.dumps(view["hand_sizes"])
