"""BoardReader's blobs: connected regions of one piece colour and their shape in board mm.

Blended edge pixels join the blob next to them (not two blobs: a printed line between two pieces
does not weld them), a blob over two spaces is cut at its necks, blobs far larger than any heap
of pieces (a sleeve in a player's colour) become occluders, and each blob is measured: area,
minimum-area rectangle, fill, deepest dent of its outline ("waist") and the number of round
pieces in it ("peaks"). A mixin of ``vision.reader.BoardReader`` (it uses the reader's ``s``,
``mode``, ``_neutral_kind``, ``_small_r``, ``_space_of`` and ``_spaces_near`` from the occlusion
test; marker mode's sticker rims come from ``vision.marker_pieces``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detection import Mode

SLEEVE_MIN_AREA_MM2 = 2500.0  # a piece-coloured blob this big is not pieces
SPLIT_DEPTHS = (0.75, 0.95)  # a blob over two spaces is cut where it is narrower than this many emissary diameters


@dataclass
class Component:
    """One blob of one piece class, measured in board mm."""

    cls: int
    area: float  # mm^2
    cx: float  # mm
    cy: float
    short: float  # min-area-rect sides, mm
    long: float
    fill: float  # area / min-area-rect area
    waist: float = 0.0  # deepest dent of the outline, mm (two touching discs have a waist)
    peaks: int = 0  # separate maxima of the distance to the edge (one per round piece in a heap)


def adopt_edges(player: np.ndarray, unknown: np.ndarray, ker: np.ndarray) -> np.ndarray:
    """Unknown pixels next to a piece blob: its blended edge (piece colour mixed with the
    board's). A pixel next to two separate blobs is left out, so that a printed line between
    two pieces (blended with both) does not join them into one blob."""
    ring = unknown & cv2.dilate(player, ker) & (1 - player)
    if not ring.any():
        return ring
    n, core = cv2.connectedComponents(player, connectivity=8)
    if n <= 2:
        return ring
    core = core.astype(np.uint16)
    hi = cv2.dilate(core, ker)
    lo = cv2.erode(np.where(core > 0, core, np.uint16(65535)), ker)
    ring &= (hi == lo).view(np.uint8)
    # adopted pixels of two blobs that touch each other would join them: drop both
    lab = np.where(ring > 0, hi, core).astype(np.uint16)
    hi2 = cv2.dilate(lab, ker)
    lo2 = cv2.erode(np.where(lab > 0, lab, np.uint16(65535)), ker)
    ring &= (hi2 == lo2).view(np.uint8)
    return ring


def count_peaks(sub: np.ndarray, r_px: float) -> int:
    """Round pieces in a heap: local maxima of the distance to the blob's edge that are at
    least half a piece radius deep, one plateau per piece."""
    m = cv2.copyMakeBorder(sub, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=0)
    dt = cv2.distanceTransform(m, cv2.DIST_L2, 5)
    k = max(3, int(round(1.3 * r_px)) | 1)
    mx = cv2.dilate(dt, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    peak = ((dt >= mx - 0.3) & (dt >= 0.55 * r_px)).astype(np.uint8)
    n, _ = cv2.connectedComponents(peak, connectivity=8)
    return n - 1


class BlobFinder:
    """Blobs of one piece colour each, with their shape features."""

    s: float
    mode: Mode
    _neutral_kind: dict[int, str]
    _small_r: float
    _space_of: np.ndarray

    def _components(self, labels: np.ndarray, occ: np.ndarray, roi: tuple[int, int, int, int] | None = None
                    ) -> tuple[list[Component], set[int]]:
        """Connected blobs of one piece class each, with their shape features. Blobs far larger
        than any heap of pieces (a sleeve in a player colour) become occluders; returns the
        spaces they hide. With ``roi`` only that part of the board is looked at."""
        s = self.s
        full_shape = labels.shape
        ox = oy = 0
        if roi is not None:
            ox, oy, rx1, ry1 = roi
            labels, occ = labels[oy:ry1, ox:rx1], occ[oy:ry1, ox:rx1]
        out: list[Component] = []
        ker = np.ones((3, 3), np.uint8)
        player = np.zeros(labels.shape, np.uint8)
        player[labels >= 0] = 1
        for ci in self._neutral_kind:
            player[labels == ci] = 0
        neutral = np.zeros(labels.shape, np.uint8)
        for ci in self._neutral_kind:
            neutral[labels == ci] = 1
        unknown = (labels == -2).view(np.uint8)
        if self.mode is Mode.MARKER:
            labels, player, neutral = self._fill_sticker_rims(labels, player, neutral)
        player = cv2.morphologyEx(player, cv2.MORPH_OPEN, ker)
        player |= adopt_edges(player, unknown, ker)  # blended edge pixels belong to the piece
        if occ.any():
            player[occ > 0] = 0
            neutral[occ > 0] = 0
        extra_occ: set[int] = set()
        limit = SLEEVE_MIN_AREA_MM2 * s * s
        for mask, is_neutral in ((player, False), (neutral, True)):
            n, cc, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
            for i in range(1, n):
                x, y, w, h = stats[i, :4]
                area_px = stats[i, cv2.CC_STAT_AREA]
                if area_px < 25 * s * s:
                    continue
                sub = (cc[y:y + h, x:x + w] == i)
                if not is_neutral and area_px >= limit:
                    big = np.zeros(full_shape, np.uint8)
                    big[oy + y:oy + y + h, ox + x:ox + x + w][sub] = 1
                    extra_occ |= self._spaces_near(big)
                    continue
                lab = labels[y:y + h, x:x + w]
                classes = np.unique(lab[sub & (lab >= 0)])
                if len(classes) == 1:
                    # the usual case: one piece colour; unknown edge pixels are already adopted
                    part = cv2.morphologyEx(sub.view(np.uint8), cv2.MORPH_CLOSE, ker)
                    parts = self._split_across_spaces(part, ox + x, oy + y) if not is_neutral else None
                    if parts is None:
                        out.extend(self._features(part, int(classes[0]), ox + x, oy + y, single=True))
                    else:
                        for p in parts:
                            out.extend(self._features(p, int(classes[0]), ox + x, oy + y))
                    continue
                for ci in classes:  # several piece colours touch (none: nothing to measure)
                    if (ci in self._neutral_kind) != is_neutral:
                        continue
                    part = sub & (lab == ci)
                    # give unknown edge pixels next to it to this class, then close small gaps
                    part = part | (sub & (lab == -2)) & cv2.dilate(part.view(np.uint8), ker).astype(bool)
                    part = cv2.morphologyEx(part.view(np.uint8), cv2.MORPH_CLOSE, ker)
                    parts = self._split_across_spaces(part, ox + x, oy + y) if not is_neutral else None
                    for p in parts or (part,):
                        out.extend(self._features(p, ci, ox + x, oy + y))
        return out, extra_occ

    def _split_across_spaces(self, mask: np.ndarray, x0: int, y0: int) -> list[np.ndarray] | None:
        """A blob lying over two spaces is (nearly always) pieces on both that touch in the image
        (a leaning house and an emissary at the edge of the next space). Cut it at its necks: an
        the points deeper inside the blob than SPLIT_DEPTHS small-piece radii are the cores of whole
        pieces (a house, an emissary), the narrow contact between two is not; every pixel then
        goes to the nearest core. Returns the parts, or None when the blob stays whole."""
        if not self._small_r:
            return None
        s = self.s
        h, w = mask.shape
        where = self._space_of[y0:y0 + h, x0:x0 + w][mask > 0]
        where = where[where >= 0]
        if where.size == 0:
            return None
        counts = np.bincount(where)
        min_px = 0.5 * math.pi * self._small_r ** 2 * s * s
        if np.count_nonzero(counts >= min_px) < 2:
            return None
        d = 2
        m = cv2.copyMakeBorder(mask, d, d, d, d, cv2.BORDER_CONSTANT, value=0)
        dt = cv2.distanceTransform(m, cv2.DIST_L2, 5)
        for depth in SPLIT_DEPTHS:  # a thicker contact needs a deeper cut
            core = (dt >= depth * self._small_r * s).view(np.uint8)
            n, cc = cv2.connectedComponents(core, connectivity=8)
            if n <= 2:
                continue
            # every blob pixel goes to the nearest core
            _, near = cv2.distanceTransformWithLabels(1 - core, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP)
            core_at = np.zeros(int(near.max()) + 1, np.int32)
            ys, xs = np.nonzero(core)
            core_at[near[ys, xs]] = cc[ys, xs]
            owner = core_at[near][d:d + h, d:d + w]
            parts = [((owner == k) & (mask > 0)).view(np.uint8) for k in range(1, n)]
            # keep the cut only where it separates pieces of different spaces, each of a piece's size
            spaces = set()
            for p in parts:
                if np.count_nonzero(p) < min_px:
                    break
                ys, xs = np.nonzero(p)
                spaces.add(int(self._space_of[y0 + int(ys.mean()), x0 + int(xs.mean())]))
            else:
                if len(spaces) >= 2:
                    return parts
        return None

    def _features(self, mask: np.ndarray, ci: int, x0: int, y0: int, single: bool = False) -> list[Component]:
        """Shape features of the blobs in ``mask`` (board pixels from ``x0``, ``y0``) of class
        ``ci``; ``single``: the mask is one connected blob. Blobs under 25 mm^2 are specks."""
        s = self.s
        out = []
        if single:  # ``mask`` is one connected blob already
            m = cv2.moments(mask, binaryImage=True)
            n, stats, cents = 2, None, None
        else:
            n, cc, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for i in range(1, n):
            if single:
                area = m["m00"] / (s * s)
                x, y = 0, 0
                centre = (m["m10"] / max(m["m00"], 1), m["m01"] / max(m["m00"], 1))
                sub = mask
            else:
                area = stats[i, cv2.CC_STAT_AREA] / (s * s)
                x, y, w, h = stats[i, :4]
                centre = cents[i]
                sub = (cc[y:y + h, x:x + w] == i).view(np.uint8)
            if area < 25:
                continue
            cnts, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            pts = np.vstack(cnts).reshape(-1, 2).astype(np.float32)
            (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
            rw, rh = (rw + 1) / s, (rh + 1) / s
            fill = area / max(1e-6, rw * rh)
            main = max(cnts, key=cv2.contourArea)
            waist = 0.0
            if len(main) >= 4:
                hull_idx = cv2.convexHull(main, returnPoints=False)
                try:
                    defects = cv2.convexityDefects(main, hull_idx)
                except cv2.error:  # self-intersecting pixel contours
                    defects = None
                if defects is not None and len(defects):
                    waist = float(defects.reshape(-1, 4)[:, 3].max()) / 256.0 / s
            peaks = 0
            if self._small_r and ci not in self._neutral_kind and area >= 1.5 * math.pi * self._small_r ** 2:
                peaks = count_peaks(sub, self._small_r * s)
            out.append(Component(int(ci), area, (centre[0] + x0) / s, (centre[1] + y0) / s, min(rw, rh),
                                  max(rw, rh), fill, waist, peaks))
        return out
