"""Boards for the dashboard: which boards exist, where their spaces are drawn, and saving the
boards users capture.

* Topology (provinces, sites, roads, alliances) comes from the rules' board files: the shipped
  ones (``scorer/games/china/boards``) and the ones captured on this table
  (``<data>/boards/<id>.json``).
* Geometry comes from a vision layout (``<data>/layouts/<id>.json`` for captured boards, then
  ``vision/layouts/<id>.json``) when one covers every space; otherwise a *schematic* layout is
  computed from the topology (provinces on a grid, allied provinces kept close) and labelled as
  schematic on the page.

Only this module writes board files, and only below ``<data>``: ids are checked against a strict
pattern and every path is resolved and compared with its folder before use.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from scorer.core import safejson
from scorer.core.types import InvalidRecord, Message
from scorer.games.china.board import SHIPPED_BOARDS, board_from_json, semantic_problems
from web.errors import BadInput, Conflict, NotFound
from web.security import write_private

BOARD_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")

# Nominal colours for drawing (sRGB hex); the same names as the rules use.
PLAYER_HEX = {"blue": "#2f64d6", "green": "#2f9e55", "violet": "#8e44b5", "red": "#d63a3a", "yellow": "#f2c230",
              "neutral": "#26262b"}
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


def check_board_id(board_id: object, field: str = "id") -> str:
    if not isinstance(board_id, str) or not BOARD_ID.match(board_id):
        raise BadInput(Message("A board id is 1-48 lower-case letters, digits, '-' or '_', starting with a letter or digit.",
                               "版图编号为 1-48 个小写字母、数字、“-”或“_”，以字母或数字开头。"), field=field)
    return board_id


def _inside(folder: Path, name: str) -> Path:
    """``folder/name`` after checking that it cannot leave ``folder`` (ids are checked first too)."""
    base = folder.resolve()
    path = (base / name).resolve()
    if path.parent != base:
        raise BadInput(Message("That name is not allowed.", "不允许使用这个名称。"), field="id")
    return path


def _optional_vision() -> Any:
    """The vision layout module if it is installed and importable (the dashboard works without it)."""
    try:
        from vision import layout as vlayout
    except ImportError:
        return None
    return vlayout


@dataclass(frozen=True)
class BoardInfo:
    id: str
    name: Mapping[str, str] | None
    provisional: bool
    players: tuple[int, ...]
    source: str  # "shipped" or "captured"
    side: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": dict(self.name) if self.name else None, "provisional": self.provisional,
                "players": list(self.players), "source": self.source, "side": self.side}


class BoardLibrary:
    """Shipped and captured China boards, their geometry, and saving captured boards."""

    def __init__(self, data_dir: Path):
        self.boards_dir = data_dir / "boards"
        self.layouts_dir = data_dir / "layouts"
        self._lock = threading.Lock()
        self._geometry: dict[str, dict[str, Any]] = {}

    # -- reading ---------------------------------------------------------------------------
    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        text = resources.files("scorer.games.china").joinpath("boards", f"{board_id}.json").read_text("utf-8")
        return json.loads(text)

    def captured_ids(self) -> list[str]:
        if not self.boards_dir.is_dir():
            return []
        return sorted(p.stem for p in self.boards_dir.glob("*.json") if BOARD_ID.match(p.stem))

    def topology(self, board_id: str) -> dict[str, Any]:
        """The board file as JSON (validated); NotFound for an unknown id."""
        check_board_id(board_id)
        if board_id in SHIPPED_BOARDS:
            return self.shipped_doc(board_id)
        path = _inside(self.boards_dir, f"{board_id}.json")
        if not path.is_file():
            raise NotFound(Message(f"No board {board_id!r}.", f"没有版图“{board_id}”。"), field="board")
        doc = safejson.load_file(str(path), f"board {board_id}")
        board_from_json(doc, where=f"board {board_id}")
        return doc

    def setup_ref(self, board_id: str) -> str:
        """What to put in a game's ``setup.board``: a shipped id, or the captured file's path."""
        self.topology(board_id)
        if board_id in SHIPPED_BOARDS:
            return board_id
        return str(_inside(self.boards_dir, f"{board_id}.json"))

    def list(self) -> list[BoardInfo]:
        out = []
        for bid in SHIPPED_BOARDS:
            d = self.shipped_doc(bid)
            out.append(BoardInfo(bid, d.get("name"), bool(d["provisional"]), tuple(d["players"]), "shipped", d["side"]))
        for bid in self.captured_ids():
            if bid in SHIPPED_BOARDS:
                continue
            try:
                d = self.topology(bid)
            except (InvalidRecord, ValueError):
                continue  # a hand-edited file that no longer validates is not offered
            out.append(BoardInfo(bid, d.get("name"), bool(d["provisional"]), tuple(d["players"]), "captured", d["side"]))
        return out

    def layout_doc(self, board_id: str) -> dict[str, Any] | None:
        """The measured/captured layout JSON for a board, if one exists."""
        check_board_id(board_id)
        candidates = [_inside(self.layouts_dir, f"{board_id}.json")]
        vlayout = _optional_vision()
        if vlayout is not None:
            candidates.append(vlayout.LAYOUT_DIR / f"{board_id}.json")
        for path in candidates:
            if path.is_file():
                return safejson.load_file(str(path), f"layout {board_id}")
        return None

    def geometry(self, board_id: str) -> dict[str, Any]:
        with self._lock:
            cached = self._geometry.get(board_id)
        if cached is not None:
            return cached
        topo = self.topology(board_id)
        layout = self.layout_doc(board_id)
        geo = geometry_from_layout(topo, layout) if layout is not None else None
        if geo is None:
            geo = schematic_geometry(topo)
        with self._lock:
            self._geometry[board_id] = geo
        return geo

    # -- saving a captured board --------------------------------------------------------------
    def check_capture(self, board: Any, layout: Any) -> list[Message]:
        """Every problem with a captured board (and its layout), as bilingual messages."""
        if not isinstance(board, dict):
            return [Message("The board must be a JSON object.", "版图必须是一个 JSON 对象。")]
        problems: list[Message] = []
        bid = board.get("id")
        if not isinstance(bid, str) or not BOARD_ID.match(bid):
            problems.append(Message("Give the board an id: lower-case letters, digits, '-' or '_'.",
                                    "请给版图一个编号：小写字母、数字、“-”或“_”。"))
        elif bid in SHIPPED_BOARDS:
            problems.append(Message(f"{bid!r} is a shipped board; choose another id.", f"“{bid}”是自带的版图，请换一个编号。"))
        try:
            board_from_json(board, where="board")
        except InvalidRecord as exc:
            try:
                details = semantic_problems(board)
            except (KeyError, TypeError, ValueError, AttributeError):
                details = []
            for d in details or [str(exc)]:
                problems.append(Message(f"Board: {d}", f"版图：{d}"))
        if layout is not None:
            problems += self._layout_problems(board, layout)
        return problems

    def _layout_problems(self, board: dict[str, Any], layout: Any) -> list[Message]:
        if not isinstance(layout, dict):
            return [Message("The layout must be a JSON object.", "布局必须是一个 JSON 对象。")]
        out: list[Message] = []
        vlayout = _optional_vision()
        if vlayout is not None:
            try:
                vlayout.layout_from_json(layout, where="layout")
            except InvalidRecord as exc:
                out.append(Message(f"Layout: {exc}", f"布局：{exc}"))
        have = {s.get("id") for s in layout.get("spaces", []) if isinstance(s, dict)}
        need = [s for p in board.get("provinces", []) if isinstance(p, dict)
                for s in list(p.get("sites", [])) + [p.get("dragon")] if s]
        missing = [s for s in need if s not in have]
        if missing:
            out.append(Message(f"These spaces have no place on the photo: {', '.join(missing)}.",
                               f"这些格子还没有在照片上标出位置：{'、'.join(missing)}。"))
        return out

    def save_capture(self, board: Any, layout: Any, *, overwrite: bool = False) -> dict[str, str]:
        problems = self.check_capture(board, layout)
        if problems:
            err = BadInput(problems[0], field="board")
            err.problems = problems  # type: ignore[attr-defined]
            raise err
        bid = board["id"]
        bpath = _inside(self.boards_dir, f"{bid}.json")
        if bpath.exists() and not overwrite:
            raise Conflict(Message(f"A board {bid!r} exists already. Tick 'replace' to overwrite it.",
                                   f"版图“{bid}”已经存在。勾选“替换”可覆盖。"), field="id")
        written = {"board": str(bpath)}
        write_private(bpath, (json.dumps(board, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
        if layout is not None:
            lpath = _inside(self.layouts_dir, f"{bid}.json")
            write_private(lpath, (json.dumps(layout, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
            written["layout"] = str(lpath)
        with self._lock:
            self._geometry.pop(bid, None)
        return written


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


def default_markers(size_mm: tuple[float, float], marker_mm: float = 34.0) -> dict[str, Any]:
    """Corner markers where the shipped layouts put them (used when the snapshot names none)."""
    w, h = size_mm
    m = marker_mm / 2 + marker_mm / 8 + 4
    corners = [[m, m], [w - m, m], [w - m, h - m], [m, h - m]]
    try:
        from vision.markers import CORNER_DICTIONARY as dictionary
    except ImportError:
        dictionary = "DICT_APRILTAG_36h11"
    return {"dictionary": dictionary, "size_mm": marker_mm,
            "corners": [{"id": i, "centre_mm": [round(x, 2), round(y, 2)]} for i, (x, y) in enumerate(corners)]}
