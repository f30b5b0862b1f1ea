"""The board validator enforces what the rules imply about any China board."""

from __future__ import annotations

import copy

import pytest

from scorer.core.types import InvalidRecord
from scorer.games.china.board import board_from_json, load_board, semantic_problems

from scorer.games.china.board import SHIPPED_BOARDS
import json
from importlib import resources


def board_doc(ref: str = "china-a") -> dict:
    assert ref in SHIPPED_BOARDS
    return json.loads(resources.files("scorer.games.china").joinpath("boards", f"{ref}.json").read_text("utf-8"))


@pytest.mark.parametrize("ref", ["china-a", "china-b"])
def test_shipped_boards_are_valid_and_marked_provisional(ref):
    b = load_board(ref)
    assert b.provisional and len(b.provinces) == 9 and len(b.alliances) == 15
    assert {(a, b_) for _, a, b_ in b.alliances if _ == 3} == {(b.province_index["wei"], b.province_index["qin"])}


def test_the_sides_differ_only_in_roads():
    a, b = load_board("china-a"), load_board("china-b")
    assert a.provinces == b.provinces and a.alliances == b.alliances and a.roads != b.roads


def _edited(edit):
    doc = copy.deepcopy(board_doc())
    edit(doc)
    return doc


CASES = [
    (lambda d: d["provinces"].pop(), "9 provinces"),
    (lambda d: d["provinces"][1].update(colour="violet"), "colour violet must cover 1 province"),
    (lambda d: (d["provinces"][0].update(colour="red"), d["provinces"][3].update(colour="violet")), "Chu must be the only violet"),
    (lambda d: d["alliances"][0].update(provinces=["qi", "qin"]), "share a colour"),
    (lambda d: d["alliances"][0].update(number=3), "numbered 1 to 15"),
    (lambda d: d["roads"].append(["wei-1", "wei-99"]), "does not exist"),
    (lambda d: d["roads"].append(["chu-1", "yan-1"]), "not neighbours"),
    (lambda d: d["provinces"][6].update(sites=["lu-1", "lu-2", "lu-3"]), "4 to 8 house sites"),
    (lambda d: d.update(roads=[r for r in d["roads"] if "lu-4" not in r]), "lu-4"),
    (lambda d: d["alliances"].__setitem__(14, {"number": 15, "provinces": ["qin", "zhao"]}), "appears twice"),
]


@pytest.mark.parametrize("edit, expect", CASES)
def test_validator_rejects_impossible_boards(edit, expect):
    doc = _edited(edit)
    with pytest.raises(InvalidRecord) as err:
        board_from_json(doc)
    assert expect in str(err.value)


def test_schema_errors_name_the_field():
    doc = _edited(lambda d: d["provinces"][0].update(colour="purple"))
    with pytest.raises(InvalidRecord) as err:
        board_from_json(doc)
    assert "$.provinces[0].colour" in str(err.value)


def test_semantic_problems_lists_all_problems_at_once():
    doc = _edited(lambda d: (d["provinces"][1].update(colour="violet"), d["roads"].append(["wei-1", "wei-99"])))
    assert len(semantic_problems(doc)) >= 2
