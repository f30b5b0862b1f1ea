"""Camera frame -> pieces per board space.

One ``BoardReader`` per camera. For each frame it (1) keeps the board registered (``Registrar``),
(2) rectifies the board to ``px_per_mm`` pixels per millimetre, (3) corrects the light against
the calibrated empty board, (4) finds foreground and classifies it by colour, (5) flags spaces
under a hand or arm, and (6) reads the pieces: by colour, size and shape (colour mode) or by the
tag on each piece (marker mode). Covered spaces are reported occluded and never read.
"""

from __future__ import annotations

import enum
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Mapping

import cv2
import numpy as np

from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import Piece
from vision.calibration import PX_PER_MM, Calibration, default_calibration
from vision.geometry import camera_from_homography, parallax
from vision.layout import Layout, PieceSpec
from vision.markers import PIECE_DICTIONARY, piece_detector
from vision.registration import Registrar, Registration

DEFAULT_FOV_DEG = 66.0
AREA_GROWTH = 1.2
STRONG_CHROMA = 22  # L1 distance in (a, b) from the empty board: surely a piece (or a hand)
WEAK_CHROMA = 10  # a little different: enough to notice a hand, not to read a piece
UNKNOWN_DISTANCE = 24.0  # farther than this from every piece colour: not a piece
HAND_MIN_AREA_MM2 = 150.0
EDGE_MIN = 12  # gradient of a printed line on the reference board
BLOCK_MM = 10.0  # block size for the "printed lines vanished" test  # unexplained foreground at least this big is a hand or an arm
SLEEVE_MIN_AREA_MM2 = 2500.0  # a piece-coloured blob this big is not pieces


class Mode(enum.StrEnum):
    COLOUR = "colour"
    MARKER = "marker"


@dataclass(frozen=True, slots=True)
class SpaceResult:
    space: str
    pieces: tuple[tuple[Piece, int], ...] = ()
    confidence: float = 1.0
    occluded: bool = False
    unknown: tuple[str, ...] = ()

    def reading(self) -> SpaceReading:
        if self.occluded:
            return SpaceReading.of(self.space, (), confidence=0.0, occluded=True)
        return SpaceReading.of(self.space, dict(self.pieces), confidence=self.confidence, unknown=self.unknown)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "pieces": [{"owner": str(p.owner), "kind": p.kind, "count": n} for p, n in self.pieces],
            "confidence": round(self.confidence, 3),
        }
        if self.occluded:
            out = {"pieces": [], "confidence": 0.0, "occluded": True}
        if self.unknown:
            out["unknown"] = list(self.unknown)
        return out


@dataclass(frozen=True)
class Detection:
    at: float
    mode: Mode
    registration: Registration
    spaces: tuple[SpaceResult, ...]
    off_space: tuple[tuple[str, float, float], ...] = ()  # (description, x mm, y mm)
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    reused: bool = False  # nothing changed since the last frame: the last reading was kept

    @property
    def occluded(self) -> tuple[str, ...]:
        return tuple(s.space for s in self.spaces if s.occluded)

    def observation(self, source: str = "camera") -> Observation:
        return Observation(source=source, at=self.at, readings=tuple(s.reading() for s in self.spaces))

    def to_json(self) -> dict[str, object]:
        return {
            "at": self.at,
            "mode": str(self.mode),
            "registration": self.registration.to_json(),
            "spaces": {s.space: s.to_json() for s in self.spaces},
            "occluded": list(self.occluded),
            "off_space": [{"what": w, "x_mm": round(x, 1), "y_mm": round(y, 1)} for w, x, y in self.off_space],
        }


@dataclass
class _Component:
    cls: int
    area: float  # mm^2
    cx: float  # mm
    cy: float
    short: float  # min-area-rect sides, mm
    long: float
    fill: float  # area / min-area-rect area
    waist: float = 0.0  # deepest dent of the outline, mm (two touching discs have a waist)
    peaks: int = 0  # separate maxima of the distance to the edge (one per round piece in a heap)


class BoardReader:
    """Reads one board from a stream of frames (or single images).

    ``clock`` gives the time stamp of each detection when ``read`` is not told one.
    """

    def __init__(self, layout: Layout, *, mode: Mode | str = Mode.COLOUR, calibration: Calibration | None = None,
                 tag_map: Mapping[int, Piece] | None = None, fov_deg: float = DEFAULT_FOV_DEG,
                 clock: Callable[[], float] = time.monotonic, registrar: Registrar | None = None):
        self.layout = layout
        self.mode = Mode(mode)
        self.cal = calibration or default_calibration(layout, PX_PER_MM)
        if self.cal.layout_id != layout.id:
            from vision.errors import CalibrationError

            raise CalibrationError(f"calibration is for layout {self.cal.layout_id!r}, not {layout.id!r}")
        self.s = self.cal.px_per_mm
        self.tag_map = dict(tag_map or {})
        if self.mode is Mode.MARKER and not self.tag_map:
            raise ValueError("marker mode needs a tag map (tag id -> piece)")
        self.fov_deg = fov_deg
        self.clock = clock
        self.registrar = registrar or Registrar(layout)
        self.tag_detector = piece_detector(PIECE_DICTIONARY)
        self._classes = self.cal.model.classes
        self._neutral_kind = {i: c.split(":", 1)[1] for i, c in enumerate(self._classes) if c.startswith("neutral:")}
        self._player_kinds = [k for k in layout.player_kinds()]
        rounds = [layout.pieces[k] for k in self._player_kinds if layout.pieces[k].footprint == "circle"]
        self._small_r = min(p.size[0] for p in rounds) / 2 if rounds else 0.0
        self._prep_reference()
        self._prep_spaces()
        self._last: tuple[np.ndarray, Detection] | None = None
        self._maps: tuple | None = None

    # ------------------------------------------------------------------ set-up
    def _prep_reference(self) -> None:
        ref = self.cal.reference
        h, w = ref.shape[:2]
        self._q = 8
        self._small_size = (max(1, w // self._q), max(1, h // self._q))
        self._ref_small = cv2.resize(ref, self._small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        lab = self.cal.reference_lab.astype(np.float32)
        self._ref_L = lab[..., 0]
        # darkest reference value nearby: a print line that the registration misses by a
        # millimetre must not look like a dark piece
        self._ref_L_min = cv2.erode(lab[..., 0], np.ones((3, 3), np.uint8))
        protos = self.cal.model.protos.astype(np.float32).copy()
        protos[:, 0] *= 0.5
        self._protos = protos
        self._proto_class = self.cal.model.proto_class
        ref_lab8 = self.cal.reference_lab
        self._ref_a8 = np.ascontiguousarray(ref_lab8[..., 1])
        self._ref_b8 = np.ascontiguousarray(ref_lab8[..., 2])
        self._dark_limit = np.clip(self._ref_L_min * 0.5, 0, 255).astype(np.uint8)
        self._bright_limit = np.clip(self._ref_L + 40, 0, 255).astype(np.uint8)
        self._build_lut()
        # printed structure of the board (lines, outlines, text): a hand hides it even where its
        # colour matches the board
        ref_l = cv2.GaussianBlur(self.cal.reference_lab[..., 0], (3, 3), 0)
        self._ref_grad = self._gradient(ref_l)
        self._ref_edges = (self._ref_grad >= EDGE_MIN).view(np.uint8)
        blk = int(round(BLOCK_MM * self.s))
        h, w = ref_l.shape
        self._blocks = (max(1, w // blk), max(1, h // blk))
        self._edge_count = cv2.resize(self._ref_edges.astype(np.float32), self._blocks, interpolation=cv2.INTER_AREA)

    def _prep_spaces(self) -> None:
        s = self.s
        w, h = self.cal.reference.shape[1], self.cal.reference.shape[0]
        self._space_masks = []
        grow = int(round(30 * s))  # how far from a space a hand still makes it unreadable
        for sp in self.layout.spaces:
            poly = np.asarray(sp.polygon) * s
            x0, y0 = np.floor(poly.min(axis=0)).astype(int) - grow
            x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + grow + 1
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(m, [np.round((poly - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
            self._space_masks.append(((x0, y0, x1, y1), m))
        self._grow_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        # which space a board point belongs to: label image of spaces grown by 8 mm
        lab = np.full((h, w), -1, np.int16)
        margin = 8.0
        order = sorted(range(len(self.layout.spaces)), key=lambda i: -self.layout.spaces[i].area)
        dist = np.full((h, w), np.inf, np.float32)
        for i in order:
            sp = self.layout.spaces[i]
            m = np.zeros((h, w), np.uint8)
            cv2.fillPoly(m, [np.round(np.asarray(sp.polygon) * s * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
            d = cv2.distanceTransform(1 - m, cv2.DIST_L2, 3) / s
            better = (d <= margin) & (d < dist)
            lab[better] = i
            dist[better] = d[better]
        self._space_of = lab

    # ------------------------------------------------------------------ per frame
    def read(self, frame: np.ndarray, at: float | None = None) -> Detection:
        t0 = time.perf_counter()
        at = self.clock() if at is None else at
        if frame is None or frame.ndim != 3:
            raise ValueError("a frame must be a BGR image")
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        reg = self.registrar.update(gray)
        t_reg = time.perf_counter()
        if not reg.usable:
            self._last = None
            spaces = tuple(SpaceResult(sp.id, (), 0.0, True) for sp in self.layout.spaces)
            return Detection(at, self.mode, reg, spaces, timings_ms={"registration": (t_reg - t0) * 1e3})
        small = self._board_thumbnail(gray, reg)
        if self._last is not None and not reg.fresh and self._unchanged(small, self._last[0]):
            prev = self._last[1]
            return Detection(at, self.mode, reg, prev.spaces, prev.off_space,
                             {"registration": (t_reg - t0) * 1e3, "total": (time.perf_counter() - t0) * 1e3},
                             reused=True)
        rect = self._rectify(frame, reg.homography)
        t_rect = time.perf_counter()
        cam = camera_from_homography(reg.homography, (frame.shape[1], frame.shape[0]), self.fov_deg)
        corrected = self._normalise_light(rect)
        labels, weak = self._classify(corrected)
        t_cls = time.perf_counter()
        tags: list[tuple[Piece | None, int, float, float, np.ndarray]] = []
        if self.mode is Mode.MARKER:
            tags = self._read_tags(gray, reg, cam)
            self._mask_tags(labels, weak, tags)
        occ_spaces, occ_mask = self._occlusion(labels, weak, self._last_l)
        comps, sleeve = self._components(labels, occ_mask)
        occ_spaces |= sleeve
        t_seg = time.perf_counter()
        if self.mode is Mode.COLOUR:
            spaces, off = self._count_colour(comps, cam, occ_spaces)
        else:
            spaces, off = self._count_tags(tags, comps, cam, occ_spaces)
        t_end = time.perf_counter()
        det = Detection(at, self.mode, reg, spaces, off, {
            "registration": (t_reg - t0) * 1e3, "rectify": (t_rect - t_reg) * 1e3,
            "classify": (t_cls - t_rect) * 1e3, "segment": (t_seg - t_cls) * 1e3,
            "count": (t_end - t_seg) * 1e3, "total": (t_end - t0) * 1e3})
        self._last = (small, det)
        return det

    def _board_thumbnail(self, gray: np.ndarray, reg: Registration) -> np.ndarray:
        """The board's bounding box in the frame at 1/8 size: what the change test compares
        (people moving around the table do not count)."""
        w, h = self.layout.size
        box = reg.board_to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        H, W = gray.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int), 0, [W - 1, H - 1])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int), [x0 + 1, y0 + 1], [W, H])
        crop = gray[y0:y1, x0:x1]
        return cv2.resize(crop, (max(1, crop.shape[1] // 8), max(1, crop.shape[0] // 8)), interpolation=cv2.INTER_AREA)

    def _unchanged(self, small: np.ndarray, last_small: np.ndarray, tol: float = 6.0) -> bool:
        """True when no 8x8-pixel block of the frame changed by more than ``tol`` grey levels
        since the last frame that was read in full (so slow drifts add up and are noticed)."""
        if small.shape != last_small.shape:
            return False
        return float(cv2.absdiff(small, last_small).max()) <= tol

    def _rectify(self, frame: np.ndarray, H: np.ndarray) -> np.ndarray:
        """Like ``calibration.rectify`` but with the pixel maps cached while the homography stays."""
        if self._maps is None or self._maps[0] is not H or self._maps[1] != frame.shape:
            w, h = self.cal.reference.shape[1], self.cal.reference.shape[0]
            xs, ys = np.meshgrid(np.arange(w, dtype=np.float32) / self.s, np.arange(h, dtype=np.float32) / self.s)
            grid = np.dstack([xs, ys])
            mapped = cv2.perspectiveTransform(grid, H.astype(np.float64))
            m1, m2 = cv2.convertMaps(mapped[..., 0].copy(), mapped[..., 1].copy(), cv2.CV_16SC2)
            self._maps = (H, frame.shape, m1, m2)
        return cv2.remap(frame, self._maps[2], self._maps[3], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _normalise_light(self, rect: np.ndarray) -> np.ndarray:
        """Divide out the light: a global white balance (per channel, median over the board) times
        a smooth brightness field (median-filtered over ~60 mm, so pieces and hands do not bend it)."""
        small = cv2.resize(rect, self._small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        ratio = small / self._ref_small
        wb = np.median(ratio.reshape(-1, 3), axis=0)
        lum = (ratio / wb).mean(axis=2)
        lum8 = np.clip(lum * 100, 0, 255).astype(np.uint8)
        lum8 = cv2.medianBlur(lum8, 7)
        fieldf = cv2.GaussianBlur(lum8.astype(np.float32) / 100.0, (0, 0), 1.0)
        fieldf = np.maximum(fieldf, 0.05)
        inv = (1.0 / fieldf)[..., None] / wb[None, None, :].astype(np.float32)
        h, w = rect.shape[:2]
        gain = cv2.resize(inv.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        return cv2.multiply(rect, gain, dtype=cv2.CV_8U)

    def _build_lut(self) -> None:
        """Colour lookup table over quantised Lab (L in steps of 8, a and b in steps of 4): the
        class of the nearest prototype, or unknown (-2) when none is near. Built once per
        calibration, so classifying a frame is one table lookup per pixel."""
        Ls = (np.arange(32) * 8 + 4).astype(np.float32)
        ab = (np.arange(64) * 4 + 2).astype(np.float32)
        grid = np.stack(np.meshgrid(Ls * 0.5, ab, ab, indexing="ij"), axis=-1).reshape(-1, 3)
        best = np.empty(len(grid), np.int16)
        for i in range(0, len(grid), 16384):
            g = grid[i:i + 16384]
            d2 = ((g[:, None, :] - self._protos[None, :, :]) ** 2).sum(axis=2)
            j = d2.argmin(axis=1)
            cls = self._proto_class[j].astype(np.int16)
            cls[np.sqrt(d2[np.arange(len(j)), j]) > UNKNOWN_DISTANCE] = -2
            best[i:i + 16384] = cls
        # very dark, nearly grey pixels belong to a dark neutral piece (a black fortress): the
        # chroma of dark pixels is mostly JPEG and sensor noise, not colour
        chroma = np.abs(grid[:, 1] - 128) + np.abs(grid[:, 2] - 128)
        for ci in self._neutral_kind:
            pl = self._protos[self._proto_class == ci, 0] * 2  # back to unweighted L
            if pl.size and pl.max() < 70:
                sel = (grid[:, 0] * 2 <= pl.max() + 16) & (chroma <= 36)
                best[sel] = ci
        self._lut = best

    def _classify(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pixel: class index (>= 0), -1 board, -2 unknown foreground; and a weak-foreground
        mask (anything that differs a little from the board, for hand detection)."""
        img = cv2.GaussianBlur(img, (3, 3), 0)
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
        L, a, b = cv2.split(lab)
        self._last_l = L
        dab = cv2.add(cv2.absdiff(a, self._ref_a8), cv2.absdiff(b, self._ref_b8))  # L1 chroma distance
        dark = cv2.compare(L, self._dark_limit, cv2.CMP_LT)
        strong = cv2.bitwise_or(cv2.compare(dab, STRONG_CHROMA, cv2.CMP_GT), dark)
        weak = cv2.bitwise_or(cv2.compare(dab, WEAK_CHROMA, cv2.CMP_GT), cv2.compare(L, self._bright_limit, cv2.CMP_GT))
        weak = cv2.bitwise_or(weak, strong)
        labels = np.full(L.shape, -1, np.int16)
        idx = np.flatnonzero(strong)
        if idx.size:
            key = ((L.reshape(-1)[idx].astype(np.int32) >> 3) << 12) | ((a.reshape(-1)[idx].astype(np.int32) >> 2) << 6) \
                | (b.reshape(-1)[idx].astype(np.int32) >> 2)
            labels.reshape(-1)[idx] = self._lut[key]
        return labels, (weak > 0).astype(np.uint8)

    def _occlusion(self, labels: np.ndarray, weak: np.ndarray, l8: np.ndarray) -> tuple[set[int], np.ndarray]:
        """Spaces near a hand or arm: large foreground not explained by piece colours. (Piece
        coloured blobs too big to be pieces are added in ``_components``.)"""
        s = self.s
        pieces = (labels >= 0).view(np.uint8)
        # colour bleeding around pieces (blur, JPEG chroma) is not a hand: ignore 2 mm around them
        halo = cv2.dilate(pieces, np.ones((int(round(4 * s)) | 1,) * 2, np.uint8))
        unexplained = cv2.bitwise_and(weak, 1 - halo)
        k = max(3, int(round(5 * s)) | 1)
        unexplained = cv2.morphologyEx(unexplained, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, cc, stats, _ = cv2.connectedComponentsWithStats(unexplained, connectivity=8)
        occ = np.zeros(labels.shape, np.uint8)
        min_area = HAND_MIN_AREA_MM2 * s * s
        for i in np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= min_area) + 1:
            x, y, w, h = stats[i, :4]
            occ[y:y + h, x:x + w] |= (cc[y:y + h, x:x + w] == i).view(np.uint8)
        occ |= self._lost_structure(l8, halo)
        return self._spaces_near(occ), occ

    @staticmethod
    def _gradient(l8: np.ndarray) -> np.ndarray:
        gx = cv2.Sobel(l8, cv2.CV_16S, 1, 0, ksize=3)
        gy = cv2.Sobel(l8, cv2.CV_16S, 0, 1, ksize=3)
        return cv2.convertScaleAbs(cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy)), alpha=0.5)

    def _lost_structure(self, l8: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        """Blocks (BLOCK_MM square) where most of the board's printed lines have vanished and no
        piece explains it: something flat and plain lies over them (a hand, a sleeve, a card)."""
        g = cv2.dilate(self._gradient(cv2.GaussianBlur(l8, (3, 3), 0)), np.ones((3, 3), np.uint8))
        lost = (self._ref_edges > 0) & (g.astype(np.int16) * 10 < self._ref_grad.astype(np.int16) * 4)
        lost &= pieces == 0
        frac_lost = cv2.resize(lost.astype(np.float32), self._blocks, interpolation=cv2.INTER_AREA)
        blk = BLOCK_MM * self.s
        enough = self._edge_count * blk * blk >= 12  # blocks with some printed structure
        bad = (enough & (frac_lost >= 0.6 * self._edge_count)).astype(np.uint8)
        h, w = l8.shape
        return cv2.resize(bad, (w, h), interpolation=cv2.INTER_NEAREST)

    def _spaces_near(self, occ: np.ndarray) -> set[int]:
        spaces: set[int] = set()
        if occ.any():
            grown = cv2.dilate(occ, self._grow_kernel)
            for i, ((x0, y0, x1, y1), m) in enumerate(self._space_masks):
                if np.any(grown[y0:y1, x0:x1] & m):
                    spaces.add(i)
        return spaces

    def _components(self, labels: np.ndarray, occ: np.ndarray) -> tuple[list[_Component], set[int]]:
        """Connected blobs of one piece class each, with their shape features. Blobs far larger
        than any heap of pieces (a sleeve in a player colour) become occluders; returns the
        spaces they hide."""
        s = self.s
        out: list[_Component] = []
        ker = np.ones((3, 3), np.uint8)
        player = np.zeros(labels.shape, np.uint8)
        player[labels >= 0] = 1
        for ci in self._neutral_kind:
            player[labels == ci] = 0
        neutral = np.zeros(labels.shape, np.uint8)
        for ci in self._neutral_kind:
            neutral[labels == ci] = 1
        unknown = (labels == -2).view(np.uint8)
        player = cv2.morphologyEx(player, cv2.MORPH_OPEN, ker)
        player |= unknown & cv2.dilate(player, ker)  # blended edge pixels belong to the piece
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
                    big = np.zeros(labels.shape, np.uint8)
                    big[y:y + h, x:x + w][sub] = 1
                    extra_occ |= self._spaces_near(big)
                    continue
                lab = labels[y:y + h, x:x + w]
                classes = np.unique(lab[sub & (lab >= 0)])
                if len(classes) == 1:
                    # the usual case: one piece colour; unknown edge pixels are already adopted
                    part = cv2.morphologyEx(sub.view(np.uint8), cv2.MORPH_CLOSE, ker)
                    out.extend(self._features(part, int(classes[0]), x, y, single=True))
                    continue
                for ci in classes:
                    if (ci in self._neutral_kind) != is_neutral:
                        continue
                    part = sub & (lab == ci)
                    if len(classes) > 1 or not is_neutral:
                        # give unknown edge pixels to this class, then close small gaps
                        part = (part | (sub & (lab == -2)) & cv2.dilate(part.view(np.uint8), ker).astype(bool)) \
                            if len(classes) > 1 else (sub & ((lab == ci) | (lab == -2)))
                        part = cv2.morphologyEx(part.view(np.uint8), cv2.MORPH_CLOSE, ker)
                    else:
                        part = part.view(np.uint8)
                    out.extend(self._features(part, ci, x, y))
        return out, extra_occ

    def _features(self, mask: np.ndarray, ci: int, x0: int, y0: int, single: bool = False) -> list[_Component]:
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
                peaks = self._count_peaks(sub, self._small_r * s)
            out.append(_Component(int(ci), area, (centre[0] + x0) / s, (centre[1] + y0) / s, min(rw, rh),
                                  max(rw, rh), fill, waist, peaks))
        return out

    @staticmethod
    def _count_peaks(sub: np.ndarray, r_px: float) -> int:
        """Round pieces in a heap: local maxima of the distance to the blob's edge that are at
        least half a piece radius deep, one plateau per piece."""
        m = cv2.copyMakeBorder(sub, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=0)
        dt = cv2.distanceTransform(m, cv2.DIST_L2, 5)
        k = max(3, int(round(1.3 * r_px)) | 1)
        mx = cv2.dilate(dt, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        peak = ((dt >= mx - 0.3) & (dt >= 0.55 * r_px)).astype(np.uint8)
        n, _ = cv2.connectedComponents(peak, connectivity=8)
        return n - 1

    # ------------------------------------------------------------------ counting
    def _space_at(self, x: float, y: float) -> int:
        s = self.s
        xi, yi = int(round(x * s)), int(round(y * s))
        h, w = self._space_of.shape
        if 0 <= xi < w and 0 <= yi < h:
            return int(self._space_of[yi, xi])
        return -1

    def _sweep(self, x: float, y: float, cam: np.ndarray | None, height: float) -> float:
        return float(np.linalg.norm(parallax(np.array([[x, y]]), cam, height)[0]))

    def _expected_area(self, spec: PieceSpec, sweep: float) -> float:
        """Area of a piece seen from the camera, projected into the board plane: its footprint
        swept by the parallax of its top."""
        # AREA_GROWTH: blur, JPEG and edge pixels make every blob ~20% larger than its geometry
        if spec.footprint == "circle":
            return AREA_GROWTH * (spec.area + spec.size[0] * sweep)
        return AREA_GROWTH * (spec.area + 0.5 * (spec.size[0] + spec.size[-1]) * sweep)

    def _count_colour(self, comps: list[_Component], cam: np.ndarray | None, occluded: set[int]
                      ) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
        layout = self.layout
        per_space: dict[int, Counter[Piece]] = {}
        conf: dict[int, float] = {}
        off: list[tuple[str, float, float]] = []
        neutral_area: dict[tuple[int, str], list[_Component]] = {}
        kinds = [layout.pieces[k] for k in self._player_kinds]
        big_kind = max(kinds, key=lambda k: k.area) if kinds else None
        small_kind = min(kinds, key=lambda k: k.area) if kinds else None
        placed: list[tuple[_Component, int, float, float]] = []
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
        self._add_neutral(neutral_area, cam, occluded, per_space, conf)
        if big_kind is None or small_kind is None:
            return self._results(per_space, conf, occluded, {}), tuple(off)
        for c, si, sx, sy in placed:
            owner = self._classes[c.cls]
            eh = self._expected_area(big_kind, self._sweep(sx, sy, cam, big_kind.height))
            ee = self._expected_area(small_kind, self._sweep(sx, sy, cam, small_kind.height))
            # specks, and thin rings where a dark piece blends into the board, are not pieces
            if c.area < 0.3 * ee or c.fill < 0.4 or c.short < 0.5 * small_kind.min_width:
                continue
            stacked = si >= 0 and any(p.owner == "neutral" for p in per_space.get(si, ()))
            if stacked and c.area < 1.2 * ee:
                continue  # only a big piece goes on a neutral one: this is a tinted part of it
            found, q = self._explain(c, eh, ee, big_kind, small_kind, owner, stacked)
            if si < 0 or si in occluded:
                if si < 0 and c.area >= 0.6 * small_kind.area:
                    for p, n in found.items():
                        off.append((f"{n} x {p.owner} {p.kind}", sx, sy))
                continue
            per_space.setdefault(si, Counter()).update(found)
            conf[si] = min(conf.get(si, 1.0), q)
        return self._results(per_space, conf, occluded, {}), tuple(off)

    def _add_neutral(self, neutral_area: Mapping[tuple[int, str], list[_Component]], cam: np.ndarray | None,
                     occluded: set[int], per_space: dict[int, Counter[Piece]], conf: dict[int, float]) -> None:
        """Neutral pieces (fortresses) from the visible parts of their colour per space: a
        fortress under a house shows only as a broken ring."""
        for (si, kind), parts in neutral_area.items():
            if si in occluded or per_space.get(si, Counter())[Piece("neutral", kind)]:
                continue
            spec = self.layout.pieces[kind]
            sp = self.layout.spaces[si]
            exp = self._expected_area(spec, self._sweep(sp.centre[0], sp.centre[1], cam, spec.height))
            area = sum(c.area for c in parts)
            extent = max(c.long for c in parts)
            if area < 0.04 * spec.area or extent < 0.4 * spec.min_width:
                continue
            n = max(1, int(round(area / (1.2 * exp))))
            per_space.setdefault(si, Counter())[Piece("neutral", kind)] += n
            conf[si] = min(conf.get(si, 1.0), 0.95 if area >= 0.3 * exp else 0.7)

    @staticmethod
    def _explain(c: _Component, eh: float, ee: float, big: PieceSpec, small: PieceSpec, owner: str,
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
        if wide and cluster < 2 and 0.7 <= r_big <= 1.7 and r_small >= 1.8:
            q = 1 - 1.5 * abs(r_big - 1) - 0.2 * cluster
            return Counter({Piece(owner, big.kind): 1}), float(max(0.3, q))
        if stacked and 0.55 <= r_big <= 1.6 and r_small >= 1.6:
            # on a neutral piece (a fortress) stands at most one piece, and it is a big one; its
            # outline is ragged where it meets the dark fortress
            return Counter({Piece(owner, big.kind): 1}), 0.6
        k = max(1, int(round(r_small)))
        if c.peaks >= 1 and abs(c.peaks - r_small) < 1.0 and c.peaks != k:
            k = c.peaks  # the area is ambiguous between two counts: the shape decides
        resid = abs(r_small - k)
        return Counter({Piece(owner, small.kind): k}), float(max(0.2, 1 - 1.5 * resid))

    def _results(self, per_space: Mapping[int, Counter[Piece]], conf: Mapping[int, float], occluded: set[int],
                 unknown: Mapping[int, tuple[str, ...]]) -> tuple[SpaceResult, ...]:
        out = []
        for i, sp in enumerate(self.layout.spaces):
            if i in occluded:
                out.append(SpaceResult(sp.id, (), 0.0, True))
                continue
            c = per_space.get(i, Counter())
            items = tuple(sorted((p, n) for p, n in c.items() if n > 0))
            out.append(SpaceResult(sp.id, items, round(conf.get(i, 0.97), 3), False, unknown.get(i, ())))
        return tuple(out)

    # ------------------------------------------------------------------ marker mode
    def _read_tags(self, gray: np.ndarray, reg: Registration, cam: np.ndarray | None
                   ) -> list[tuple[Piece | None, int, float, float, np.ndarray]]:
        w, h = self.layout.size
        box = reg.board_to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        H, W = gray.shape
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int) - 4, 0, [W, H])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int) + 4, 0, [W, H])
        crop = gray[y0:y1, x0:x1]
        corners, ids, _ = self.tag_detector.detectMarkers(crop)
        out = []
        if ids is None:
            return out
        for c, tid in zip(corners, ids.ravel()):
            pts_img = c.reshape(4, 2) + [x0, y0]
            pts = reg.image_to_board(pts_img)
            piece = self.tag_map.get(int(tid))
            height = self.layout.pieces[piece.kind].height if piece and piece.kind in self.layout.pieces else 10.0
            cx, cy = pts.mean(axis=0)
            # tags sit on top of the piece: undo the parallax of that height (the tag's own
            # board-plane position lies farther from the camera than the piece's footprint)
            dtop = parallax(np.array([[cx, cy]]), cam, height)[0]
            out.append((piece, int(tid), float(cx - dtop[0]), float(cy - dtop[1]), pts))
        return out

    def _mask_tags(self, labels: np.ndarray, weak: np.ndarray, tags) -> None:
        s = self.s
        for _, _, _, _, pts in tags:
            c = pts.mean(axis=0)
            grown = c + (pts - c) * 1.22  # the sticker: tag plus half a cell of white margin
            poly = np.round(grown * s * 16).astype(np.int32)
            cv2.fillConvexPoly(labels, poly, -1, cv2.LINE_8, 4)
            cv2.fillConvexPoly(weak, poly, 0, cv2.LINE_8, 4)

    def _count_tags(self, tags, comps: list[_Component], cam: np.ndarray | None, occluded: set[int]
                    ) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
        per_space: dict[int, Counter[Piece]] = {}
        unknown: dict[int, list[str]] = {}
        off: list[tuple[str, float, float]] = []
        for piece, tid, x, y, _ in tags:
            si = self._space_at(x, y)
            if si < 0:
                off.append((f"tag {tid}" + (f" ({piece.owner} {piece.kind})" if piece else ""), x, y))
                continue
            if si in occluded:
                continue
            if piece is None:
                unknown.setdefault(si, []).append(f"tag:{tid}")
            else:
                per_space.setdefault(si, Counter())[piece] += 1
        # neutral pieces whose tag is hidden under a piece stacked on them (a house on a fortress)
        conf = {i: 0.99 for i in per_space}
        neutral_area: dict[tuple[int, str], list[_Component]] = {}
        for c in comps:
            neutral = self._neutral_kind.get(c.cls)
            si = self._space_at(c.cx, c.cy)
            if neutral and si >= 0:
                neutral_area.setdefault((si, neutral), []).append(c)
        self._add_neutral(neutral_area, cam, occluded, per_space, conf)
        return self._results(per_space, conf, occluded, {k: tuple(v) for k, v in unknown.items()}), tuple(off)
