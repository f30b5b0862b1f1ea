"""Board layouts: where each space lies on the printed board, in board millimetres.

A layout is separate from the rules topology (``scorer/games/*/boards``) and joined to it by
space id: the rules know which spaces exist and how they connect; the layout knows where they
are, where the four registration markers are stuck, and what the pieces look like from above.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.schema import read_json, validate
from vision.errors import LayoutError

LAYOUT_DIR = Path(__file__).resolve().parent / "layouts"
HEAP_SQUARES = 4.0  # a space holds a heap of a kind when its area is this many squares of the piece's widest extent


@lru_cache(maxsize=None)
def layout_schema() -> dict[str, Any]:
    text = resources.files("vision.schemas").joinpath("layout.schema.json").read_text("utf-8")
    return json.loads(text)


@dataclass(frozen=True, slots=True)
class SpaceShape:
    """One space: a circle or a polygon in board mm."""

    id: str
    kind: str
    polygon: tuple[tuple[float, float], ...]  # circles are kept as their polygon too, for masks
    centre: tuple[float, float]
    radius: float | None = None  # set for circles
    region: str | None = None
    holds: tuple[str, ...] | None = None  # the only piece kinds this space holds (layout space "holds"), instead of its kind's

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        if self.radius is not None:
            return math.hypot(x - self.centre[0], y - self.centre[1]) <= self.radius + margin
        d = cv2.pointPolygonTest(np.asarray(self.polygon, np.float32), (float(x), float(y)), True)
        return d >= -margin

    def distance(self, x: float, y: float) -> float:
        """Distance from the space's edge (0 inside)."""
        if self.radius is not None:
            return max(0.0, math.hypot(x - self.centre[0], y - self.centre[1]) - self.radius)
        d = cv2.pointPolygonTest(np.asarray(self.polygon, np.float32), (float(x), float(y)), True)
        return max(0.0, -d)

    @property
    def area(self) -> float:
        if self.radius is not None:
            return math.pi * self.radius**2
        return float(abs(cv2.contourArea(np.asarray(self.polygon, np.float32))))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id}
        if self.kind:
            out["kind"] = self.kind
        if self.region:
            out["region"] = self.region
        if self.holds is not None:
            out["holds"] = list(self.holds)
        if self.radius is not None:
            out.update(shape="circle", centre_mm=list(self.centre), radius_mm=self.radius)
        else:
            out.update(shape="polygon", points_mm=[list(p) for p in self.polygon])
        return out


@dataclass(frozen=True, slots=True)
class PieceSpec:
    """A piece kind as seen from above: footprint (``rect`` [w, l] or ``circle`` [d]) and height;
    ``per_owner``: how many of it one owner has on the board at most (the reader's limit);
    ``per_space``: how many of it one owner has on one space at most (what the learned classifier
    counts up to, ``vision.space_classifier.heads_for``; None: its default)."""

    kind: str
    footprint: str
    size: tuple[float, ...]
    height: float
    neutral: bool
    rgb: tuple[int, int, int] | None = None
    per_owner: int | None = None  # at most this many per owner on the board (a Ming prince: 1)
    face: tuple[tuple[str, str], ...] | None = None  # a printed top face (layout "face", as items); vision/faces.py
    owned_by: tuple[str, ...] | None = None  # the only owners of a player kind (a Zhang Yi talent's state); None: all
    counts_as: tuple[str, int] | None = None  # (kind, n): stands for n of that kind (a Zhang Yi army counter's value)
    per_space: int | None = None  # at most this many per owner on one space (a Ming province space's family members)

    @property
    def printed(self) -> bool:
        """Whether pieces of this kind are told apart by the artwork printed on their top face."""
        return self.face is not None

    @property
    def face_label(self) -> str | None:
        """The text printed large on the face (a letter, a digit), if any."""
        return dict(self.face or ()).get("label")

    @property
    def with_motif(self) -> bool:
        """Whether the face's artwork has a motif besides its label (layout ``face.motif``)."""
        return dict(self.face or ()).get("motif", True) is not False

    @property
    def on_owner_colour(self) -> bool:
        """Whether the face is printed on the owner's colour (layout ``face.ground`` "owner"): the
        piece looks like its owner's plain pieces to colour counting (``vision.piece_looks``)."""
        return dict(self.face or ()).get("ground") == "owner"

    def owners_in(self, players: Sequence[str]) -> tuple[str, ...]:
        """Who may own a piece of this kind: "neutral", or the players (``owned_by`` of them)."""
        if self.neutral:
            return ("neutral",)
        return tuple(p for p in players if self.owned_by is None or p in self.owned_by)

    @property
    def area(self) -> float:
        if self.footprint == "circle":
            return math.pi * (self.size[0] / 2) ** 2
        return self.size[0] * self.size[-1]

    @property
    def min_width(self) -> float:
        return float(min(self.size))

    @property
    def max_width(self) -> float:
        return float(max(self.size)) if self.footprint == "circle" else math.hypot(self.size[0], self.size[-1])

    def outline(self, cx: float, cy: float, angle_deg: float = 0.0, n: int = 24) -> np.ndarray:
        """Footprint polygon in board mm, centred at (cx, cy)."""
        if self.footprint == "circle":
            r = self.size[0] / 2
            t = np.linspace(0, 2 * np.pi, n, endpoint=False)
            return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)
        w, l = self.size[0], self.size[-1]
        pts = np.array([[-w / 2, -l / 2], [w / 2, -l / 2], [w / 2, l / 2], [-w / 2, l / 2]], float)
        a = math.radians(angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return pts @ rot.T + [cx, cy]


@dataclass(frozen=True, slots=True)
class MarkerSpec:
    id: int
    centre: tuple[float, float]


@dataclass(frozen=True, eq=False)
class Layout:
    id: str
    size: tuple[float, float]
    dictionary: str
    marker_size: float
    markers: tuple[MarkerSpec, ...]  # TL, TR, BR, BL
    spaces: tuple[SpaceShape, ...]
    pieces: Mapping[str, PieceSpec]
    players: Mapping[str, tuple[int, int, int]]
    board: str | None = None
    game: str | None = None  # the game (registry id) the layout is for, when it says
    provisional: bool = False
    background_rgb: tuple[int, int, int] = (226, 214, 184)
    regions: tuple[Mapping[str, Any], ...] = ()
    roads: tuple[tuple[str, str], ...] = ()
    holds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # space kind -> usual piece kinds
    source: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def space(self, sid: str) -> SpaceShape:
        for s in self.spaces:
            if s.id == sid:
                return s
        raise KeyError(sid)

    @property
    def space_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.spaces)

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        """Each corner marker's four corners (ArUco order: TL, TR, BR, BL of the marker) in mm."""
        h = self.marker_size / 2
        out = {}
        for m in self.markers:
            cx, cy = m.centre
            out[m.id] = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32)
        return out

    def neutral_kinds(self) -> tuple[str, ...]:
        return tuple(k for k, p in self.pieces.items() if p.neutral)

    def player_kinds(self) -> tuple[str, ...]:
        return tuple(k for k, p in self.pieces.items() if not p.neutral)

    def to_json(self) -> dict[str, Any]:
        return dict(self.source)

    def held_kinds(self, space: SpaceShape) -> tuple[str, ...]:
        """The piece kinds the space normally holds: its own ``holds`` (a Cheops dot: its colour's
        scarab), else its kind's (``holds``); all kinds when neither says."""
        return space.holds if space.holds is not None else self.kind_holds(space)

    def kind_holds(self, space: SpaceShape) -> tuple[str, ...]:
        """The piece kinds the space's kind holds, whatever the space's own ``holds`` says (all kinds
        when the layout does not say): where a piece may be put to learn its look."""
        return tuple(self.holds.get(space.kind, tuple(self.pieces)))

    def usual_kinds(self, space: SpaceShape) -> tuple[str, ...] | None:
        """``held_kinds`` when the layout says what the space holds, else None."""
        return self.held_kinds(space) if space.holds is not None or space.kind in self.holds else None

    def heap_kinds(self, space: SpaceShape) -> tuple[str, ...]:
        """The player piece kinds of which the space holds a heap, several side by side (China's
        emissaries on a dragon space; Ming's family members in a district, city or province space)."""
        return tuple(k for k in self.held_kinds(space)
                     if not self.pieces[k].neutral and space.area >= HEAP_SQUARES * self.pieces[k].max_width ** 2)


def _circle_polygon(cx: float, cy: float, r: float, n: int = 32) -> tuple[tuple[float, float], ...]:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return tuple((float(cx + r * math.cos(a)), float(cy + r * math.sin(a))) for a in t)


def layout_from_json(data: Any, where: str = "layout") -> Layout:
    """Validate against the schema and against what the schema cannot say."""
    try:
        validate(data, layout_schema(), where)
    except LayoutError:
        raise
    except Exception as exc:  # InvalidRecord from the schema helper -> our own type
        raise LayoutError(str(exc)) from None
    w, h = (float(v) for v in data["size_mm"])
    if w <= 0 or h <= 0:
        raise LayoutError("size_mm must be positive", where=where)
    spaces = []
    seen: set[str] = set()
    for i, s in enumerate(data["spaces"]):
        if s["id"] in seen:
            raise LayoutError(f"duplicate space id {s['id']!r}", where=f"{where} $.spaces[{i}]")
        seen.add(s["id"])
        own = tuple(s["holds"]) if "holds" in s else None
        if s["shape"] == "circle":
            cx, cy = (float(v) for v in s["centre_mm"])
            r = float(s["radius_mm"])
            poly = _circle_polygon(cx, cy, r)
            shape = SpaceShape(s["id"], s.get("kind", ""), poly, (cx, cy), r, s.get("region"), own)
        else:
            pts = tuple((float(x), float(y)) for x, y in s["points_mm"])
            arr = np.asarray(pts, np.float32)
            if abs(cv2.contourArea(arr)) < 1.0:
                raise LayoutError(f"space {s['id']!r} has a degenerate polygon", where=f"{where} $.spaces[{i}]")
            m = cv2.moments(arr)
            shape = SpaceShape(s["id"], s.get("kind", ""), pts, (m["m10"] / m["m00"], m["m01"] / m["m00"]), None, s.get("region"),
                               own)
        xs = [p[0] for p in shape.polygon]
        ys = [p[1] for p in shape.polygon]
        if min(xs) < 0 or min(ys) < 0 or max(xs) > w or max(ys) > h:
            raise LayoutError(f"space {s['id']!r} lies outside the board", where=f"{where} $.spaces[{i}]")
        spaces.append(shape)
    mk = data["markers"]
    ids = [c["id"] for c in mk["corners"]]
    if len(set(ids)) != 4:
        raise LayoutError("the four corner markers need four different ids", where=f"{where} $.markers.corners")
    msize = float(mk["size_mm"])
    markers = tuple(MarkerSpec(int(c["id"]), (float(c["centre_mm"][0]), float(c["centre_mm"][1]))) for c in mk["corners"])
    for m in markers:
        if not (msize / 2 <= m.centre[0] <= w - msize / 2 and msize / 2 <= m.centre[1] <= h - msize / 2):
            raise LayoutError(f"marker {m.id} does not fit on the board", where=f"{where} $.markers")
    if not hasattr(cv2.aruco, mk["dictionary"]):
        raise LayoutError(f"unknown marker dictionary {mk['dictionary']!r}", where=f"{where} $.markers.dictionary")
    pieces = {}
    for kind, p in data["pieces"].items():
        size = tuple(float(v) for v in p["size_mm"])
        if p["footprint"] == "rect" and len(size) != 2:
            raise LayoutError(f"piece {kind!r}: a rect needs [width, length]", where=f"{where} $.pieces")
        pieces[kind] = PieceSpec(kind, p["footprint"], size, float(p["height_mm"]), p["owners"] == "neutral",
                                 tuple(p["rgb"]) if "rgb" in p else None, p.get("per_owner"),
                                 tuple(sorted(p["face"].items())) if "face" in p else None,
                                 tuple(p["owned_by"]) if "owned_by" in p else None,
                                 (p["counts_as"]["kind"], int(p["counts_as"]["n"])) if "counts_as" in p else None,
                                 p.get("per_space"))
    players = {k: tuple(v) for k, v in data.get("players", {}).items()}
    if any(not p.neutral for p in pieces.values()) and not players:
        raise LayoutError("player pieces need a 'players' colour table", where=f"{where} $.players")
    for kind, spec in pieces.items():
        unknown = [o for o in spec.owned_by or () if o not in players]
        if unknown or (spec.owned_by is not None and spec.neutral):
            raise LayoutError(f"piece {kind!r}: owned_by names {unknown or 'owners of a neutral kind'}, not players",
                              where=f"{where} $.pieces")
        if spec.counts_as is not None:
            _check_counts_as(kind, spec, pieces, where)
    roads = tuple((a, b) for a, b in data.get("roads", ()))
    for a, b in roads:
        if a not in seen or b not in seen:
            raise LayoutError(f"road {a}-{b} names an unknown space", where=f"{where} $.roads")
    holds = {k: tuple(v) for k, v in data.get("holds", {}).items()}
    for sk, kinds in holds.items():
        bad = [k for k in kinds if k not in pieces]
        if bad:
            raise LayoutError(f"space kind {sk!r} holds unknown piece kinds {bad}", where=f"{where} $.holds")
    for i, sp in enumerate(spaces):
        bad = [k for k in sp.holds or () if k not in pieces]
        if bad:
            raise LayoutError(f"space {sp.id!r} holds unknown piece kinds {bad}", where=f"{where} $.spaces[{i}].holds")
    return Layout(
        id=data["id"],
        size=(w, h),
        dictionary=mk["dictionary"],
        marker_size=msize,
        markers=markers,
        spaces=tuple(spaces),
        pieces=pieces,
        players=players,
        board=data.get("board"),
        game=data.get("game") if isinstance(data.get("game"), str) else None,
        provisional=bool(data.get("provisional", False)),
        background_rgb=tuple(data.get("background_rgb", (226, 214, 184))),
        regions=tuple(data.get("regions", ())),
        roads=roads,
        holds=holds,
        source=data,
    )


def _check_counts_as(kind: str, spec: PieceSpec, pieces: Mapping[str, PieceSpec], where: str) -> None:
    """A counter that stands for n pieces of another kind (``counts_as``) must look like that kind
    but for its face, printed on the owner's colour: colour counting counts it as one of them."""
    target = pieces.get(spec.counts_as[0]) if spec.counts_as else None
    if target is None or target.counts_as is not None or target.printed:
        raise LayoutError(f"piece {kind!r}: counts_as names {spec.counts_as[0] if spec.counts_as else None!r}, "
                          "not a plain piece kind", where=f"{where} $.pieces")
    same = (spec.footprint, tuple(spec.size), spec.height, spec.neutral) == \
        (target.footprint, tuple(target.size), target.height, target.neutral)
    if not (same and spec.printed and spec.on_owner_colour):
        raise LayoutError(f"piece {kind!r}: a counter counted as {spec.counts_as[0]!r} needs its footprint, size, "
                          "height and owners and a face printed on the owner's colour", where=f"{where} $.pieces")


def load_layout(ref: str | Path) -> Layout:
    """A layout by shipped board id (``china-a``) or by file path."""
    text = str(ref)
    path = Path(text)
    if not path.suffix and not path.exists():
        path = LAYOUT_DIR / f"{text}.json"
        if not path.exists():
            known = ", ".join(shipped_layouts()) or "none"
            raise LayoutError(f"no layout for board {text!r} (shipped: {known}); give a layout file path", where="layout")
    return layout_from_json(read_json(str(path), "layout"), where=f"layout {path.name}")


def shipped_layouts() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in LAYOUT_DIR.glob("*.json")))


def check_against_board(layout: Layout, space_ids: Iterable[str]) -> list[str]:
    """Space ids the rules board has but the layout lacks (empty list: complete)."""
    have = set(layout.space_ids)
    return [s for s in space_ids if s not in have]
