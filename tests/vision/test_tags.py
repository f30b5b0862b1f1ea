import json

import pytest

from scorer.core.types import Piece
from vision.errors import LayoutError
from vision.tags import aruco_uid, load_tag_map, tag_map_from_json, tag_map_from_registry, tag_map_to_json


def test_tag_map_forms(tmp_path):
    want = {0: Piece("red", "house"), 7: Piece("neutral", "fortress")}
    plain = tag_map_to_json(want)
    assert tag_map_from_json(plain) == want
    assert tag_map_from_json({"tags": plain}) == want
    assert tag_map_from_json([{"id": 0, "owner": "red", "kind": "house"},
                              {"id": 7, "owner": "neutral", "kind": "fortress"}]) == want
    p = tmp_path / "tags.json"
    p.write_text(json.dumps(plain))
    assert load_tag_map(p) == want


@pytest.mark.parametrize("data", [{"x": {"owner": "red", "kind": "house"}}, {"1": {"owner": "red"}}, [{"id": -1, "owner": "a", "kind": "b"}], 5])
def test_bad_tag_maps(data):
    with pytest.raises(LayoutError):
        tag_map_from_json(data)


def test_missing_tag_map_file(tmp_path):
    with pytest.raises(LayoutError, match="not found"):
        load_tag_map(tmp_path / "nope.json")


def test_tag_map_from_the_shared_registry():
    registry = pytest.importorskip("hardware.tag_registry")
    reg = registry.TagRegistry()
    reg.assign(aruco_uid(12), Piece("blue", "emissary"))
    reg.assign("04A1B2C3D4", Piece("red", "house"))  # an RFID tag: not a printed marker
    assert tag_map_from_registry(reg) == {12: Piece("blue", "emissary")}
