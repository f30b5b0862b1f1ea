"""The provisional layouts of Cheops, The Great Wall, Ming and Zhang Yi (vision/layouts/, made by
scripts/make_provisional_layouts.py from each game's data file): up to date, valid for the camera's
layout validator, corner markers of at least 50 mm, and a layout space for every space the
engine's visible_board reports over whole random games (the sensors' and the camera's space ids)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.core import SetupOptions, get_game
from scorer.core.registry import board_kit
from vision.layout import LAYOUT_DIR, layout_from_json, load_layout

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = {"cheops": ("cheops", "cheops"), "great_wall": ("great-wall", "great-wall"),
           "ming": ("ming-provisional", "ming-provisional"), "zhang_yi": ("sample", "zhang-yi-sample")}


def visible_spaces_and_kinds(game_id: str, seeds: tuple[int, ...]) -> tuple[set[str], set[str]]:
    """Every space and piece kind visible_board shows over complete random games."""
    from importlib import import_module

    sim = import_module(f"scorer.games.{game_id}.simulate")
    game = get_game(game_id)
    spaces: set[str] = set()
    kinds: set[str] = set()
    for seed in seeds:
        players = game.max_players if seed % 2 else game.min_players
        setup, moves, _final = sim.random_game(seed, players=players)
        state = game.setup(SetupOptions.from_json(setup))
        for move in moves:
            state = game.apply_unchecked(state, move)
            for space, piece, _n in game.visible_board(state).items():
                spaces.add(str(space))
                kinds.add(piece.kind)
    return spaces, kinds


def test_the_shipped_layouts_are_what_the_script_makes():
    res = subprocess.run([sys.executable, "scripts/make_provisional_layouts.py", "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("game_id", sorted(SHIPPED))
def test_layout_is_valid_provisional_and_has_large_markers(game_id):
    board_id, layout_id = SHIPPED[game_id]
    kit = board_kit(game_id)
    assert kit.layout_id(board_id) == layout_id
    raw = json.loads((LAYOUT_DIR / f"{layout_id}.json").read_text("utf-8"))
    layout = layout_from_json(raw)
    assert layout.provisional and raw["game"] == game_id
    assert layout.marker_size >= 50.0
    doc = kit.shipped_doc(board_id)
    if kit.data_format is not None:
        assert layout.board == doc["id"]
    # the markers lie in the corners, clear of every space
    half = layout.marker_size / 2
    for m in layout.markers:
        for s in layout.spaces:
            assert s.distance(*m.centre) > half, (m.id, s.id)
    assert set(kit.spaces(doc)) <= set(layout.space_ids)


@pytest.mark.parametrize("game_id", sorted(SHIPPED))
def test_every_space_the_engine_reports_has_a_layout_space(game_id):
    layout = load_layout(SHIPPED[game_id][1])
    spaces, kinds = visible_spaces_and_kinds(game_id, seeds=(1, 2))
    assert spaces, "the random games showed nothing"
    assert spaces <= set(layout.space_ids), sorted(spaces - set(layout.space_ids))
    # and the Board page has a drawing style for every kind of piece it can show
    kit = board_kit(game_id)
    board_id = SHIPPED[game_id][0]
    geo = kit.geometry(kit.shipped_doc(board_id), json.loads((LAYOUT_DIR / f"{SHIPPED[game_id][1]}.json").read_text()))
    styles = geo["pieces"]
    for kind in kinds:
        assert kind in styles or any(k.endswith("*") and kind.startswith(k[:-1]) for k in styles), kind


def test_the_demo_sensor_boards_fit_the_layouts():
    """The demos' emulated sensor boards (an antenna per space) name only spaces the layouts place."""
    from tableref import demo_cheops, demo_great_wall, demo_ming, demo_zhang_yi

    for game_id, module in (("cheops", demo_cheops), ("ming", demo_ming), ("zhang_yi", demo_zhang_yi)):
        assert set(module._spaces()) <= set(load_layout(SHIPPED[game_id][1]).space_ids), game_id
    demo = demo_great_wall._demo()
    assert set(demo.spaces) <= set(load_layout("great-wall").space_ids)


def test_zhang_yi_areas_are_the_map_cells_and_tile_the_map():
    layout = load_layout("zhang-yi-sample")
    doc = board_kit("zhang_yi").shipped_doc("sample")
    areas = [layout.space(a["id"]) for a in doc["areas"]]
    assert all(len(s.polygon) >= 4 for s in areas)  # irregular polygons
    assert {s.kind for s in areas} == {"area", "city"}
    assert sum(1 for a in doc["areas"] if a["city"]) == sum(1 for s in areas if s.kind == "city")
    total = sum(s.area for s in areas)
    assert abs(total - 620.0 * 470.0) < 1.0  # the cells cover the map frame without overlap
    smallest = min(s.area for s in areas)
    assert smallest > 1000.0, smallest  # room for a stack of counters (16 mm) in every area
    for box in ("box-chits", "box-graveyard", "box-talent-pool", "dice-tray"):
        layout.space(box)


@pytest.mark.parametrize("game_id", sorted(SHIPPED))
def test_tableref_boards_validate_checks_a_layout_and_its_games_spaces(game_id, tmp_path, capsys):
    from tableref.cli import main

    path = LAYOUT_DIR / f"{SHIPPED[game_id][1]}.json"
    assert main(["boards", "validate", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["kind"] == "layout" and summary["game_spaces_checked"] is True and summary["marker_mm"] >= 50
    # a layout that lost one of the engine's spaces is refused, naming it
    doc = json.loads(path.read_text("utf-8"))
    gone = board_kit(game_id).spaces(board_kit(game_id).shipped_doc(SHIPPED[game_id][0]))[-1]
    doc["spaces"] = [s for s in doc["spaces"] if s["id"] != gone]
    broken = tmp_path / "layouts" / "broken.json"
    broken.parent.mkdir()
    broken.write_text(json.dumps(doc), "utf-8")
    assert main(["boards", "validate", str(broken)]) == 2
    assert gone in capsys.readouterr().err


@pytest.mark.parametrize("game_id", sorted(SHIPPED))
def test_no_two_spaces_overlap(game_id):
    """The reader gives every board point to one space, so spaces may share an edge but not overlap."""
    import cv2
    import numpy as np

    layout = load_layout(SHIPPED[game_id][1])
    scale = 2.0
    w, h = (int(v * scale) + 2 for v in layout.size)
    count = np.zeros((h, w), np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    for s in layout.spaces:
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [np.round(np.asarray(s.polygon) * scale).astype(np.int32)], 1)
        count += cv2.erode(mask, kernel)  # one pixel in from the edge: shared edges do not count
    assert int(count.max()) <= 1, f"{int((count > 1).sum())} px covered twice"
