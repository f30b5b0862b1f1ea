"""Space crops for the learned per-space classifier: what the network sees of one space.

Every crop is a square of the rectified board centred on the space (the reader already maps the
frame to board millimetres), wide enough for a tall piece seen obliquely, resampled to a fixed
size in pixels. Its channels, each scaled to about [0, 1]:

* the light-corrected frame (BGR): what is on the space now;
* the table's empty board (BGR, ``TableModel.reference``): what the print looks like there, so
  the network judges the difference and board artwork it never saw is no piece;
* how far the pixel's colour lies outside the empty board's there, in multiples of the noise
  measured in this frame (``ForegroundMaps.chroma`` over the piece threshold, capped at 2);
* per owner (``ColourClassifier.owners`` order, e.g. 5 players + neutral), how well that owner's
  colours **learned from this table's enrolment photo** explain each pixel: the per-table
  adaptation, so a violet that leans blue on this table is read against this table's violet.

The same function cuts the crops for training (``tools/train_space_classifier``) and for
reading, so the two never drift apart. No torch here: only numpy and OpenCV.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import cv2
import numpy as np

from vision.colour_classes import ColourClassifier
from vision.foreground import MIN_PIECE_CHROMA, PIECE_SIGMAS, ForegroundMaps

if TYPE_CHECKING:
    from vision.layout import SpaceShape


@dataclass(frozen=True)
class CropSpec:
    """One space kind's crop: ``size_mm`` of board around the space's centre, as ``px`` pixels."""

    size_mm: float
    px: int

    def to_json(self) -> dict[str, float]:
        return {"size_mm": self.size_mm, "px": self.px}


NO_EVIDENCE_MM2 = 3.0  # a space with no more than this of foreground evidence on it is empty without asking a network


def channels(n_owners: int) -> int:
    return 7 + n_owners


def evidence_map(maps: ForegroundMaps) -> np.ndarray:
    """Colour difference from the empty board in units of this frame's piece threshold."""
    t = max(MIN_PIECE_CHROMA, PIECE_SIGMAS * maps.noise)
    e = maps.chroma * (1.0 / t)  # float32, as are the steps below, in place
    e = np.minimum(e, 2.0, out=e)
    e *= 127.5
    return e


def crop_spaces(corrected: np.ndarray, reference: np.ndarray, lab: np.ndarray, evidence: np.ndarray,
                colours: ColourClassifier,
                centres_px: np.ndarray, spec: CropSpec, px_per_mm: float,
                origin: tuple[int, int] = (0, 0), reference_cache: dict | None = None) -> np.ndarray:
    """Crops of the spaces centred at ``centres_px`` (board pixels, (n, 2)) as a float32 blob
    (n, channels, px, px) for ``cv2.dnn``. ``corrected`` and ``lab`` (the frame, light-corrected,
    and its Lab from ``Foreground``: float32, or the 8-bit Lab it was made from, ``ForegroundMaps.lab8``)
    may be a part of the board starting at ``origin`` (x0, y0);
    ``reference`` is the whole empty board; ``evidence`` from ``evidence_map``, like ``lab``.
    Beyond the board's edge, the edge is repeated. ``reference_cache``: a dict kept with one
    ``reference`` (a reader's), where the empty board's channels of each crop are kept, as they
    are the same every frame (``reference_crops`` fills it beforehand).

    Each crop's pixels are warped into per-blob buffers and the colour lookup and the change of
    layout are done once for the whole blob (they were once per crop: the calls, not the pixels,
    cost)."""
    n = len(centres_px)
    k = len(colours.owners)
    out = np.empty((n, channels(k), spec.px, spec.px), np.float32)
    scale = _scale(spec, px_per_mm)
    ox, oy = origin
    size = (spec.px, spec.px)
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    cur = np.empty((n, spec.px, spec.px, 3), np.uint8)
    lab_c = np.empty((n, spec.px, spec.px, 3), lab.dtype)  # nearest sampling: the same values in 8 bits or floats
    for i, (cx, cy) in enumerate(np.asarray(centres_px, np.float64)):
        # board px -> crop px: centre at the crop's centre, scaled to spec.px
        tx, ty = spec.px / 2 - scale * cx, spec.px / 2 - scale * cy
        Ml = np.array([[scale, 0.0, tx + scale * ox], [0.0, scale, ty + scale * oy]])  # the part's own coordinates
        cv2.warpAffine(corrected, Ml, size, dst=cur[i], flags=flags, borderMode=cv2.BORDER_REPLICATE)
        cv2.warpAffine(evidence, Ml, size, dst=out[i, 6], flags=flags, borderMode=cv2.BORDER_REPLICATE)
        cv2.warpAffine(lab, Ml, size, dst=lab_c[i], flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        key = (spec, float(cx), float(cy))
        ref = None if reference_cache is None else reference_cache.get(key)
        if ref is None:
            ref = _reference_crop(reference, float(cx), float(cy), spec, px_per_mm)
            if reference_cache is not None:
                reference_cache[key] = ref
        out[i, 3:6] = ref
    out[:, 0:3] = cur.transpose(0, 3, 1, 2)
    out[:, 7:] = colours.affinity(lab_c).transpose(0, 3, 1, 2)
    out *= 1.0 / 255.0
    return out


def _scale(spec: CropSpec, px_per_mm: float) -> float:
    """Crop pixels per board pixel."""
    return spec.px / (spec.size_mm * px_per_mm)


def _reference_crop(reference: np.ndarray, cx: float, cy: float, spec: CropSpec, px_per_mm: float) -> np.ndarray:
    """The empty board's channels of the crop centred at (cx, cy) board px, (3, px, px) uint8."""
    scale = _scale(spec, px_per_mm)
    M = np.array([[scale, 0.0, spec.px / 2 - scale * cx], [0.0, scale, spec.px / 2 - scale * cy]])
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(reference, M, (spec.px, spec.px), flags=flags, borderMode=cv2.BORDER_REPLICATE).transpose(2, 0, 1)


def _centres_px(layout_spaces: Sequence["SpaceShape"], idx: Sequence[int], px_per_mm: float) -> np.ndarray:
    """The centres of the spaces ``idx`` in board px (n, 2), float64."""
    return np.array([layout_spaces[i].centre for i in idx], np.float64) * px_per_mm


def reference_crops(layout_spaces: Sequence["SpaceShape"], specs: Mapping[str, CropSpec], reference: np.ndarray,
                    px_per_mm: float) -> dict:
    """The empty board's channels of every space's crop, keyed as ``crop_spaces`` keeps them in its
    ``reference_cache``: made once with the reader, so that no read (the first included) warps them."""
    cache: dict = {}
    by_kind: dict[str, list[int]] = {}
    for i, sp in enumerate(layout_spaces):
        if sp.kind in specs:
            by_kind.setdefault(sp.kind, []).append(i)
    for kind, idx in by_kind.items():
        for cx, cy in _centres_px(layout_spaces, idx, px_per_mm):
            cache[(specs[kind], float(cx), float(cy))] = _reference_crop(reference, float(cx), float(cy), specs[kind],
                                                                        px_per_mm)
    return cache


def crops_by_kind(layout_spaces: Sequence["SpaceShape"], indices: Iterable[int], specs: Mapping[str, CropSpec],
                  corrected: np.ndarray, reference: np.ndarray, lab: np.ndarray, evidence: np.ndarray,
                  colours: ColourClassifier, px_per_mm: float, origin: tuple[int, int] = (0, 0),
                  reference_cache: dict | None = None) -> dict[str, tuple[list[int], np.ndarray]]:
    """The crops of the spaces ``indices`` (into ``layout_spaces``), grouped by space kind (one
    network each): kind -> (space indices, blob). Kinds without a crop spec are left out.
    ``reference_cache``: see ``crop_spaces``."""
    by_kind: dict[str, list[int]] = {}
    for i in indices:
        kind = layout_spaces[i].kind
        if kind in specs:
            by_kind.setdefault(kind, []).append(int(i))
    out = {}
    for kind, idx in by_kind.items():
        centres = _centres_px(layout_spaces, idx, px_per_mm)
        out[kind] = (idx, crop_spaces(corrected, reference, lab, evidence, colours, centres, specs[kind], px_per_mm,
                                      origin, reference_cache))
    return out


def bare_spaces(space_masks: Sequence[tuple[tuple[int, int, int, int], np.ndarray]], indices: Iterable[int],
                piece: np.ndarray, px_per_mm: float, origin: tuple[int, int] = (0, 0)) -> set[int]:
    """The spaces of ``indices`` on which (their outline, ``space_masks``: box and mask in board px)
    nothing differs from the empty board (``ForegroundMaps.piece``, the low threshold: at most
    ``NO_EVIDENCE_MM2`` of it): empty, whatever a network would say. A third of a game's spaces,
    the cheap ones; on the photoreal tuning tables (112 frames, 6,504 spaces) the network read none of them as
    holding a piece, and none did. ``piece`` may be a part of the board starting at ``origin``; a
    space not wholly inside it is not called bare."""
    ox, oy = origin
    h, w = piece.shape[:2]
    most = NO_EVIDENCE_MM2 * px_per_mm * px_per_mm
    out = set()
    for i in indices:
        (x0, y0, x1, y1), m = space_masks[i]
        ax, ay, bx, by = x0 - ox, y0 - oy, x1 - ox, y1 - oy
        if ax < 0 or ay < 0 or bx > w or by > h:
            continue
        if np.count_nonzero(piece[ay:by, ax:bx] & (m > 0)) <= most:
            out.add(int(i))
    return out
