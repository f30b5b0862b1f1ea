"""The deck data file: schema, the rules validator, the generator script, and user corrections."""

from __future__ import annotations

import copy
import importlib.util
import json
from importlib import resources
from pathlib import Path

import pytest
from gw_testkit import setup

from scorer.core.types import InvalidRecord
from scorer.games.great_wall import GAME
from scorer.games.great_wall.data import KINDS, deck_from_json, load_deck

ROOT = Path(__file__).resolve().parents[3]


def shipped_doc() -> dict:
    return json.loads(resources.files("scorer.games.great_wall").joinpath("deck.json").read_text("utf-8"))


def test_shipped_deck_is_provisional_and_consistent():
    deck = load_deck()
    assert deck.provisional and set(deck.guessed) == {"noble", "soldier", "cavalry", "dragon"}
    assert dict(zip(KINDS, deck.counts)) == {"wall": 7, "gate": 3, "tower": 1, "noble": 1, "soldier": 4, "cavalry": 2, "dragon": 2}
    assert sum(deck.counts) == 20 and len(deck.token_list()) == 36 and sum(deck.token_list()) == 147
    assert dict(deck.sections) == {2: 2, 3: 3, 4: 4, 5: 4} and deck.hand_size == 5


def test_generator_script_writes_the_shipped_file():
    spec = importlib.util.spec_from_file_location("make_gw_deck", ROOT / "scripts" / "make_provisional_great_wall_deck.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.deck() == shipped_doc()


def _edit(path, value):
    doc = shipped_doc()
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("doc, message", [
    (_edit(["cards", 2, "count"], 2), "1 tower card(s) (confirmed), not 2"),
    (_edit(["cards", 4, "count"], 5), "add up to 9, not 10"),
    (_edit(["cards", 3, "count"], 0), "at least one noble"),
    (_edit(["cards", 1, "value"], 3), "a gate is worth 2"),
    (_edit(["cards", 0, "provisional"], True), "wall count is confirmed"),
    (_edit(["provisional"], False), "must be provisional too"),
    (_edit(["tokens", "8"], 3), "the 36 tokens are"),
    (_edit(["sections", "5"], 3), "2, 3, 4 and 4 wall sections"),
    (_edit(["hand_size"], 6), "starts with 5 cards"),
    (_edit(["cards", 6, "kind"], "noble"), "each of the 7 card types once"),
])
def test_validator_enforces_what_the_rules_imply(doc, message):
    with pytest.raises(InvalidRecord) as exc:
        deck_from_json(doc)
    assert message in str(exc.value)


@pytest.mark.parametrize("doc, message", [
    ({k: v for k, v in shipped_doc().items() if k != "tokens"}, "'tokens' is a required property"),
    (_edit(["cards", 0, "kind"], "archer"), "$.cards[0].kind"),
    (_edit(["cards", 4, "value"], "rising"), "$.cards[4].value"),
    (_edit(["format"], "other/1"), "$.format"),
])
def test_schema_errors_name_the_field(doc, message):
    with pytest.raises(InvalidRecord) as exc:
        deck_from_json(doc)
    assert message in str(exc.value)


def test_a_users_own_deck_file_replaces_the_provisional_one(tmp_path):
    doc = shipped_doc()
    counts = {"noble": 2, "soldier": 3, "cavalry": 2, "dragon": 2}
    for c in doc["cards"]:
        if c["kind"] in counts:
            c["count"] = counts[c["kind"]]
            c.pop("provisional", None)
    doc["provisional"] = False
    doc["id"] = "my-copy"
    path = tmp_path / "my-deck.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    st = setup(("blue", "red"), cards="tracked", seed=2, deck=str(path))
    assert st.deck.count("noble") == 2 and not st.deck.provisional
    assert sum(st.hands[0]) + len(st.decks[0]) == 20 and sum(1 for c in st.decks[0] if c == "noble") + st.hands[0][3] == 2
    board = GAME.score(st)
    assert not board.provisional_data and not any(u.check == "deck.provisional" for u in board.not_checked)
    bad = copy.deepcopy(doc)
    bad["cards"][3]["count"] = 5
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(InvalidRecord) as exc:
        setup(("blue", "red"), deck=str(path))
    assert "add up to 9" in str(exc.value)
    with pytest.raises(InvalidRecord):
        setup(("blue", "red"), deck="no-such-deck")


def test_special_counts_in_the_setup():
    st = setup(("blue", "red"), special_counts={"noble": 1, "soldier": 3, "cavalry": 3, "dragon": 2})
    assert st.deck.count("cavalry") == 3 and not st.deck.provisional
    assert GAME.score(st).provisional_data is False
    assert GAME.score(setup(("blue", "red"))).provisional_data is True


def test_a_shortened_supply_only_with_its_mark_and_only_tokens_of_the_game(tmp_path):
    """A demo's deck (``"shortened_supply": true``, tableref's Great Wall demo) may leave tokens out, never add any;
    the engine plays it by the same rules: the supply is the file's tokens."""
    doc = shipped_doc()
    doc["tokens"] = {"1": 1, "5": 2, "8": 1}
    with pytest.raises(InvalidRecord, match="the 36 tokens are"):
        deck_from_json(doc)
    doc["shortened_supply"] = True
    deck = deck_from_json(doc)
    assert deck.shortened_supply and sorted(deck.token_list()) == [1, 5, 5, 8]
    for tokens in ({"8": 3}, {"6": 1}, {"1": 0}):
        with pytest.raises(InvalidRecord, match="a shortened supply holds some of the 36 tokens"):
            deck_from_json(dict(doc, tokens=tokens))
    assert deck.with_special_counts({"noble": 2, "soldier": 3, "cavalry": 2, "dragon": 2}).shortened_supply
    path = tmp_path / "short.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    st = setup(("blue", "red"), cards="tracked", seed=3, deck=str(path))
    assert sorted(st.supply + st.boxed + tuple(v for s in st.sections for v in s.tokens)) == [1, 5, 5, 8]
