"""China's boards for the dashboard (scorer/core/boardkit.py): the drawing from a layout, or a
schematic computed from the topology when no layout places every space, and the checks of a
captured board. China's capture page builds the board file itself (web/static/js/capture.js)."""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any, Mapping, Sequence

from scorer.core.boardkit import BoardKit, check_with
from scorer.core.types import Message
from scorer.games.china.board import SHIPPED_BOARDS, board_from_json, semantic_problems

PROVINCE_HEX = {"violet": "#d9c6e6", "yellow": "#efe2ad", "orange": "#f1cda6", "green": "#c8e2c2", "red": "#efc1b8"}

# Piece shapes for a captured layout (what the camera sees from above), as in the shipped layouts.
CHINA_PIECES = {
    "house": {"footprint": "rect", "size_mm": [16, 20], "height_mm": 16, "owners": "players"},
    "emissary": {"footprint": "circle", "size_mm": [15], "height_mm": 6, "owners": "players"},
    "fortress": {"footprint": "rect", "size_mm": [24, 24], "height_mm": 5, "owners": "neutral", "rgb": [32, 32, 36]},
}
CHINA_PLAYERS_RGB = {"blue": [35, 85, 200], "green": [40, 150, 70], "violet": [125, 55, 160], "red": [205, 40, 40],
                     "yellow": [245, 205, 40]}

# Schematic geometry, in board mm.
CELL_W, CELL_H, MARGIN = 200.0, 160.0, 20.0
SITE_R, DRAGON_R = 13.0, 24.0


class ChinaBoardKit(BoardKit):
    game = "china"
    data_format = "tableref-china-board"
    setup_key = "board"

    def shipped(self) -> tuple[str, ...]:
        return SHIPPED_BOARDS

    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        return json.loads(resources.files("scorer.games.china").joinpath("boards", f"{board_id}.json").read_text("utf-8"))

    def check(self, doc: Any) -> list[Message]:
        return check_with(board_from_json, doc, semantic_problems)

    def describe(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": doc.get("name"), "provisional": bool(doc["provisional"]), "players": list(doc["players"]), "side": doc["side"]}

    def spaces(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(s for p in doc.get("provinces", []) if isinstance(p, Mapping)
                     for s in list(p.get("sites", [])) + [p.get("dragon")] if s)

    def geometry(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        """The layout's drawing when it places every space, else the schematic."""
        return (geometry_from_layout(doc, layout) if layout is not None else None) or schematic_geometry(doc)

    def capture_spec(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"game": self.game, "page": "china", "pieces": CHINA_PIECES, "players": CHINA_PLAYERS_RGB}


KIT = ChinaBoardKit()


# -- geometry ----------------------------------------------------------------------------------

def _province_meta(topo: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"id": p["id"], "colour": p["colour"], "label": Message(p["pinyin"], p["name_zh"]).to_json(),
             "sites": list(p["sites"]), "dragon": p["dragon"]} for p in topo["provinces"]]


def _alliances(topo: Mapping[str, Any], centres: Mapping[str, tuple[float, float]],
               spaces: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """Alliance markers half-way between the two provinces' centres (on their common border for
    neighbouring provinces), moved to the nearest free spot when a space or another marker is there."""
    marker_r = 9.0
    out: list[dict[str, Any]] = []

    def free(x: float, y: float) -> bool:
        return (all(math.hypot(x - o["x"], y - o["y"]) >= 2 * marker_r + 2 for o in out)
                and all(math.hypot(x - s["x"], y - s["y"]) >= s["r"] + marker_r + 1 for s in spaces))

    for a in sorted(topo["alliances"], key=lambda a: a["number"]):
        x, y = a["provinces"]
        if x not in centres or y not in centres:
            continue
        (ax, ay), (bx, by) = centres[x], centres[y]
        mx, my = (ax + bx) / 2, (ay + by) / 2
        spot = (mx, my)
        if not free(mx, my):
            candidates = [(mx + r * math.cos(t * math.pi / 8), my + r * math.sin(t * math.pi / 8))
                          for r in (8, 16, 24, 32, 40, 50, 60) for t in range(16)]
            spot = next((c for c in candidates if free(*c)), spot)
        out.append({"number": a["number"], "provinces": [x, y], "x": round(spot[0], 1), "y": round(spot[1], 1)})
    return out


def _grid_order(ids: list[str], pairs: list[tuple[str, str]], cols: int) -> list[str]:
    """Put provinces on the grid so allied (neighbouring) provinces sit close: a deterministic
    pairwise-swap descent on the total grid distance between allied provinces."""
    order = list(ids)

    def cost(o: list[str]) -> float:
        pos = {pid: divmod(i, cols) for i, pid in enumerate(o)}
        return sum(math.hypot(pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]) for a, b in pairs if a in pos and b in pos)

    best = cost(order)
    improved = True
    while improved:
        improved = False
        for i in range(len(order)):
            for j in range(i + 1, len(order)):
                order[i], order[j] = order[j], order[i]
                c = cost(order)
                if c < best - 1e-9:
                    best, improved = c, True
                else:
                    order[i], order[j] = order[j], order[i]
    return order


def schematic_geometry(topo: Mapping[str, Any]) -> dict[str, Any]:
    """A drawing computed from the topology alone: one grid cell per province."""
    provinces = _province_meta(topo)
    cols = 3 if len(provinces) > 4 else max(1, len(provinces))
    pairs = [tuple(a["provinces"]) for a in topo["alliances"]]
    order = _grid_order([p["id"] for p in provinces], pairs, cols)  # type: ignore[arg-type]
    by_id = {p["id"]: p for p in provinces}
    rows = math.ceil(len(order) / cols)
    regions, spaces, centres = [], [], {}
    for i, pid in enumerate(order):
        p = by_id[pid]
        r, c = divmod(i, cols)
        x0, y0 = MARGIN + c * CELL_W, MARGIN + r * CELL_H
        cx, cy = x0 + CELL_W / 2, y0 + CELL_H / 2
        centres[pid] = (cx, cy)
        regions.append({"id": pid, "colour": p["colour"], "fill": PROVINCE_HEX.get(p["colour"], "#ddd"), "label": p["label"],
                        "polygon": [[x0 + 4, y0 + 4], [x0 + CELL_W - 4, y0 + 4], [x0 + CELL_W - 4, y0 + CELL_H - 4], [x0 + 4, y0 + CELL_H - 4]],
                        "label_at": [x0 + 12, y0 + 24]})
        spaces.append({"id": p["dragon"], "kind": "dragon", "region": pid, "x": cx, "y": cy + 6, "r": DRAGON_R})
        n = len(p["sites"])
        rx, ry = CELL_W / 2 - SITE_R - 14, CELL_H / 2 - SITE_R - 10
        for k, sid in enumerate(p["sites"]):
            a = math.pi + 2 * math.pi * k / max(n, 1)
            spaces.append({"id": sid, "kind": "site", "region": pid, "x": round(cx + rx * math.cos(a), 1),
                           "y": round(cy + 6 + ry * math.sin(a), 1), "r": SITE_R})
    return {
        "game": "china",
        "board": topo["id"],
        "source": "schematic",
        "provisional_board": bool(topo.get("provisional")),
        "provisional_layout": True,
        "size": [2 * MARGIN + cols * CELL_W, 2 * MARGIN + rows * CELL_H],
        "regions": regions,
        "spaces": spaces,
        "roads": [list(r) for r in topo["roads"]],
        "alliances": _alliances(topo, centres, spaces),
    }


def geometry_from_layout(topo: Mapping[str, Any], layout: Mapping[str, Any]) -> dict[str, Any] | None:
    """The drawing from a layout; None when the layout does not place every space of the board."""
    provinces = _province_meta(topo)
    need = {s for p in provinces for s in p["sites"] + [p["dragon"]]}
    spaces = []
    for s in layout.get("spaces", []):
        if s.get("shape") == "circle":
            x, y = s["centre_mm"]
            spaces.append({"id": s["id"], "kind": s.get("kind", ""), "region": s.get("region"), "x": x, "y": y, "r": s["radius_mm"]})
        elif s.get("shape") == "polygon":
            pts = s["points_mm"]
            x = sum(p[0] for p in pts) / len(pts)
            y = sum(p[1] for p in pts) / len(pts)
            r = max(math.hypot(p[0] - x, p[1] - y) for p in pts)
            spaces.append({"id": s["id"], "kind": s.get("kind", ""), "region": s.get("region"), "x": x, "y": y, "r": r,
                           "points": pts})
    placed = {s["id"] for s in spaces}
    if not need <= placed:
        return None
    province_of = {sid: p["id"] for p in provinces for sid in p["sites"] + [p["dragon"]]}
    for s in spaces:
        s["region"] = province_of.get(s["id"], s.get("region"))
        if not s["kind"]:
            s["kind"] = "dragon" if s["id"].endswith("-dragon") else "site"
    layout_regions = {r["id"]: r for r in layout.get("regions", [])}
    regions, centres = [], {}
    for p in provinces:
        mine = [s for s in spaces if s["region"] == p["id"]]
        lr = layout_regions.get(p["id"])
        if lr is not None:
            poly = lr["polygon"]
        else:
            xs = [s["x"] - s["r"] for s in mine] + [s["x"] + s["r"] for s in mine]
            ys = [s["y"] - s["r"] for s in mine] + [s["y"] + s["r"] for s in mine]
            x0, x1, y0, y1 = min(xs) - 10, max(xs) + 10, min(ys) - 22, max(ys) + 10
            poly = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
        cx = sum(q[0] for q in poly) / len(poly)
        cy = sum(q[1] for q in poly) / len(poly)
        centres[p["id"]] = (cx, cy)
        regions.append({"id": p["id"], "colour": p["colour"], "fill": PROVINCE_HEX.get(p["colour"], "#ddd"), "label": p["label"],
                        "polygon": poly, "label_at": [min(q[0] for q in poly) + 8, min(q[1] for q in poly) + 18]})
    return {
        "game": "china",
        "board": topo["id"],
        "source": "layout",
        "layout": layout.get("id"),
        "provisional_board": bool(topo.get("provisional")),
        "provisional_layout": bool(layout.get("provisional", False)),
        "size": list(layout["size_mm"]),
        "regions": regions,
        "spaces": [s for s in spaces if s["id"] in need],
        "roads": [list(r) for r in topo["roads"]],
        "alliances": _alliances(topo, centres, [s for s in spaces if s["id"] in need]),
    }
