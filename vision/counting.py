"""Pieces per space from the colour-classified foreground.

Each player colour's pixels on a space add up to an area; the pieces that explain it are the
combination of that player's pieces (as enrolled: their footprint, swept by the parallax of
their height at that spot) whose area is nearest, with at least as many pieces as separate
blobs and near the count their shapes show (``piece_sets``, ``piece_peaks``; a kind an owner
has only a few of, such as a Ming prince, goes where it fits best on the whole board). Dark
neutral pieces (China's fortress) show as a rim when a piece stands on them, so a smaller dark
area counts there.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import partial
from typing import Mapping, Sequence

import cv2
import numpy as np

from vision.blobs import components

from scorer.core.types import Piece
from vision.enrolment import PieceSize, TableModel, apparent_area
from vision.geometry import parallax
from vision.limited_pieces import Placements
from vision.piece_peaks import PeakCounter
from vision.piece_sets import Kind, allocate_keys, best, options

SPECK = 0.35  # of the smallest piece: less is noise or a fringe
BLOB = 0.5  # of the smallest piece: a blob this big is at least one piece
CORE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))  # 2 px (2 mm) off every edge
CORE_SHARE = 0.25  # a patch whose core (after that) is smaller than this share of a fragment has no body
ONE_PIECE = 1.4  # of the smallest piece: a blob of player colours this small is one piece
FRAGMENT = 0.6  # of the smallest piece: a patch this small touching another colour's blob is part of it
HEAP_OF_SMALLEST = 1.3  # a blob this many times the biggest piece's apparent area is a heap of small pieces
UNUSUAL_COST = 0.45  # a kind the space does not normally hold (layout "holds") must fit this much better
                     # (and be at least ``piece_sets.UNUSUAL_WHOLE`` of a whole piece)
RIM_SECTORS = 3  # of 8 directions around a piece that a neutral piece's rim must show in
RIM_SHARE = 0.05  # ... each with at least this share of the dark pixels
NEUTRAL_SPECK = 4.0  # mm^2: a dark part smaller than this is noise
NEUTRAL_ALONE = 0.35  # of a neutral piece's area, dark pixels on a space with nothing on top
NEUTRAL_UNDER = 0.08  # ... and with a piece standing on it (its rim)


@dataclass(frozen=True)
class SpaceCount:
    pieces: Counter
    confidence: float


class Counter_:
    """Counts pieces per space. ``space_of``: space index per rectified pixel (-1: none)."""

    def __init__(self, model: TableModel, owners: tuple[str, ...], space_of: np.ndarray,
                 centres_mm: np.ndarray, px_per_mm: float, usual: list[tuple[str, ...] | None] | None = None,
                 limits: Mapping[str, int] | None = None, space_areas: Sequence[float] | None = None,
                 piece_width_mm: float | None = None):
        self.model = model
        self.owners = owners
        self.space_of = space_of
        self.centres = centres_mm
        self.s = px_per_mm
        self.usual = usual or [None] * len(centres_mm)  # per space: the kinds it normally holds
        self.limits = dict(limits or {})  # kind -> at most this many per owner on the board (layout ``per_owner``)
        self.space_areas = list(space_areas) if space_areas is not None else [math.inf] * len(centres_mm)
        # pieces counted by the shape of their blobs (a hint; None: by area alone)
        self.peaks = PeakCounter(piece_width_mm, px_per_mm) if piece_width_mm else None
        self.kinds: dict[str, list[tuple[Piece, PieceSize]]] = defaultdict(list)
        for p, size in model.sizes.items():
            self.kinds[str(p.owner)].append((p, size))
        smallest = min(sz.area_mm2 for sz in model.sizes.values())
        self.speck = SPECK * smallest
        self.blob = BLOB * smallest
        self.placed = Placements()  # the last count's explanations (a partial one's merged with those it kept)

    def _space(self, x: float, y: float) -> int:
        xi, yi = int(round(x * self.s)), int(round(y * self.s))
        h, w = self.space_of.shape
        return int(self.space_of[yi, xi]) if 0 <= xi < w and 0 <= yi < h else -1

    def count(self, labels: np.ndarray, hand: np.ndarray, cam: np.ndarray | None, occluded: frozenset[int],
              mass: "MassMeter | None" = None, elsewhere: Mapping[Piece, int] | None = None,
              kept: Placements | None = None) -> tuple[dict[int, SpaceCount], list[tuple[str, float, float]]]:
        """Pieces per space index, and pieces lying off every space (owner, x, y in mm).
        ``elsewhere``: pieces of limited kinds standing on spaces not read now (a partial read):
        they use up their owners' limits. ``kept``: instead, the last count's explanations (``placed``)
        of the spaces not read now (``occluded``): they compete for the owners' limited kinds as in a
        full read (``vision.limited_pieces``), and those whose pieces change are counted too."""
        neutral_i = self.owners.index("neutral") if "neutral" in self.owners else None
        labels = absorb_fragments(labels, len(self.owners), FRAGMENT * self.blob * 2 * self.s ** 2, neutral_i)
        labels = one_colour_per_piece(labels, neutral_i, ONE_PIECE * self.blob * 2 * self.s ** 2)
        if mass is not None:
            mass.labels = labels
        area: dict[tuple[int, int], float] = defaultdict(float)
        centre_of: dict[int, tuple[float, float, float]] = {}
        blobs: dict[tuple[int, int], int] = defaultdict(int)
        off: list[tuple[str, float, float]] = []
        s2 = self.s ** 2
        for oi, owner in enumerate(self.owners):
            m = ((labels == oi) & ~hand).astype(np.uint8)
            if not m.any():
                continue
            n, lbl, stats, cents = components(m)
            for j in range(1, n):
                a = stats[j, cv2.CC_STAT_AREA] / s2
                if owner == "neutral":
                    # a neutral piece under another shows as a broken rim: its parts add up
                    if a < NEUTRAL_SPECK:
                        continue
                elif a < self.speck:
                    continue
                elif mass is not None:
                    a = mass.area(oi, lbl, j, stats[j]) / s2
                cx, cy = cents[j] / self.s
                # the blob's centre lies between the footprint and the displaced top
                d = parallax(np.array([[cx, cy]]), cam, self._height_of(owner, a, cx, cy, cam))[0] * 0.5
                sp = self._space(cx - d[0], cy - d[1])
                if sp < 0:
                    sp = self._space(cx, cy)
                if sp < 0:
                    if a >= self.blob:
                        off.append((owner, float(cx), float(cy)))
                    continue
                area[(sp, oi)] += a
                if a >= self.blob:
                    blobs[(sp, oi)] += 1
                    if owner != "neutral" and a > centre_of.get(sp, (0.0, 0.0, 0.0))[2]:
                        centre_of[sp] = (float(cents[j][0]), float(cents[j][1]), a)  # the biggest piece's blob (px)
        neutral = self.owners.index("neutral") if "neutral" in self.owners else None
        result, placed = self._explain_all(area, blobs, labels, hand, cam, occluded, neutral, elsewhere, kept)
        has_player_piece = set(result) - occluded
        if neutral is not None:
            dark_dirs = self._dark_directions(labels == neutral, centre_of, has_player_piece)
            for (sp, oi), a in sorted(area.items()):
                if oi != neutral or sp in occluded:
                    continue
                if sp in has_player_piece and dark_dirs.get(sp, 0) < RIM_SECTORS:
                    continue  # dark on one side of a piece only: its shadow or a shaded wall, not a rim
                for p, size in self.kinds["neutral"]:
                    share = NEUTRAL_UNDER if sp in has_player_piece else NEUTRAL_ALONE
                    if a >= share * size.area_mm2:
                        n = max(1, int(round(a / size.area_mm2))) if sp not in has_player_piece else 1
                        entry = result.setdefault(sp, SpaceCount(Counter(), 1.0))
                        entry.pieces[p] += n
                        break
        placed.counts.update((sp, c) for sp, c in result.items() if sp not in occluded)
        self.placed = placed if kept is None else kept.merged(placed, occluded)
        return result, off

    def _dark_directions(self, dark: np.ndarray, centre_of: dict[int, tuple[float, float, float]],
                         spaces: set[int]) -> dict[int, int]:
        """For each space with a player's piece: in how many of 8 directions around that piece
        dark (neutral) pixels lie. A neutral piece under it shows as a rim on at least the
        camera's half; a shadow or a shaded wall lies on one side."""
        ys, xs = np.nonzero(dark)
        if not len(xs):
            return {}
        sp_of = self.space_of[ys, xs]
        out: dict[int, int] = {}
        for sp in spaces:
            if sp not in centre_of:
                continue
            sel = sp_of == sp
            if sel.sum() < 3:
                continue
            cx, cy, _ = centre_of[sp]
            ang = np.arctan2(ys[sel] - cy, xs[sel] - cx)
            sector = ((ang + np.pi) / (2 * np.pi) * 8).astype(int) % 8
            counts = np.bincount(sector, minlength=8)
            out[sp] = int((counts >= max(2, RIM_SHARE * sel.sum())).sum())
        return out

    def _explain_all(self, area: Mapping[tuple[int, int], float], blobs: Mapping[tuple[int, int], int], labels: np.ndarray,
                     hand: np.ndarray, cam: np.ndarray | None, occluded: frozenset[int], neutral: int | None,
                     elsewhere: Mapping[Piece, int] | None, kept: Placements | None
                     ) -> tuple[dict[int, SpaceCount], Placements]:
        """The player pieces explaining each (space, owner)'s area (``piece_sets``). The pieces
        of other owners on a space hide sides in a heap too: a first estimate, each colour alone,
        says how many stand there; then each owner's few pieces of a limited kind are placed
        (with ``kept``, on the kept spaces too: those changed are in the result)."""
        kinds_on = {(sp, oi): self._kinds_on(self.owners[oi], sp, cam) for (sp, oi), a in area.items()
                    if oi != neutral and sp not in occluded and a >= self.speck and self.kinds[self.owners[oi]]}
        cores = self._cores(labels, hand, cam, {oi for _, oi in kinds_on}) if self.peaks is not None else None
        hint = (lambda key: cores.get(key, 0)) if cores is not None else (lambda key: None)  # noqa: E731
        alone = {key: best(options(k, area[key], max(1, blobs[key]), 0, hint(key))) for key, k in kinds_on.items()}
        pieces_on: dict[int, int] = defaultdict(int)
        for (sp, _), opt in alone.items():
            pieces_on[sp] += sum(opt.pieces.values()) if opt else 0
        result: dict[int, SpaceCount] = {}
        placed = Placements()
        changed: dict[int, dict[int, tuple[int, ...]]] = {}  # kept space -> owner -> its new explanation's key
        for oi, owner in enumerate(self.owners):
            per_space = {}
            for (sp, o), kinds in sorted(kinds_on.items()):
                if o == oi:
                    mine = sum(alone[(sp, o)].pieces.values()) if alone[(sp, o)] else 0
                    opts = options(kinds, area[(sp, o)], max(1, blobs[(sp, o)]), pieces_on[sp] - mine, hint((sp, o)))
                    if opts:
                        per_space[sp] = opts
            limited = [p for p, _ in self.kinds[owner] if p.kind in self.limits]
            if kept is not None and limited:  # the kept spaces compete for the limited kinds, in space order
                offered = kept.offered(oi, occluded)
                keys = allocate_keys(dict(sorted({**offered, **per_space}.items())), [self.limits[p.kind] for p in limited])
                for sp in kept.moved(oi, keys, occluded):
                    changed.setdefault(sp, {})[oi] = keys[sp]
                keys = {sp: k for sp, k in keys.items() if sp not in offered}
            else:
                keys = allocate_keys(per_space, [self.limits[p.kind] - (elsewhere or {}).get(p, 0) for p in limited])
            placed.options[oi], placed.chosen[oi] = per_space, keys
            for sp, key in sorted(keys.items()):
                chosen = per_space[sp][key]
                if chosen.pieces:
                    entry = result.setdefault(sp, SpaceCount(Counter(), 1.0))
                    entry.pieces.update(chosen.pieces)
                    result[sp] = SpaceCount(entry.pieces, min(entry.confidence, chosen.confidence))
        for sp, owners in changed.items():  # a kept space read again: its owners' new explanations
            assert kept is not None
            result[sp] = placed.counts[sp] = kept.recounted(sp, owners, SpaceCount)
            for oi, key in owners.items():
                placed.chosen[oi][sp] = key
        return result, placed

    def _cores(self, labels: np.ndarray, hand: np.ndarray, cam: np.ndarray | None, owners: set[int]
               ) -> dict[tuple[int, int], int]:
        """Per (space, owner), how many pieces the shape of the owner's blobs shows (``piece_peaks``);
        a core belongs to the space under a piece of the owner's most common (smallest) kind."""
        out: dict[tuple[int, int], int] = {}
        for oi in sorted(owners):
            low = min(self.kinds[self.owners[oi]], key=lambda ps: ps[1].area_mm2)[1].height_mm
            at = partial(self._space_at_px, cam=cam, height=low)
            for sp, n in self.peaks.count((labels == oi) & ~hand, at).items():
                out[(sp, oi)] = n
        return out

    def _space_at_px(self, x: float, y: float, cam: np.ndarray | None, height: float) -> int:
        return self._space_at_foot(x / self.s, y / self.s, cam, height)

    def _space_at_foot(self, x: float, y: float, cam: np.ndarray | None, height: float) -> int:
        """The space under a piece of ``height`` whose blob is centred at (x, y) mm: the blob's
        centre lies between the footprint and the displaced top."""
        d = parallax(np.array([[x, y]]), cam, height)[0] * 0.5
        sp = self._space(x - d[0], y - d[1])
        return sp if sp >= 0 else self._space(x, y)

    def _height_of(self, owner: str, area: float, x: float, y: float, cam: np.ndarray | None) -> float:
        """How tall the pieces of a blob probably are: those of the owner's kind whose apparent
        area there is nearest the blob's (a Ming family member's 15 mm, not its prince's 32);
        a blob bigger than any one piece is a heap of the smallest kind."""
        kinds = self.kinds[owner]
        if not kinds:
            return 0.0
        at = np.array([[x, y]])
        app = [(apparent_area(sz.area_mm2, float(np.linalg.norm(parallax(at, cam, sz.height_mm)[0]))), sz.height_mm)
               for _, sz in kinds]
        if area > HEAP_OF_SMALLEST * max(a for a, _ in app):
            return min(app)[1]
        return min(app, key=lambda ah: abs(math.log(max(area, 1e-6) / ah[0])))[1]

    def _kinds_on(self, owner: str, sp: int, cam: np.ndarray | None) -> list[Kind]:
        """The owner's piece kinds as they appear on space ``sp``: apparent area (footprint swept
        by the parallax of the height there), whether the space normally holds them, how many fit
        on it, and whether the owner has only a few."""
        at = self.centres[sp:sp + 1]
        usual = self.usual[sp]
        out = []
        for p, size in self.kinds[owner]:
            sweep = float(np.linalg.norm(parallax(at, cam, size.height_mm)[0]))
            capacity = max(1, int(self.space_areas[sp] // size.area_mm2)) if math.isfinite(self.space_areas[sp]) else 10 ** 6
            app = apparent_area(size.area_mm2, sweep)
            out.append(Kind(p, app, app - size.area_mm2, 0.0 if usual is None or p.kind in usual else UNUSUAL_COST,
                            capacity, p.kind in self.limits))
        return out


def one_colour_per_piece(labels: np.ndarray, neutral: int | None, max_px: float) -> np.ndarray:
    """A blob of player colours no bigger than one small piece is one piece, so one colour: its
    pixels take the blob's majority colour (a violet emissary leaning blue at its edge)."""
    player = (labels >= 0) if neutral is None else ((labels >= 0) & (labels != neutral))
    n, lbl, stats, _ = components(player)
    out = labels
    for j in range(1, n):
        if stats[j, cv2.CC_STAT_AREA] > max_px:
            continue
        x, y, w, h = (int(v) for v in stats[j, :4])
        sub = lbl[y:y + h, x:x + w] == j
        vals = labels[y:y + h, x:x + w][sub]
        counts = np.bincount(vals)
        if np.count_nonzero(counts) < 2:
            continue
        if out is labels:
            out = labels.copy()
        out[y:y + h, x:x + w][sub] = int(counts.argmax())
    return out


def absorb_fragments(labels: np.ndarray, n_owners: int, max_px: float, keep: int | None = None) -> np.ndarray:
    """A small patch of one colour stuck to a bigger blob of another is that piece's shaded wall
    or rim (a blue house's dark wall can look violet): give it to the bigger blob. Patches of
    ``keep`` (neutral pieces, which lie under others and show as a rim) stay what they are."""
    out = labels
    ring = np.ones((3, 3), np.uint8)
    for oi in range(n_owners):
        if oi == keep:
            continue
        m = (labels == oi).astype(np.uint8)
        if not m.any():
            continue
        n, lbl, stats, _ = components(m)
        for j in range(1, n):
            if stats[j, cv2.CC_STAT_AREA] > 4 * max_px:
                continue  # a body, certainly
            x, y, w, h = (int(v) for v in stats[j, :4])
            x0, y0 = max(0, x - 2), max(0, y - 2)
            sub = lbl[y0:y + h + 2, x0:x + w + 2] == j
            if stats[j, cv2.CC_STAT_AREA] > max_px:
                # bigger, but a thin band with no body (an edge blended with the board's lines)?
                core = cv2.erode(sub.astype(np.uint8), CORE_KERNEL)
                if int(core.sum()) > CORE_SHARE * max_px:
                    continue
            edge = (cv2.dilate(sub.astype(np.uint8), ring) > 0) & ~sub
            around = labels[y0:y + h + 2, x0:x + w + 2][edge]
            others = around[(around >= 0) & (around != oi) & (around != (-3 if keep is None else keep))]
            if len(others) >= 3:
                if out is labels:
                    out = labels.copy()
                out[y0:y + h + 2, x0:x + w + 2][sub] = np.bincount(others).argmax()
    return out


class MassMeter:
    """A blob's size as its colour mass: the sum over it and its fringe of each pixel's share of
    the piece's colour (its difference from the board, projected on the piece colour's
    difference). Blur spreads a piece's colour over more pixels but keeps its mass, so the size
    does not depend on focus, noise threshold or resolution."""

    FRINGE = 2  # px around the blob where blurred colour still counts

    def __init__(self, lab: np.ndarray, ref: np.ndarray, labels: np.ndarray, colour_of: list[np.ndarray]):
        self.lab, self.ref, self.labels, self.colour_of = lab, ref, labels, colour_of
        self.kernel = np.ones((2 * self.FRINGE + 1, 2 * self.FRINGE + 1), np.uint8)

    def area(self, owner: int, lbl: np.ndarray, j: int, stat: np.ndarray) -> float:
        x, y, w, h = (int(v) for v in stat[:4])
        f = self.FRINGE
        H, W = lbl.shape
        x0, y0, x1, y1 = max(0, x - f), max(0, y - f), min(W, x + w + f), min(H, y + h + f)
        blob = (lbl[y0:y1, x0:x1] == j).astype(np.uint8)
        lab = self.labels[y0:y1, x0:x1]
        region = (cv2.dilate(blob, self.kernel) > 0) & ((lab == owner) | (lab == -2) | (blob > 0))
        d = self.lab[y0:y1, x0:x1][region] - self.ref[y0:y1, x0:x1][region]
        u = self.colour_of[owner][None, :] - self.ref[y0:y1, x0:x1][region]
        w8 = np.array([0.5, 1.0, 1.0], np.float32)
        num = ((d * u) * w8).sum(axis=1)
        den = np.maximum(((u * u) * w8).sum(axis=1), 25.0)
        return float(np.clip(num / den, 0.0, 1.0).sum())
