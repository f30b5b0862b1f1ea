"""Records and the score/check CLI, run as a user would (a subprocess of the installed command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def tableref(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tableref", *args], capture_output=True, text=True, cwd=cwd or ROOT, timeout=120)


def test_score_complete_game_prints_scoreboard_json():
    r = tableref("score", str(EXAMPLES / "china-4p-complete.json"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    board = out["scoreboard"]
    assert board["final"] and out["outcome"]["termination"] in ("deck_exhausted", "no_legal_placement")
    for p in board["players"]:
        assert p["total"] == sum(p["breakdown"].values())
        assert set(p["breakdown"]) == {"provinces", "alliances", "roads"}
    assert out["outcome"]["winners"]


def test_check_names_the_illegal_move_rule_and_fix_in_both_languages():
    r = tableref("check", str(EXAMPLES / "china-3p-illegal.json"))
    assert r.returncode == 1
    assert "illegal move 3" in r.stderr
    assert "place.empty_province_one_piece" in r.stderr
    assert "Take the second house off qi-2" in r.stderr and "拿走第二个房屋" in r.stderr


def test_score_exits_1_on_illegal_and_keeps_the_state_before_it():
    r = tableref("score", str(EXAMPLES / "china-3p-illegal.json"))
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["moves_applied"] == 2 and out["illegal"]["move_number"] == 3
    totals = {p["player"]: p["total"] for p in out["scoreboard"]["players"]}
    assert totals == {"blue": 0, "green": 0, "red": 0}


def test_check_ok(tmp_path):
    r = tableref("check", str(EXAMPLES / "china-5p-fortress-complete.json"))
    assert r.returncode == 0 and r.stdout.startswith("ok: all ")


@pytest.mark.parametrize(
    "content, expect",
    [
        ("{not json", "malformed JSON"),
        ('{"format": "tableref-record/1", "game": "china", "setup": {"players": ["blue", "green", "red"]}}', "'moves' is a required property"),
        ('{"format": "tableref-record/1", "game": "chess", "setup": {}, "moves": []}', "unknown game 'chess'"),
        ('{"format": "tableref-record/1", "game": "china", "setup": {"players": ["blue", "green", "red"]}, '
         '"moves": [{"type": "place", "player": "blue", "pieces": [{"kind": "castle", "space": "wei-1"}]}]}', "moves[0] $.pieces[0].kind"),
        ('{"format": "tableref-record/1", "game": "china", "setup": {"players": ["blue", "green", "pink"]}, "moves": []}', "setup $.players[2]"),
    ],
)
def test_malformed_records_give_one_line_and_exit_2(tmp_path, content, expect):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    for cmd in ("score", "check"):
        r = tableref(cmd, str(path))
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr
        assert expect in lines[0]


def test_missing_file_is_one_line(tmp_path):
    r = tableref("score", str(tmp_path / "nope.json"))
    assert r.returncode == 2 and "file not found" in r.stderr and len(r.stderr.strip().splitlines()) == 1
