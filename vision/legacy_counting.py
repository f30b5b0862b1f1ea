"""BoardReader's counting in colour mode: blobs -> pieces per space.

Each blob is placed on the space under it (its parallax undone), its expected area per piece
kind predicted from the camera's position (the footprint swept by the parallax of its top) and
scaled by the area its colour's lone small pieces measure in this frame; its shape then decides
between one big piece and several small ones (``explain_blob``). Dark parts on a space add up to
a neutral piece (a fortress under a house shows as a broken ring). A mixin of
``vision.reader.BoardReader`` (it uses the reader's ``layout``, ``s``, ``_classes``,
``_neutral_kind``, ``_player_kinds``, ``_light_classes`` and ``_space_of``).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping

import numpy as np

from scorer.core.types import Piece
from vision.detection import SpaceResult
from vision.geometry import parallax
from vision.layout import Layout, PieceSpec
from vision.legacy_blobs import Component

AREA_GROWTH = 1.2  # blur, JPEG and edge pixels make every blob ~20 % larger than its geometry
SCALE_RANGE = (0.8, 1.3)  # bounds of a colour's measured blob area scale (see ``_area_scales``)
FRAGMENT = 0.6  # a blob under this many small pieces' area is a part of one (see ``_count_colour``)
LIGHT_HOUSE_RIM = (0.03, 0.25)  # least dark area (x footprint) and extent (x width) of a fortress under a light-coloured house
WALL_MM = 5.5  # mm^2 per mm of parallax: the most a tall piece's shaded wall shows (see ``_wall_like``)


def explain_blob(c: Component, eh: float, ee: float, big: PieceSpec, small: PieceSpec, owner: str,
             stacked: bool = False) -> tuple[Counter[Piece], float]:
    """One colour blob -> houses or emissaries (generally: big or small pieces) and a confidence.

    A single big piece is wide, fills its bounding rectangle and has no waist; small round
    pieces may touch and form chains or clusters, which are counted by area. The thresholds
    were read off feature statistics of rendered frames (see docs/vision.md).
    """
    r_big, r_small = c.area / eh, c.area / ee
    wide = c.short >= 0.5 * (big.min_width + small.min_width) + 0.5
    aspect = c.long / max(c.short, 1e-6)
    # evidence that the blob is several small round pieces touching: a waist between them,
    # an elongated outline, or a ragged one
    cluster = (c.waist > 3.4) + (c.waist > 5.0) + (aspect > 1.72) + (c.fill < 0.76) + (c.peaks >= 2 and aspect > 1.45)
    if wide and 0.7 <= r_big <= 1.7 and r_small >= 1.8:
        # the area fits one big piece; would the small pieces it could also be have this
        # shape? k round pieces touching: two lie side by side (long: aspect >= ~1.65 with
        # a waist), three form a ragged trefoil (fill <= ~0.72) or a chain (long). A tall
        # house seen obliquely is dented by its shaded wall, but keeps its fill and aspect.
        k = max(2, int(round(r_small)))
        if k == 2:
            # ... or a house stretched by its parallax (a tall piece seen obliquely): as wide
            # as a house, full, no waist (two discs side by side are narrower, with a waist)
            one = aspect < 1.6 or (aspect < 1.75 and c.waist < 2.5) \
                or (c.short >= big.min_width + 3.5 and c.fill >= 0.78 and c.waist < 3.0)
        elif k == 3:
            one = c.fill >= 0.74 and c.long < 2.5 * big.min_width
        else:
            one = cluster < 2
        if one:
            q = 1 - 1.5 * abs(r_big - 1) - 0.1 * cluster
            return Counter({Piece(owner, big.kind): 1}), float(max(0.3, q))
    if stacked and 0.55 <= r_big <= 1.6 and r_small >= 1.6:
        # on a neutral piece (a fortress) stands at most one piece, and it is a big one; its
        # outline is ragged where it meets the dark fortress
        return Counter({Piece(owner, big.kind): 1}), 0.6
    k = max(1, int(round(r_small)))
    if c.peaks >= 1 and abs(c.peaks - r_small) < 0.6 and c.peaks != k and not (k == 1 and aspect < 1.4):
        # the area is ambiguous between two counts: the shape decides (the distance map of
        # one round blob, elongated by its parallax, can have two maxima: two touching
        # discs are elongated)
        k = c.peaks
    resid = abs(r_small - k)
    return Counter({Piece(owner, small.kind): k}), float(max(0.2, 1 - 1.5 * resid))


class ColourCounting:
    """Pieces per space from the blobs of colour mode (and marker mode's colour fallback)."""

    layout: Layout
    s: float
    _classes: tuple[str, ...]
    _neutral_kind: dict[int, str]
    _player_kinds: list[str]
    _light_classes: set[int]
    _space_of: np.ndarray
    _scales: dict[int, float] | None

    def _space_at(self, x: float, y: float) -> int:
        """The space a board point (mm) belongs to (spaces grown by 8 mm), -1 for none."""
        s = self.s
        xi, yi = int(round(x * s)), int(round(y * s))
        h, w = self._space_of.shape
        if 0 <= xi < w and 0 <= yi < h:
            return int(self._space_of[yi, xi])
        return -1

    def _sweep(self, x: float, y: float, cam: np.ndarray | None, height: float) -> float:
        """Parallax (mm) of a point ``height`` mm above the board at (``x``, ``y``)."""
        return float(np.linalg.norm(parallax(np.array([[x, y]]), cam, height)[0]))

    def _expected_area(self, spec: PieceSpec, sweep: float) -> float:
        """Area of a piece seen from the camera, projected into the board plane: its footprint
        swept by the parallax of its top."""
        # AREA_GROWTH: blur, JPEG and edge pixels make every blob ~20% larger than its geometry
        if spec.footprint == "circle":
            return AREA_GROWTH * (spec.area + spec.size[0] * sweep)
        return AREA_GROWTH * (spec.area + 0.5 * (spec.size[0] + spec.size[-1]) * sweep)

    def _count_colour(self, comps: list[Component], cam: np.ndarray | None, occluded: set[int],
                      partial: bool = False) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
        """Colour mode: pieces per space from the blobs, and pieces lying off every space.
        ``partial``: a partial read (the blob area scales of the last full read are kept)."""
        layout = self.layout
        per_space: dict[int, Counter[Piece]] = {}
        conf: dict[int, float] = {}
        off: list[tuple[str, float, float]] = []
        neutral_area: dict[tuple[int, str], list[Component]] = {}
        kinds = [layout.pieces[k] for k in self._player_kinds]
        big_kind = max(kinds, key=lambda k: k.area) if kinds else None
        small_kind = min(kinds, key=lambda k: k.area) if kinds else None
        placed: list[tuple[Component, int, float, float]] = []
        for c in comps:
            mid_h = 0.5 * (big_kind.height if big_kind else 10.0)
            d = parallax(np.array([[c.cx, c.cy]]), cam, mid_h)[0] * 0.5
            sx, sy = c.cx - d[0], c.cy - d[1]
            si = self._space_at(sx, sy)
            neutral = self._neutral_kind.get(c.cls)
            if neutral:
                # a neutral piece under a player piece shows only as a broken ring: add up
                # its visible parts per space and decide below
                if si >= 0:
                    neutral_area.setdefault((si, neutral), []).append(c)
                continue
            placed.append((c, si, sx, sy))
        # spaces with a house of a light colour (its walls are never as dark as a fortress)
        light_house = {si for c, si, sx, sy in placed if si >= 0 and c.cls in self._light_classes and big_kind
                       and c.area >= 0.7 * self._expected_area(big_kind, self._sweep(sx, sy, cam, big_kind.height))}
        self._add_neutral(neutral_area, cam, occluded, per_space, conf, light_house)
        if big_kind is None or small_kind is None:
            return self._results(per_space, conf, occluded, {}), tuple(off)
        expected = [(self._expected_area(big_kind, self._sweep(sx, sy, cam, big_kind.height)),
                     self._expected_area(small_kind, self._sweep(sx, sy, cam, small_kind.height)))
                    for c, si, sx, sy in placed]
        scales = self._area_scales(placed, expected, occluded, partial)
        fragments: dict[tuple[int, str], list[tuple[Component, float]]] = {}
        for (c, si, sx, sy), (eh, ee) in zip(placed, expected):
            owner = self._classes[c.cls]
            k = scales.get(c.cls, scales.get(-1, 1.0))
            eh, ee = eh * k, ee * k
            # specks, and thin rings where a dark piece blends into the board, are not pieces
            if c.area < 0.3 * ee or c.fill < 0.4 or c.short < 0.5 * small_kind.min_width:
                continue
            stacked = si >= 0 and any(p.owner == "neutral" for p in per_space.get(si, ()))
            if stacked and c.area < 1.2 * ee:
                continue  # only a big piece goes on a neutral one: this is a tinted part of it
            found, q = explain_blob(c, eh, ee, big_kind, small_kind, owner, stacked)
            if si < 0 or si in occluded:
                if si < 0 and c.area >= 0.6 * small_kind.area:
                    for p, n in found.items():
                        off.append((f"{n} x {p.owner} {p.kind}", sx, sy))
                continue
            if c.area < FRAGMENT * ee and found == Counter({Piece(owner, small_kind.kind): 1}):
                fragments.setdefault((si, owner), []).append((c, ee))
                continue
            per_space.setdefault(si, Counter()).update(found)
            conf[si] = min(conf.get(si, 1.0), q)
        # parts of one small piece (cut by a printed line, or partly hidden by a leaning house)
        # lie within a piece's width of each other: their areas add up
        reach = small_kind.size[0]
        for (si, owner), parts in fragments.items():
            group = list(range(len(parts)))
            for a in range(len(parts)):
                for b in range(a):
                    if math.hypot(parts[a][0].cx - parts[b][0].cx, parts[a][0].cy - parts[b][0].cy) < reach:
                        ga, gb = group[a], group[b]
                        group = [gb if g == ga else g for g in group]
            for g in set(group):
                members = [parts[i] for i in range(len(parts)) if group[i] == g]
                area = sum(c.area for c, _ in members)
                n = max(1, int(round(area / float(np.mean([ee for _, ee in members])))))
                per_space.setdefault(si, Counter())[Piece(owner, small_kind.kind)] += n
                conf[si] = min(conf.get(si, 1.0), 0.6)
        return self._results(per_space, conf, occluded, {}), tuple(off)

    def _area_scales(self, placed: list[tuple[Component, int, float, float]], expected: list[tuple[float, float]],
                     occluded: set[int], partial: bool) -> dict[int, float]:
        """How much larger than predicted each colour's blobs are in this frame. Blur, JPEG and
        the colour's contrast with the board grow a blob by an amount that differs between
        colours (a yellow piece on a pale board grows more than a blue one) and between frames;
        the pieces whose shape is unmistakable measure it: round blobs the size of one small
        piece (a lone emissary). Their median area over the prediction is the colour's scale;
        a colour without one takes the median over all colours (1 when there is none). A
        partial read keeps the last full read's scales (the light and blur did not change)."""
        if partial and self._scales is not None:
            return self._scales
        per: dict[int, list[float]] = {}
        for (c, si, _, _), (_, ee) in zip(placed, expected):
            r = c.area / ee
            if si >= 0 and si not in occluded and 0.7 <= r <= 1.5 and c.long < 1.25 * c.short and c.fill > 0.78:
                per.setdefault(c.cls, []).append(r)
        every = [r for rs in per.values() for r in rs]
        scales = {cls: float(np.clip(np.median(rs), *SCALE_RANGE)) for cls, rs in per.items()}
        scales[-1] = float(np.clip(np.median(every), *SCALE_RANGE)) if every else 1.0
        self._scales = scales
        return scales

    def _add_neutral(self, neutral_area: Mapping[tuple[int, str], list[Component]], cam: np.ndarray | None,
                     occluded: set[int], per_space: dict[int, Counter[Piece]], conf: dict[int, float],
                     light_house: set[int] = frozenset(), min_extent: float = 0.4,
                     min_extent_at: Mapping[int, float] | None = None) -> None:
        """Neutral pieces (fortresses) from the visible parts of their colour per space: a
        fortress under a house shows only as a broken ring. ``min_extent``: the longest part must
        span this fraction of the piece's width (``min_extent_at``: per space; marker mode asks
        for more, so a sticker's black is not a fortress). Under a house of a light colour
        (``light_house``: its shaded walls never fall into the dark class) a shorter sliver of
        rim is enough, and the shaded-wall test does not apply: the house hides all of the rim
        but a thin strip on the camera's side, and nothing else there is dark."""
        for (si, kind), parts in neutral_area.items():
            if si in occluded or per_space.get(si, Counter())[Piece("neutral", kind)]:
                continue
            spec = self.layout.pieces[kind]
            sp = self.layout.spaces[si]
            exp = self._expected_area(spec, self._sweep(sp.centre[0], sp.centre[1], cam, spec.height))
            area = sum(c.area for c in parts)
            extent = max(c.long for c in parts)
            light = si in light_house
            need = (min_extent_at or {}).get(si, min_extent)
            min_area, need = LIGHT_HOUSE_RIM if light else (0.04, need)
            if area < min_area * spec.area or extent < need * spec.min_width:
                continue
            if not light and self._wall_like(parts, sp.centre, cam) and area < WALL_MM * self._tall_sweep(sp.centre, cam):
                continue
            n = max(1, int(round(area / (1.2 * exp))))
            per_space.setdefault(si, Counter())[Piece("neutral", kind)] += n
            conf[si] = min(conf.get(si, 1.0), 0.95 if area >= 0.3 * exp else 0.7)

    def _tall_sweep(self, at: tuple[float, float], cam: np.ndarray | None) -> float:
        """Parallax (mm) of the top of the tallest player piece at a board point."""
        h = max((self.layout.pieces[k].height for k in self._player_kinds), default=0.0)
        return self._sweep(at[0], at[1], cam, h)

    def _wall_like(self, parts: list[Component], at: tuple[float, float], cam: np.ndarray | None) -> bool:
        """Dark parts that lie on the camera's side of a space: where a tall piece there shows
        its walls (its top is seen displaced away from the camera). A dark-coloured house's
        shaded wall can pass for the rim of a fortress under it; the wall's area grows with the
        parallax, so on that side the rim must be larger than a wall could be."""
        if cam is None:
            return False
        h = max((self.layout.pieces[k].height for k in self._player_kinds), default=0.0)
        v = parallax(np.array([at], float), cam, h)[0]
        n = float(np.linalg.norm(v))
        if n < 1e-6:
            return False
        mid = np.asarray(at, float) + 0.5 * v  # about where a tall piece's blob is centred
        toward = -v / n
        w = sum(c.area * float(np.dot([c.cx - mid[0], c.cy - mid[1]], toward))
                / (math.hypot(c.cx - mid[0], c.cy - mid[1]) + 1e-6) for c in parts)
        return w > 0.5 * sum(c.area for c in parts)

    def _results(self, per_space: Mapping[int, Counter[Piece]], conf: Mapping[int, float], occluded: set[int],
                 unknown: Mapping[int, tuple[str, ...]]) -> tuple[SpaceResult, ...]:
        """One ``SpaceResult`` per space of the layout, in its order (occluded spaces empty)."""
        out = []
        for i, sp in enumerate(self.layout.spaces):
            if i in occluded:
                out.append(SpaceResult(sp.id, (), 0.0, True))
                continue
            c = per_space.get(i, Counter())
            items = tuple(sorted((p, n) for p, n in c.items() if n > 0))
            out.append(SpaceResult(sp.id, items, round(conf.get(i, 0.97), 3), False, unknown.get(i, ())))
        return tuple(out)
