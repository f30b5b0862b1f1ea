"""BoardReader's pieces in marker mode: what the tags found mean on the board.

The owner of an undecoded sticker comes from the colour around it; every piece found by a sticker
is taken out of the colour image (its sticker and its outline swept up to its top), and what
piece colour is left is read as in colour mode with a lower confidence. A fortress whose sticker
is hidden under a house is found from its black rim, which must span most of its width (a
sticker's black square is no fortress). A mixin of ``vision.reader.BoardReader`` (it uses the
reader's ``layout``, ``s``, ``tag_dictionary``, ``_classes``, ``_neutral_kind``, ``_small_r``,
``_player_kinds`` and the colour-mode counting of ``vision.legacy_counting``).
"""

from __future__ import annotations

import math
from collections import Counter

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.detection import SpaceResult
from vision.geometry import parallax
from vision.layout import Layout
from vision.legacy_blobs import Component
from vision.markers import marker_bits
from vision.marker_tags import Tag

FALLBACK_CONFIDENCE = 0.6  # a piece read by colour because its sticker was not found
STICKER_CONFIDENCE = 0.8  # a sticker seen whose code was not read (kind by size, owner by rim)


class MarkerPieces:
    """Tags -> pieces per space, with the colour fallback for pieces whose sticker was not seen."""

    layout: Layout
    s: float
    tag_dictionary: str
    _classes: tuple[str, ...]
    _neutral_kind: dict[int, str]
    _small_r: float
    _player_kinds: list[str]

    def _piece_hull(self, t: Tag, cam: np.ndarray | None, grow: float = 1.5) -> np.ndarray:
        """Board-plane outline (mm) of a tagged piece as the camera sees it: its footprint swept
        up to its top (with parallax), grown by ``grow`` mm. The sticker's edges are taken to be
        parallel to the piece's sides (either way round)."""
        spec = self.layout.pieces[t.kind]
        d = t.pts[1] - t.pts[0]
        angle = math.degrees(math.atan2(d[1], d[0]))
        outs = [spec.outline(t.x, t.y, angle, 16)]
        if spec.footprint == "rect" and spec.size[0] != spec.size[-1]:
            outs.append(spec.outline(t.x, t.y, angle + 90, 16))
        pts = np.vstack(outs)
        c = np.array([t.x, t.y])
        v = pts - c
        n = np.linalg.norm(v, axis=1, keepdims=True)
        pts = c + v * (n + grow) / np.maximum(n, 1e-6)
        top = pts + parallax(pts, cam, spec.height)
        return cv2.convexHull(np.vstack([pts, top]).astype(np.float32)).reshape(-1, 2)

    def _resolve_stickers(self, labels: np.ndarray, tags: list[Tag], cam: np.ndarray | None) -> list[Tag]:
        """Owner of each undecoded sticker from the colour around it (the piece's rim and
        walls): a player's colour for a player's piece, the neutral colour for a neutral piece.
        Where two kinds have stickers of one size, the colour decides which it is; a candidate
        with no piece colour around it (a square in the artwork) is dropped."""
        s = self.s
        h, w = labels.shape
        neutral = list(self._neutral_kind)
        out: list[Tag] = []
        best: dict[int, tuple[float, Tag]] = {}  # per sticker: the best-fitting kind
        for t in tags:
            if t.decoded:
                out.append(t)
                continue
            spec = self.layout.pieces[t.kind]
            hull = self._piece_hull(t, cam, grow=1.0) * s
            x0, y0 = np.maximum(np.floor(hull.min(axis=0)).astype(int), 0)
            x1, y1 = np.minimum(np.ceil(hull.max(axis=0)).astype(int) + 1, [w, h])
            if x1 <= x0 or y1 <= y0:
                continue
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(m, np.round((hull - [x0, y0]) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
            c = t.pts.mean(axis=0)
            sticker = (c + (t.pts - c) * (1 + 1.0 / marker_bits(self.tag_dictionary))) * s  # with its margin
            cv2.fillConvexPoly(m, np.round((sticker - [x0, y0]) * 16).astype(np.int32), 0, cv2.LINE_8, 4)
            ring = int(m.sum())
            lab = labels[y0:y1, x0:x1][m > 0]
            lab = lab[lab >= 0]
            is_neutral = np.isin(lab, neutral)
            if spec.neutral:
                owner, n_own = "neutral", int(is_neutral.sum())
            else:
                lab = lab[~is_neutral]
                if not lab.size:
                    continue
                cls = int(np.bincount(lab).argmax())
                owner, n_own = self._classes[cls], int((lab == cls).sum())
            if ring == 0 or n_own < max(3.0, 0.25 * ring):
                continue
            key = id(t.pts)
            score = n_own / ring
            if key not in best or score > best[key][0]:
                best[key] = (score, Tag(Piece(owner, t.kind), None, t.x, t.y, t.pts, t.kind, False))
        return out + [t for _, t in best.values()]

    def _mask_tags(self, labels: np.ndarray, tags: list[Tag], cam: np.ndarray | None) -> np.ndarray:
        """Board pixels of the pieces found by their tag (decoded or not): their sticker, and the
        piece around it except a dark neutral piece it may stand on (a house on a fortress shows
        the fortress's rim). Taken out of the colour image, what is left of a piece colour is a
        piece without a sticker found (read by colour); for the occlusion test they are pieces."""
        s = self.s
        h, w = labels.shape
        neutral = np.array(sorted(self._neutral_kind), np.int16)
        taken = np.zeros((h, w), np.uint8)
        for t in tags:
            c = t.pts.mean(axis=0)
            sticker = np.round((c + (t.pts - c) * 1.22) * s * 16).astype(np.int32)  # with its margin
            if t.piece is not None:
                hull = self._piece_hull(t, cam) * s
                x0, y0 = np.maximum(np.floor(hull.min(axis=0)).astype(int), 0)
                x1, y1 = np.minimum(np.ceil(hull.max(axis=0)).astype(int) + 1, [w, h])
                if x1 > x0 and y1 > y0:
                    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
                    cv2.fillConvexPoly(m, np.round((hull - [x0, y0]) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
                    taken[y0:y1, x0:x1] |= m & ~np.isin(labels[y0:y1, x0:x1], neutral)
            cv2.fillConvexPoly(taken, sticker, 1, cv2.LINE_8, 4)
        return taken.view(bool)

    def _fill_sticker_rims(self, labels: np.ndarray, player: np.ndarray, neutral: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Marker mode, before blobs are found: a sticker's black square with a player's colour
        around it takes that colour (``_adopt_stickers``), and the inside of the rim a sticker
        leaves of its piece's colour belongs to the piece. Returns the new class labels and the
        player and neutral masks."""
        labels = labels.copy()
        if self._adopt_stickers(labels, neutral):
            player = ((labels >= 0) & ~np.isin(labels, list(self._neutral_kind))).view(np.uint8)
            neutral = np.isin(labels, list(self._neutral_kind)).view(np.uint8)
        # a sticker on top of a piece (undecoded, or masked out when decoded) leaves only a thin
        # rim of the piece's colour: the sticker's black cells and white margin inside the
        # rim's convex hull belong to the piece, and they are not a dark neutral piece
        hull = np.zeros_like(player)
        min_px = 0.5 * math.pi * self._small_r ** 2 * self.s * self.s
        # at 720p the rim is one or two pixels wide and broken into arcs: the arcs of one
        # colour less than a small piece's radius apart make one hull (touching pieces of
        # one colour make one blob, counted by area and shape as in colour mode)
        kc = max(3, int(round(self._small_r * self.s)) | 1)
        grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc))
        for ci in np.unique(labels[player > 0]):
            m = (labels == ci).view(np.uint8)
            n, cc = cv2.connectedComponents(cv2.dilate(m, grow), connectivity=8)
            cc[m == 0] = 0
            ys, xs = np.nonzero(cc)
            order = np.argsort(cc[ys, xs], kind="stable")
            ids_, starts = np.unique(cc[ys, xs][order], return_index=True)
            for k in range(len(ids_)):
                sel = order[starts[k]:starts[k + 1] if k + 1 < len(ids_) else len(order)]
                if len(sel) < 3:
                    continue
                h_ = cv2.convexHull(np.stack([xs[sel], ys[sel]], axis=1).astype(np.int32))
                if cv2.contourArea(h_) >= min_px:
                    cv2.fillConvexPoly(hull, h_, 1)
        inside = hull & (1 - player)
        neutral[inside > 0] = 0
        labels[inside > 0] = -2
        player = player | hull
        return labels, player, neutral

    def _adopt_stickers(self, labels: np.ndarray, neutral: np.ndarray) -> bool:
        """Marker mode: a dark blob no larger than a sticker's black square (under 70 % of the
        neutral piece's width; a fortress's own black spans its width) with a player's colour
        around it is the sticker of that player's piece: it takes that colour. Returns whether
        any did."""
        specs = [self.layout.pieces[k] for k in self._neutral_kind.values()]
        if not specs or not neutral.any():
            return False
        s = self.s
        max_px = 0.7 * min(p.min_width for p in specs) * s
        neutral_ids = list(self._neutral_kind)
        H, W = labels.shape
        n, cc, stats, _ = cv2.connectedComponentsWithStats(neutral, connectivity=8)
        ring_k = np.ones((5, 5), np.uint8)
        changed = False
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if area < 4 * s * s or max(w, h) > 1.5 * max_px:
                continue
            x0, y0, x1, y1 = max(0, x - 3), max(0, y - 3), min(W, x + w + 3), min(H, y + h + 3)
            blob = (cc[y0:y1, x0:x1] == i).view(np.uint8)
            pts = np.column_stack(np.nonzero(blob))[:, ::-1].astype(np.float32)
            (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
            if max(rw, rh) + 1 > max_px:
                continue
            ring = cv2.dilate(blob, ring_k) & (1 - blob)
            lab = labels[y0:y1, x0:x1][ring > 0]
            lab = lab[(lab >= 0) & ~np.isin(lab, neutral_ids)]
            if lab.size < 3:
                continue
            labels[y0:y1, x0:x1][blob > 0] = int(np.bincount(lab).argmax())
            changed = True
        return changed


    def _count_tags(self, tags: list[Tag], comps: list[Component], cam: np.ndarray | None, occluded: set[int]
                    ) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
        """Marker mode: pieces per space from the tags, neutral pieces from their rims, and the
        colour fallback for pieces whose sticker was not seen; tags off every space are listed."""
        per_space: dict[int, Counter[Piece]] = {}
        unknown: dict[int, list[str]] = {}
        off: list[tuple[str, float, float]] = []
        conf: dict[int, float] = {}
        for t in tags:
            si = self._space_at(t.x, t.y)
            if si < 0:
                what = f"tag {t.tag}" if t.decoded else "sticker"
                off.append((what + (f" ({t.piece.owner} {t.piece.kind})" if t.piece else ""), t.x, t.y))
                continue
            if si in occluded:
                continue
            if t.piece is None:
                unknown.setdefault(si, []).append(f"tag:{t.tag}")
                continue
            per_space.setdefault(si, Counter())[t.piece] += 1
            # a sticker seen but not decoded: its kind from its size, its owner from its rim
            conf[si] = min(conf.get(si, 0.99), 0.99 if t.decoded else STICKER_CONFIDENCE)
        # neutral pieces whose tag is hidden under a piece stacked on them (a house on a fortress)
        neutral_area: dict[tuple[int, str], list[Component]] = {}
        for c in comps:
            neutral = self._neutral_kind.get(c.cls)
            si = self._space_at(c.cx, c.cy)
            if neutral and si >= 0:
                neutral_area.setdefault((si, neutral), []).append(c)
        # the black of a sticker whose piece was not found is no fortress: a fortress's own black
        # spans its whole width around its sticker (which is no larger than a house's, so a
        # house on it leaves that rim visible), a tag's black square at most a house's tag. Under
        # a big piece found by its sticker (only a big piece stands on a neutral one) the rim is
        # broken by the piece: there the colour-mode bound holds.
        kinds = [self.layout.pieces[k] for k in self._player_kinds]
        big = max(kinds, key=lambda k: k.area).kind if kinds else None
        under_big = {si: 0.4 for si, c in per_space.items() if any(p.kind == big and n > 0 for p, n in c.items())}
        self._add_neutral(neutral_area, cam, occluded, per_space, conf, min_extent=0.75, min_extent_at=under_big)
        # colour fallback: the pieces found by a sticker were taken out of the colour image
        # (``_mask_tags``); what piece colour is left belongs to pieces whose sticker was not
        # seen at all (hidden, blurred): read by colour, size and shape as in colour mode, with a
        # lower confidence. A space with a tag that is in no map gets nothing guessed.
        colour, _ = self._count_colour(comps, cam, occluded)
        for si, res in enumerate(colour):
            if res.occluded or not res.pieces or si in unknown:
                continue
            added = False
            for p, n in res.pieces:
                if p.owner == "neutral":
                    continue
                per_space.setdefault(si, Counter())[p] += n
                added = True
            if added:
                conf[si] = min(conf.get(si, 1.0), res.confidence, FALLBACK_CONFIDENCE)
        return self._results(per_space, conf, occluded, {k: tuple(v) for k, v in unknown.items()}), tuple(off)
