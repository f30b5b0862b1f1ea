"""Camera frame -> pieces per board space.

One ``BoardReader`` per camera. For each frame it (1) keeps the board registered (``Registrar``),
(2) rectifies the board to ``px_per_mm`` pixels per millimetre, (3) corrects the light against
the calibrated empty board, (4) finds foreground and classifies it by colour, (5) flags spaces
under a hand or arm, and (6) reads the pieces: by colour, size and shape (colour mode) or by the
tag on each piece (marker mode). Covered spaces are reported occluded and never read.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Mapping

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.calibration import PX_PER_MM, Calibration, default_calibration
from vision.geometry import camera_from_homography, estimate_fov, parallax
from vision.layout import Layout, PieceSpec
from vision.markers import PIECE_DICTIONARY, dictionary_size, marker_bits, piece_detector
from vision.registration import Registrar, Registration
from vision.detection import Detection, Mode, SpaceResult

DEFAULT_FOV_DEG = 66.0
AREA_GROWTH = 1.2
STRONG_CHROMA = 22  # L1 distance in (a, b) from the empty board: surely a piece (or a hand)
CLIP_LEVEL = 246.0  # a channel this bright may be clipped by the camera
CLIPPED_CHROMA = 14  # weak-foreground chroma threshold where the camera may clip
WEAK_CHROMA = 10
NEAR_PIECE_CHROMA = 16  # weak-foreground threshold 2-6 mm from a piece (colour bleeding)  # a little different: enough to notice a hand, not to read a piece
UNKNOWN_DISTANCE = 24.0  # farther than this from every piece colour: not a piece
HAND_MIN_AREA_MM2 = 150.0
HAND_TOTAL_MM2 = 1500.0  # a hand and arm over the board: at least this much evidence, or some at the board's edge
HAND_EDGE_MM = 10.0  # ... within this of the board's edge (the arm comes in over it)
EDGE_MIN = 12  # gradient of a printed line on the reference board
BLOCK_MM = 10.0  # block size for the "printed lines vanished" test  # unexplained foreground at least this big is a hand or an arm
FALLBACK_CONFIDENCE = 0.6  # marker mode: a piece read by colour because its sticker was not found
STICKER_CONFIDENCE = 0.8  # marker mode: a sticker seen whose code was not read (kind by size, owner by rim)
SLEEVE_MIN_AREA_MM2 = 2500.0
FORTRESS_L_MARGIN = 30  # Lab L (0-255) above the darkest neutral prototype that still counts as it: a thin dark rim is lightened by blur
FORTRESS_PLAYER_DISTANCE = 18.0  # ... and no player colour nearer than this (Lab, L weighted 0.5)
SCALE_RANGE = (0.8, 1.3)  # bounds of a colour's measured blob area scale (see ``_area_scales``)
SATURATED_HUE_TOLERANCE = 0.25  # off-hue (perpendicular / along) for a colour more saturated than its prototype
FRAGMENT = 0.6  # a blob under this many small pieces' area is a part of one (see ``_count_colour``)
LIGHT_HOUSE_RIM = (0.03, 0.25)  # least dark area (x footprint) and extent (x width) of a fortress under a light-coloured house
WALL_MM = 5.5  # mm^2 per mm of parallax: the most a tall piece's shaded wall shows (see ``_wall_like``)
SPLIT_DEPTHS = (0.75, 0.95)  # a blob over two spaces is cut where it is narrower than this many emissary diameters
CHANGE_TOL = 8  # levels in any colour channel: a 10 mm block of the rectified board that changed more was touched  # a piece-coloured blob this big is not pieces


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


@dataclass
class _Tag:
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


class BoardReader:
    """Reads one board from a stream of frames (or single images).

    ``clock`` gives the time stamp of each detection when ``read`` is not told one.
    """

    def __init__(self, layout: Layout, *, mode: Mode | str = Mode.COLOUR, calibration: Calibration | None = None,
                 tag_map: Mapping[int, Piece] | None = None, fov_deg: float = DEFAULT_FOV_DEG, estimate_fov: bool = True,
                 clock: Callable[[], float] = time.monotonic, registrar: Registrar | None = None,
                 incremental: bool = True, tag_dictionary: str = PIECE_DICTIONARY):
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
        self.estimate_fov = estimate_fov
        self.incremental = incremental  # re-read only the spaces whose image changed
        self.clock = clock
        self.registrar = registrar or Registrar(layout)
        self.tag_dictionary = tag_dictionary
        self.tag_detector = piece_detector(tag_dictionary)
        if self.mode is Mode.MARKER:
            n_codes = dictionary_size(tag_dictionary)
            bad = sorted(t for t in self.tag_map if t >= n_codes)
            if bad:
                raise ValueError(f"tag ids {bad[:5]} are not in {tag_dictionary} ({n_codes} codes)")
        self._tag_sizes = self._prep_tag_sizes()
        self._tag_params = self.tag_detector.getDetectorParameters()
        self._scale_cache: tuple | None = None
        self._classes = self.cal.model.classes
        self._neutral_kind = {i: c.split(":", 1)[1] for i, c in enumerate(self._classes) if c.startswith("neutral:")}
        self._player_kinds = [k for k in layout.player_kinds()]
        rounds = [layout.pieces[k] for k in self._player_kinds if layout.pieces[k].footprint == "circle"]
        self._small_r = min(p.size[0] for p in rounds) / 2 if rounds else 0.0
        self._prep_reference()
        self._prep_spaces()
        self._last: tuple[np.ndarray, Detection] | None = None
        self._maps: tuple | None = None
        self._cam: tuple | None = None
        self._thumb_map: tuple | None = None
        self._thumb_origin = (0, 0)
        self._light: np.ndarray | None = None  # the last full read's light correction (1/8 scale)
        self._scales: dict[int, float] | None = None  # per-colour blob area scale of the last full read
        self._trace: list | None = None  # debugging: (component, space, expected areas, result)

    # ------------------------------------------------------------------ set-up
    def _prep_reference(self) -> None:
        ref = self.cal.reference
        h, w = ref.shape[:2]
        self._q = 8
        self._small_size = (max(1, w // self._q), max(1, h // self._q))
        self._ref_small = cv2.resize(ref, self._small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        # brightest reference value per thumbnail block and channel: where the light makes it
        # reach the sensor's limit, the camera clips and colours shift (see ``_normalise_light``)
        sw, sh = self._small_size
        blocks = ref[:sh * self._q, :sw * self._q].reshape(sh, self._q, sw, self._q, 3)
        self._ref_small_max = blocks.max(axis=(1, 3)).astype(np.float32)
        self._clip_prone: np.ndarray | None = None
        self._cur_a8 = self._cur_b8 = None
        lab = self.cal.reference_lab.astype(np.float32)
        self._ref_L = lab[..., 0]
        self._ref_L8 = np.ascontiguousarray(self.cal.reference_lab[..., 0])
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
        # player colours whose darkest shade is lighter than anything the dark (fortress) class
        # takes: green and yellow, not red, blue or violet
        dark_max = max((float(self._protos[self._proto_class == ci, 0].max()) * 2 for ci in self._neutral_kind
                        if (self._proto_class == ci).any()), default=-1e9) + FORTRESS_L_MARGIN
        self._light_classes = {ci for ci in set(self._proto_class.tolist()) if ci not in self._neutral_kind
                               and float(self._protos[self._proto_class == ci, 0].min()) * 2 > dark_max}
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
        # which spaces each 10 mm block of the board can affect (their 30 mm reach)
        nbx, nby = self._blocks
        self._block_spaces = np.zeros((nby, nbx, len(self._space_masks)), bool)
        blk = BLOCK_MM * s
        for i, ((x0, y0, x1, y1), _) in enumerate(self._space_masks):
            self._block_spaces[int(y0 // blk):int(-(-y1 // blk)), int(x0 // blk):int(-(-x1 // blk)), i] = True
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
    def read(self, frame: np.ndarray, at: float | None = None,
             detail: np.ndarray | Callable[[], np.ndarray] | None = None) -> Detection:
        """Read one frame. ``detail`` (marker mode): the same view at a higher resolution (e.g.
        picamera2's main stream when ``frame`` is its lores stream), or a function that captures
        it; it is used (and the function called) only when the board is read, i.e. after a
        change: tags are decoded in it, everything else works on ``frame``."""
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
        redo = self._changed_spaces(small, reg)
        if redo is not None and not redo:
            prev = self._last[1]  # the change was outside every space's reach
            return Detection(at, self.mode, reg, prev.spaces, prev.off_space,
                             {"registration": (t_reg - t0) * 1e3, "total": (time.perf_counter() - t0) * 1e3},
                             reused=True)
        roi = self._roi(redo) if redo is not None else None
        rect = self._rectify(frame, reg.homography, roi)
        t_rect = time.perf_counter()
        cam = self._camera(reg.homography, (frame.shape[1], frame.shape[0]))
        corrected = self._normalise_light(rect, roi)
        labels, weak = self._classify(corrected, roi)
        t_cls = time.perf_counter()
        tags: list[_Tag] = []
        if self.mode is Mode.MARKER:
            if callable(detail):
                detail = detail()  # captured only now that the board is to be read
            tags = self._read_tags(gray, reg, cam, roi, detail)
            tags = self._resolve_stickers(labels, tags, cam)
            taken = self._mask_tags(labels, tags, cam)
            # for the occlusion test the tagged pieces (stickers included) are pieces: foreground
            # explained, with the usual halo around; for the colour read they are gone
            occ_labels = labels.copy()
            occ_labels[taken & (labels < 0)] = 0
            occ_spaces, occ_mask = self._occlusion(occ_labels, weak, self._last_l, roi)
            labels[taken] = -1
        else:
            occ_spaces, occ_mask = self._occlusion(labels, weak, self._last_l, roi)
        comps, sleeve = self._components(labels, occ_mask, roi)
        occ_spaces |= sleeve
        if redo is not None and occ_spaces:
            # a hand (or sleeve) in the changed part: read the whole board, so that all of it
            # is found, not just what lies inside the crop
            self._last = None
            return self.read(frame, at, detail)
        t_seg = time.perf_counter()
        if self.mode is Mode.COLOUR:
            spaces, off = self._count_colour(comps, cam, occ_spaces, partial=redo is not None)
        else:
            spaces, off = self._count_tags(tags, comps, cam, occ_spaces)
        if redo is not None:
            spaces, off = self._merge(redo, occ_spaces, spaces, off, roi)
        t_end = time.perf_counter()
        det = Detection(at, self.mode, reg, spaces, off, {
            "registration": (t_reg - t0) * 1e3, "rectify": (t_rect - t_reg) * 1e3,
            "classify": (t_cls - t_rect) * 1e3, "segment": (t_seg - t_cls) * 1e3,
            "count": (t_end - t_seg) * 1e3, "total": (t_end - t0) * 1e3},
            partial=len(redo) if redo is not None else None)
        self._last = (small, det)
        return det

    # ------------------------------------------------------------------ per-space change detection
    def _changed_spaces(self, small: np.ndarray, reg: Registration) -> set[int] | None:
        """Spaces to read again: those within reach (30 mm, as for occlusion) of a part of the
        board whose image changed since the last read (8x8-pixel blocks of the frame, more than
        6 grey levels). ``None``: read everything (no earlier read with this registration, or
        much of the board changed, e.g. the light)."""
        if not self.incremental or self._last is None or reg.fresh or self._last[0].shape != small.shape:
            return None
        changed = cv2.absdiff(small, self._last[0]) > 6
        if changed.mean() > 0.3:
            return None
        changed = cv2.dilate(changed.view(np.uint8), np.ones((3, 3), np.uint8)) > 0
        blocks = self._thumb_blocks(small.shape, reg)
        bx, by = blocks[0][changed], blocks[1][changed]
        ok = (bx >= 0) & (by >= 0) & (bx < self._blocks[0]) & (by < self._blocks[1])
        if not ok.any():
            return set()
        hit = self._block_spaces[by[ok], bx[ok]].any(axis=0)
        return set(np.flatnonzero(hit).tolist())

    def _thumb_blocks(self, shape: tuple[int, ...], reg: Registration) -> tuple[np.ndarray, np.ndarray]:
        """For each thumbnail pixel, the 10 mm board block it shows (cached per registration)."""
        key = (id(reg.homography), shape, self._thumb_origin)
        if self._thumb_map is None or self._thumb_map[0] != key or self._thumb_map[1] is not reg.homography:
            x0, y0 = self._thumb_origin
            v, u = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float64)
            img = np.dstack([x0 + 8 * u + 4, y0 + 8 * v + 4]).reshape(-1, 1, 2)
            board = cv2.perspectiveTransform(img, np.linalg.inv(reg.homography)).reshape(shape[0], shape[1], 2)
            blk = BLOCK_MM
            bx = np.floor(board[..., 0] / blk).astype(np.int32)
            by = np.floor(board[..., 1] / blk).astype(np.int32)
            self._thumb_map = (key, reg.homography, (bx, by))
        return self._thumb_map[2]

    def _roi(self, redo: set[int]) -> tuple[int, int, int, int]:
        """Board pixels to process for a partial read: the re-read spaces with their 30 mm reach
        and 15 mm more (a piece's blob must lie wholly inside)."""
        h, w = self._space_of.shape
        m = int(round(15 * self.s))
        boxes = np.array([self._space_masks[i][0] for i in redo])
        x0, y0 = boxes[:, :2].min(axis=0) - m
        x1, y1 = boxes[:, 2:].max(axis=0) + m
        return int(max(0, x0)), int(max(0, y0)), int(min(w, x1)), int(min(h, y1))

    def _merge(self, redo: set[int], occ_spaces: set[int], spaces: tuple[SpaceResult, ...],
               off: tuple[tuple[str, float, float], ...], roi: tuple[int, int, int, int]
               ) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
        """A partial read: new results for the spaces read again (and any space a hand found in
        the changed part now hides), the last results for the others."""
        prev = self._last[1]
        out = []
        for i, (old, new) in enumerate(zip(prev.spaces, spaces)):
            out.append(new if i in redo or i in occ_spaces else old)
        x0, y0, x1, y1 = (v / self.s for v in roi)
        kept = tuple(o for o in prev.off_space if not (x0 <= o[1] < x1 and y0 <= o[2] < y1))
        new_off = tuple(o for o in off if x0 <= o[1] < x1 and y0 <= o[2] < y1)
        return tuple(out), kept + new_off

    def _camera(self, H: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
        """Camera centre (board mm) for parallax, cached per homography. The field of view is
        measured from the homography when the camera is tilted enough (``estimate_fov``);
        ``fov_deg`` is the prior used when it looks nearly straight down."""
        if self._cam is None or self._cam[0] is not H or self._cam[1] != size:
            fov = estimate_fov(H, size, self.fov_deg) if self.estimate_fov else self.fov_deg
            self._cam = (H, size, camera_from_homography(H, size, fov), fov)
        return self._cam[2]

    def _board_thumbnail(self, gray: np.ndarray, reg: Registration) -> np.ndarray:
        """The board's bounding box in the frame at 1/8 size: what the change test compares
        (people moving around the table do not count)."""
        w, h = self.layout.size
        box = reg.board_to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
        H, W = gray.shape[:2]
        x0, y0 = np.clip(np.floor(box.min(axis=0)).astype(int), 0, [W - 1, H - 1])
        x1, y1 = np.clip(np.ceil(box.max(axis=0)).astype(int), [x0 + 1, y0 + 1], [W, H])
        crop = gray[y0:y1, x0:x1]
        self._thumb_origin = (int(x0), int(y0))
        return cv2.resize(crop, (max(1, crop.shape[1] // 8), max(1, crop.shape[0] // 8)), interpolation=cv2.INTER_AREA)

    def _unchanged(self, small: np.ndarray, last_small: np.ndarray, tol: float = 6.0) -> bool:
        """True when no 8x8-pixel block of the frame changed by more than ``tol`` grey levels
        since the last frame that was read in full (so slow drifts add up and are noticed)."""
        if small.shape != last_small.shape:
            return False
        return float(cv2.absdiff(small, last_small).max()) <= tol

    def _rectify(self, frame: np.ndarray, H: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Like ``calibration.rectify`` but with the pixel maps cached while the homography stays."""
        if self._maps is None or self._maps[0] is not H or self._maps[1] != frame.shape:
            w, h = self.cal.reference.shape[1], self.cal.reference.shape[0]
            xs, ys = np.meshgrid(np.arange(w, dtype=np.float32) / self.s, np.arange(h, dtype=np.float32) / self.s)
            grid = np.dstack([xs, ys])
            mapped = cv2.perspectiveTransform(grid, H.astype(np.float64))
            m1, m2 = cv2.convertMaps(mapped[..., 0].copy(), mapped[..., 1].copy(), cv2.CV_16SC2)
            self._maps = (H, frame.shape, m1, m2)
        if roi is None:
            return cv2.remap(frame, self._maps[2], self._maps[3], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        x0, y0, x1, y1 = roi
        out = np.zeros(self.cal.reference.shape, np.uint8)
        out[y0:y1, x0:x1] = cv2.remap(frame, self._maps[2][y0:y1, x0:x1], self._maps[3][y0:y1, x0:x1],
                                      cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out

    def _normalise_light(self, rect: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Divide out the light: a global white balance (per channel, median over the board) times
        a smooth brightness field (median-filtered over ~60 mm, so pieces and hands do not bend it)."""
        if roi is not None and self._light is not None and self._light.shape[:2] == rect.shape[:2]:
            # a partial read: the light is the last full read's (it did not change, or far more
            # of the board would have), and so are its gain and clipping model
            x0, y0, x1, y1 = roi
            out = np.zeros_like(rect)
            out[y0:y1, x0:x1] = cv2.multiply(rect[y0:y1, x0:x1], self._light[y0:y1, x0:x1], dtype=cv2.CV_8U)
            return out
        # a full read: measure the light
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
        self._light = gain
        # pale print that this light drives into the sensor's limit: a clipped channel shifts its
        # colour, which is not a hand (it is excluded from the weak-foreground test)
        prone = ((self._ref_small_max / inv).max(axis=2) >= CLIP_LEVEL).astype(np.uint8)
        if prone.any():
            prone = cv2.dilate(prone, np.ones((3, 3), np.uint8))
            sw, sh = self._small_size
            full = np.zeros((h, w), np.uint8)
            full[:sh * self._q, :sw * self._q] = cv2.resize(prone, (sw * self._q, sh * self._q),
                                                             interpolation=cv2.INTER_NEAREST)
            self._clip_prone = full
            # what the empty board looks like through this light, clipped as the sensor clips it
            # (uint8 arithmetic saturates at 255), then normalised back: the colours to compare with
            sl = (slice(0, h), slice(0, w))
            lit = cv2.multiply(self.cal.reference[sl], 1.0 / gain[sl], dtype=cv2.CV_8U)
            expected = cv2.multiply(lit, gain[sl], dtype=cv2.CV_8U)
            exp_lab = cv2.cvtColor(cv2.GaussianBlur(expected, (3, 3), 0), cv2.COLOR_BGR2LAB)
            sel = full[sl] > 0
            self._cur_a8 = self._ref_a8.copy()
            self._cur_b8 = self._ref_b8.copy()
            self._cur_a8[sl][sel] = exp_lab[..., 1][sel]
            self._cur_b8[sl][sel] = exp_lab[..., 2][sel]
        else:
            self._clip_prone = None
            self._cur_a8, self._cur_b8 = self._ref_a8, self._ref_b8
        return cv2.multiply(rect, gain, dtype=cv2.CV_8U)

    def _build_lut(self) -> None:
        """Colour lookup table over quantised Lab (L in steps of 8, a and b in steps of 4): the
        class of the nearest prototype, or unknown (-2) when none is near. Built once per
        calibration, so classifying a frame is one table lookup per pixel."""
        Ls = (np.arange(32) * 8 + 4).astype(np.float32)
        ab = (np.arange(64) * 4 + 2).astype(np.float32)
        grid = np.stack(np.meshgrid(Ls * 0.5, ab, ab, indexing="ij"), axis=-1).reshape(-1, 3)
        best = np.empty(len(grid), np.int16)
        player_d = np.full(len(grid), np.inf, np.float32)  # distance to the nearest player colour
        player_floor = np.zeros(len(grid), np.float32)  # L of that colour's darkest prototype
        is_player = np.array([c not in self._neutral_kind for c in self._proto_class])
        darkest = np.zeros(int(self._proto_class.max()) + 1, np.float32)
        for ci in set(self._proto_class.tolist()):
            darkest[ci] = self._protos[self._proto_class == ci, 0].min() * 2
        for i in range(0, len(grid), 16384):
            g = grid[i:i + 16384]
            d2 = ((g[:, None, :] - self._protos[None, :, :]) ** 2).sum(axis=2)
            j = d2.argmin(axis=1)
            cls = self._proto_class[j].astype(np.int16)
            cls[np.sqrt(d2[np.arange(len(j)), j]) > UNKNOWN_DISTANCE] = -2
            best[i:i + 16384] = cls
            if is_player.any():
                dp = d2[:, is_player]
                jp = dp.argmin(axis=1)
                player_d[i:i + 16384] = np.sqrt(dp[np.arange(len(jp)), jp])
                player_floor[i:i + 16384] = darkest[self._proto_class[is_player][jp]]
        # a piece colour more saturated than its prototypes (a piece a little off its nominal
        # colour, a lit top face) lies far from every prototype but in the same hue direction, at
        # a chroma neither the board nor skin reaches: it is that colour
        gab = grid[:, 1:] - 128.0
        gL = grid[:, 0] * 2
        best_dev = np.full(len(grid), np.inf, np.float32)
        unknown = best == -2
        for k, ci in enumerate(self._proto_class):
            if ci in self._neutral_kind:
                continue
            pab = self._protos[k, 1:] - 128.0
            n2 = float(pab @ pab)
            if n2 < 20.0 ** 2:
                continue  # a greyish colour has no hue to extend
            t = gab @ pab / n2
            perp = np.linalg.norm(gab - t[:, None] * pab[None, :], axis=1)
            dev = perp / (np.maximum(t, 1e-6) * math.sqrt(n2))
            sel = unknown & (t >= 1.0) & (dev <= SATURATED_HUE_TOLERANCE) \
                & (np.abs(gL - self._protos[k, 0] * 2) <= 40) & (dev < best_dev)
            best[sel] = ci
            best_dev[sel] = dev[sel]
        # very dark, nearly grey pixels belong to a dark neutral piece (a black fortress): the
        # chroma of dark pixels is mostly JPEG and sensor noise, not colour. A thin dark rim (a
        # fortress under a house) is lightened by blur: somewhat lighter pixels count too when no
        # piece colour is near, or when they are darker than any shade of the nearest one (the
        # rim mixes with the house's colour; a shaded wall of a dark house is near its colour)
        chroma = np.abs(grid[:, 1] - 128) + np.abs(grid[:, 2] - 128)
        for ci in self._neutral_kind:
            pl = self._protos[self._proto_class == ci, 0] * 2  # back to unweighted L
            if pl.size and pl.max() < 70:
                sel = (grid[:, 0] * 2 <= pl.max() + 16) & (chroma <= 36)
                sel |= (grid[:, 0] * 2 <= pl.max() + FORTRESS_L_MARGIN) & (chroma <= 36) \
                    & ((player_d > FORTRESS_PLAYER_DISTANCE) | (grid[:, 0] * 2 < player_floor - 15))
                best[sel] = ci
        self._lut = best

    def _classify(self, img: np.ndarray, roi: tuple[int, int, int, int] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Per pixel: class index (>= 0), -1 board, -2 unknown foreground; and a weak-foreground
        mask (anything that differs a little from the board, for hand detection). With ``roi``
        (x0, y0, x1, y1) only that part is classified; the rest is reported as empty board."""
        full_h, full_w = img.shape[:2]
        x0, y0, x1, y1 = roi if roi is not None else (0, 0, full_w, full_h)
        sl = (slice(y0, y1), slice(x0, x1))
        img = cv2.GaussianBlur(img[sl], (3, 3), 0)
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
        L, a, b = cv2.split(lab)
        ra, rb = (self._cur_a8, self._cur_b8) if self._clip_prone is not None else (self._ref_a8, self._ref_b8)
        dab = cv2.add(cv2.absdiff(a, ra[sl]), cv2.absdiff(b, rb[sl]))  # L1 chroma distance
        dark = cv2.compare(L, self._dark_limit[sl], cv2.CMP_LT)
        strong = cv2.bitwise_or(cv2.compare(dab, STRONG_CHROMA, cv2.CMP_GT), dark)
        weak_ab = cv2.compare(dab, WEAK_CHROMA, cv2.CMP_GT)
        if self._clip_prone is not None:
            # where the camera may clip, only a clear colour difference counts
            weak_ab[(self._clip_prone[sl] > 0) & (dab <= CLIPPED_CHROMA)] = 0
        weak = cv2.bitwise_or(weak_ab, cv2.compare(L, self._bright_limit[sl], cv2.CMP_GT))
        weak = cv2.bitwise_or(weak, strong)
        labels_c = np.full(L.shape, -1, np.int16)
        idx = np.flatnonzero(strong)
        if idx.size:
            key = ((L.reshape(-1)[idx].astype(np.int32) >> 3) << 12) | ((a.reshape(-1)[idx].astype(np.int32) >> 2) << 6) \
                | (b.reshape(-1)[idx].astype(np.int32) >> 2)
            labels_c.reshape(-1)[idx] = self._lut[key]
        if roi is None:
            self._last_l, self._last_dab = L, dab
            return labels_c, (weak > 0).astype(np.uint8)
        labels = np.full((full_h, full_w), -1, np.int16)
        labels[sl] = labels_c
        weak_full = np.zeros((full_h, full_w), np.uint8)
        weak_full[sl] = weak > 0
        l_full = self._ref_L8.copy()  # outside the roi: the board as calibrated (nothing lost)
        l_full[sl] = L
        dab_full = np.zeros((full_h, full_w), np.uint8)
        dab_full[sl] = dab
        self._last_l, self._last_dab = l_full, dab_full
        return labels, weak_full

    def _occlusion(self, labels: np.ndarray, weak: np.ndarray, l8: np.ndarray,
                   roi: tuple[int, int, int, int] | None = None) -> tuple[set[int], np.ndarray]:
        """Spaces near a hand or arm: large foreground not explained by piece colours. (Piece
        coloured blobs too big to be pieces are added in ``_components``.) With ``roi`` only that
        part of the board is looked at."""
        s = self.s
        full_shape = labels.shape
        ox, oy, rx1, ry1 = roi if roi is not None else (0, 0, full_shape[1], full_shape[0])
        sl = (slice(oy, ry1), slice(ox, rx1))
        labels, weak, dab = labels[sl], weak[sl], self._last_dab[sl]
        pieces = (labels >= 0).view(np.uint8)
        # colour bleeding around pieces (blur, JPEG chroma) is not a hand: ignore 2 mm around them
        halo = cv2.dilate(pieces, np.ones((int(round(4 * s)) | 1,) * 2, np.uint8))
        unexplained = cv2.bitwise_and(weak, 1 - halo)
        # farther out (up to 6 mm) JPEG chroma ringing and blur still tint the board a little:
        # there only a clearer difference counts
        wide = cv2.dilate(pieces, np.ones((int(round(12 * s)) | 1,) * 2, np.uint8))
        faint = cv2.compare(dab, NEAR_PIECE_CHROMA, cv2.CMP_LE)
        unexplained[(wide > 0) & (faint > 0)] = 0
        k = max(3, int(round(5 * s)) | 1)
        unexplained = cv2.morphologyEx(unexplained, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, cc, stats, _ = cv2.connectedComponentsWithStats(unexplained, connectivity=8)
        occ_c = np.zeros(labels.shape, np.uint8)
        min_area = HAND_MIN_AREA_MM2 * s * s
        for i in np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= min_area) + 1:
            x, y, w, h = stats[i, :4]
            occ_c[y:y + h, x:x + w] |= (cc[y:y + h, x:x + w] == i).view(np.uint8)
        if roi is None:
            occ, halo_full = occ_c, halo
        else:
            occ = np.zeros(full_shape, np.uint8)
            occ[sl] = occ_c
            halo_full = np.zeros(full_shape, np.uint8)
            halo_full[sl] = halo
        occ |= self._drop_lone_blocks(self._lost_structure(l8, halo_full, roi), occ)
        if roi is None:
            occ = self._drop_stray_evidence(occ)
        return self._spaces_near(occ), occ

    def _drop_stray_evidence(self, occ: np.ndarray) -> np.ndarray:
        """A hand comes with its arm: over the board it leaves a lot of evidence (palm and arm,
        thousands of mm^2) and the arm reaches the board's edge. Evidence that is small in total
        (under HAND_TOTAL_MM2) and lies wholly inside the board (farther than HAND_EDGE_MM from
        its edge) is blur and JPEG near the print, not a hand. Only on a full read: a partial
        read sees part of the board, and any evidence there makes the board be read in full."""
        if not occ.any():
            return occ
        s = self.s
        if np.count_nonzero(occ) >= HAND_TOTAL_MM2 * s * s:
            return occ
        e = max(1, int(round(HAND_EDGE_MM * s)))
        if occ[:e].any() or occ[-e:].any() or occ[:, :e].any() or occ[:, -e:].any():
            return occ
        return np.zeros_like(occ)

    @staticmethod
    def _gradient(l8: np.ndarray) -> np.ndarray:
        gx = cv2.Sobel(l8, cv2.CV_16S, 1, 0, ksize=3)
        gy = cv2.Sobel(l8, cv2.CV_16S, 0, 1, ksize=3)
        return cv2.convertScaleAbs(cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy)), alpha=0.5)

    def _lost_structure(self, l8: np.ndarray, pieces: np.ndarray, roi: tuple[int, int, int, int] | None = None
                        ) -> np.ndarray:
        """Blocks (BLOCK_MM square) where most of the board's printed lines have vanished and no
        piece explains it: something flat and plain lies over them (a hand, a sleeve, a card)."""
        h, w = l8.shape
        bpx = int(round(BLOCK_MM * self.s))
        nbx, nby = self._blocks
        if roi is not None and nbx * bpx == w and nby * bpx == h:
            # only the blocks the roi touches (the block grid divides the board exactly)
            bx0, by0 = roi[0] // bpx, roi[1] // bpx
            bx1, by1 = min(nbx, -(-roi[2] // bpx)), min(nby, -(-roi[3] // bpx))
            X0, Y0, X1, Y1 = bx0 * bpx, by0 * bpx, bx1 * bpx, by1 * bpx
            p0x, p0y, p1x, p1y = max(0, X0 - 4), max(0, Y0 - 4), min(w, X1 + 4), min(h, Y1 + 4)
            g = cv2.dilate(self._gradient(cv2.GaussianBlur(l8[p0y:p1y, p0x:p1x], (3, 3), 0)), np.ones((3, 3), np.uint8))
            g = g[Y0 - p0y:Y1 - p0y, X0 - p0x:X1 - p0x]
            sl = (slice(Y0, Y1), slice(X0, X1))
            lost = (self._ref_edges[sl] > 0) & (g.astype(np.int16) * 10 < self._ref_grad[sl].astype(np.int16) * 4)
            lost &= pieces[sl] == 0
            frac_lost = cv2.resize(lost.astype(np.float32), (bx1 - bx0, by1 - by0), interpolation=cv2.INTER_AREA)
            count = self._edge_count[by0:by1, bx0:bx1]
            bad = ((count * bpx * bpx >= 12) & (frac_lost >= 0.6 * count)).astype(np.uint8)
            out = np.zeros((h, w), np.uint8)
            out[sl] = cv2.resize(bad, (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_NEAREST)
            return out
        g = cv2.dilate(self._gradient(cv2.GaussianBlur(l8, (3, 3), 0)), np.ones((3, 3), np.uint8))
        lost = (self._ref_edges > 0) & (g.astype(np.int16) * 10 < self._ref_grad.astype(np.int16) * 4)
        lost &= pieces == 0
        frac_lost = cv2.resize(lost.astype(np.float32), self._blocks, interpolation=cv2.INTER_AREA)
        blk = BLOCK_MM * self.s
        enough = self._edge_count * blk * blk >= 12  # blocks with some printed structure
        bad = (enough & (frac_lost >= 0.6 * self._edge_count)).astype(np.uint8)
        return cv2.resize(bad, (w, h), interpolation=cv2.INTER_NEAREST)

    def _drop_lone_blocks(self, lost: np.ndarray, unexplained: np.ndarray) -> np.ndarray:
        """Vanished print that is one block alone, with no other sign of a hand within reach
        (30 mm), is not a hand: a thin line blurred away (heavy blur and JPEG, far side of the
        board) or hidden by the leaning top of a piece next to it. A hand or an arm hides the print
        over several blocks, or shows as unexplained foreground nearby."""
        if not lost.any():
            return lost
        bpx = int(round(BLOCK_MM * self.s))
        n, cc, stats, _ = cv2.connectedComponentsWithStats(lost, connectivity=8)
        lone = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] <= bpx * bpx]
        if not lone:
            return lost
        support = unexplained.copy()
        support[(cc > 0) & ~np.isin(cc, lone)] = 1
        near = cv2.dilate(support, self._grow_kernel) if support.any() else None
        out = lost.copy()
        for i in lone:
            x, y, w, h = stats[i, :4]
            mine = cc[y:y + h, x:x + w] == i
            if near is None or not near[y:y + h, x:x + w][mine].any():
                out[y:y + h, x:x + w][mine] = 0
        return out

    def _spaces_near(self, occ: np.ndarray) -> set[int]:
        spaces: set[int] = set()
        if occ.any():
            grown = cv2.dilate(occ, self._grow_kernel)
            for i, ((x0, y0, x1, y1), m) in enumerate(self._space_masks):
                if np.any(grown[y0:y1, x0:x1] & m):
                    spaces.add(i)
        return spaces

    def _components(self, labels: np.ndarray, occ: np.ndarray, roi: tuple[int, int, int, int] | None = None
                    ) -> tuple[list[_Component], set[int]]:
        """Connected blobs of one piece class each, with their shape features. Blobs far larger
        than any heap of pieces (a sleeve in a player colour) become occluders; returns the
        spaces they hide. With ``roi`` only that part of the board is looked at."""
        s = self.s
        full_shape = labels.shape
        ox = oy = 0
        if roi is not None:
            ox, oy, rx1, ry1 = roi
            labels, occ = labels[oy:ry1, ox:rx1], occ[oy:ry1, ox:rx1]
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
        if self.mode is Mode.MARKER:
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
        player = cv2.morphologyEx(player, cv2.MORPH_OPEN, ker)
        player |= self._adopt_edges(player, unknown, ker)  # blended edge pixels belong to the piece
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

    @staticmethod
    def _adopt_edges(player: np.ndarray, unknown: np.ndarray, ker: np.ndarray) -> np.ndarray:
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

    def _count_colour(self, comps: list[_Component], cam: np.ndarray | None, occluded: set[int],
                      partial: bool = False) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
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
        fragments: dict[tuple[int, str], list[tuple[_Component, float]]] = {}
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
            found, q = self._explain(c, eh, ee, big_kind, small_kind, owner, stacked)
            if self._trace is not None:
                self._trace.append((c, si, eh, ee, stacked, found))
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

    def _area_scales(self, placed: list[tuple[_Component, int, float, float]], expected: list[tuple[float, float]],
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

    def _add_neutral(self, neutral_area: Mapping[tuple[int, str], list[_Component]], cam: np.ndarray | None,
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

    def _wall_like(self, parts: list[_Component], at: tuple[float, float], cam: np.ndarray | None) -> bool:
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
    def _prep_tag_sizes(self) -> dict[str, float]:
        """Printed tag side (mm) per piece kind: a tag must be of its piece's size (a check on
        every decoded tag), and an undecoded sticker's size tells its piece's kind."""
        from vision.render import tag_size_mm

        return {k: tag_size_mm(spec, self.tag_dictionary, self.layout) for k, spec in self.layout.pieces.items()}

    def _top_scale(self, cam: np.ndarray | None, height: float) -> float:
        """How much larger a piece's top face looks, projected into the board plane, than it is."""
        if cam is None:
            return 1.0
        ch = -float(cam[2])
        return ch / (ch - height) if ch > height + 1 else 1.0

    def _read_tags(self, gray: np.ndarray, reg: Registration, cam: np.ndarray | None,
                   roi: tuple[int, int, int, int] | None = None, detail: np.ndarray | None = None
                   ) -> list[_Tag]:
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
            sx, sy = detail.shape[1] / gray.shape[1], detail.shape[0] / gray.shape[0]
            # pixel centres: x_detail = sx * (x + 0.5) - 0.5
            Hm = np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1.0]]) @ Hm
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
        out: list[_Tag] = []

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
            out.append(_Tag(piece, int(tid), float(cx - dtop[0]), float(cy - dtop[1]), pts, kind, True))
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
                out.append(_Tag(None, None, float(cx - dtop[0]), float(cy - dtop[1]), pts, kind, False))
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

    def _piece_hull(self, t: _Tag, cam: np.ndarray | None, grow: float = 1.5) -> np.ndarray:
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

    def _resolve_stickers(self, labels: np.ndarray, tags: list[_Tag], cam: np.ndarray | None) -> list[_Tag]:
        """Owner of each undecoded sticker from the colour around it (the piece's rim and
        walls): a player's colour for a player's piece, the neutral colour for a neutral piece.
        Where two kinds have stickers of one size, the colour decides which it is; a candidate
        with no piece colour around it (a square in the artwork) is dropped."""
        s = self.s
        h, w = labels.shape
        neutral = list(self._neutral_kind)
        out: list[_Tag] = []
        best: dict[int, tuple[float, _Tag]] = {}  # per sticker: the best-fitting kind
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
                best[key] = (score, _Tag(Piece(owner, t.kind), None, t.x, t.y, t.pts, t.kind, False))
        return out + [t for _, t in best.values()]

    def _mask_tags(self, labels: np.ndarray, tags: list[_Tag], cam: np.ndarray | None) -> np.ndarray:
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

    def _count_tags(self, tags: list[_Tag], comps: list[_Component], cam: np.ndarray | None, occluded: set[int]
                    ) -> tuple[tuple[SpaceResult, ...], tuple[tuple[str, float, float], ...]]:
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
        neutral_area: dict[tuple[int, str], list[_Component]] = {}
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
