"""Great Wall records and the score/check CLI, run as a user would (a subprocess of the installed command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.core.game import SetupOptions
from scorer.games.great_wall import GAME
from scorer.games.great_wall.moves import move_from_json, move_to_json
from scorer.games.great_wall.simulate import random_game
from scorer.records import load_record, replay

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
BIN = ROOT / ".venv" / "bin" / "tableref"


def tableref(*args):
    cmd = [str(BIN)] if BIN.exists() else [sys.executable, "-m", "tableref"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("name", ["great_wall-4p-complete.json", "great_wall-2p-complete.json", "great_wall-3p-table.json"])
def test_score_complete_examples(name):
    r = tableref("score", str(EXAMPLES / name))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    board = out["scoreboard"]
    assert board["final"] and board["provisional_data"] is True
    assert out["outcome"]["termination"] in ("last_round", "last_token") and out["outcome"]["winners"]
    for p in board["players"]:
        assert set(p["breakdown"]) == {"first_tokens", "second_tokens"} and p["total"] == sum(p["breakdown"].values())
    assert sum(p["total"] for p in board["players"]) > 0


def test_table_record_says_what_rests_on_declarations():
    out = json.loads(tableref("score", str(EXAMPLES / "great_wall-3p-table.json")).stdout)
    board = out["scoreboard"]
    assert any(d.startswith("draws") for d in board["declared"])
    assert {u["check"] for u in board["not_checked"]} >= {"cards.hands", "deck.provisional"}


def test_check_names_the_illegal_move_rule_and_fix_in_both_languages():
    r = tableref("check", str(EXAMPLES / "great_wall-3p-illegal.json"))
    assert r.returncode == 1
    assert "illegal move 10" in r.stderr and "play.identical_cards" in r.stderr
    assert "a set of identical cards" in r.stderr and "一组相同的牌" in r.stderr
    assert "fix: Take back the cards of all but one kind" in r.stderr and "改正：" in r.stderr


def test_score_exits_1_on_illegal_and_reports_the_state_before_it():
    r = tableref("score", str(EXAMPLES / "great_wall-3p-illegal.json"))
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["moves_applied"] == 9 and out["illegal"]["move_number"] == 10
    assert out["illegal"]["violations"][0]["message"]["zh"]
    assert out["turn"]["active"] == ["blue"] and out["turn"]["awaiting"] == "move"


def test_check_ok_on_complete_games():
    for name in ("great_wall-4p-complete.json", "great_wall-3p-table.json"):
        r = tableref("check", str(EXAMPLES / name))
        assert r.returncode == 0 and r.stdout.startswith("ok: all ") and "game over" in r.stdout


RECORD = '{"format": "tableref-record/1", "game": "great_wall", "setup": %s, "moves": %s}'


@pytest.mark.parametrize("content, expect", [
    ("{not json", "malformed JSON"),
    (RECORD % ('{"players": ["blue", "red"]}', '[{"type": "play", "player": "blue", "section": "section-9", "cards": ["wall"]}]'),
     "moves[0] $.section"),
    (RECORD % ('{"players": ["blue", "red"]}', '[{"type": "shuffle"}]'), "moves[0] $.type"),
    (RECORD % ('{"players": ["blue", "red"]}', '[{"type": "claim", "player": "blue", "section": "section-1"}]'), "'token' is a required property"),
    (RECORD % ('{"players": ["blue", "pink"]}', "[]"), "setup $.players[1]"),
    (RECORD % ('{"players": ["blue", "red"], "variants": ["nope"]}', "[]"), "setup $.variants[0]"),
    (RECORD % ('{"players": ["blue", "red"], "cards": "tracked"}', "[]"), "tracked cards need a seed"),
    (RECORD % ('{"players": ["blue", "red"], "special_counts": {"noble": 1, "soldier": 1, "cavalry": 1, "dragon": 1}}', "[]"),
     "add up to 9"),
])
def test_malformed_records_give_one_line_and_exit_2(tmp_path, content, expect):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    # both commands read records through the same code: alternate them to keep the suite fast
    for cmd in (("score", "check") if content.startswith("{not") else ("score",) if len(content) % 2 else ("check",)):
        r = tableref(cmd, str(path))
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr
        assert expect in lines[0]


def test_move_json_round_trip():
    _, moves, _ = random_game(12, 4)
    for m in moves:
        assert move_from_json(move_to_json(m)) == m
    examples = [
        {"type": "play", "player": "red", "section": "section-2", "cards": ["dragon", "dragon"],
         "targets": [{"owner": "blue", "kind": "tower"}, {"position": 3}]},
        {"type": "play", "player": "red", "section": "section-1", "cards": ["cavalry"], "free": True},
        {"type": "draw", "player": "red", "card": "gate"},
        {"type": "pass", "player": "red"},
        {"type": "claim", "player": "red", "section": "section-3", "token": 7, "on": {"kind": "gate", "position": 2}},
        {"type": "reveal", "section": "section-4", "tokens": [8, 1]},
    ]
    for doc in examples:
        assert move_to_json(move_from_json(doc)) == doc


def test_example_files_are_regenerated_by_the_script():
    """The committed complete examples are exactly what the generator script writes."""
    record = load_record(str(EXAMPLES / "great_wall-4p-complete.json"))
    setup, moves, final = random_game(7, 4)
    assert record.setup == SetupOptions.from_json(setup)
    assert [GAME.move_to_json(m) for m in record.moves] == [GAME.move_to_json(m) for m in moves]
    assert replay(record).state == final
