"""Optional per-game hooks the dashboard draws and captures boards with (docs/boards.md).

A game offers them by registering a :class:`BoardKit` with
``scorer.core.registry.register_board_kit`` when its package is imported. The dashboard finds the
kit through ``registry.board_kit(game_id)`` and never imports a game module itself, so a new game
(a plugin too) needs no change in ``web/``.

A kit joins three things by space id: the game's **data file** (the topology the rules read:
``tableref boards validate`` checks it), a **layout** (where each space lies on the printed board,
in mm: ``vision/layouts``, checked by ``vision.layout``), and the spaces the engine's
``visible_board`` reports. Everything it returns is plain JSON:

* ``geometry(doc, layout)``: what the Board page draws (regions, border lines, spaces, how each
  piece kind looks, the legend);
* ``capture_spec(doc, layout)`` / ``capture_build(capture, template)``: what the capture page lets a person
  place on a photo of their own board, and the data file and layout built from what they placed;
* ``check(doc)``: every problem of a data file, from the game's own validator;
* ``move_spaces(move)``: the spaces a recorded move touched (the last move on the Board page).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from scorer.core.types import InvalidRecord, Message

# Drawing colours (sRGB hex) for owners the games share; a kit adds its own (Zhang Yi's states).
PLAYER_HEX = {"blue": "#2f64d6", "green": "#2f9e55", "violet": "#8e44b5", "red": "#d63a3a", "yellow": "#f2c230",
              "grey": "#8a8f98", "orange": "#e8892b", "purple": "#8e44b5", "neutral": "#26262b"}
MARKER_DICTIONARY = "DICT_APRILTAG_36h11"  # vision.markers.CORNER_DICTIONARY (not imported: no OpenCV here)
MARKER_MM = 50.0  # 34 mm markers were too small to decode on a board far from the camera (docs/vision.md)


def corner_markers(size_mm: Sequence[float], marker_mm: float = MARKER_MM) -> dict[str, Any]:
    """The four corner markers (TL, TR, BR, BL) with a quiet zone of an eighth of their side plus 4 mm."""
    w, h = float(size_mm[0]), float(size_mm[1])
    m = marker_mm / 2 + marker_mm / 8 + 4
    corners = [[m, m], [w - m, m], [w - m, h - m], [m, h - m]]
    return {"dictionary": MARKER_DICTIONARY, "size_mm": marker_mm,
            "corners": [{"id": i, "centre_mm": [round(x, 2), round(y, 2)]} for i, (x, y) in enumerate(corners)]}


def hex_rgb(colour: str) -> list[int]:
    v = colour.lstrip("#")
    return [int(v[0:2], 16), int(v[2:4], 16), int(v[4:6], 16)]


def tint(colour: str, amount: float) -> str:
    """``colour`` mixed with white: ``amount`` 0 is white, 1 the colour itself."""
    r, g, b = hex_rgb(colour)
    return "#%02x%02x%02x" % tuple(round(255 + (v - 255) * amount) for v in (r, g, b))


def rect(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [[round(x0, 2), round(y0, 2)], [round(x1, 2), round(y0, 2)], [round(x1, 2), round(y1, 2)], [round(x0, 2), round(y1, 2)]]


def circle_space(sid: str, kind: str, x: float, y: float, r: float, region: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sid, "kind": kind}
    if region:
        out["region"] = region
    out.update(shape="circle", centre_mm=[round(x, 2), round(y, 2)], radius_mm=round(r, 2))
    return out


def polygon_space(sid: str, kind: str, points: Sequence[Sequence[float]], region: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sid, "kind": kind}
    if region:
        out["region"] = region
    out.update(shape="polygon", points_mm=[[round(float(x), 2), round(float(y), 2)] for x, y in points])
    return out


def bbox(points: Sequence[Sequence[float]]) -> list[float]:
    """[x0, y0, x1, y1] of a polygon."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [min(xs), min(ys), max(xs), max(ys)]


def polygon_centroid(points: Sequence[Sequence[float]]) -> tuple[float, float]:
    """Area centroid (the vertex mean for a degenerate polygon)."""
    a = cx = cy = 0.0
    n = len(points)
    for i in range(n):
        x0, y0 = points[i]
        x1, y1 = points[(i + 1) % n]
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    if abs(a) < 1e-9:
        return sum(p[0] for p in points) / n, sum(p[1] for p in points) / n
    return cx / (3 * a), cy / (3 * a)


def drawing_spaces(layout: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Layout spaces as the Board page draws them: centre, radius (circumradius of a polygon), points."""
    out = []
    for s in layout.get("spaces", []):
        if s.get("shape") == "circle":
            x, y = s["centre_mm"]
            out.append({"id": s["id"], "kind": s.get("kind", ""), "x": x, "y": y, "r": s["radius_mm"]})
        elif s.get("shape") == "polygon":
            pts = s["points_mm"]
            x, y = polygon_centroid(pts)
            r = max(math.hypot(p[0] - x, p[1] - y) for p in pts)
            out.append({"id": s["id"], "kind": s.get("kind", ""), "x": round(x, 2), "y": round(y, 2), "r": round(r, 2),
                        "points": pts})
    return out


def layout_regions(layout: Mapping[str, Any], fills: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The layout's artwork regions as drawing regions (fill from ``tint_rgb`` or ``fills``)."""
    out = []
    for r in layout.get("regions", []):
        fill = (fills or {}).get(r["id"])
        if fill is None and "tint_rgb" in r:
            fill = "#%02x%02x%02x" % tuple(r["tint_rgb"])
        xs = [p[0] for p in r["polygon"]]
        ys = [p[1] for p in r["polygon"]]
        out.append({"id": r["id"], "polygon": r["polygon"], "fill": fill or "none", "label": None,
                    "label_at": [min(xs) + 6, min(ys) + 14]})
    return out


def layout_geometry(game: str, board: str | None, layout: Mapping[str, Any], *, provisional_board: bool,
                    need: Iterable[str]) -> dict[str, Any] | None:
    """The common part of a layout-drawn board: size, background, regions and spaces; None when
    the layout does not place every space in ``need``."""
    spaces = drawing_spaces(layout)
    if not set(need) <= {s["id"] for s in spaces}:
        return None
    bg = layout.get("background_rgb", [226, 214, 184])
    return {"game": game, "board": board, "source": "layout", "layout": layout.get("id"),
            "provisional_board": provisional_board, "provisional_layout": bool(layout.get("provisional", False)),
            "size": list(layout["size_mm"]), "background": "#%02x%02x%02x" % tuple(bg), "markers": layout.get("markers"),
            "regions": layout_regions(layout), "lines": [], "texts": [], "spaces": spaces,
            "pieces": {}, "owners": dict(PLAYER_HEX), "legend": [], "arrange": {}}


def capture_layout(capture: Mapping[str, Any], *, game: str, board: str | None, spaces: list[dict[str, Any]],
                   regions: Sequence[Mapping[str, Any]], pieces: Mapping[str, Any], players: Mapping[str, Any] | None,
                   holds: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A layout file from a capture (everything in the photo's board millimetres)."""
    out: dict[str, Any] = {
        "$schema": "../schemas/layout.schema.json",
        "id": str(capture.get("id", "")),
        "game": game,
        "provisional": False,
        "generated_by": "tableref dashboard board capture",
        "size_mm": [float(v) for v in capture["size_mm"]],
        "markers": capture["markers"],
        "regions": [dict(r) for r in regions],
        "spaces": spaces,
        "pieces": dict(pieces),
    }
    if board:
        out["board"] = board
    if holds:
        out["holds"] = dict(holds)
    if players:
        out["players"] = dict(players)
    return out


def inherit_from_template(layout: dict[str, Any] | None, template: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A captured layout completed from the layout its capture started from. A capture places spaces; what it
    does not decide -- each piece kind's size, height, ``per_owner`` and printed face, kinds only the camera
    uses (a die), which kinds each space kind holds, the players' colours -- comes from the template, so the
    camera reads a captured board as it read the shipped one. What the capture decides (a treasure's colour)
    wins."""
    if layout is None or not template:
        return layout
    out = dict(layout)
    pieces = {k: dict(v) for k, v in (template.get("pieces") or {}).items()}
    for kind, spec in (layout.get("pieces") or {}).items():
        pieces[kind] = {**pieces.get(kind, {}), **spec}
    out["pieces"] = pieces
    holds = {**(template.get("holds") or {}), **(layout.get("holds") or {})}
    if holds:
        out["holds"] = holds
    if not out.get("players") and template.get("players"):
        out["players"] = dict(template["players"])
    return out


def captured_space(item: Mapping[str, Any], sid: str, kind: str, region: str | None = None) -> dict[str, Any]:
    """One placed item of a capture as a layout space (circle, rectangle or drawn polygon)."""
    shape = item.get("shape")
    if shape == "circle":
        return circle_space(sid, kind, float(item["x"]), float(item["y"]), max(1.0, float(item["r"])), region)
    if shape == "rect":
        x, y, w, h = (float(item[k]) for k in ("x", "y", "w", "h"))
        return polygon_space(sid, kind, rect(x - w / 2, y - h / 2, x + w / 2, y + h / 2), region)
    return polygon_space(sid, kind, item["points"], region)


def item_from_space(space: Mapping[str, Any], key: str, *, sid: str, kind: str, group: str | None = None,
                    values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A capture item placed where a layout space is (its template position): a circle, an
    axis-aligned rectangle, or a polygon."""
    out: dict[str, Any] = {"key": key, "id": sid, "kind": kind, "group": group, "values": dict(values or {})}
    if space.get("shape") == "circle":
        out.update(shape="circle", x=space["centre_mm"][0], y=space["centre_mm"][1], r=space["radius_mm"])
        return out
    pts = space["points_mm"]
    xs, ys = sorted({p[0] for p in pts}), sorted({p[1] for p in pts})
    if len(pts) == 4 and len(xs) == 2 and len(ys) == 2:
        out.update(shape="rect", x=(xs[0] + xs[1]) / 2, y=(ys[0] + ys[1]) / 2, w=xs[1] - xs[0], h=ys[1] - ys[0])
    else:
        out.update(shape="polygon", points=[list(p) for p in pts])
    return out


def _number(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InvalidRecord("not a number", where=where)
    return float(v)


def placed_items(capture: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The capture's items after checking their shape (a malformed capture is ``InvalidRecord``);
    an item not placed on the photo yet has ``placed: False`` and gives no layout space."""
    items = capture.get("items")
    if not isinstance(items, list):
        raise InvalidRecord("a capture needs a list of items", where="capture.items")
    w, h = (_number(v, "capture.size_mm") for v in capture.get("size_mm", (None, None)))
    out = []
    for i, it in enumerate(items):
        where = f"capture.items[{i}]"
        if not isinstance(it, Mapping) or not isinstance(it.get("key"), str):
            raise InvalidRecord("an item needs a key", where=where)
        values = it.get("values") or {}
        if not isinstance(values, Mapping):
            raise InvalidRecord("values must be an object", where=f"{where}.values")
        if it.get("placed") is False:  # named but not placed on the photo yet: no geometry to check
            out.append(dict(it, values=dict(values)))
            continue
        shape = it.get("shape")
        if shape == "circle":
            for k in ("x", "y", "r"):
                _number(it.get(k), f"{where}.{k}")
        elif shape == "rect":
            for k in ("x", "y", "w", "h"):
                _number(it.get(k), f"{where}.{k}")
        elif shape == "polygon":
            pts = it.get("points")
            if not isinstance(pts, list) or len(pts) < 3 or not all(isinstance(p, list) and len(p) == 2 for p in pts):
                raise InvalidRecord("a polygon needs 3 or more [x, y] points", where=f"{where}.points")
            for p in pts:
                _number(p[0], f"{where}.points"), _number(p[1], f"{where}.points")
        else:
            raise InvalidRecord(f"unknown shape {shape!r}", where=f"{where}.shape")
        out.append(dict(it, values=dict(values), placed=True))
    if w <= 0 or h <= 0:
        raise InvalidRecord("the photo needs a size", where="capture.size_mm")
    return out


def resolve_id(template: str, values: Mapping[str, Any], group: Mapping[str, Any] | None = None) -> str:
    """An item's space id from its template (``dot-{id}``): the item's values, then its group's."""
    merged = {**{k: v for k, v in (group or {}).items()}, **{k: v for k, v in values.items()}}
    try:
        return template.format(**{k: str(v).strip() for k, v in merged.items()})
    except (KeyError, IndexError, ValueError):
        raise InvalidRecord(f"cannot name the space {template!r}: a field is missing", where="capture.items") from None


def message_json(value: Any) -> dict[str, str] | None:
    """A ``{"en", "zh"}`` name typed on the capture page, or None when either is empty."""
    if not isinstance(value, Mapping):
        return None
    en, zh = str(value.get("en", "")).strip(), str(value.get("zh", "")).strip()
    return {"en": en, "zh": zh} if en and zh else None


def add_placed(spaces: list[dict[str, Any]], item: Mapping[str, Any], sid: str, kind: str,
               region: str | None = None) -> dict[str, Any] | None:
    """Append the item's layout space when it was placed on the photo; that space, else None."""
    if item.get("placed", True) is False:
        return None
    space = captured_space(item, sid, kind, region)
    spaces.append(space)
    return space


class BoardKit(ABC):
    """One game's boards for the dashboard (see the module docstring)."""

    game: ClassVar[str]
    data_format: ClassVar[str | None]  # the data file's ``format`` before the slash; None: the game has none
    setup_key: ClassVar[str | None] = "board"  # the setup option that names the data file; None: no choice

    # -- the game's data files ------------------------------------------------------------------
    @abstractmethod
    def shipped(self) -> tuple[str, ...]:
        """Ids of the data files shipped with the game (the first is the default)."""

    @abstractmethod
    def shipped_doc(self, board_id: str) -> dict[str, Any]:
        """A shipped data file's JSON."""

    def layout_id(self, board_id: str) -> str:
        """The file name (without .json) of a board's layout in ``vision/layouts`` or ``<data>/layouts``."""
        return board_id

    def default_board(self) -> str:
        return self.shipped()[0]

    @abstractmethod
    def check(self, doc: Any) -> list[Message]:
        """Every problem of a data file (schema and rules); an empty list means the game can use it."""

    @abstractmethod
    def describe(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """``name`` (Message JSON or None), ``provisional``, ``players`` (player counts it is for), ``side``."""

    @abstractmethod
    def spaces(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        """Every space id the engine's ``visible_board`` (the sensors, the camera) can report."""

    # -- the Board page ---------------------------------------------------------------------------
    @abstractmethod
    def geometry(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The drawing (docs/boards.md, "Drawing"): size, regions, lines, spaces, piece styles,
        legend; None when it cannot be drawn (no layout that places every space)."""

    def move_spaces(self, move: Mapping[str, Any]) -> list[str]:
        """Spaces a recorded move touched; by default the ``space`` of each of its ``pieces``."""
        return piece_spaces(move)

    # -- board capture ------------------------------------------------------------------------------
    def capture_spec(self, doc: Mapping[str, Any], layout: Mapping[str, Any] | None) -> dict[str, Any]:
        """What the capture page places (docs/boards.md, "Capture"); empty for a game without one."""
        return {}

    def capture_build(self, capture: Mapping[str, Any], template: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """(data file or None, layout) from what was placed on the photo; ``template`` is the data
        file the capture started from (what a photo cannot show is kept from it). ``InvalidRecord``
        for a malformed capture; the files it returns are checked by the caller."""
        raise InvalidRecord(f"{self.game} has no board capture", where="capture")


def check_with(loader: Any, doc: Any, problems: Any = None) -> list[Message]:
    """Problems of ``doc`` as messages: every one ``problems(doc)`` lists, else the loader's first."""
    try:
        loader(doc, "board")
    except InvalidRecord as exc:
        details: list[str] = []
        if problems is not None:
            try:
                details = list(problems(doc))
            except (KeyError, TypeError, ValueError, AttributeError):
                details = []
        return [Message.t("boards.problem", text=d) for d in (details or [str(exc)])]
    return []


def piece_spaces(move: Mapping[str, Any]) -> list[str]:
    """The ``space`` of each of a move's ``pieces`` (China's moves, and any game without a kit)."""
    return [str(p["space"]) for p in move.get("pieces", []) if isinstance(p, Mapping) and "space" in p]


def moved_spaces(kit: BoardKit | None, moves: Iterable[Any]) -> list[str]:
    """The spaces of several recorded moves, in order: by the game's kit, else ``piece_spaces``."""
    out: list[str] = []
    for m in moves:
        if isinstance(m, Mapping):
            out += kit.move_spaces(m) if kit is not None else piece_spaces(m)
    return out
