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


def test_piece_dictionary_codes_are_far_apart_and_stored():
    import json
    from pathlib import Path

    import cv2
    import numpy as np

    from vision.markers import PIECE_DICTIONARY, dictionary, dictionary_size

    data = json.loads((Path(__file__).parents[2] / "vision" / "piece_tags.json").read_text())
    codes = [np.array([int(c) for c in code]).reshape(4, 4) for code in data["codes"]]
    assert data["name"] == PIECE_DICTIONARY and dictionary_size(PIECE_DICTIONARY) == len(codes) == 20
    for i, a in enumerate(codes):
        assert 6 <= a.sum() <= 10
        # far from its own rotations (its orientation is never in doubt) and from every other
        # code in any rotation: 2 wrong bits are corrected, 3 cannot make another code
        assert min(int((np.rot90(a, k) != a).sum()) for k in (1, 2, 3)) >= 6
        for b in codes[i + 1:]:
            assert min(int((np.rot90(b, k) != a).sum()) for k in range(4)) >= 6
    d = dictionary(PIECE_DICTIONARY)
    det = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    for tid in range(len(codes)):  # the stored bits are what is printed and what is decoded
        img = cv2.copyMakeBorder(cv2.aruco.generateImageMarker(d, tid, 60), 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
        assert np.array_equal(cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[tid:tid + 1], 4), codes[tid])
        _, ids, _ = det.detectMarkers(np.rot90(img, tid % 4).copy())
        assert ids is not None and ids.ravel().tolist() == [tid]


def test_marker_sheet_prints_identical_stickers_per_piece_type(tmp_path, capsys, monkeypatch):
    import vision.markers
    from tableref.cli import main
    from vision.layout import load_layout
    from vision.render import default_tag_map, tag_size_mm

    seen = []
    real = vision.markers.sheet_pages
    monkeypatch.setattr(vision.markers, "sheet_pages", lambda items, **kw: seen.extend(items) or real(items[:6], **kw))
    assert main(["vision", "markers", "--board", "china-a", "--out", str(tmp_path / "m"), "--tags", "demo",
                 "--copies", "2", "--dpi", "100"]) == 0
    assert "m.pdf" in capsys.readouterr().out
    layout = load_layout("china-a")
    tags = [it for it in seen if it.dictionary == vision.markers.PIECE_DICTIONARY]
    tm = default_tag_map(layout)
    assert sorted(it.marker_id for it in tags) == sorted(2 * list(tm))
    for it in tags:  # each sticker at its piece kind's tag size (a fortress's fits under a house)
        assert it.size_mm == tag_size_mm(layout.pieces[tm[it.marker_id].kind], layout=layout)
