"""Camera frame -> pieces per board space: the former reader (marker mode, ``--reader legacy``).

One ``BoardReader`` per camera. For each frame it (1) keeps the board registered (``Registrar``),
(2) rectifies the board to ``px_per_mm`` pixels per millimetre, (3) corrects the light against
the calibrated empty board, (4) finds foreground and classifies it by colour, (5) flags spaces
under a hand or arm, and (6) reads the pieces: by colour, size and shape (colour mode) or by the
tag on each piece (marker mode). Covered spaces are reported occluded and never read.

This module holds the pipeline and the set-up shared by its parts; each part has its own module:

* ``vision.legacy_change``: which spaces changed since the last read (partial reads);
* ``vision.legacy_colour``: light correction and the per-pixel colour classes (foreground);
* ``vision.legacy_occlusion``: spaces under a hand or an arm;
* ``vision.legacy_blobs``: blobs of one piece colour and their shape;
* ``vision.legacy_counting``: blobs -> pieces per space (colour mode);
* ``vision.marker_tags``: tags and stickers found in the frame (marker mode);
* ``vision.marker_pieces``: tags -> pieces per space, with the colour fallback (marker mode).
"""

from __future__ import annotations

import time
from typing import Callable, Mapping

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.calibration import PX_PER_MM, Calibration, default_calibration
from vision.detection import Detection, Mode, SpaceResult
from vision.geometry import camera_from_homography, estimate_fov
from vision.layout import Layout
from vision.legacy_blobs import BlobFinder
from vision.legacy_change import ChangeTracking
from vision.legacy_colour import ColourClasses
from vision.legacy_counting import ColourCounting
from vision.legacy_occlusion import BLOCK_MM, OcclusionTests
from vision.marker_pieces import MarkerPieces
from vision.marker_tags import Tag, TagFinder
from vision.markers import PIECE_DICTIONARY, dictionary_size, piece_detector
from vision.registration import Registrar

__all__ = ["BoardReader", "Detection", "Mode", "SpaceResult", "DEFAULT_FOV_DEG"]

DEFAULT_FOV_DEG = 66.0


class BoardReader(ChangeTracking, ColourClasses, OcclusionTests, BlobFinder, ColourCounting, TagFinder, MarkerPieces):
    """Reads one board from a stream of frames (or single images).

    ``mode``: colour (pieces by colour, size and shape) or marker (by their tags, ``tag_map``
    saying which id is which piece type, in ``tag_dictionary``); ``fov_deg`` is the camera's
    field of view when it cannot be measured from the homography (``estimate_fov``);
    ``incremental`` re-reads only the spaces whose image changed. ``clock`` gives the time stamp
    of each detection when ``read`` is not told one. The parts of the reading come from the
    mixins listed in the module's docstring.
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
        self._prep_colour()
        self._prep_print()
        self._prep_spaces()
        self._last: tuple[np.ndarray, Detection] | None = None
        self._maps: tuple | None = None
        self._cam: tuple | None = None
        self._thumb_map: tuple | None = None
        self._thumb_origin = (0, 0)
        self._light: np.ndarray | None = None  # the last full read's light correction (1/8 scale)
        self._scales: dict[int, float] | None = None  # per-colour blob area scale of the last full read

    # ------------------------------------------------------------------ set-up
    def _prep_spaces(self) -> None:
        """Per space: its mask grown by the occlusion reach, the 10 mm blocks that reach it, and
        the label image saying which space a board point belongs to."""
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
        tags: list[Tag] = []
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

    def _camera(self, H: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
        """Camera centre (board mm) for parallax, cached per homography. The field of view is
        measured from the homography when the camera is tilted enough (``estimate_fov``);
        ``fov_deg`` is the prior used when it looks nearly straight down."""
        if self._cam is None or self._cam[0] is not H or self._cam[1] != size:
            fov = estimate_fov(H, size, self.fov_deg) if self.estimate_fov else self.fov_deg
            self._cam = (H, size, camera_from_homography(H, size, fov), fov)
        return self._cam[2]
