"""The pyramid topology, the board and price-table files, their schemas and validators."""

from __future__ import annotations

import copy
import importlib.util
import json
from importlib import resources
from pathlib import Path

import pytest

from scorer.core.game import SetupOptions
from scorer.core.types import InvalidRecord
from scorer.games.cheops import GAME
from scorer.games.cheops.data import (
    ADJACENT,
    BELOW,
    SPACES,
    board_from_json,
    load_board,
    load_price_tables,
    price_tables_from_json,
    topology_json,
)

ROOT = Path(__file__).resolve().parents[3]


def shipped(name: str) -> dict:
    return json.loads(resources.files("scorer.games.cheops").joinpath(name).read_text("utf-8"))


def test_pyramid_has_66_spaces_in_11_rows():
    assert len(SPACES) == 66 and SPACES[0] == "r1c1" and SPACES[-1] == "r11c11"
    assert sum(1 for s in SPACES if s.startswith("r11c")) == 11
    for i, adj in enumerate(ADJACENT):
        assert len(adj) <= 6
        for j in adj:
            assert i in ADJACENT[j]  # adjacency is symmetric


def test_topology_matches_the_rules_notes():
    """Entries copied from rules/cheops.md 9.1."""
    topo = topology_json()
    assert topo["r1c1"] == {"row": 1, "same_row": [], "below": ["r2c1", "r2c2"], "above": []}
    assert topo["r5c3"] == {"row": 5, "same_row": ["r5c2", "r5c4"], "below": ["r6c3", "r6c4"], "above": ["r4c2", "r4c3"]}
    assert topo["r10c10"] == {"row": 10, "same_row": ["r10c9"], "below": ["r11c10", "r11c11"], "above": ["r9c9"]}
    assert topo["r11c1"] == {"row": 11, "same_row": ["r11c2"], "below": [], "above": ["r10c1"]}
    for s, t in topo.items():
        i = SPACES.index(s)
        assert sorted(SPACES.index(x) for x in t["same_row"] + t["below"] + t["above"]) == list(ADJACENT[i])
        assert (BELOW[i] is None) == (t["below"] == [])


def test_shipped_data_is_valid_and_marked_provisional():
    board = load_board()
    assert board.provisional and len(board.eye_spaces) == 6 and len(board.colours) == 6
    tables = load_price_tables()
    assert tables.provisional
    assert [len(tables.of_type(k)) for k in ("I", "II", "III")] == [6, 6, 4]
    assert all(2 <= len(t.entries) <= 11 for t in tables.tables)


def test_generator_script_reproduces_the_shipped_files():
    spec = importlib.util.spec_from_file_location("make_cheops_data", ROOT / "scripts" / "make_provisional_cheops_data.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    pkg = resources.files("scorer.games.cheops")
    assert pkg.joinpath("board.json").read_text("utf-8") == mod.dumps(mod.board_doc()) + "\n"
    assert pkg.joinpath("price_tables.json").read_text("utf-8") == mod.dumps(mod.price_tables_doc()) + "\n"


@pytest.mark.parametrize("edit,needle", [
    (lambda d: d["tables"].pop(), "type III"),
    (lambda d: d["tables"][1].__setitem__("id", "I-1"), "unique"),
    (lambda d: d["tables"][0].__setitem__("id", "II-9"), "must start with its type"),
    (lambda d: d["tables"][6]["entries"].__setitem__(2, {"sole_majority": 30, "others": 5}), "smaller number"),
    (lambda d: d["tables"][0].__setitem__("entries", [5]), "entries"),
    (lambda d: d["tables"][0]["entries"].__setitem__(0, "UNKNOWN"), "entries"),
    (lambda d: d.__setitem__("provisional", False), "still provisional"),
])
def test_price_table_validator_names_the_problem(edit, needle):
    doc = copy.deepcopy(shipped("price_tables.json"))
    edit(doc)
    with pytest.raises(InvalidRecord) as err:
        price_tables_from_json(doc)
    assert needle in str(err.value)


@pytest.mark.parametrize("edit,needle", [
    (lambda d: d["eye_spaces"].__setitem__(0, "r3c5"), "not a pyramid space"),
    (lambda d: d["eye_spaces"].pop(), "eye_spaces"),
    (lambda d: d["treasure_colours"][1].__setitem__("id", "red"), "unique"),
    (lambda d: d.__setitem__("rows", 10), "rows"),
])
def test_board_validator_names_the_problem(edit, needle):
    doc = copy.deepcopy(shipped("board.json"))
    edit(doc)
    with pytest.raises(InvalidRecord) as err:
        board_from_json(doc)
    assert needle in str(err.value)


def test_a_user_corrected_copy_is_used_and_no_longer_provisional(tmp_path):
    tables = copy.deepcopy(shipped("price_tables.json"))
    tables["provisional"] = False
    for t in tables["tables"]:
        t["provisional"] = False
    tables["tables"][0]["entries"] = [10, 20, 30, 40]
    board = copy.deepcopy(shipped("board.json"))
    board["provisional"] = False
    board.pop("provisional_fields")
    board["eye_spaces"] = ["r5c2", "r5c3", "r5c4", "r6c2", "r6c3", "r6c5"]
    tp, bp = tmp_path / "tables.json", tmp_path / "board.json"
    tp.write_text(json.dumps(tables), encoding="utf-8")
    bp.write_text(json.dumps(board), encoding="utf-8")
    colours = [c["id"] for c in board["treasure_colours"]]
    setup = {"players": ["ann", "bob"], "seed": 3, "price_tables": str(tp), "board": str(bp),
             "tables": dict(zip(colours, ["I-1", "I-2", "II-1", "II-2", "III-1", "III-2"]))}
    state = GAME.setup(SetupOptions.from_json(setup))
    assert state.tables[0].entries[0].value == 10
    assert state.board.eye_spaces == ("r5c2", "r5c3", "r5c4", "r6c2", "r6c3", "r6c5")
    sb = GAME.score(state)
    assert not sb.provisional_data
    assert not {u.check for u in sb.not_checked} & {"price_tables.provisional", "board.provisional"}


def test_missing_or_broken_data_file_is_one_line_error(tmp_path):
    with pytest.raises(InvalidRecord):
        load_price_tables(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(InvalidRecord) as err:
        load_price_tables(str(bad))
    assert "\n" not in str(err.value)
