"""What differs from the empty board: light correction and foreground evidence.

The rectified frame is compared with the table's empty board (``TableModel.reference``) after
dividing out the light. Every threshold is a multiple of the **noise measured in this frame**
(the spread of its differences over the board, which is mostly bare), not a number of grey
levels: a camera with a clean sensor, a noisy one, JPEG at 40 or 95 all get the same test.
The comparison tolerates the registration being off by a pixel: a pixel differs only by how far
it lies outside the range its reference neighbourhood spans.
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from vision.blobs import components
from vision.order_stats import column_medians, whole_median

BLOCK = 8  # px of the rectified board per light-field cell
FIELD_MEDIAN = 7  # cells: pieces and hands do not bend the light field
FIELD_TINT = 0.45  # a cell whose channels' light ratios differ by this share: coloured by a piece, not lit
TINTED_PIECES_MM2 = 7700.0  # tinted cells together bigger than this (a palm) are a hand, not pieces: left as they are
DARK_OBJECT_SHARE = 0.5  # cells lit less than this share of the board's median light ...
DARK_OBJECT_MM2 = 2500.0  # ... together bigger than this are an object (a dark hand), not light, when the board's
PRINT_SHARE = 0.1  # print shows there (this share of its pixels: the empty board's fine contrast over PRINT_CONTRAST
PRINT_CONTRAST = 6.0  # grey levels) and the frame keeps too little of it (PRINT_KEPT: normalised correlation of the
PRINT_KEPT = 0.3  # two's fine contrast): a hard shadow keeps the print (0.50-0.79 on photoreal China tuning frames),
                  # a hand hides it (0.01-0.15); where the board is bare, a dark patch may be either: light, as before
# multiples of the frame's own noise scale (robust spread of the raw differences)
PIECE_SIGMAS = 3.0  # chroma this far outside the reference's range: surely not the board (a seed) ...
GROW_SIGMAS = 2.0  # ... and the pixels connected to a seed down to this (a dull, blurred piece's rim)
STRICT_SIGMAS = 5.0  # for the hand test: only what is surely a piece colour counts as explained
WEAK_SIGMAS = 2.5  # a little different: evidence of a hand, never read as a piece
MIN_PIECE_CHROMA = 7.0  # Lab (a+b) floor: a flawless frame's noise is not zero-width
MIN_WEAK_CHROMA = 4.0
DARK_RATIO = 0.5  # darker than half the darkest nearby print: a dark piece (shadows are lighter)
DARK_MIN_DROP = 30.0  # ... and at least this many L levels darker


class LightNormaliser:
    """Divides out the light of a frame relative to the empty board: a white balance (median
    ratio per channel over the board) times a smooth brightness field (ratio per 8-px cell,
    median-filtered so that pieces and hands, which are not light, do not bend it). The last
    frame's correction is kept per cell (``field``); ``gain()`` spreads it over the board again."""

    def __init__(self, reference: np.ndarray, px_per_mm: float = 1.0, largest_crowd_mm2: float | None = TINTED_PIECES_MM2):
        """``largest_crowd_mm2``: tinted cells together bigger than this are left as they are (a hand);
        None: any size is pieces (a board covered with printed tiles, tinted as a whole: Cheops)."""
        h, w = reference.shape[:2]
        self.dark_object_cells = DARK_OBJECT_MM2 * (px_per_mm / BLOCK) ** 2
        self._reference = reference  # for ``fine_print``, made only when a dark patch is asked about
        self.most_tinted_cells = math.inf if largest_crowd_mm2 is None else largest_crowd_mm2 * (px_per_mm / BLOCK) ** 2
        self.size = (w, h)
        self.small_size = (max(1, w // BLOCK), max(1, h // BLOCK))
        self.ref_small = cv2.resize(reference, self.small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        self.field: np.ndarray | None = None  # per cell and channel (float32); None before a frame
        self.light: np.ndarray | None = None  # the last frame's light field per cell (what ``field`` divides out)

    def correct(self, rect: np.ndarray) -> np.ndarray:
        small = cv2.resize(rect, self.small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
        ratio = small / self.ref_small
        wb = column_medians(ratio.reshape(-1, 3))
        balanced = ratio / wb  # (once: it was divided three times over)
        lum = balanced.mean(axis=2)
        lum8 = np.clip(lum * 100, 0, 255).astype(np.uint8)
        # a cell whose colour changed (a piece, a hand) says nothing of the light: its value is
        # taken from the cells around before the median (a crowded area bent the field when its
        # pieces filled most of the median's window, and came out washed out)
        # (the three channels' max and min taken pairwise: the same values as numpy's reduction over the
        # channel axis, which is slow for three values a cell)
        b, g, r = balanced[..., 0], balanced[..., 1], balanced[..., 2]
        tint = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
        coloured = (tint > FIELD_TINT * lum).astype(np.uint8)
        if coloured.any():
            # ... but not what reaches the board's edge (an arm) or is as big as a hand: their light is
            # left as it is for the hand test (a palm's light taken from around it let pieces be read through it)
            n, lbl, stats, _ = cv2.connectedComponentsWithStats(coloured, connectivity=8)
            edge = np.unique(np.concatenate([lbl[0], lbl[-1], lbl[:, 0], lbl[:, -1]]))
            big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] > self.most_tinted_cells)
            coloured[np.isin(lbl, np.concatenate([edge[edge > 0], big[big > 0]]))] = 0
        # a patch far darker than the board's light, as big as a palm, that hides the board's print is an object
        # (a dark hand), not light: its light is taken from around it, so that it stays dark for the hand test
        dark = (lum < DARK_OBJECT_SHARE * float(np.median(lum))).astype(np.uint8)
        if dark.any():
            n, lbl, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
            for j in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] > self.dark_object_cells):
                if j > 0 and self._hides_print(rect, lbl == j):
                    coloured |= (lbl == j).astype(np.uint8)
        if 0 < coloured.sum() < coloured.size // 2:
            lum8 = cv2.inpaint(lum8, coloured, 3, cv2.INPAINT_TELEA)
        lum8 = cv2.medianBlur(lum8, FIELD_MEDIAN)
        field = np.maximum(cv2.GaussianBlur(lum8.astype(np.float32) / 100.0, (0, 0), 1.0), 0.05)
        self.light = field
        inv = (1.0 / field)[..., None] / wb[None, None, :].astype(np.float32)
        self.field = inv.astype(np.float32)
        return cv2.multiply(rect, self.gain(), dtype=cv2.CV_8U)

    @cached_property
    def fine_print(self) -> np.ndarray:
        """The empty board's fine contrast (``_fine_contrast``), for ``_hides_print``."""
        return _fine_contrast(cv2.cvtColor(self._reference, cv2.COLOR_BGR2GRAY))

    def _hides_print(self, rect: np.ndarray, cells: np.ndarray) -> bool:
        """Whether the frame hides the board's print over ``cells`` (bool, per light-field cell): enough print
        there (``PRINT_SHARE``) and too little of its fine contrast kept (``PRINT_KEPT``)."""
        ys, xs = np.nonzero(cells)
        y0, y1, x0, x1 = ys.min() * BLOCK, (ys.max() + 1) * BLOCK, xs.min() * BLOCK, (xs.max() + 1) * BLOCK
        inside = np.repeat(np.repeat(cells[ys.min():ys.max() + 1, xs.min():xs.max() + 1], BLOCK, 0), BLOCK, 1)
        ref = self.fine_print[y0:y1, x0:x1]
        inside = inside[:ref.shape[0], :ref.shape[1]] & (np.abs(ref) > PRINT_CONTRAST)
        if inside.sum() < PRINT_SHARE * cells.sum() * BLOCK * BLOCK:
            return False
        r = ref[inside]
        f = _fine_contrast(cv2.cvtColor(rect[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY))[inside]
        return float((r * f).sum()) < PRINT_KEPT * float(np.sqrt((r * r).sum() * (f * f).sum())) + 1e-6

    def gain(self) -> np.ndarray:
        """The last frame's correction for every board pixel (float32, 3 channels): made when
        needed rather than kept, as it is as big as the board in floats."""
        if self.field is None:
            raise ValueError("no frame corrected yet")
        return cv2.resize(self.field, self.size, interpolation=cv2.INTER_LINEAR)

    def gain_at(self, x_px: float, y_px: float) -> np.ndarray | None:
        """The last frame's correction (B, G, R factors) of the cell holding board pixel (``x_px``,
        ``y_px``), for a view of the same board cut elsewhere (a detail still); None before a frame."""
        if self.field is None:
            return None
        j = min(self.field.shape[0] - 1, max(0, int(y_px // BLOCK)))
        i = min(self.field.shape[1] - 1, max(0, int(x_px // BLOCK)))
        return self.field[j, i]


def _fine_contrast(gray: np.ndarray) -> np.ndarray:
    """The print's fine contrast: the grey image (lightly smoothed against noise) less its 9 px mean."""
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)
    return g - cv2.blur(g, (9, 9))


class _MadeWhenAsked:
    """``ForegroundMaps.lab``: as given, or, given None, made from ``lab8`` when first asked for (a full read
    by the learned reader without a hand never asks: its 4 MB of floats cost as much as a step of the read)."""

    def __get__(self, maps, owner=None):
        if maps is None:
            raise AttributeError("no default")  # (to ``dataclass``: the field is required)
        if maps.__dict__["_lab"] is None:
            maps.__dict__["_lab"] = maps.lab8.astype(np.float32)
        return maps.__dict__["_lab"]

    def __set__(self, maps, value):
        maps.__dict__["_lab"] = value


@dataclass(frozen=True)
class ForegroundMaps:
    lab: np.ndarray = _MadeWhenAsked()  # the corrected frame, Lab float32 (None given: made from ``lab8``)
    chroma: np.ndarray  # Lab a+b distance outside the reference neighbourhood's range
    piece: np.ndarray  # bool: maybe not the board (a low threshold; see ``grow_pieces``)
    strict: np.ndarray  # bool: strong chroma or dark only (what the hand test weighs)
    seeds: np.ndarray  # bool: surely not the board
    dark: np.ndarray  # bool: much darker than the board
    weak: np.ndarray  # bool: a little different (chroma or lightness)
    weak_chroma: np.ndarray  # bool: a little different in colour (a shadow changes only lightness)
    noise: float  # the frame's noise scale (Lab a+b), what the thresholds are multiples of
    lab8: np.ndarray | None = None  # ``lab`` as the uint8 it was made from (``Foreground.measure``); None: not kept

    @property
    def lookup_lab(self) -> np.ndarray:
        """``lab`` for the colour lookups (``colour_classes.lut_index``) and nearest-pixel sampling: its 8-bit
        original when kept (the same whole numbers, a quarter of the bytes, no clipping or conversion)."""
        return self.lab if self.lab8 is None else self.lab8


class Foreground:
    """Foreground evidence against one empty board. The board's Lab (``ref``) and its neighbourhood
    range (``lo``, ``hi``) are kept as the uint8 OpenCV gives (a quarter of float32's memory); every
    value is a whole number, so arithmetic with the frame's float32 Lab gives what float32 copies would."""

    def __init__(self, reference: np.ndarray, px_per_mm: float = 1.0):
        lab = self.lab8_of(reference)
        k = np.ones((3, 3), np.uint8)
        self.ref = lab
        self.lo = [cv2.erode(c, k) for c in cv2.split(lab)]
        self.hi = [cv2.dilate(c, k) for c in cv2.split(lab)]
        # a pixel is dark (``measure``) when its L < DARK_RATIO * lo and lo - L > DARK_MIN_DROP: for whole
        # numbers, L below this one map
        lo0 = self.lo[0].astype(np.float32)
        self.dark_under = np.minimum(np.ceil(DARK_RATIO * lo0), lo0 - DARK_MIN_DROP).astype(np.int16)
        self.s = px_per_mm

    @staticmethod
    def lab8_of(image: np.ndarray) -> np.ndarray:
        """The Lab every comparison here uses (a little blur first: demosaicing and JPEG speckle), 8-bit."""
        return cv2.cvtColor(cv2.GaussianBlur(image, (0, 0), 0.7), cv2.COLOR_BGR2LAB)

    @classmethod
    def lab_of(cls, corrected: np.ndarray) -> np.ndarray:
        return cls.lab8_of(corrected).astype(np.float32)

    def measure(self, corrected: np.ndarray, roi: tuple[int, int, int, int] | None = None,
                noise: float | None = None) -> ForegroundMaps:
        """``roi`` (x0, y0, x1, y1): ``corrected`` is that part of the board only; ``noise``: the
        noise scale to use (a part of the board, mostly pieces, cannot measure it). The
        differences are taken on the 8-bit Lab OpenCV gives (every value a whole number, so the
        same as in floats, several times faster)."""
        lab8 = self.lab8_of(corrected)
        L, a, b = cv2.split(lab8)
        sl = (slice(None), slice(None)) if roi is None else (slice(roi[1], roi[3]), slice(roi[0], roi[2]))
        ref, lo, hi = self.ref[sl], [v[sl] for v in self.lo], [v[sl] for v in self.hi]
        chroma = cv2.add(_outside8(a, lo[1], hi[1]), _outside8(b, lo[2], hi[2]), dtype=cv2.CV_32F)
        if noise is None:
            # the board is mostly bare: the median raw difference is the noise (plus JPEG, demosaicing)
            sub = (slice(None, None, 4), slice(None, None, 4))
            raw = cv2.add(cv2.absdiff(a[sub], ref[..., 1][sub]), cv2.absdiff(b[sub], ref[..., 2][sub]), dtype=cv2.CV_16U)
            noise = whole_median(raw) * 1.5 + 0.5
        piece_t = max(MIN_PIECE_CHROMA, PIECE_SIGMAS * noise)
        weak_t = max(MIN_WEAK_CHROMA, WEAK_SIGMAS * noise)
        dark = L.astype(np.int16) < self.dark_under[sl]
        lnoise = whole_median(cv2.absdiff(L[::4, ::4], ref[..., 0][::4, ::4])) * 1.5 + 0.5
        dl = _outside8(L, lo[0], hi[0])
        weak_chroma = chroma > weak_t
        weak = weak_chroma | (dl > math.floor(max(10.0, 4.0 * lnoise)))  # dl is whole: > t is > floor(t)
        strict = (chroma > STRICT_SIGMAS * noise) & (chroma > MIN_PIECE_CHROMA) | dark
        grown = chroma > max(MIN_WEAK_CHROMA, GROW_SIGMAS * noise)
        seeds = (chroma > piece_t) | dark
        return ForegroundMaps(None, chroma, grown | dark, strict, seeds, dark, weak, weak_chroma, noise, lab8)


def _outside8(v: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """How far ``v`` lies outside [lo, hi], as uint8 (lo <= hi, so at most one of the two saturating
    differences is above 0: max(v - hi, lo - v, 0) exactly)."""
    return cv2.add(cv2.subtract(v, hi), cv2.subtract(lo, v))


def grow_pieces(labels: np.ndarray, maps: ForegroundMaps, n_owners: int, neutral: int | None,
                grey: tuple[int, ...] = ()) -> np.ndarray:
    """Hysteresis per colour: a pixel of a colour (at the low threshold) stays only when it is
    connected to a sure pixel of the same colour: strong chroma for a player's colour, very dark
    for a neutral (black) piece and for a player colour without chroma (``grey``: Zhang Yi's
    Qin, near black). A dull, blurred piece keeps its whole body; a shadow, a shaded
    wall or a highlight beside a piece, classified as another colour, goes."""
    out = np.full(labels.shape, -2, np.int16)
    chroma_seeds = maps.seeds & ~maps.dark
    for oi in range(n_owners):
        m = (labels == oi).astype(np.uint8)
        if not m.any():
            continue
        seeds = maps.dark if oi == neutral or oi in grey else chroma_seeds
        n, lbl, _, _ = components(m)
        keep = np.zeros(n, bool)
        keep[np.unique(lbl[seeds & (m > 0)])] = True
        keep[0] = False
        out[keep[lbl]] = oi
    out[(labels == -1) & maps.seeds] = -1
    return out
