"""Ming Dynasty: 6 provinces (3 x 2) of 3 districts each. Every district has its open area (the
space the engine calls ``<district>``, where the prince stands too), a cloister inside it
(``<district>-cloister``, in a corner the open area leaves out) and its 3 city houses in the province's city (``<district>-city``);
the 6 province spaces lie at the board edge (``province-space-<province>``), each with the
display card beside it. Sizes are invented."""

from __future__ import annotations

from typing import Any, Mapping

from scorer.core.boardkit import circle_space, polygon_space, rect
from scorer.games.ming.boardkit import HOLDS, PIECES, PLAYER_RGB
from scripts.layoutgen.common import MARKER_NOTE, layout_doc, octagon, region

WIDTH, HEIGHT = 830.0, 720.0
CELL_W, CELL_H = 230.0, 205.0
X0 = 70.0
ROW_Y = (150.0, 365.0)  # top of the province cells, upper and lower row
EDGE_Y = (72.0, 580.0)  # top of the province spaces above the upper row and below the lower row
DISTRICT_TOP, DISTRICT_H = 24.0, 106.0
CITY_TOP, CITY_H = 138.0, 60.0
CLOISTER_R = 13.0
HOUSE = 17.0
TINT = {"red": [238, 196, 186], "yellow": [240, 226, 176], "green": [200, 224, 192], "blue": [192, 208, 236],
        "purple": [218, 198, 230], "orange": [242, 208, 172]}


def cell_origin(i: int) -> tuple[float, float]:
    r, c = divmod(i, 3)
    return X0 + c * CELL_W, ROW_Y[r]


def district_box(x0: float, y0: float, k: int) -> tuple[float, float, float, float]:
    w = (CELL_W - 2 * 8 - 2 * 4) / 3
    dx = x0 + 8 + k * (w + 4)
    return dx, y0 + DISTRICT_TOP, dx + w, y0 + DISTRICT_TOP + DISTRICT_H


def layout(board: Mapping[str, Any]) -> dict[str, Any]:
    spaces: list[dict[str, Any]] = []
    regions: list[dict[str, Any]] = []
    for i, p in enumerate(board["provinces"]):
        pid = p["id"]
        x0, y0 = cell_origin(i)
        tint = TINT.get(p["colour"], [225, 225, 225])
        regions.append(region(f"province-{pid}", rect(x0 + 3, y0 + 3, x0 + CELL_W - 3, y0 + CELL_H - 3), tint=tint, label=pid))
        regions.append(region(f"city-{pid}", rect(x0 + 8, y0 + CITY_TOP - 4, x0 + CELL_W - 8, y0 + CITY_TOP + CITY_H + 2),
                              tint=[214, 200, 176]))
        for k, d in enumerate(p["districts"]):
            dx0, dy0, dx1, dy1 = district_box(x0, y0, k)
            # the open area leaves out the corner where the cloister is: spaces never overlap (the
            # camera gives every point of the board to one space)
            notch_x, notch_y = dx1 - 2 * CLOISTER_R - 8, dy0 + 2 * CLOISTER_R + 8
            spaces.append(polygon_space(d, "district", [[dx0, dy0], [notch_x, dy0], [notch_x, notch_y], [dx1, notch_y],
                                                        [dx1, dy1], [dx0, dy1]], region=pid))
            spaces.append(circle_space(f"{d}-cloister", "cloister", dx1 - CLOISTER_R - 5, dy0 + CLOISTER_R + 5, CLOISTER_R, region=pid))
            regions.append(region(f"prince-{d}", octagon(dx0 + 16, dy1 - 16, 11), tint=[246, 238, 214]))
            cy0, cy1 = y0 + CITY_TOP, y0 + CITY_TOP + CITY_H - 4
            spaces.append(polygon_space(f"{d}-city", "city", rect(dx0, cy0, dx1, cy1), region=pid))
            for h in range(3):
                hx = dx0 + (dx1 - dx0) * (h + 0.5) / 3
                regions.append(region(f"house-{d}-{h + 1}", rect(hx - HOUSE / 2, cy0 + 10, hx + HOUSE / 2, cy0 + 10 + HOUSE),
                                      tint=[244, 236, 220]))
        ey = EDGE_Y[i // 3]
        cx = x0 + CELL_W / 2
        spaces.append(polygon_space(f"province-space-{pid}", "province-space", rect(cx - 70, ey, cx + 40, ey + 62), region=pid))
        regions.append(region(f"display-{pid}", rect(cx + 48, ey - 2, cx + 92, ey + 64), tint=[210, 210, 210]))
    return layout_doc(
        layout_id=board["id"], game="ming", board=board["id"], source=f"scorer/games/ming/boards/{board['id']}.json",
        size=(WIDTH, HEIGHT), spaces=spaces, regions=regions, pieces=PIECES, holds=HOLDS, players=PLAYER_RGB,
        notes=["Geometry invented: no measured Ming Dynasty board is public. Capture the real board on the dashboard and replace this file.",
               "<district> is the open area (and where the prince stands: the prince-<district> region), <district>-cloister "
               "lies inside it, <district>-city holds its 3 city houses (house-<district>-1..3 regions) in the province's city; "
               "province-space-<province> at the board edge, with the display card (display-<province>) beside it.",
               MARKER_NOTE])
