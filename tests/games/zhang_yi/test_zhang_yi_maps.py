"""Zhang Yi map files: the schema, the rules validator, the shipped sample and template."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import jsonschema
import pytest
from zhang_yi_helpers import map_doc

from scorer.core.schema import load_schema
from scorer.core.types import InvalidRecord
from scorer.games.zhang_yi.board import load_map, map_from_json, semantic_problems, shipped_map_json

ROOT = Path(__file__).resolve().parents[3]


def test_sample_map_is_valid_and_labelled_as_sample():
    doc = shipped_map_json("sample")
    jsonschema.Draft202012Validator(load_schema("zhang-yi-board")).validate(doc)
    gmap = load_map("sample")
    assert gmap.sample and gmap.provisional and "SAMPLE" in gmap.name.en and "示例" in gmap.name.zh
    assert "INVENTED" in doc["source"] and gmap.warnings == ()
    assert sum(gmap.is_city) >= 4 and len(gmap.areas) >= 12
    assert {t for _, _, t in gmap.borders} >= {"open", "river", "mountain"}


def test_sample_map_file_matches_its_generator():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_zhang_yi_maps as gen
    finally:
        sys.path.pop(0)
    assert gen.sample() == shipped_map_json("sample")
    assert gen.template() == shipped_map_json("template")


def test_template_is_incomplete_and_says_what_is_missing():
    with pytest.raises(InvalidRecord) as err:
        load_map("template")
    text = str(err.value)
    assert "incomplete" in text and "$.areas" in text and "bonus" in text and "docs/zhang-yi.md" in text


def base() -> dict:
    return map_doc([("a", True, "qin", 3), ("b", False, None, 0)], [("a", "b", "river")])


def problems_of(doc: dict) -> list[str]:
    return semantic_problems(doc)[0]


@pytest.mark.parametrize(
    "mutate, expect",
    [
        (lambda d: d["areas"].append(dict(d["areas"][0])), "used twice"),
        (lambda d: d["borders"].append({"a": "a", "b": "zz", "type": "open"}), "does not exist"),
        (lambda d: d["borders"].append({"a": "a", "b": "a", "type": "open"}), "two different areas"),
        (lambda d: d["borders"].append({"a": "b", "b": "a", "type": "open"}), "listed twice"),
        (lambda d: d["areas"][0].update(setup_strength=0), "needs strength 1"),
        (lambda d: d["areas"][1].update(setup_strength=2), "must be 0"),
        (lambda d: d["areas"].__setitem__(slice(None), [a for a in d["areas"] if a["setup_state"] != "chu"]), "chu has no set-up area"),
        (lambda d: d["areas"].extend({"id": f"x{i}", "city": False, "setup_state": "qin", "setup_strength": 1} for i in range(5)), "already hegemony"),
        (lambda d: d["areas"].extend({"id": f"c{i}", "city": True, "setup_state": "qin", "setup_strength": 1} for i in range(3)), "4 or more cities"),
        (lambda d: d["talents"].pop(), "exactly the 16 talents"),
        (lambda d: d["talents"][0].update(kind="minister"), "is a general"),
        (lambda d: d["talents"][15].update(state="qin"), "assassin belongs to no state"),
        (lambda d: d["talents"][8].update(state=None), "belongs to a state"),
        (lambda d: d["talents"][8].update(bonus=2), "only generals"),
        (lambda d: d["states"]["qin"].update(counters_1_2=5, counters_3_4=None), "or neither"),
        (lambda d: d["states"]["qin"].update(counters_1_2=5, counters_3_4=4), "must be 8"),
    ],
)
def test_validator_problems(mutate, expect):
    doc = base()
    assert problems_of(doc) == []
    bad = copy.deepcopy(doc)
    mutate(bad)
    found = problems_of(bad)
    assert any(expect in p for p in found), found
    with pytest.raises(InvalidRecord):
        map_from_json(bad)


def test_disconnected_map_is_only_a_warning():
    doc = base()
    doc["areas"].append({"id": "island", "city": False, "setup_state": None, "setup_strength": 0})
    gmap = map_from_json(doc)
    assert gmap.warnings and "connected" in gmap.warnings[0]


def test_schema_rejects_bad_shapes_naming_the_field():
    doc = base()
    doc["borders"][0]["type"] = "lava"
    with pytest.raises(InvalidRecord, match=r"borders\[0\]\.type"):
        map_from_json(doc)
    doc = base()
    doc["complete"] = False
    doc["talents"][0]["bonus"] = None
    with pytest.raises(InvalidRecord, match="bonus of yue_yi not entered"):
        map_from_json(doc)


def test_user_map_with_space_ids(tmp_path):
    doc = base()
    doc["areas"][0]["space_id"] = "zy-01"
    path = tmp_path / "printed.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    gmap = load_map(str(path))
    assert gmap.areas[0].space_id == "zy-01" and gmap.space_area["zy-01"] == 0
    with pytest.raises(InvalidRecord, match="unknown Zhang Yi map"):
        load_map("printed")
    with pytest.raises(InvalidRecord, match="file not found"):
        load_map(str(tmp_path / "missing.json"))


def test_validate_script(tmp_path):
    import subprocess

    script = str(ROOT / "scripts" / "validate_zhang_yi_map.py")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(base()), encoding="utf-8")
    r = subprocess.run([sys.executable, script, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and json.loads(r.stdout)["valid"] is True
    r = subprocess.run([sys.executable, script, str(ROOT / "scorer/games/zhang_yi/maps/template.json")],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "incomplete" in r.stderr
