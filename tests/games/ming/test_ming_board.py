"""The Ming board format: the shipped provisional board, the schema and the rules validator."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from scorer.core.types import InvalidRecord
from scorer.games.ming.board import board_from_json, load_board, semantic_problems

ROOT = Path(__file__).resolve().parents[3]


def doc() -> dict:
    return json.loads(resources.files("scorer.games.ming").joinpath("boards", "ming-provisional.json").read_text("utf-8"))


def test_shipped_board_is_valid_and_marked_provisional():
    board = load_board("ming-provisional")
    assert board.provisional
    assert len(board.provinces) == 6 and len(board.districts) == 18
    assert sum(board.deck) == 54 and board.dragons == 18
    assert board.return_values == (0, 1, 2, 3)
    assert set(board.symbols) >= {"horse", "rickshaw", "junk"}
    assert len({p.colour for p in board.provinces}) == 6
    for d in range(18):
        assert board.neighbours[d], f"{board.districts[d]} has no border"
    assert semantic_problems(doc()) == []


def test_generator_script_reproduces_the_shipped_file(tmp_path):
    # the committed script is the source of the invented data
    script = ROOT / "scripts" / "make_provisional_ming_board.py"
    src = script.read_text("utf-8")
    ns: dict = {"__name__": "not_main"}
    exec(compile(src, str(script), "exec"), ns)
    assert ns["board"]() == doc()


def test_board_file_by_path(tmp_path):
    path = tmp_path / "my-board.json"
    mine = doc()
    mine["provisional"] = False
    mine["id"] = "my-board"
    path.write_text(json.dumps(mine), encoding="utf-8")
    board = load_board(str(path))
    assert board.id == "my-board" and not board.provisional


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["provinces"].pop(), "6 provinces"),
        (lambda d: d["provinces"][1].__setitem__("colour", d["provinces"][0]["colour"]), "6 different colours"),
        (lambda d: d["provinces"][0].__setitem__("districts", ["p1d1", "p1d2", "p2d3"]), "exactly the districts"),
        (lambda d: d["movement_cards"].__setitem__("horse", 17), "54 movement cards"),
        (lambda d: d.__setitem__("dragon_cards", 17), "18 dragon cards"),
        (lambda d: d["borders"].append({"a": "p1d1", "b": "p1d1", "symbol": "horse"}), "two different districts"),
        (lambda d: d["borders"].append({"a": "p1d1", "b": "p6d3", "symbol": "camel"}), "not one of the transport symbols"),
        (lambda d: d["borders"].append(dict(d["borders"][0])), "listed twice"),
        (lambda d: d.__setitem__("borders", [b for b in d["borders"] if "p6d2" not in (b["a"], b["b"])]), "every district borders another"),
        (lambda d: d.__setitem__("borders", [b for b in d["borders"] if b["a"][:2] == b["b"][:2]]), "one connected map"),
        (lambda d: d["movement_cards"].update({"horse": 0, "junk": 36}), "some movement cards must show it"),
        (lambda d: d["transport_symbols"].append({"id": "camel", "name": {"en": "camel", "zh": "骆驼"}}), "printed on no border"),
        (lambda d: d.__setitem__("borders", [b for b in d["borders"] if not (b["a"][:2] == b["b"][:2] == "p1")]
                                 + [{"a": "p1d1", "b": "p1d2", "symbol": "horse"}]), "around its city must border each other"),
    ],
)
def test_validator_rejects_boards_the_rules_rule_out(mutate, message):
    d = copy.deepcopy(doc())
    mutate(d)
    with pytest.raises(InvalidRecord) as err:
        board_from_json(d)
    assert message in str(err.value)


def test_schema_errors_name_the_field():
    d = doc()
    d["borders"][3]["symbol"] = 7
    with pytest.raises(InvalidRecord) as err:
        board_from_json(d)
    assert "$.borders[3].symbol" in str(err.value)
    d = doc()
    d["provinces"][0]["id"] = "q1"
    with pytest.raises(InvalidRecord) as err:
        board_from_json(d)
    assert "$.provinces[0].id" in str(err.value)


def test_unknown_board_reference():
    with pytest.raises(InvalidRecord):
        load_board("ming-real")


def test_several_border_segments_with_different_symbols_are_allowed():
    d = doc()
    d["borders"].append({"a": "p1d1", "b": "p1d2", "symbol": "junk"})
    board = board_from_json(d)
    i, j = board.district_index["p1d1"], board.district_index["p1d2"]
    assert board.border_symbols[(i, j)] == {board.symbol_index["horse"], board.symbol_index["junk"]}


def test_cli_runs_on_a_user_board(tmp_path):
    mine = doc()
    mine["id"] = "table-7"
    board_path = tmp_path / "table-7.json"
    board_path.write_text(json.dumps(mine), encoding="utf-8")
    record = {"format": "tableref-record/1", "game": "ming", "setup": {"players": ["red", "blue", "green"], "board": str(board_path)},
              "moves": [{"type": "place_prince", "player": "red", "district": "p1d1"}]}
    rec_path = tmp_path / "rec.json"
    rec_path.write_text(json.dumps(record), encoding="utf-8")
    exe = Path(sys.executable).with_name("tableref")
    r = subprocess.run([str(exe), "check", str(rec_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
