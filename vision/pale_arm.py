"""An arm the colour of the board: found by its tint over bare board, averaged over a few mm.

The hand test (``vision.occlusion``) looks for colours no piece explains, or print hidden. A pale
arm reaching over a sand margin differs from the empty board by a few units of chroma per pixel,
under the frame's noise, and hides no print there: it was read through. Averaged over a window of
``WINDOW_MM`` its tint stands out (noise averages away, an arm does not), and it is brightness-free
(chromaticity: b, g, r shares), so the light field bent by pieces, a person's shadow or vignetting
do not count. Only bare board is weighed: pixels the pieces read explain, piece colours, the corner
markers and dark print (whose shares are noise) are left out. A tinted region that reaches the
board's edge (an arm comes in from beyond it) and is as big as a piece is a hand, and so is a
strongly tinted one just beyond it (its palm, cut off by a tile's outline that is not weighed). An arm
found takes in the weaker tint joined to it (``ARM_TINT``: the pale skin beyond a bright sleeve).
Nothing here names a game: sizes are in mm, scaled by the board's pixels per mm.
"""

from __future__ import annotations

import cv2
import numpy as np

WINDOW_MM = 12.0  # the tint is averaged over a square this wide
CELL_MM = 2.0  # the board is weighed in cells this wide
TINT = 0.022  # chromaticity shares (b, r) the window's mean differs from the empty board's: not the board
BARE_SHARE = 0.3  # of a window: at least this much bare board, else it is not weighed
DARK_SUM = 120  # b + g + r of the empty board below this: dark print, its shares are noise
BUSY_GROW_MM = 3.0  # explained pixels and pieces' colours, grown by this much (their blur, walls, shadow)
EDGE_MM = 12.0  # a region this close to the board's edge comes in from beyond it
MIN_AREA_MM2 = 1200.0  # ... and this big (a 38 mm tile is 1444 mm²): an arm
JOIN_MM = 15.0  # a strongly tinted region this near an arm is its hand: a matched tile's outline (not weighed) cut a
                # wrist from its palm (cheops seed 1342 t1-0000: a pale palm over the pyramid, 6900 mm², 10-30 mm away)
JOIN_ROUNDS = 3
ARM_TINT = 0.8  # x TINT: a weaker tint joined to an arm found is that arm too (the tinted windows need not touch: a
                # sleeve reached the edge, the pale skin beyond it, 0.6-0.9 x TINT over its forearm, did not, and its
                # hand was read through over six spaces; photoreal Cheops seed 1 t02-000, of the split held out until then)
STRONG = 2.0  # x TINT, a region's mean tint: strongly tinted (that palm: 3.5; grey print a little off the white
              # balance, joined by 1 x TINT, put false arms over Cheops' price columns, seed 1322 t1-0003)


def tint_map(corrected: np.ndarray, reference: np.ndarray, busy: np.ndarray, px_per_mm: float) -> np.ndarray:
    """How far (chromaticity, b and r shares) each window of bare board is tinted from the empty
    board's (0 where too little bare board is in the window)."""
    s = px_per_mm
    k = max(3, int(round(WINDOW_MM * s)) | 1)
    g = max(1, int(round(BUSY_GROW_MM * s)))
    ref = reference.astype(np.float32)
    ref_sum = ref.sum(axis=2)
    skip = busy | (ref_sum < DARK_SUM)
    skip = cv2.dilate(skip.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1,) * 2)) > 0
    use = (~skip).astype(np.float32)
    cur = corrected.astype(np.float32) + 1.0
    cur_share = cur / cur.sum(axis=2, keepdims=True)
    ref_share = (ref + 1.0) / (ref_sum + 3.0)[..., None]
    d = (cur_share - ref_share)[..., (0, 2)] * use[..., None]
    n = cv2.boxFilter(use, -1, (k, k), normalize=False)
    sb = cv2.boxFilter(np.ascontiguousarray(d[..., 0]), -1, (k, k), normalize=False)
    sr = cv2.boxFilter(np.ascontiguousarray(d[..., 1]), -1, (k, k), normalize=False)
    tint = np.sqrt(sb * sb + sr * sr) / np.maximum(n, 1.0)
    tint[n < BARE_SHARE * k * k] = 0.0
    return tint


def pale_arm(corrected: np.ndarray, reference: np.ndarray, busy: np.ndarray, px_per_mm: float,
             markers: np.ndarray | None = None) -> np.ndarray:
    """Board pixels (bool) of tinted regions that reach the board's edge and are as big as a
    piece: an arm the colour of the board. ``busy``: pixels not bare board (pieces read, piece
    colours); ``markers``: the corner markers' print (never weighed)."""
    skip = busy if markers is None else (busy | markers)
    h, w = skip.shape
    f = max(1, int(round(CELL_MM * px_per_mm)))  # an arm is wide: weighed on cells of CELL_MM (a quarter of the work)
    if f > 1:
        size = (max(1, w // f), max(1, h // f))
        small = _arm(cv2.resize(corrected, size, interpolation=cv2.INTER_AREA),
                     cv2.resize(reference, size, interpolation=cv2.INTER_AREA),
                     cv2.resize(skip.astype(np.float32), size, interpolation=cv2.INTER_AREA) > 0, px_per_mm * size[0] / w)
        return cv2.resize(small.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0
    return _arm(corrected, reference, skip, px_per_mm)


def _arm(corrected: np.ndarray, reference: np.ndarray, skip: np.ndarray, px_per_mm: float) -> np.ndarray:
    tint = tint_map(corrected, reference, skip, px_per_mm)
    n, lbl, stats, _ = cv2.connectedComponentsWithStats((tint > TINT).astype(np.uint8), connectivity=8)
    out = np.zeros(tint.shape, bool)
    if n <= 1:
        return out
    h, w = tint.shape
    e = int(round(EDGE_MM * px_per_mm))
    x0, y0 = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    x1, y1 = x0 + stats[:, cv2.CC_STAT_WIDTH], y0 + stats[:, cv2.CC_STAT_HEIGHT]
    at_edge = (x0 <= e) | (y0 <= e) | (x1 >= w - e) | (y1 >= h - e)
    big = stats[:, cv2.CC_STAT_AREA] >= MIN_AREA_MM2 * px_per_mm ** 2
    # a strongly tinted region just beyond an arm is its hand (a matched tile's outline, not weighed, cuts a
    # wrist from its palm); weakly tinted ones are not joined (grey print a little off the white balance)
    strong = np.bincount(lbl.ravel(), weights=tint.ravel(), minlength=n) >= STRONG * TINT * stats[:, cv2.CC_STAT_AREA]
    keep = at_edge & big
    keep[0] = False
    if keep.any():
        j = max(1, int(round(JOIN_MM * px_per_mm)))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * j + 1,) * 2)
        strong[0] = False
        for _ in range(JOIN_ROUNDS):  # the palm beyond the wrist, the fingers beyond the next tile
            near = np.unique(lbl[cv2.dilate(keep[lbl].astype(np.uint8), kernel) > 0])
            near = near[strong[near] & ~keep[near]]
            if not near.size:
                break
            keep[near] = True
        arm = keep[lbl]
        arm |= _joined_tint(tint > ARM_TINT * TINT, arm)  # its pale skin beyond a sleeve of another colour
        # the window spread the arm's tint half its width beyond the arm: taken back
        g = max(1, int(round(WINDOW_MM * px_per_mm / 2)))
        out = cv2.erode(arm.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1,) * 2)) > 0
    return out


def _joined_tint(tinted: np.ndarray, arm: np.ndarray) -> np.ndarray:
    """The connected regions of ``tinted`` (bool) that ``arm`` (bool) touches."""
    n, lbl = cv2.connectedComponents(tinted.astype(np.uint8), connectivity=8)
    take = np.zeros(n, bool)
    take[np.unique(lbl[arm])] = True
    take[0] = False
    return take[lbl]
