"""Zhang Yi: the map's areas as irregular polygons, the city areas, and beside the map the holding
boxes (action chits, graveyard, talent pool) and a dice tray.

The printed map's geometry is not public and the map file holds only the topology, so the
polygons are made here: each area is put where its historical place lies (longitude/latitude
below, real geography; the SAMPLE map's areas are real Warring States places), the points are
spread by a few Lloyd steps so that every area is big enough for its counters, and each area
gets its Voronoi cell inside the map frame. Neighbouring cells need not match the map file's
borders exactly: the Board page draws the file's borders as lines (``check_borders`` reports
the differences)."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from scorer.core.boardkit import polygon_centroid, polygon_space, rect
from scripts.layoutgen.common import MARKER_NOTE, layout_doc, region

WIDTH, HEIGHT = 760.0, 720.0
MAP = (70.0, 70.0, 690.0, 540.0)
LON0, LON1, LAT0, LAT1 = 102.5, 123.0, 27.5, 42.0
LLOYD_STEPS = 3
BOXES = (("box-chits", "box"), ("box-graveyard", "box"), ("box-talent-pool", "box"), ("dice-tray", "dice"))
BOX_Y0, BOX_Y1 = 560.0, 650.0

# Historical places (approximate longitude, latitude) of the SAMPLE map's areas.
PLACES = {
    "xianyang": (108.7, 34.35), "longxi": (104.6, 35.0), "hanzhong": (107.0, 33.1), "shangjun": (109.5, 37.2),
    "bashu": (104.5, 30.6), "qianzhong": (109.5, 28.6), "jingshan": (111.0, 31.6), "ying": (112.2, 30.4),
    "chen": (114.9, 33.7), "shouchun": (116.8, 32.5), "wuyue": (120.2, 30.8), "nanyang": (112.5, 33.0),
    "yiyang": (111.6, 34.3), "xinzheng": (113.7, 34.4), "luoyang": (112.6, 34.9), "anyi": (111.0, 35.3),
    "daliang": (114.3, 34.8), "taoyi": (115.6, 35.1), "jinyang": (112.5, 37.8), "handan": (114.5, 36.6),
    "dai": (113.5, 39.8), "zhongshan": (114.8, 38.3), "shanggu": (115.5, 40.5), "ji": (116.4, 39.9),
    "liaodong": (122.0, 41.0), "linzi": (118.3, 36.8), "jimo": (120.4, 36.4), "lu": (117.0, 35.6),
}
STATE_RGB = {"qin": [58, 58, 62], "chu": [196, 52, 44], "qi": [46, 104, 206], "yan": [124, 78, 176],
             "zhao": [46, 150, 84], "wei": [226, 138, 30], "han": [222, 196, 44]}
ARMY_VALUES = (1, 2, 3, 4)  # the digits printed on army counters (two double-sided kinds: 1/2 and 3/4)
TALENTS = ("yue_yi", "sun_bin", "bai_qi", "wu_qi", "lian_po", "pang_juan", "tian_dan", "xiang_yan", "shang_yang",
           "han_fei", "guo_wei", "li_si", "mengchang_jun", "lin_xiangru", "chunshen_jun", "jing_ke")


def talent_label(talent: str) -> str:
    """The name printed on a talent counter: ``mengchang_jun`` -> ``Mengchang Jun``."""
    return " ".join(w.capitalize() for w in talent.split("_"))


def project(lon: float, lat: float) -> tuple[float, float]:
    x0, y0, x1, y1 = MAP
    return x0 + (lon - LON0) / (LON1 - LON0) * (x1 - x0), y0 + (LAT1 - lat) / (LAT1 - LAT0) * (y1 - y0)


def _clip(poly: list[tuple[float, float]], a: float, b: float, c: float) -> list[tuple[float, float]]:
    """Keep the part of ``poly`` where a*x + b*y <= c (Sutherland-Hodgman, one edge)."""
    out: list[tuple[float, float]] = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def voronoi(points: Sequence[tuple[float, float]], frame: tuple[float, float, float, float]) -> list[list[tuple[float, float]]]:
    """Each point's Voronoi cell inside the frame (half-plane clipping: n is small)."""
    x0, y0, x1, y1 = frame
    cells = []
    for i, (px, py) in enumerate(points):
        cell = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        for j, (qx, qy) in enumerate(points):
            if i == j:
                continue
            # closer to p than to q: (q - p) . x <= (|q|^2 - |p|^2) / 2
            cell = _clip(cell, qx - px, qy - py, (qx * qx + qy * qy - px * px - py * py) / 2)
            if not cell:
                break
        cells.append(cell)
    return cells


def relaxed(points: list[tuple[float, float]], steps: int = LLOYD_STEPS) -> list[tuple[float, float]]:
    for _ in range(steps):
        points = [polygon_centroid(c) for c in voronoi(points, MAP)]
    return points


def shared_edges(cells: Sequence[Sequence[tuple[float, float]]], min_mm: float = 4.0) -> set[frozenset[int]]:
    """Pairs of cells with a common edge at least ``min_mm`` long."""
    def edges(c: Sequence[tuple[float, float]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        return [(c[k], c[(k + 1) % len(c)]) for k in range(len(c))]

    out: set[frozenset[int]] = set()
    for i, a in enumerate(cells):
        for j in range(i + 1, len(cells)):
            for p, q in edges(a):
                if math.dist(p, q) < min_mm:
                    continue
                for r, s in edges(cells[j]):
                    if math.dist(p, s) < 0.5 and math.dist(q, r) < 0.5 or math.dist(p, r) < 0.5 and math.dist(q, s) < 0.5:
                        out.add(frozenset((i, j)))
    return out


def check_borders(doc: Mapping[str, Any], cells: Sequence[Sequence[tuple[float, float]]]) -> tuple[int, int]:
    """(borders of the map file whose cells do not touch, touching cells the file has no border for)."""
    ids = [a["id"] for a in doc["areas"]]
    index = {a: i for i, a in enumerate(ids)}
    wanted = {frozenset((index[b["a"]], index[b["b"]])) for b in doc["borders"]}
    touching = shared_edges(cells)
    return len(wanted - touching), len(touching - wanted)


def cells_for(doc: Mapping[str, Any]) -> list[list[tuple[float, float]]]:
    missing = [a["id"] for a in doc["areas"] if a["id"] not in PLACES]
    if missing:
        raise SystemExit(f"no place known for the areas {missing}: add their longitude/latitude to PLACES")
    points = relaxed([project(*PLACES[a["id"]]) for a in doc["areas"]])
    return voronoi(points, MAP)


def layout(doc: Mapping[str, Any], layout_id: str) -> dict[str, Any]:
    cells = cells_for(doc)
    spaces: list[dict[str, Any]] = []
    regions = [region("map", rect(*MAP), tint=[214, 222, 196])]
    for a, cell in zip(doc["areas"], cells):
        sid = a.get("space_id", a["id"])
        spaces.append(polygon_space(sid, "city" if a["city"] else "area", cell))
        if a.get("setup_state"):
            tint = [int(240 + (v - 240) * 0.3) for v in STATE_RGB[a["setup_state"]]]
            regions.append(region(f"area-{a['id']}", cell, tint=tint))
    w = (MAP[2] - MAP[0] - 3 * 12) / 4
    for k, (sid, kind) in enumerate(BOXES):
        x = MAP[0] + k * (w + 12)
        spaces.append(polygon_space(sid, kind, rect(x, BOX_Y0, x + w, BOX_Y1)))
    counter = {"footprint": "rect", "size_mm": [16, 16], "height_mm": 3, "owners": "players"}
    pieces: dict[str, Any] = {"army": dict(counter)}
    # what lies on the map: double-sided army counters showing 1/2 or 3/4 in their state's colour, each
    # counting as that many strength (``counts_as``): the renderer splits an area's strength into them,
    # the reader reads each one's digit (vision/counted_values.py) and reports the strength as ``army``
    values = [f"army-{n}" for n in ARMY_VALUES]
    for n, kind in zip(ARMY_VALUES, values):
        pieces[kind] = {**counter, "face": {"label": str(n), "ground": "owner", "motif": False},
                        "counts_as": {"kind": "army", "n": n}}
    # a talent counter: its state's colour with the talent's name printed on it (counted by colour
    # with the army counters, then told apart from them and from each other by that face:
    # vision/counted_faces.py); each belongs to one state (the map file), the assassin to none
    state_of = {t["id"]: t.get("state") for t in doc.get("talents", ())}
    for t in TALENTS:
        st = state_of.get(t)
        pieces[f"talent-{t}"] = {**counter, "face": {"label": talent_label(t), "ground": "owner"},
                                 "owned_by": [st] if st else []}
    pieces["chit"] = {"footprint": "circle", "size_mm": [20], "height_mm": 2, "owners": "players"}
    pieces["die"] = {"footprint": "rect", "size_mm": [16, 16], "height_mm": 16, "owners": "neutral", "rgb": [245, 245, 240]}
    talent_kinds = [f"talent-{t}" for t in TALENTS]
    holds = {"area": ["army"] + values + talent_kinds, "city": ["army"] + values + talent_kinds, "box": ["chit"] + talent_kinds, "dice": ["die"]}
    missing, extra = check_borders(doc, cells)
    return layout_doc(
        layout_id=layout_id, game="zhang_yi", board=doc["id"], source=f"scorer/games/zhang_yi/maps/{doc['id']}.json",
        size=(WIDTH, HEIGHT), spaces=spaces, regions=regions, pieces=pieces, holds=holds, players=STATE_RGB,
        notes=["Geometry invented for the invented SAMPLE map: areas are the Voronoi cells of their historical places. "
               "Capture your printed map on the dashboard (areas drawn as polygons, borders, rivers and mountains).",
               f"Of the map file's {len(doc['borders'])} borders, {missing} join cells that do not touch here and "
               f"{extra} touching cells have no border in the file: the Board page draws the file's borders.",
               "box-chits, box-graveyard and box-talent-pool are placed but the engine reads nothing there; the camera reads the die in dice-tray (vision/dice.py) and enters a battle's roll.",
               MARKER_NOTE])
