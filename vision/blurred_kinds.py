"""Plain kinds' colours as blur mixes them (Cheops' scarabs), for ``vision.appearance``.

Enrolment learns a plain kind's colour as k-means prototypes of its enrolled piece's pixels
(``vision.kind_colours``); the reader names a pixel by the nearest. Blur mixes a piece's colour
with the board's and with its own shading, which costs twice; both were measured on the
photoreal Cheops tune split (``evalsets/photoreal-cheops/tune``):

* **A rim prototype is no colour of the board** (``board_prototypes``). On an enrolment photo with
  some blur one prototype is the piece's rim: its colour mixed with the board under it, mostly
  board. It still names pixels (a blurred piece's rim is the piece), but where the empty board
  has a kind's colour that colour is taken as no evidence of the kind (``board_kinds``), and a
  rim learned on a pale part of the board can be the colour of another part: a green scarab's
  grey rim, learned on the pale top of one table's pyramid, was the grey of its lower squares,
  and every green pixel was taken away on 21 of its 60 squares. A prototype is a rim's when it
  lies less than ``RIM_SHARE`` as far from the board under the enrolled piece as the kind's most
  distinct prototype (the piece's lit top and shaded side lie far from the board; a mix between).
* **A piece seen in several kinds' colours** (``mixed_piece``). A far, blurred and noisy frame
  spreads a dark scarab over the colours of several kinds (part black, part blue and green), none
  of which shows enough alone to be a piece. On a space that holds one piece the blob they make
  together is that piece when it shows a whole piece's worth of the kind's enrolled colour area
  (``MIXED_PRESENT`` in ``vision.appearance``), and of the kind holding most of its middle. A
  smaller one is not named: on the tune split nearly every mixed blob under a whole piece was a
  white scarab's shadow (its top the board's own grey there), which would be named black or blue.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.colour_classes import colour_distance

RIM_SHARE = 0.5  # of the most distinct prototype's distance from the board under the enrolled piece

KindColours = tuple[np.ndarray, float, float]  # Lab prototypes, spread, area scale (``TableModel.kind_colours``)


def without_rims(protos: np.ndarray, board: np.ndarray) -> np.ndarray:
    """The prototypes (Lab, one a row) of one kind that are not its rim's: at least ``RIM_SHARE``
    as far from ``board`` (the empty board's Lab under the enrolled piece) as the farthest."""
    p = np.asarray(protos, np.float32)
    if len(p) < 2:
        return p
    away = colour_distance(p, np.asarray(board, np.float32), 1.0)
    return p[away >= RIM_SHARE * float(away.max())]


def board_prototypes(entries: Sequence[tuple[str, KindColours]], placed: Mapping[str, Piece],
                     ref_lab: np.ndarray, space_of: np.ndarray, space_index: Mapping[str, int]
                     ) -> list[tuple[str, KindColours]]:
    """``entries`` (token, kind colours) with each kind's rim prototypes left out (``without_rims``),
    the board under its enrolled piece measured on the empty board (``ref_lab``, board px) over the
    space ``placed`` put it on (``space_of``: space index per board px). A kind not placed on a
    space of the layout (no enrolment photo) keeps all its prototypes."""
    where = {f"{p.owner}:{p.kind}": sid for sid, p in placed.items() if sid in space_index}
    out: list[tuple[str, KindColours]] = []
    for tok, (protos, spread, scale) in entries:
        on = space_of == space_index[where[tok]] if tok in where else None
        if on is not None and on.any():
            protos = without_rims(protos, np.median(ref_lab[on], axis=0))
        out.append((tok, (protos, spread, scale)))
    return out


def mixed_piece(kind_of: np.ndarray, pixels: np.ndarray, kinds: Sequence[int],
                area_px: Callable[[int, np.ndarray], float | None], least: float, most: float,
                middle_share: float) -> tuple[int, float, np.ndarray] | None:
    """The piece that ``pixels`` (bool: those of ``kinds`` in ``kind_of``, the kind index per pixel,
    specks removed) show together: of each blob of them, the kind holding most of its middle
    (deeper than ``middle_share`` of its deepest point; a tie to the first of ``kinds``), and its
    area over ``area_px(kind, centroid)`` (that kind's apparent area in pixels there, None when the
    blob is not the space's). The biggest such share within [``least``, ``most``], as (kind, share,
    blob mask); None when none is."""
    n, lbl, stats, cents = cv2.connectedComponentsWithStats(pixels.astype(np.uint8), connectivity=8)
    best: tuple[int, float, np.ndarray] | None = None
    for b in range(1, n):
        blob = lbl == b
        depth = cv2.distanceTransform(blob.astype(np.uint8), cv2.DIST_L2, 3)
        middle = depth >= middle_share * float(depth.max())
        votes = [int((middle & (kind_of == k)).sum()) for k in kinds]
        j = kinds[int(np.argmax(votes))]
        app = area_px(j, cents[b])
        share = stats[b, cv2.CC_STAT_AREA] / app if app else 0.0
        if least <= share <= most and (best is None or share > best[1]):
            best = (j, float(share), blob)
    return best


def core_kind(kind_of: np.ndarray, present: Mapping[int, list[tuple[float, np.ndarray]]], default: int,
              present_share: float, core_share: float) -> int:
    """Of several kinds with a piece-sized blob on one space, the one that holds the middle of
    what they show together: blur pales a coloured piece's rim (a white ring round a red
    scarab), a white piece's shadow is dark (a black crescent); neither reaches the middle. Blobs of
    at least ``present_share`` of a piece count; the middle is ``core_share`` of the deepest point's depth."""
    union = np.zeros(kind_of.shape, np.uint8)
    for blobs in present.values():
        for v, b in blobs:
            if v >= present_share:
                union |= b.astype(np.uint8)
    dist = cv2.distanceTransform(union, cv2.DIST_L2, 3)
    top = float(dist.max())
    if top <= 0:
        return default
    core = dist >= core_share * top
    votes = {j: int((core & (kind_of == j)).sum()) for j in present}
    best = max(votes, key=lambda j: (votes[j], j == default))
    return best if votes[best] > votes.get(default, 0) else default
