"""Plain piece kinds by colour, in the light measured around one space (``vision.appearance``).

A board covered with tiles bends the reader's smooth light field: the bare spaces between them come out
pale. Measured on the box round a space itself (the ratio to the empty board most of its pixels agree
on), what differs from the empty board there, and which plain kind's colour each such pixel has.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from vision.colour_classes import DARK_HUE_MIN, L_WEIGHT, Q, colour_distance, lab_norm, lut_cells
from vision.foreground import Foreground
from vision.order_stats import column_medians

LIMIT_MIN, LIMIT_SPREAD = 24.0, 2.0  # a pixel is of a kind within max(24, 2 x its spread) of its colours (copies of a
                                   # piece differ in colour more than the one enrolled shows on a clean photo)
FG_MIN, FG_NOISE = 10.0, 2.5  # a pixel differs from the empty board by max(10, 2.5 x the frame's noise) (Lab)
# ... or, looked at again where a one-piece space showed nothing, brighter than it by max(10, 2 x noise) in L alone:
# a white scarab on a pale square is 14-25 L brighter, under FG_MIN with L weighed by half (docs/vision.md, Cheops)
BRIGHTER_MIN, BRIGHTER_NOISE = 10.0, 2.0
BOARD_LIKE = 0.35  # of a kind's colour limit: the empty board this near it has the kind's colour (``board_kinds``)


def local_difference(rect: np.ndarray, reference: np.ndarray, ref_lab: np.ndarray, box: tuple[int, int, int, int],
                     noise: float, ignore: np.ndarray | None = None, *, judge_ignored: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """What differs from the empty board in a box of it (bool), and the box's Lab with its light
    measured on the box itself: the ratio to the empty board that most of its pixels agree on (the
    bare board; pieces scatter), so no light field bent by pieces elsewhere matters. ``ignore``: pixels
    the light is not measured on, and (unless ``judge_ignored``) never said to differ."""
    x0, y0, x1, y1 = box
    r = rect[y0:y1, x0:x1]
    ratio = (r.astype(np.float32) + 1.0) / (reference[y0:y1, x0:x1].astype(np.float32) + 1.0)
    use = np.ones(r.shape[:2], bool) if ignore is None else ~ignore[y0:y1, x0:x1]
    vals = ratio.reshape(-1, 3)[use.ravel()] if use.sum() > 16 else ratio.reshape(-1, 3)
    lum = (vals[:, 0] + vals[:, 1] + vals[:, 2]) / np.float32(3)  # = vals.mean(axis=1), ~15x faster
    hist, edges = np.histogram(lum, bins=np.arange(0.0, max(0.1, float(lum.max())) + 0.04, 0.03))
    mode = float(edges[int(np.argmax(hist))] + 0.015)
    near = np.abs(lum - mode) < 0.06 * max(mode, 0.05)
    gain = column_medians(vals[near] if near.sum() > 8 else vals)
    corr = np.clip(r.astype(np.float32) / gain[None, None, :], 0, 255).astype(np.uint8)
    lab = Foreground.lab_of(corr)
    differs = lab_norm(lab - ref_lab[y0:y1, x0:x1]) > max(FG_MIN, FG_NOISE * noise)
    return (differs if judge_ignored else differs & use), lab


def local_kinds(rect: np.ndarray, reference: np.ndarray, ref_lab: np.ndarray, box: tuple[int, int, int, int],
                lut: np.ndarray, noise: float, ignore: np.ndarray | None = None,
                ref_kind: np.ndarray | None = None, brighter: bool = False,
                difference: tuple[np.ndarray, np.ndarray] | None = None, board_l: np.ndarray | None = None) -> np.ndarray:
    """Plain kind index per pixel of a box of the board (-1: board or none), ``local_difference``.
    ``ref_kind`` (``board_kinds``, whole board): where the empty board itself has a kind's colour,
    that colour is no evidence of the kind (a white margin seen a little brighter or duller than
    enrolled is not a white piece: the light measured on the box fits the board's other colours).
    ``brighter``: a pixel brighter than the board by ``BRIGHTER_MIN``/``_NOISE`` differs too, even of its colour.
    ``difference``: ``local_difference`` of these arguments, already taken (a second look at the same box).
    ``board_l`` (whole board): the lightness ``brighter`` measures against, when not ``ref_lab``'s
    (``PlainKinds.board_lightness``: a blurred frame)."""
    fg, lab = difference if difference is not None else local_difference(rect, reference, ref_lab, box, noise, ignore)
    lifted = None
    if brighter:
        x0, y0, x1, y1 = box
        over = ref_lab[y0:y1, x0:x1, 0] if board_l is None else board_l[y0:y1, x0:x1]
        lifted = lab[..., 0] - over >= max(BRIGHTER_MIN, BRIGHTER_NOISE * noise)
        if ignore is not None:
            lifted &= ~ignore[y0:y1, x0:x1]
        fg = fg | lifted  # (not in place: ``difference`` may be looked at again)
    q = np.clip(lab, 0, 255).astype(np.uint8) // Q
    kind_of = lut[q[..., 0], q[..., 1], q[..., 2]].astype(np.int8)
    kind_of[~fg] = -1
    if ref_kind is not None:
        x0, y0, x1, y1 = box
        like_board = kind_of == ref_kind[y0:y1, x0:x1]
        if lifted is not None:  # brighter than the board is no board seen brighter than enrolled: a pale piece
            like_board &= ~lifted
        kind_of[like_board] = -1
    return kind_of


def board_kinds(ref_lab: np.ndarray, protos: np.ndarray, owner_of: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """The plain kind whose colour the empty board itself has, per board pixel (-1: none): well
    within a kind's colour (``BOARD_LIKE`` of its limit), not merely near it."""
    if not len(protos):
        return np.full(ref_lab.shape[:2], -1, np.int8)
    tight = kind_lut(protos, owner_of, limits * BOARD_LIKE)
    q = np.clip(ref_lab, 0, 255).astype(np.uint8) // Q
    return tight[q[..., 0], q[..., 1], q[..., 2]]


def kind_table(entries: Sequence[tuple[str, tuple[np.ndarray, float, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    protos, owner_of, limits = [], [], []
    for j, (_, (p, spread, _)) in enumerate(entries):
        for row in p:
            protos.append(row)
            owner_of.append(j)
            limits.append(max(LIMIT_MIN, LIMIT_SPREAD * spread))
    return np.asarray(protos, np.float32), np.asarray(owner_of), np.asarray(limits, np.float32)


def kind_lut(protos: np.ndarray, owner_of: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """Quantised Lab -> plain kind index (-1: none within its limit), as vision.colour_classes. Each colour's
    distances are taken only over the cells its limit can reach (``_reach``): a cell beyond it is no nearer
    than 1 to that colour, so the nearest colour within 1, where there is one, is the same (~7x less work)."""
    n = 256 // Q
    cells = lut_cells().reshape(n, n, n, 3)
    best = np.full((n, n, n), np.inf, np.float32)
    arg = np.zeros((n, n, n), np.int32)
    for j in range(len(protos)):
        box = _reach(protos[j], float(limits[j]), n)
        sub = cells[box]
        d = colour_distance(sub.reshape(-1, 3), protos[j], limits[j]).reshape(sub.shape[:3])
        b, a = best[box], arg[box]
        better = d < b
        b[better] = d[better]
        a[better] = j
    lut = owner_of[arg].astype(np.int8)
    lut[best > 1.0] = -1
    return lut


def _reach(proto: np.ndarray, limit: float, n: int) -> tuple[slice, slice, slice]:
    """The lookup cells (index slices along L, a, b) that can lie within ``limit`` of ``proto`` by
    ``colour_distance``: lightness weighs ``L_WEIGHT``, hue at least ``DARK_HUE_MIN``; a cell to spare."""
    out = []
    for value, reach in zip(proto, (limit / L_WEIGHT, limit / DARK_HUE_MIN, limit / DARK_HUE_MIN)):
        lo = int(np.floor((float(value) - reach) / Q - 0.5)) - 1
        hi = int(np.ceil((float(value) + reach) / Q - 0.5)) + 1
        out.append(slice(max(0, lo), max(0, min(n, hi + 1))))
    return out[0], out[1], out[2]
