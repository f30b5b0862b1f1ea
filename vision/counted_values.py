"""Counters that stand for several pieces of a kind by the value printed on them (Zhang Yi's army
counters: 1, 2, 3 or 4 on their state's colour; layout ``counts_as``: ``army-3`` counts as three
``army``).

The game counts strength, not counters: an area's army of 7 is one 4 and one 3. So the layout
declares the printed counters and what each counts as; here is everything that follows from it,
with nothing named after a game:

* the renderer shows ``n`` pieces of a counted kind by the fewest counters (``as_counters``; which
  of the fewest, drawn per space and owner from the frame's seed, as players make change);
* enrolment puts one counter per owner, their values taken in turn (``enrolment_pieces``), so that
  every printed value is learned once the owners outnumber the values, without more enrolment
  spaces than owners;
* the reader counts counters by colour as the plain kind, finds each (``vision.counted_faces``)
  and reads its value here (``ValueBook``), then reports the sum as pieces of the plain kind
  (``as_units``). A counter whose value is not sure leaves its space unread: never guessed.

A value is read by its print alone, not by its colour: what on the counter's top differs from the
counter's own colour (its ink), compared by normalised cross-correlation with each enrolled value's
ink, in the four quarter turns. So one enrolled counter per value serves every owner (the values are
the same print on each state's colour, light ink on a dark colour or dark on a light one).
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.faces import face_side_mm, token
from vision.layout import Layout

VIEW_PX_PER_MM = 3.0  # a counter's value is read in a view of the camera frame this fine (the board is read at
                      # 1 px/mm: a 10 mm digit there is a blob; the frame itself has some 1-1.6 px/mm)
SEARCH_MM = 2.5  # the value is looked for this far from the counter's centre as found
SMOOTH_SIGMA = 1.0  # view px: the print is blurred a little on both sides (focus, JPEG, resampling differ)
MIN_FRAME_PX_PER_MM = 0.8  # a counter the camera frame shows coarser than this is not read: its value is a blob of
                           # a few pixels (rendered, 10.5 mm digits, blur 0.5, noise 4, JPEG 75: at 0.75 px/mm the best
                           # value was right for 88 % of counters, at 0.8 for 98 %, at 0.85 without noise 99.5 %)
PRINT_SHARE = 0.35  # of an enrolled face's strongest ink: its print (the value's outline) ...
PRINT_MARGIN_MM = 1.0  # ... with this much around it, is the value's template
MIN_SCORE = 0.90  # the best value's correlation below this: not sure (rendered at 0.8-0.85 px/mm: right values 0.93
                  # (ideal) or 0.905 (blur 0.5, noise 4, JPEG 75) in 99 of 100, the few wrong ones 0.89 at most;
                  # talents' print matched a value 0.91 at most). Chosen on 3840x2160 stills (render-set seed 200,
                  # 30 frames, 629 value counters looked at): best values wrong 14 times, at 0.85-0.875 and all
                  # within 0.015 of the second (MIN_LEAD keeps them out); 0.92 -> 0.90 read 492 -> 535 sure, 0 wrong,
                  # and no talent (74, up to 0.919) read as a value
TURN_DEG = (-5.0, 0.0, 5.0)  # the counter is read turned by each of these too
FINE = "@fine"  # a talent counter's print as a value is read (its key in the table model's faces: token + this)
MIN_OTHER = 0.88  # a talent's print matched at least this well (rendered: 0.89-0.97 when it was one) ...
MIN_LEAD = 0.3  # the best value must beat every other by this share of what it lacks of a perfect match
                # (1 - score): print blurred into a blob matches every value nearly as well


def value_kinds(layout: Layout) -> dict[str, tuple[str, int]]:
    """Printed counters -> (the kind they count as, how many)."""
    return {k: spec.counts_as for k, spec in layout.pieces.items() if spec.counts_as is not None}


def counters_for(layout: Layout) -> dict[str, tuple[tuple[str, int], ...]]:
    """Each counted kind -> its counters (kind, value), smallest value first."""
    out: dict[str, list[tuple[str, int]]] = {}
    for k, (unit, n) in value_kinds(layout).items():
        out.setdefault(unit, []).append((k, n))
    return {u: tuple(sorted(v, key=lambda kv: (kv[1], kv[0]))) for u, v in out.items()}


@lru_cache(maxsize=1024)
def fewest(n: int, values: tuple[int, ...], limit: int = 64) -> tuple[tuple[int, ...], ...]:
    """Every way (up to ``limit``) to make ``n`` from ``values`` with the fewest counters, each
    largest value first; () when none can."""
    vals = sorted(set(v for v in values if v > 0), reverse=True)
    inf = n + 1
    least = [0] + [inf] * n
    for t in range(1, n + 1):
        least[t] = min((least[t - v] + 1 for v in vals if v <= t), default=inf)
    if n <= 0 or least[n] >= inf:
        return ()
    out: list[tuple[int, ...]] = []

    def walk(rest: int, top: int, acc: tuple[int, ...]) -> None:
        if len(out) >= limit:
            return
        if rest == 0:
            out.append(acc)
            return
        for v in vals:
            if v <= top and v <= rest and least[rest - v] + len(acc) + 1 == least[n]:
                walk(rest - v, v, acc + (v,))

    walk(n, vals[0], ())
    return tuple(out)


def as_counters(layout: Layout, board: Board, seed: int) -> Board:
    """The physical board: each counted kind's pieces shown by the fewest counters (which of the
    fewest: drawn per space, owner and number from ``seed``, so that an unchanged army keeps its
    counters from frame to frame). Other pieces stay as they are."""
    shown = counters_for(layout)
    if not shown:
        return board
    cells: dict[str, Counter] = {}
    for sid in board.spaces():
        out: Counter = Counter()
        for piece, n in board.pieces(sid).items():
            counters = shown.get(piece.kind)
            ways = fewest(n, tuple(v for _, v in counters)) if counters else ()
            if not ways:
                out[piece] += n
                continue
            rng = np.random.default_rng([seed, zlib.crc32(f"{sid}/{piece.owner}/{piece.kind}/{n}".encode())])
            kind_of = {v: k for k, v in counters}
            for v in ways[int(rng.integers(len(ways)))]:
                out[Piece(piece.owner, kind_of[v])] += 1
        cells[sid] = out
    return Board.from_counts(cells)


def as_units(layout: Layout, pieces: Mapping[Piece, int]) -> Counter:
    """Counted pieces with each printed counter turned into the pieces it counts as."""
    values = value_kinds(layout)
    out: Counter = Counter()
    for p, n in pieces.items():
        if p.kind in values:
            unit, v = values[p.kind]
            out[Piece(p.owner, unit)] += v * n
        else:
            out[p] += n
    return out


def enrolment_pieces(layout: Layout, kind: str, owners: Sequence[str]) -> list[Piece]:
    """The enrolment photo's pieces of ``kind``, one per owner: a kind shown by counters gets its
    counters, their values in turn (owner i: the (i mod values)-th); a counter kind none of its
    own (its owners' pieces of the kind it counts as are it); any other kind, itself."""
    if kind in value_kinds(layout):
        return []
    counters = counters_for(layout).get(kind)
    if not counters:
        return [Piece(o, kind) for o in owners]
    return [Piece(o, counters[i % len(counters)][0]) for i, o in enumerate(owners)]


def _ink(img: np.ndarray, ground_box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """How far each pixel's lightness is from the counter's own (the median of ``ground_box`` of the
    image, x0 y0 x1 y1; default all of it): its print, light on a dark colour or dark on a light one
    (JPEG keeps lightness finer than colour)."""
    light = cv2.cvtColor(cv2.GaussianBlur(img, (0, 0), SMOOTH_SIGMA), cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    x0, y0, x1, y1 = ground_box or (0, 0, img.shape[1], img.shape[0])
    ground = float(np.median(light[y0:y1, x0:x1]))
    return np.abs(light - ground).astype(np.float32)


def counter_view(frame: np.ndarray, homography: np.ndarray, at_mm: tuple[float, float], angle_deg: float,
                 side_mm: float, px_per_mm: float = VIEW_PX_PER_MM) -> np.ndarray:
    """A ``side_mm`` square of the camera frame centred on board point ``at_mm``, turned by
    ``angle_deg`` (as ``counted_faces.squared`` turns a counter square), ``px_per_mm`` fine.
    ``homography``: board mm -> frame px."""
    n = max(3, int(round(side_mm * px_per_mm)))
    k = 1.0 / px_per_mm
    c, s = math.cos(math.radians(angle_deg)) * k, math.sin(math.radians(angle_deg)) * k
    h = n / 2
    view_to_board = np.array([[c, -s, at_mm[0] - c * h + s * h], [s, c, at_mm[1] - s * h - c * h], [0.0, 0.0, 1.0]])
    return cv2.warpPerspective(frame, homography @ view_to_board, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def frame_scale(homography: np.ndarray, at_mm: tuple[float, float]) -> float:
    """Camera frame pixels per board millimetre at ``at_mm`` (the homography's local scale)."""
    x, y = at_mm
    pts = np.array([[[x, y]], [[x + 1.0, y]], [[x, y + 1.0]]], np.float64)
    p = cv2.perspectiveTransform(pts, homography).reshape(3, 2)
    (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
    return float(math.sqrt(abs(ax * by - ay * bx)))


def readable_view(frame: np.ndarray, homography: np.ndarray, at_mm: tuple[float, float], angle_deg: float,
                  side_mm: float) -> np.ndarray | None:
    """``counter_view``, or None where the frame is too coarse to read a value (``MIN_FRAME_PX_PER_MM``)."""
    if frame_scale(homography, at_mm) < MIN_FRAME_PX_PER_MM:
        return None
    return counter_view(frame, homography, at_mm, angle_deg, side_mm)


def square_angle(view: np.ndarray) -> float:
    """How far (degrees, -45..45) the square in ``view`` is turned from lying square: its edges'
    gradient directions (in lightness and colour), four-fold, weighted by their strength squared (its
    long straight edges outweigh its print's strokes)."""
    lab = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2LAB).astype(np.float32), (0, 0), 1.0)
    sin4 = cos4 = 0.0
    for c in range(3):  # a yellow counter on a pale board differs from it in colour more than in lightness
        gx, gy = cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0), cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1)
        w = (gx * gx + gy * gy) ** 2
        phi = np.arctan2(gy, gx)
        sin4, cos4 = sin4 + float((w * np.sin(4 * phi)).sum()), cos4 + float((w * np.cos(4 * phi)).sum())
    return float(np.degrees(np.arctan2(sin4, cos4) / 4))


def learn_values(layout: Layout, counters: Mapping[str, tuple[float, float, float]], placed: Mapping[str, Piece],
                 frame: np.ndarray, homography: np.ndarray) -> dict[str, np.ndarray]:
    """The enrolment photo's printed counters (``counters``: space -> where each counter's top lies
    and its angle, ``counted_faces.enrolled_counters``) as ``counter_view``s of their face, centred on
    their print (an outline's middle is off by its lit walls): a value counter's by ``token``, any other
    (a talent's, whose own face is learned on the board image) by ``token`` + ``FINE``."""
    values = value_kinds(layout)
    out: dict[str, np.ndarray] = {}
    for sid, (x, y, ang) in counters.items():
        piece = placed[sid]
        side = face_side_mm(layout.pieces[piece.kind])[0]
        view = counter_view(frame, homography, (x, y), ang, value_search_side_mm(layout, piece.kind))
        n = int(round(side * VIEW_PX_PER_MM))
        h, w = view.shape[:2]
        box = ((w - n) // 2, (h - n) // 2, (w + n) // 2, (h + n) // 2)
        ink = np.zeros((h, w), np.float32)
        ink[box[1]:box[3], box[0]:box[2]] = _ink(view, box)[box[1]:box[3], box[0]:box[2]]  # around it: no print
        weight = np.where(ink > 0.5 * float(ink.max()), ink, 0.0)
        ys, xs = np.mgrid[0:h, 0:w]
        total = float(weight.sum())
        cx = float((xs * weight).sum() / total) if total > 0 else w / 2
        cy = float((ys * weight).sum() / total) if total > 0 else h / 2
        x0 = int(round(min(max(cx - n / 2, 0), w - n)))
        y0 = int(round(min(max(cy - n / 2, 0), h - n)))
        key = token(piece) if piece.kind in values else token(piece) + FINE  # a talent's: besides its own face
        out[key] = np.ascontiguousarray(view[y0:y0 + n, x0:x0 + n])
    return out


def value_search_side_mm(layout: Layout, kind: str) -> float:
    """The side of the view a counter of ``kind`` is read in: its face and the search around it."""
    return face_side_mm(layout.pieces[kind])[0] + 2 * SEARCH_MM


def _print_only(ink: np.ndarray) -> np.ndarray:
    """An enrolled value's ink cut to its print and a little around it: the rest of a face (its rim,
    the board beyond a counter lying off centre) says nothing of the value."""
    ys, xs = np.nonzero(ink > PRINT_SHARE * float(ink.max()))
    if not len(xs):
        return ink
    m = int(round(PRINT_MARGIN_MM * VIEW_PX_PER_MM))
    y0, y1 = max(0, int(ys.min()) - m), min(ink.shape[0], int(ys.max()) + m + 1)
    x0, x1 = max(0, int(xs.min()) - m), min(ink.shape[1], int(xs.max()) + m + 1)
    return np.ascontiguousarray(ink[y0:y1, x0:x1])


@dataclass(frozen=True)
class ValueMatch:
    """A counter's value: ``kind`` None when not sure."""

    kind: str | None
    score: float  # the best value's correlation
    second: float  # the best of the other values
    best: str | None = None  # the best value, sure or not
    other: float = -1.0  # the best of the other printed counters it was compared with (talents) ...
    like: Piece | None = None  # ... which one that is
    other_piece: Piece | None = None  # that one when sure (its print, not a value's: a talent counter)


class ValueBook:
    """The prints of the enrolled counters: their values' (keyed by ``token``: any owner's) and the
    other printed counters' (a talent's, ``token`` + ``FINE``), and the reading of a counter's squared
    top against them."""

    def __init__(self, layout: Layout, faces: Mapping[str, np.ndarray]):
        values = value_kinds(layout)
        self.inks: dict[str, list[np.ndarray]] = {}  # value kind -> its prints, in the four turns
        self.others: dict[str, list[np.ndarray]] = {}  # token of another printed counter -> its print
        for tok, face in faces.items():
            kind = tok.split(":", 1)[1]
            if not face.size:
                continue
            turns = [np.ascontiguousarray(np.rot90(_print_only(_ink(face)), k)) for k in range(4)]
            if kind in values:
                self.inks.setdefault(kind, []).extend(turns)
            elif tok.endswith(FINE):
                self.others[tok[:-len(FINE)]] = turns

    def __bool__(self) -> bool:
        return bool(self.inks)

    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted(self.inks))

    def match(self, patch: np.ndarray, kinds: Sequence[str], others: Sequence[Piece] = ()) -> ValueMatch:
        """Which of ``kinds`` the counter in the middle of ``patch`` (BGR, turned square, a little
        bigger than its face) shows; ``kind`` None when not sure (weak, or a second value or one of
        ``others``, printed counters it may be instead (its state's talents), close)."""
        known = [k for k in kinds if k in self.inks]
        if not known:
            return ValueMatch(None, -1.0, -1.0)
        h, w = patch.shape[:2]
        n = int(round((w - 2 * SEARCH_MM * VIEW_PX_PER_MM)))  # the face, without the search around it
        box = ((w - n) // 2, (h - n) // 2, (w + n) // 2, (h + n) // 2)
        # the counter's angle, from its outline on the coarse board image, is off by a few degrees at times (by up
        # to 45 where two touching counters were parted there): its edges in this finer view say by how much
        turns = TURN_DEG + ((square_angle(patch),) if abs(square_angle(patch)) > max(TURN_DEG) else ())
        inks = [_ink(_turned(patch, a), box) for a in turns]
        best = {k: max(_best(ink, self.inks[k]) for ink in inks) for k in known}
        rivals = {p: max(_best(ink, self.others[token(p)]) for ink in inks) for p in others if token(p) in self.others}
        by_other = sorted(rivals.items(), key=lambda kv: -kv[1])
        like, other = by_other[0] if by_other else (None, -1.0)
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        top, score = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else -1.0
        sure = score >= MIN_SCORE and score - max(second, other) >= MIN_LEAD * max(1e-3, 1.0 - score)
        # or another printed counter (a talent): its print as clearly as a value's would be
        rest = max(score, by_other[1][1] if len(by_other) > 1 else -1.0)
        other_sure = like is not None and other >= MIN_OTHER and other - rest >= MIN_LEAD * max(1e-3, 1.0 - other)
        return ValueMatch(top if sure else None, score, second, top, other, like, like if other_sure else None)


def _turned(img: np.ndarray, angle_deg: float) -> np.ndarray:
    if not angle_deg:
        return img
    h, w = img.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    return cv2.warpAffine(img, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _best(ink: np.ndarray, prints: Sequence[np.ndarray]) -> float:
    """The best normalised cross-correlation of any of ``prints`` anywhere in ``ink``."""
    out = -1.0
    for tmpl in prints:
        if tmpl.shape[0] > ink.shape[0] or tmpl.shape[1] > ink.shape[1] or float(tmpl.std()) < 1e-3:
            continue
        out = max(out, float(cv2.minMaxLoc(cv2.matchTemplate(ink, tmpl, cv2.TM_CCOEFF_NORMED))[1]))
    return out
