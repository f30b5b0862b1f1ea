"""Cheops: the pyramid's 66 square spaces in 11 rows (the 6 eye spaces hold the laws), above it
the 6 price columns (coloured dot, price table, law under the table) and the market price field.

Sizes are invented: 40 mm tiles on a 42 mm pitch, price tables 60 x 110 mm."""

from __future__ import annotations

from typing import Any, Mapping

from scorer.core.boardkit import circle_space, polygon_space, rect
from scripts.layoutgen.common import MARKER_NOTE, layout_doc, region

ROWS = 11
TILE, PITCH = 40.0, 42.0
WIDTH, HEIGHT = 620.0, 820.0
PYRAMID_TOP = 290.0
COLUMN_PITCH, COLUMN_X0 = 78.0, 76.0
DOT_Y, DOT_R = 88.0, 12.0
TABLE_Y0, TABLE_Y1, TABLE_W = 108.0, 218.0, 60.0
LAW_Y0, LAW_Y1 = 224.0, 258.0
MARKET = (70.0, 290.0, 150.0, 346.0)

TREASURE_RGB = {"red": [200, 40, 40], "blue": [40, 85, 200], "green": [40, 150, 70], "yellow": [240, 200, 40],
                "white": [240, 240, 232], "black": [32, 32, 34]}
OTHER_RGB = [150, 150, 150]
FACES = ("A", "B", "C", "D")
SLATE = [150, 158, 172]


def space_centre(row: int, col: int) -> tuple[float, float]:
    """Centre of pyramid space ``r<row>c<col>`` (row 1 is the apex)."""
    return WIDTH / 2 + (col - (row + 1) / 2) * PITCH, PYRAMID_TOP + (row - 1) * PITCH + TILE / 2


def column_x(i: int) -> float:
    return COLUMN_X0 + COLUMN_PITCH / 2 + i * COLUMN_PITCH


def layout(board: Mapping[str, Any]) -> dict[str, Any]:
    colours = [c["id"] for c in board["treasure_colours"]]
    eyes = set(board["eye_spaces"])
    spaces: list[dict[str, Any]] = []
    regions = [region("pyramid", [[WIDTH / 2, PYRAMID_TOP - 14], [WIDTH / 2 + 6 * PITCH, PYRAMID_TOP + ROWS * PITCH + 4],
                                  [WIDTH / 2 - 6 * PITCH, PYRAMID_TOP + ROWS * PITCH + 4]], tint=[222, 196, 140])]
    for i, colour in enumerate(colours):
        x = column_x(i)
        rgb = TREASURE_RGB.get(colour, OTHER_RGB)
        tint = [int(230 + (v - 230) * 0.25) for v in rgb]
        regions.append(region(f"column-{colour}", rect(x - 37, DOT_Y - 18, x + 37, LAW_Y1 + 6), tint=tint))
        column = f"column-{colour}"
        # the column's marker: a scarab of its own colour, set there at setup and never moved (rules C18)
        spaces.append(dict(circle_space(f"dot-{colour}", "dot", x, DOT_Y, DOT_R, region=column), holds=[f"treasure-{colour}"]))
        # the price table: only its colour's sold scarabs go there (rules, "Sell")
        spaces.append(dict(polygon_space(f"price-{colour}", "price", rect(x - TABLE_W / 2, TABLE_Y0, x + TABLE_W / 2, TABLE_Y1),
                                         region=column), holds=[f"treasure-{colour}"]))
        spaces.append(polygon_space(f"price-{colour}-law", "price-law", rect(x - TABLE_W / 2, LAW_Y0, x + TABLE_W / 2, LAW_Y1),
                                    region=column))
    spaces.append(polygon_space("market-price", "market", rect(*MARKET)))
    for row in range(1, ROWS + 1):
        for col in range(1, row + 1):
            sid = f"r{row}c{col}"
            x, y = space_centre(row, col)
            spaces.append(polygon_space(sid, "eye" if sid in eyes else "pyramid",
                                        rect(x - TILE / 2, y - TILE / 2, x + TILE / 2, y + TILE / 2), region="pyramid"))
    tile = {"footprint": "rect", "size_mm": [38, 38], "height_mm": 3, "owners": "neutral"}
    # the tiles differ only by their printed face (vision/faces.py): a portrait per family, the
    # neighbour tile's picture, the laws' common back
    pieces: dict[str, Any] = {f"family-{f}": dict(tile, face={"label": f}) for f in FACES}
    pieces["neighbour"] = dict(tile, face={})
    pieces["law"] = dict(tile, rgb=[90, 70, 45], face={})
    for colour in colours:
        pieces[f"treasure-{colour}"] = {"footprint": "circle", "size_mm": [18], "height_mm": 9, "owners": "neutral",
                                        "rgb": TREASURE_RGB.get(colour, OTHER_RGB)}
    treasures = [f"treasure-{c}" for c in colours]
    tiles = [f"family-{f}" for f in FACES] + ["neighbour"]
    holds = {"pyramid": tiles + treasures, "eye": tiles + ["law"], "dot": treasures, "price": treasures, "price-law": ["law"]}
    doc = layout_doc(
        layout_id=board["id"], game="cheops", board=board["id"], source=f"scorer/games/cheops/board.json ({board['id']})",
        size=(WIDTH, HEIGHT), spaces=spaces, regions=regions, pieces=pieces, holds=holds, players=None,
        notes=["Geometry invented: no measured Cheops board is public. Capture the real board on the dashboard and replace this file.",
               "Pyramid spaces r<row>c<column>, row 1 the apex; dot-<colour>, price-<colour> (the price table's scarabs), "
               "price-<colour>-law (a law under the table): the space ids of the engine's visible_board. "
               "market-price is drawn and placed but the engine reads nothing there.",
               "Each dot-<colour> holds only treasure-<colour> (space holds): the column's marker, set at setup; "
               "each price-<colour> only the treasure-<colour> sold there.",
               MARKER_NOTE])
    # the pyramid's stones and the columns' fields are printed slate grey (invented, as the rest):
    # a white scarab on a white field would show only by its shaded sides, a hand on sand hardly
    doc["space_fill"] = {kind: SLATE for kind in ("pyramid", "eye", "dot", "price", "price-law", "market")}
    return doc
