"""Records and the CLI on the Cheops examples: exit codes 0/1/2 and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.core.game import SetupOptions
from scorer.games.cheops import GAME
from scorer.games.cheops.simulate import random_game
from scorer.records import load_record, parse_record, replay, to_record

ROOT = Path(__file__).resolve().parents[3]
TABLEREF = str(Path(sys.executable).parent / "tableref")
EXAMPLES = sorted((ROOT / "examples").glob("cheops-*.json"))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TABLEREF, *args], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"cheops-4p-complete.json", "cheops-3p-table-complete.json", "cheops-2p-illegal.json"} <= names


@pytest.mark.parametrize("path", [p for p in EXAMPLES if "illegal" not in p.name], ids=lambda p: p.name)
def test_complete_examples_check_and_score(path):
    res = run("check", str(path))
    assert res.returncode == 0, res.stderr
    assert "game over" in res.stdout
    res = run("score", str(path))
    assert res.returncode == 0
    out = json.loads(res.stdout)
    board = out["scoreboard"]
    assert board["final"] and board["provisional_data"]
    assert board["categories"][0] == "cash" and board["categories"][-1] == "joker"
    for p in board["players"]:
        assert p["total"] == sum(p["breakdown"].values())
    assert out["outcome"]["winners"]


def test_illegal_example_names_move_rule_and_fix():
    path = ROOT / "examples" / "cheops-2p-illegal.json"
    res = run("check", str(path))
    assert res.returncode == 1
    assert "illegal move 3" in res.stderr
    assert "place.same_face" in res.stderr and "规则 place.same_face" in res.stderr
    assert "fix:" in res.stderr and "改正" in res.stderr
    res = run("score", str(path))
    assert res.returncode == 1
    out = json.loads(res.stdout)
    assert out["illegal"]["move_number"] == 3 and out["moves_applied"] == 2


@pytest.mark.parametrize("doc,needle", [
    ("{not json", "malformed JSON"),
    (json.dumps({"format": "tableref-record/1", "game": "cheops", "setup": {"players": ["a", "b"], "seed": 1},
                 "moves": [{"type": "turn", "player": "a", "steps": [{"do": "fly"}]}]}), "moves[0]"),
    (json.dumps({"format": "tableref-record/1", "game": "cheops", "setup": {"players": ["a", "b"], "seed": 1},
                 "moves": [{"type": "turn", "player": "a", "steps": [{"do": "place", "tile": "E", "space": "r11c1"}]}]}), "moves[0]"),
    (json.dumps({"format": "tableref-record/1", "game": "cheops", "setup": {"players": ["a", "b"], "variants": ["x"]},
                 "moves": []}), "setup"),
    (json.dumps({"format": "tableref-record/1", "game": "cheops", "setup": {"players": ["a", "b"]}, "moves": []}), "setup.tables"),
])
def test_bad_records_exit_2_with_one_line(tmp_path, doc, needle):
    path = tmp_path / "rec.json"
    path.write_text(doc, encoding="utf-8")
    for cmd in ("check", "score"):
        res = run(cmd, str(path))
        assert res.returncode == 2
        assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr
        assert "Traceback" not in res.stderr


def test_record_round_trip(tmp_path):
    setup, moves, final = random_game(5, 4, variants=("law11_extra",))
    doc = to_record(GAME, SetupOptions.from_json(setup), moves)
    again = to_record(GAME, SetupOptions.from_json(setup), list(parse_record(doc).moves))
    assert again == doc
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = replay(load_record(str(path)))
    assert result.ok and result.state == final
    for m in moves:
        assert GAME.move_from_json(GAME.move_to_json(m)) == m
        assert GAME.describe_move(m).en and GAME.describe_move(m).zh
