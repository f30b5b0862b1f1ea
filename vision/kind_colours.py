"""What enrolment learns of each plain (not printed) neutral kind: its colour as this camera sees
it and how much of that colour one piece shows (Cheops' scarabs), for ``vision.appearance``.

Kept apart from the reader (``vision.appearance``) because it is enrolment's concern and needs a
rule the reader does not: which blob on the enrolled piece's space *is* the piece. On the
enrolment photo a pale piece's lit top and its shadow can come apart into two blobs, and the
shadow may lie more on the space; a white scarab learned from its shadow has a grey "colour",
which no white scarab shows in play and every dark one does. A shadow is the board dimmed
(``shadow_like``), so the piece is the blob with most pixels that are not (``piece_blob``).
"""

from __future__ import annotations

from typing import Mapping

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.plain_kinds import GROW_MM, LEAN_PER_HEIGHT, SPECK, box_of, opened
from vision.local_light import board_kinds, kind_lut, kind_table, local_difference, local_kinds
from vision.enrolment import KMEANS_SEED, PROTOS_PER_COLOUR, apparent_area
from vision.faces import token
from vision.foreground import Foreground
from vision.geometry import parallax
from vision.layout import Layout

SHADOW_CHROMA = 0.35  # a shadow's chroma changes less than this share of its lightness (``shadow_like``)


def learn_kind_colours(layout: Layout, pixels: Mapping[Piece, np.ndarray], rect: np.ndarray | None = None,
                       reference: np.ndarray | None = None, placed: Mapping[str, Piece] | None = None,
                       cam: np.ndarray | None = None, px_per_mm: float = 1.0, noise: float = 2.0
                       ) -> dict[str, tuple[np.ndarray, float, float]]:
    """Lab prototypes, spread and area scale of each plain (not printed) neutral kind, from its
    enrolled piece's pixels: the colour it is told by (a treasure's red, blue, ... as this camera
    sees it). The scale: how much of that colour one piece shows, against its footprint swept by
    parallax, measured on the enrolment photo (``rect``: rectified, not light-corrected, against
    the empty board ``reference``; ``placed``) as the reader measures it; 1 without them."""
    out: dict[str, tuple[np.ndarray, float, float]] = {}
    pixels = dict(pixels)
    if rect is not None and reference is not None and placed is not None:
        # the colours as the reader will see them: light measured around the space (``local_difference``)
        ref_lab0 = Foreground.lab_of(reference)
        for sid, piece in placed.items():
            spec = layout.pieces[piece.kind]
            if not spec.neutral or spec.printed:
                continue
            sp = layout.space(sid)
            box = box_of(sp, LEAN_PER_HEIGHT * spec.height + GROW_MM, px_per_mm, reference.shape)
            fg, lab = local_difference(rect, reference, ref_lab0, box, noise)
            n, lbl, stats, _ = cv2.connectedComponentsWithStats(opened(fg).astype(np.uint8), connectivity=8)
            if n <= 1:
                continue
            own = np.zeros(fg.shape, np.uint8)
            cv2.fillPoly(own, [np.round(np.asarray(sp.polygon) * px_per_mm - box[:2]).astype(np.int32)], 1)
            b = piece_blob(lbl, n, own > 0, lab, ref_lab0[box[1]:box[3], box[0]:box[2]], SPECK * spec.area * px_per_mm ** 2)
            if b is None:
                continue
            blob = (lbl == 1 + b).astype(np.uint8)
            inner = cv2.erode(blob, np.ones((3, 3), np.uint8)) > 0
            mine = (inner if inner.sum() >= 6 else blob > 0) & (own > 0)
            if mine.sum() >= 6:
                pixels[piece] = lab[mine]
    for piece, px in pixels.items():
        spec = layout.pieces[piece.kind]
        if not spec.neutral or spec.printed or len(px) < 4:
            continue
        data = np.asarray(px, np.float32)
        k = min(PROTOS_PER_COLOUR, max(1, len(data) // 20))
        cv2.setRNGSeed(KMEANS_SEED)
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
        _, lbl, centres = cv2.kmeans(data, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        d = np.linalg.norm(data - centres[lbl.ravel()], axis=1)
        out[token(piece)] = (centres.astype(np.float32), float(np.percentile(d, 80)), 1.0)
    if rect is None or reference is None or placed is None or not out:
        return out
    toks = sorted(out)
    protos, owner_of, limits = kind_table([(t, out[t]) for t in toks])
    lut = kind_lut(protos, owner_of, limits)
    ref_lab = Foreground.lab_of(reference)
    ref_kind = board_kinds(ref_lab, protos, owner_of, limits)
    for sid, piece in placed.items():
        t = token(piece)
        if t not in out:
            continue
        spec = layout.pieces[piece.kind]
        sp = layout.space(sid)
        box = box_of(sp, LEAN_PER_HEIGHT * spec.height + GROW_MM, px_per_mm, reference.shape)
        kind_of = local_kinds(rect, reference, ref_lab, box, lut, noise, ref_kind=ref_kind)
        n, _, stats, _ = cv2.connectedComponentsWithStats(opened(kind_of == toks.index(t)).astype(np.uint8), connectivity=8)
        area = (stats[1:, cv2.CC_STAT_AREA].max() if n > 1 else 0) / px_per_mm ** 2  # the piece: its biggest blob
        app = apparent_area(spec.area, float(np.linalg.norm(parallax(np.asarray([sp.centre], float), cam, spec.height)[0])))
        if area >= SPECK * app:
            out[t] = (out[t][0], out[t][1], float(area / app))
    return out


def piece_blob(lbl: np.ndarray, n: int, own: np.ndarray, lab: np.ndarray, ref_lab: np.ndarray,
               min_lit: float) -> int | None:
    """Of the blobs differing from the empty board over an enrolled piece's space, the piece's
    (0-based): the one with most pixels on the space that are not its shadow. A shadow is the
    board dimmed (``shadow_like``); blur can part a pale piece's top from its shadow, and the shadow
    may lie more on the space. A dark piece looks like a shadow all over: then the most pixels (a
    lit speck, fewer than ``min_lit`` px, beside a black piece is not it). None: no blob on the space."""
    on = lbl[own]
    over = np.bincount(on.ravel(), minlength=n)[1:]
    if not over.size or over.max() <= 0:
        return None
    lit = np.bincount(on[~shadow_like(lab[own], ref_lab[own])].ravel(), minlength=n)[1:]
    return int(np.argmax(lit)) if lit.max() >= min_lit else int(np.argmax(over))


def shadow_like(lab: np.ndarray, ref_lab: np.ndarray) -> np.ndarray:
    """Whether each pixel (Lab, ..., 3) is the board under it (``ref_lab``) only darker: a shadow
    keeps the board's hue, its chroma changing much less than its lightness (``SHADOW_CHROMA``)."""
    d = lab.astype(np.float32) - ref_lab.astype(np.float32)
    return (d[..., 0] < 0) & (np.hypot(d[..., 1], d[..., 2]) < SHADOW_CHROMA * -d[..., 0])
