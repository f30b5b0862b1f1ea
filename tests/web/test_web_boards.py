"""Board geometry for the SVG (layout or schematic) and saving captured boards."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from scorer.games.china.board import board_from_json, load_board
from scorer.games.china.boardkit import geometry_from_layout, schematic_geometry
from web.boards import BoardLibrary, default_markers
from web.errors import BadInput, Conflict

ROOT = Path(__file__).resolve().parents[2]


def china(board_id: str = "china-a") -> dict:
    return json.loads((ROOT / "scorer/games/china/boards" / f"{board_id}.json").read_text())


def spaces_of(topo: dict) -> set[str]:
    return {s for p in topo["provinces"] for s in p["sites"] + [p["dragon"]]}


@pytest.mark.parametrize("board_id", ["china-a", "china-b"])
def test_schematic_geometry(board_id):
    topo = china(board_id)
    geo = schematic_geometry(topo)
    assert geo["source"] == "schematic" and geo["provisional_layout"] is True
    assert {s["id"] for s in geo["spaces"]} == spaces_of(topo)
    # spaces of one province are inside its region, and no two spaces overlap
    regions = {r["id"]: r["polygon"] for r in geo["regions"]}
    for s in geo["spaces"]:
        xs = [p[0] for p in regions[s["region"]]]
        ys = [p[1] for p in regions[s["region"]]]
        assert min(xs) <= s["x"] - s["r"] and s["x"] + s["r"] <= max(xs), s["id"]
        assert min(ys) <= s["y"] - s["r"] and s["y"] + s["r"] <= max(ys), s["id"]
    for i, a in enumerate(geo["spaces"]):
        for b in geo["spaces"][i + 1:]:
            assert math.hypot(a["x"] - b["x"], a["y"] - b["y"]) >= a["r"] + b["r"] - 1e-6, (a["id"], b["id"])


@pytest.mark.parametrize("board_id", ["china-a", "china-b"])
def test_alliance_markers_cover_no_space(tmp_path, board_id):
    for geo in (schematic_geometry(china(board_id)), BoardLibrary(tmp_path).geometry(board_id)):
        markers = geo["alliances"]
        assert sorted(a["number"] for a in markers) == list(range(1, 16))
        for a in markers:
            for s in geo["spaces"]:
                assert math.hypot(a["x"] - s["x"], a["y"] - s["y"]) >= s["r"] + 9, (a["number"], s["id"])
            for b in markers:
                if a is not b:
                    assert math.hypot(a["x"] - b["x"], a["y"] - b["y"]) >= 18, (a["number"], b["number"])


def test_schematic_keeps_allied_provinces_close():
    topo = china("china-a")
    geo = schematic_geometry(topo)
    centre = {r["id"]: (sum(p[0] for p in r["polygon"]) / 4, sum(p[1] for p in r["polygon"]) / 4) for r in geo["regions"]}
    cell = 200.0

    def total(cmap):
        return sum(math.dist(cmap[a], cmap[b]) for a, b in (x["provinces"] for x in topo["alliances"])) / cell

    in_file_order = {p["id"]: ((i % 3) * cell, (i // 3) * cell) for i, p in enumerate(topo["provinces"])}
    assert total(centre) <= total(in_file_order)


def test_layout_geometry_and_fallback():
    topo = china("china-a")
    layout = {"id": "t", "size_mm": [400, 300], "spaces": [
        {"id": sid, "shape": "circle", "centre_mm": [10 + i, 10 + i], "radius_mm": 5} for i, sid in enumerate(sorted(spaces_of(topo)))]}
    geo = geometry_from_layout(topo, layout)
    assert geo is not None and geo["source"] == "layout" and geo["provisional_layout"] is False
    assert {s["region"] for s in geo["spaces"]} == {p["id"] for p in topo["provinces"]}
    incomplete = dict(layout, spaces=layout["spaces"][1:])
    assert geometry_from_layout(topo, incomplete) is None


def test_shipped_layout_is_used_when_present(tmp_path):
    lib = BoardLibrary(tmp_path)
    geo = lib.geometry("china-a")
    from vision.layout import LAYOUT_DIR

    expected = "layout" if (LAYOUT_DIR / "china-a.json").exists() else "schematic"
    assert geo["source"] == expected
    assert {s["id"] for s in geo["spaces"]} == spaces_of(china())


def _captured(board_id: str = "kitchen-table") -> tuple[dict, dict]:
    doc = copy.deepcopy(china())
    doc["id"] = board_id
    doc["provisional"] = False
    geo = schematic_geometry(doc)
    layout = {"id": board_id, "board": board_id, "size_mm": geo["size"],
              "markers": default_markers(tuple(geo["size"])),
              "spaces": [{"id": s["id"], "kind": s["kind"], "shape": "circle", "centre_mm": [s["x"], s["y"]], "radius_mm": s["r"]}
                         for s in geo["spaces"]],
              "pieces": {"house": {"footprint": "rect", "size_mm": [16, 20], "height_mm": 16, "owners": "players"}},
              "players": {"red": [200, 40, 40]}}
    return doc, layout


def test_save_capture_then_play_on_it(tmp_path):
    lib = BoardLibrary(tmp_path)
    board, layout = _captured()
    written = lib.save_capture(board, layout)
    assert Path(written["board"]) == tmp_path / "boards" / "kitchen-table.json"
    board_from_json(json.loads(Path(written["board"]).read_text()))
    assert [b.id for b in lib.list() if b.source == "captured"] == ["kitchen-table"]
    ref = lib.setup_ref("kitchen-table")
    assert load_board(ref).id == "kitchen-table"
    assert lib.geometry("kitchen-table")["source"] == "layout"
    with pytest.raises(Conflict):
        lib.save_capture(board, layout)
    lib.save_capture(board, layout, overwrite=True)


def test_capture_problems_are_all_reported(tmp_path):
    lib = BoardLibrary(tmp_path)
    board, layout = _captured()
    board["roads"] = [r for r in board["roads"] if "chu-1" not in r]
    board["alliances"] = board["alliances"][:-1]
    layout["spaces"] = [s for s in layout["spaces"] if s["id"] != "qin-2"]
    problems = lib.check_capture(board, layout)
    text = " ".join(p.en for p in problems)
    assert "chu-1" in text and "alliances" in text and "qin-2" in text
    assert all(p.zh for p in problems)
    with pytest.raises(BadInput):
        lib.save_capture(board, layout)
    assert not (tmp_path / "boards").exists() or not list((tmp_path / "boards").iterdir())


def test_a_hand_broken_file_is_not_offered(tmp_path):
    lib = BoardLibrary(tmp_path)
    (tmp_path / "boards").mkdir()
    (tmp_path / "boards" / "broken.json").write_text(json.dumps({"id": "broken"}))
    assert "broken" not in [b.id for b in lib.list()]
