"""BoardReader's tag finding in marker mode: the stickers on the pieces, in the frame.

ArUco runs on the part of the frame (or of the high-resolution detail frame) showing the board,
with its size limits and threshold windows set from the tags' size in pixels. A decoded tag must
be a square of its piece's tag size or it is not believed; squares of a tag's or a sticker's
size whose code is not read are kept as undecoded stickers (their kind from their size). Every
tag's position is mapped to the board with the parallax of its piece's height undone. A mixin of
``vision.reader.BoardReader`` (it uses the reader's ``layout``, ``s``, ``tag_map``,
``tag_dictionary``, ``tag_detector``, ``_tag_sizes``, ``_tag_params`` and ``_scale_cache``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.geometry import parallax
from vision.layout import Layout
from vision.markers import marker_bits
from vision.registration import Registration, to_detail


@dataclass
class Tag:
    """Marker mode: a piece found by its sticker. ``decoded``: its code was read (then ``tag`` is
    its id and ``piece`` the tag map's entry, None for an id in no map); otherwise the sticker was
    seen but not its code, ``kind`` comes from its size and ``piece`` from the colour around it."""

    piece: Piece | None
    tag: int | None
    x: float  # board mm, the piece's footprint centre (parallax undone)
    y: float
    pts: np.ndarray  # the tag's four corners projected into the board plane, mm
    kind: str
    decoded: bool


class TagFinder:
    """Decoded tags and undecoded stickers in a frame, placed on the board."""

    layout: Layout
    s: float
    tag_map: Mapping[int, Piece]
    tag_dictionary: str

    def _prep_tag_sizes(self) -> dict[str, float]:
        """Printed tag side (mm) per piece kind: a tag must be of its piece's size (a check on
        every decoded tag), and an undecoded sticker's size tells its piece's kind."""
        from vision.piece_tags import tag_size_mm

        return {k: tag_size_mm(spec, self.tag_dictionary, self.layout) for k, spec in self.layout.pieces.items()}

    def _top_scale(self, cam: np.ndarray | None, height: float) -> float:
        """How much larger a piece's top face looks, projected into the board plane, than it is."""
        if cam is None:
            return 1.0
        ch = -float(cam[2])
        return ch / (ch - height) if ch > height + 1 else 1.0

    def _read_tags(self, gray: np.ndarray, reg: Registration, cam: np.ndarray | None,
                   roi: tuple[int, int, int, int] | None = None, detail: np.ndarray | None = None
                   ) -> list[Tag]:
        """Tags on the pieces: decoded ones (checked against their piece's tag size) and stickers
        whose code could not be read (ArUco's rejected square candidates of a piece tag's size:
        ``decoded=False``, the kind from the size, the owner decided later from the colour
        around it). With ``detail`` the tags are looked for in that higher-resolution frame."""
        w, h = self.layout.size
        if roi is None:
            bx = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
        else:  # a partial read: only the part of the frame showing the re-read spaces
            x0, y0, x1, y1 = (v / self.s for v in roi)
            bx = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
        Hm = reg.homography
        src = gray
        if detail is not None:
            Hm = to_detail(Hm, gray.shape, detail.shape)
            src = detail
        box = cv2.perspectiveTransform(bx.reshape(-1, 1, 2), Hm).reshape(-1, 2)
        H, W = src.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int) - 4, 0, [W, H])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int) + 4, 0, [W, H])
        crop = src[y0:y1, x0:x1]
        if crop.ndim == 3:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        # ArUco's size limits are fractions of the image's larger side: set them from the tags'
        # size in pixels here. Too low a limit lets the small squares inside a tag crowd out the
        # tag itself (ArUco groups nearby candidates), so it is set just under the smallest tag.
        lo, hi = self._px_per_mm_range(Hm, reg.homography)
        sizes = [v * self._top_scale(cam, self.layout.pieces[k].height) for k, v in self._tag_sizes.items()]
        p = self._tag_params
        p.minMarkerPerimeterRate = 0.65 * 4 * min(sizes) * lo / max(crop.shape)
        p.maxMarkerPerimeterRate = 1.6 * 4 * max(sizes) * hi / max(crop.shape)
        # threshold windows for the cells' size: at ~1.2 px/mm (720p) 5 and 15 px decode most,
        # from ~2 px/mm the 2-4 cell wide black runs of a big tag need up to 23 px
        p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeMax = (3, 23) if lo >= 2.0 else (5, 15)
        p.adaptiveThreshWinSizeStep = 10
        self.tag_detector.setDetectorParameters(p)
        corners, ids, rejected = self.tag_detector.detectMarkers(crop)
        Hinv = np.linalg.inv(Hm)
        out: list[Tag] = []

        def to_board(c: np.ndarray) -> np.ndarray:
            return cv2.perspectiveTransform((c.reshape(-1, 1, 2) + [x0, y0]).astype(np.float64), Hinv).reshape(-1, 2)

        heights = {k: spec.height for k, spec in self.layout.pieces.items()}
        unsure = list(rejected or ())  # squares whose code was not read, or not believed
        for c, tid in zip(corners, ids.ravel() if ids is not None else ()):
            pts = to_board(c)
            sides = np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)
            if sides.min() < 0.85 * sides.max():
                unsure.append(c)
                continue  # a tag lies flat on a piece's top: a square seen from above
            side = float(sides.mean())
            piece = self.tag_map.get(int(tid))
            kinds = [piece.kind] if piece and piece.kind in self._tag_sizes else list(self._tag_sizes)
            # a decoded code must also have the printed size of its piece's tag (decoded tags
            # measure within ~6 %): a code found in the artwork, or read from a quad that ArUco
            # took around a sticker rather than its tag, is not believed
            # an id in no map must fit a tag's size more closely: it is reported, and a quad that
            # ArUco took around a sticker instead of its tag can decode to an unused id
            tol = 0.2 if piece else 0.12
            fits = [k for k in kinds if abs(side / (self._tag_sizes[k] * self._top_scale(cam, heights[k])) - 1) <= tol]
            if not fits:
                unsure.append(c)
                continue
            kind = fits[0]
            cx, cy = pts.mean(axis=0)
            # tags sit on top of the piece: undo the parallax of that height (the tag's own
            # board-plane position lies farther from the camera than the piece's footprint)
            dtop = parallax(np.array([[cx, cy]]), cam, heights[kind])[0]
            out.append(Tag(piece, int(tid), float(cx - dtop[0]), float(cy - dtop[1]), pts, kind, True))
        # undecoded stickers: square candidates of one kind's tag size, not inside a decoded tag
        cells = marker_bits(self.tag_dictionary)
        margin = (cells + 1.0) / cells  # sticker side / tag side (half a cell of white margin)
        cands = []
        for c in unsure:
            pts = to_board(c)
            sides = np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)
            if sides.min() < 0.8 * sides.max():
                continue  # not a square seen from above
            side = float(sides.mean())
            # the candidate is the tag's black square, or the sticker's outline (its white margin
            # against the piece's rim; ArUco keeps one of two nested squares)
            for f in (1.0, margin):
                kinds = tuple(k for k, size in self._tag_sizes.items()
                              if abs(side / (f * size * self._top_scale(cam, heights[k])) - 1) <= 0.15)
                if kinds:
                    c = pts.mean(axis=0)
                    cands.append((side / f, kinds, c + (pts - c) / f))
                    break
        cands.sort(key=lambda t: -t[0])  # big first: a big tag's inner squares are not tags
        for side, kinds, pts in cands:
            cx, cy = pts.mean(axis=0)
            if any(np.hypot(cx - t.pts[:, 0].mean(), cy - t.pts[:, 1].mean()) < 0.6 * self._tag_sizes[t.kind] + 0.5 * side
                   for t in out):
                continue
            for kind in kinds:  # kinds whose tags have this size (the colour around decides)
                dtop = parallax(np.array([[cx, cy]]), cam, heights[kind])[0]
                out.append(Tag(None, None, float(cx - dtop[0]), float(cy - dtop[1]), pts, kind, False))
        return out

    def _px_per_mm_range(self, Hm: np.ndarray, key: np.ndarray) -> tuple[float, float]:
        """Smallest and largest image scale (px per board mm) over the board, cached."""
        if self._scale_cache is None or self._scale_cache[0] is not key or not np.array_equal(self._scale_cache[1], Hm):
            w, h = self.layout.size
            g = np.array([[x, y] for x in np.linspace(0, w, 5) for y in np.linspace(0, h, 5)], float)
            pts = np.concatenate([g, g + [1, 0], g + [0, 1]]).reshape(-1, 1, 2)
            img = cv2.perspectiveTransform(pts, Hm).reshape(3, -1, 2)
            d = np.concatenate([np.linalg.norm(img[1] - img[0], axis=1), np.linalg.norm(img[2] - img[0], axis=1)])
            self._scale_cache = (key, Hm.copy(), (float(d.min()), float(d.max())))
        return self._scale_cache[2]
