"""Generate layouts: the provisional China layouts from the rules board files (so the two stay
in sync), and small layouts for tests.

    python -m vision.make_layouts            # rewrite vision/layouts/china-a.json, china-b.json
    python -m vision.make_layouts --check    # exit 1 if the shipped files are out of date

The geometry is invented (no measured board is public): provinces on a 3 x 3 grid, each with its
dragon space in the middle and its house sites on an ellipse around it. Replace it with a
captured layout of the real board.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

from vision.markers import CORNER_DICTIONARY

ROOT = Path(__file__).resolve().parent.parent
CHINA_BOARDS = ROOT / "scorer" / "games" / "china" / "boards"
LAYOUT_DIR = Path(__file__).resolve().parent / "layouts"

PLAYER_RGB = {
    "blue": [35, 85, 200],
    "green": [40, 150, 70],
    "violet": [125, 55, 160],
    "red": [205, 40, 40],
    "yellow": [245, 205, 40],
}
PROVINCE_TINT = {
    "violet": [210, 190, 215],
    "yellow": [235, 222, 170],
    "orange": [238, 205, 170],
    "green": [195, 220, 190],
    "red": [235, 190, 180],
}
CHINA_PIECES = {
    "house": {"footprint": "rect", "size_mm": [18, 24], "height_mm": 16, "owners": "players"},
    "emissary": {"footprint": "circle", "size_mm": [15], "height_mm": 6, "owners": "players"},
    "fortress": {"footprint": "rect", "size_mm": [28, 28], "height_mm": 5, "owners": "neutral", "rgb": [32, 32, 36]},
}

CELL_W, CELL_H = 170.0, 150.0
MARGIN_X, MARGIN_Y = 50.0, 45.0
MARKER_MM = 34.0
SITE_R, DRAGON_R = 17.0, 36.0


def province_grid_layout(layout_id: str, provinces: Sequence[dict[str, Any]], cols: int = 3,
                         roads: Sequence[Sequence[str]] = (), board: str | None = None,
                         provisional: bool = True, generated_by: str = "vision.make_layouts") -> dict[str, Any]:
    """provinces: [{"id", "colour", "sites": [...], "dragon": id or None}] laid out on a grid."""
    rows = math.ceil(len(provinces) / cols)
    width = 2 * MARGIN_X + cols * CELL_W
    height = 2 * MARGIN_Y + rows * CELL_H
    spaces: list[dict[str, Any]] = []
    regions: list[dict[str, Any]] = []
    for i, p in enumerate(provinces):
        r, c = divmod(i, cols)
        x0, y0 = MARGIN_X + c * CELL_W, MARGIN_Y + r * CELL_H
        cx, cy = x0 + CELL_W / 2, y0 + CELL_H / 2
        poly = [[x0 + 2, y0 + 2], [x0 + CELL_W - 2, y0 + 2], [x0 + CELL_W - 2, y0 + CELL_H - 2], [x0 + 2, y0 + CELL_H - 2]]
        region = {"id": p["id"], "label": p["id"], "polygon": poly}
        if p.get("colour") in PROVINCE_TINT:
            region["tint_rgb"] = PROVINCE_TINT[p["colour"]]
        regions.append(region)
        if p.get("dragon"):
            spaces.append({"id": p["dragon"], "kind": "dragon", "region": p["id"], "shape": "circle",
                           "centre_mm": [round(cx, 2), round(cy, 2)], "radius_mm": DRAGON_R})
        sites = list(p["sites"])
        n = len(sites)
        rx, ry = CELL_W / 2 - SITE_R - 8, DRAGON_R + SITE_R + 3
        for k, sid in enumerate(sites):
            a = math.pi + 2 * math.pi * k / max(n, 1)  # start on the left, go clockwise on screen
            spaces.append({"id": sid, "kind": "site", "region": p["id"], "shape": "circle",
                           "centre_mm": [round(cx + rx * math.cos(a), 2), round(cy + ry * math.sin(a), 2)],
                           "radius_mm": SITE_R})
    h = MARKER_MM / 2 + MARKER_MM / 8 + 4
    corners = [[h, h], [width - h, h], [width - h, height - h], [h, height - h]]
    out: dict[str, Any] = {
        "$schema": "../schemas/layout.schema.json",
        "id": layout_id,
        "provisional": provisional,
        "generated_by": generated_by,
        "size_mm": [width, height],
        "background_rgb": [226, 214, 184],
        "markers": {"dictionary": CORNER_DICTIONARY, "size_mm": MARKER_MM,
                    "corners": [{"id": i, "centre_mm": [round(x, 2), round(y, 2)]} for i, (x, y) in enumerate(corners)]},
        "regions": regions,
        "roads": [list(r) for r in roads],
        "spaces": spaces,
        "pieces": CHINA_PIECES,
        # China's rulebook: houses (and the fortresses they may stand on) go on house sites,
        # emissaries to the court (the dragon space)
        "holds": {"site": ["house", "fortress"], "dragon": ["emissary"]},
        "players": PLAYER_RGB,
    }
    if board:
        out["board"] = board
    return out


def small_test_layout(n_provinces: int = 2, sites: int = 4, layout_id: str = "test-small") -> dict[str, Any]:
    """A small board for fast tests: ``n_provinces`` provinces in one row."""
    names = ["wei", "han", "qin", "qi", "chu", "lu"]
    colours = ["red", "green", "yellow", "yellow", "violet", "orange"]
    provinces = [{"id": names[i], "colour": colours[i], "sites": [f"{names[i]}-{k + 1}" for k in range(sites)],
                  "dragon": f"{names[i]}-dragon"} for i in range(n_provinces)]
    return province_grid_layout(layout_id, provinces, cols=n_provinces, provisional=True,
                                generated_by="vision.make_layouts.small_test_layout")


def china_layout(board: dict[str, Any]) -> dict[str, Any]:
    provinces = [{"id": p["id"], "colour": p.get("colour"), "sites": p["sites"], "dragon": p.get("dragon")}
                 for p in board["provinces"]]
    roads = [r for r in board.get("roads", []) if len(r) == 2]
    out = province_grid_layout(board["id"], provinces, cols=3, roads=roads, board=board["id"], provisional=True,
                               generated_by=f"python -m vision.make_layouts (from scorer/games/china/boards/{board['id']}.json)")
    out["game"] = "china"
    out["notes"] = ["Geometry invented: no measured China board is public. Capture the real board and replace this file."]
    return out


def render_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.make_layouts")
    ap.add_argument("--check", action="store_true", help="only check that the shipped layouts are up to date")
    args = ap.parse_args(argv)
    boards = sorted(CHINA_BOARDS.glob("china-*.json"))
    if not boards:
        print(f"no China board files in {CHINA_BOARDS}", file=sys.stderr)
        return 2
    stale = []
    for path in boards:
        board = json.loads(path.read_text("utf-8"))
        text = render_json(china_layout(board))
        target = LAYOUT_DIR / f"{board['id']}.json"
        if args.check:
            if not target.exists() or target.read_text("utf-8") != text:
                stale.append(target.name)
        else:
            target.write_text(text, "utf-8")
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run python -m vision.make_layouts)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
