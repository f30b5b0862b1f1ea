"""Zhang Yi records: JSON round trip, replay, and the ``tableref score``/``check`` CLI on the examples."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.core.game import SetupOptions
from scorer.core.types import InvalidRecord
from scorer.games.zhang_yi import GAME
from scorer.games.zhang_yi.moves import move_from_json, move_to_json
from scorer.games.zhang_yi.simulate import random_game
from scorer.records import load_record, parse_record, replay, to_record

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted(ROOT.glob("examples/zhang_yi-*.json"))
TABLEREF = [str(ROOT / ".venv" / "bin" / "tableref")] if (ROOT / ".venv" / "bin" / "tableref").exists() else [sys.executable, "-m", "tableref.cli"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*TABLEREF, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("chance, players", [("declared", 2), ("seeded", 2), ("declared", 3)])
def test_record_round_trip_replays_to_the_same_state(chance, players):
    setup, moves, final = random_game(21, players, chance)
    doc = to_record(GAME, SetupOptions.from_json(setup), moves)
    again = json.loads(json.dumps(doc))
    record = parse_record(again)
    assert [move_to_json(m) for m in record.moves] == doc["moves"]
    assert all(move_from_json(move_to_json(m)) == m for m in moves)
    result = replay(record)
    assert result.ok and result.state == final


def test_example_files_exist():
    names = {p.name for p in EXAMPLES}
    assert {"zhang_yi-2p-complete.json", "zhang_yi-2p-illegal.json", "zhang_yi-3p-complete.json"} <= names


@pytest.mark.parametrize("path", [p for p in EXAMPLES if "illegal" not in p.name], ids=lambda p: p.name)
def test_complete_examples_check_and_score(path):
    r = run("check", str(path))
    assert r.returncode == 0, r.stderr
    assert "game over" in r.stdout
    r = run("score", str(path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["scoreboard"]["final"] is True and out["outcome"]["termination"] in ("time", "hegemony", "annihilation")
    assert out["scoreboard"]["provisional_data"] is True  # the sample map
    assert any(u["check"] == "map.sample" for u in out["scoreboard"]["not_checked"])
    record = load_record(str(path))
    state = replay(record).state
    assert out["outcome"]["winners"] == list(GAME.outcome(state).winners)


def test_illegal_example_names_move_rule_and_fix():
    path = ROOT / "examples" / "zhang_yi-2p-illegal.json"
    r = run("check", str(path))
    assert r.returncode == 1
    assert "illegal move 7" in r.stderr and "march.leave_one" in r.stderr
    assert "至少留下 1" in r.stderr and "fix:" in r.stderr and "改正" in r.stderr
    r = run("score", str(path))
    assert r.returncode == 1
    assert json.loads(r.stdout)["illegal"]["violations"][0]["rule"] == "march.leave_one"


def test_bad_inputs_exit_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    r = run("check", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "malformed JSON" in r.stderr
    doc = json.loads((ROOT / "examples" / "zhang_yi-2p-illegal.json").read_text(encoding="utf-8"))
    doc["moves"][0]["talent"] = "zhang_yi"  # not a talent
    bad.write_text(json.dumps(doc), encoding="utf-8")
    r = run("score", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "moves[0]" in r.stderr
    doc = json.loads((ROOT / "examples" / "zhang_yi-2p-illegal.json").read_text(encoding="utf-8"))
    del doc["setup"]["sample_map_confirmed"]
    bad.write_text(json.dumps(doc), encoding="utf-8")
    r = run("check", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "sample_map_confirmed" in r.stderr
    doc["setup"]["board"] = "template"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    r = run("check", str(bad))
    assert r.returncode == 2 and "incomplete" in r.stderr


def test_move_parsing_errors_name_the_field():
    with pytest.raises(InvalidRecord, match="type"):
        move_from_json({"type": "teleport"})
    with pytest.raises(InvalidRecord):
        move_from_json({"type": "march", "player": "red"})
