import copy
import json

import pytest

from vision.errors import LayoutError
from vision.layout import check_against_board, layout_from_json, load_layout, shipped_layouts
from vision.make_layouts import CHINA_BOARDS, china_layout, render_json, small_test_layout
from vision.make_layouts import main as make_layouts_main


def test_shipped_layouts_cover_every_space_of_their_board():
    assert {"china-a", "china-b"} <= set(shipped_layouts())
    for name in ("china-a", "china-b"):
        layout = load_layout(name)
        board = json.loads((CHINA_BOARDS / f"{name}.json").read_text("utf-8"))
        ids = [s for p in board["provinces"] for s in p["sites"]] + [p["dragon"] for p in board["provinces"]]
        assert check_against_board(layout, ids) == []
        assert set(layout.space_ids) == set(ids)
        assert layout.provisional and layout.board == name


def test_shipped_layouts_are_generated_from_the_board_files():
    assert make_layouts_main(["--check"]) == 0
    board = json.loads((CHINA_BOARDS / "china-b.json").read_text("utf-8"))
    assert render_json(china_layout(board)) == (CHINA_BOARDS.parent.parent.parent.parent / "vision" / "layouts" / "china-b.json").read_text("utf-8")


def test_load_by_path_and_by_id(tmp_path):
    data = small_test_layout()
    p = tmp_path / "mine.json"
    p.write_text(json.dumps(data))
    assert load_layout(p).id == "test-small"
    assert load_layout(str(p)).space("wei-dragon").radius > 0
    with pytest.raises(LayoutError, match="no layout for board"):
        load_layout("no-such-board")


def test_spaces_are_circles_or_polygons(small_layout):
    data = small_test_layout()
    data["spaces"].append({"id": "extra", "shape": "polygon", "points_mm": [[60, 60], [80, 60], [80, 80], [60, 80]]})
    layout = layout_from_json(data)
    sq = layout.space("extra")
    assert sq.contains(70, 70) and not sq.contains(90, 70)
    assert sq.contains(82, 70, margin=3)
    assert abs(sq.area - 400) < 1e-6
    c = small_layout.space("wei-1")
    assert c.contains(*c.centre) and c.distance(c.centre[0] + c.radius + 5, c.centre[1]) == pytest.approx(5)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["spaces"].append(copy.deepcopy(d["spaces"][0])), "duplicate space id"),
    (lambda d: d["spaces"][0].update(centre_mm=[-50, 10]), "outside the board"),
    (lambda d: d["markers"]["corners"][1].update(id=0), "four different ids"),
    (lambda d: d["markers"].update(dictionary="DICT_NOPE"), "unknown marker dictionary"),
    (lambda d: d["markers"]["corners"][0].update(centre_mm=[1, 1]), "does not fit"),
    (lambda d: d["spaces"][0].pop("radius_mm"), "radius_mm"),
    (lambda d: d.pop("pieces"), "pieces"),
    (lambda d: d["roads"].append(["wei-1", "nowhere"]), "unknown space"),
])
def test_bad_layouts_are_rejected_with_a_reason(mutate, message):
    data = small_test_layout()
    data.setdefault("roads", [])
    mutate(data)
    with pytest.raises(LayoutError, match=message):
        layout_from_json(data)
