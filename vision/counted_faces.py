"""Pieces counted by colour, then told apart by a face printed on their owner's colour (Zhang Yi's
talent counters: 16 mm squares in their state's colour like its army counters, with the talent's
name printed on them; layout ``face.ground`` "owner", ``vision.piece_looks.face_kinds``).

Colour counting (``vision.counting``) counts a talent counter as one more army counter of its
state: it has the army counter's size and colour. Afterwards, on each space read where a state has
counters and may have talents, each of that state's counters is found (a blob of the state's colour,
holes filled, of one enrolled counter's size and about square; touching counters are parted by
eroding their blob), turned square by its edges (counters lie at any angle) and, if the middle of
its top shows print (``PRINT_MIN``), compared with the enrolled faces of the state's talents
(``FaceBook.match``: normalised cross-correlation in the four quarter turns):

* a sure match (``vision.faces``: strong, and clearly better than the state's other talents) is
  that talent: one army counter of the count becomes it;
* a match too good for a plain counter but not sure (``LIKE_A_FACE``) leaves the space unread (the
  caller reports it occluded) rather than guessed;
* anything weaker is a plain army counter (its top has no print to match).

Where the layout's counters stand for several pieces by a printed value (``counts_as``: Zhang Yi's
army counters, 1-4), every counter of the counted kind is printed: each must be a sure talent or a
sure value (``vision.counted_values.ValueBook``), and every counter of the count must be seen alone,
else the space is left unread; the values are then reported as that many pieces of the kind.

So the owner is still told by colour (only the counted state's talents are candidates) and the
talent by its face. A counter that cannot be parted from its neighbours (a heap in one blob) is not
looked at: it stays an army counter (a known gap). Enrolment learns each face turned square the same
way (``learn_counted_faces``). Nothing here names a game: the kinds come from the layout, the faces
from the table model (enrolment asks for one of each, ``vision.enrolment.enrolment_types``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.counted_values import FINE, ValueBook, ValueMatch, as_units, value_kinds, value_search_side_mm
from vision.counting import SpaceCount
from vision.faces import FaceBook, face_side_mm, from_token, token, top_centre_mm
from vision.enrolment import PieceSize
from vision.layout import Layout, PieceSpec
from vision.piece_looks import face_kinds

PRINT_MIN = 9.0  # grey std of the middle of a counter's squared top: below, a plain top (no print). Measured
                 # on a rendered set (seed 1410): plain army counters 5 (median), 8.4 (90th percentile), 9.5 (95th);
                 # talents 8.7 at least, 12 (5th percentile), 20 (median)
CONTRAST_SHARE = 0.65  # of the compared face's side: the middle measured for print (an outline a little off
                       # would bring the board's colour into a wider one)
CONFIRMED_GAIN = 0.3  # at most this much more confidence in a count every counter of which was seen alone
LIKE_A_FACE = 0.5  # a printed top matched at least this well, but not sure, is some face: the space is left unread
BOX_GROW_MM = 4.0  # a counter may show this far outside its space's outline (placement, lean)
ONE_AREA = (0.8, 3.1)  # at enrolment, a blob of one counter: this share of its footprint (blur, its walls and
                       # the fringe make a lone 16 mm counter some 500-700 px at 1 px/mm; two touching, 1000+)
ONE_ENROLLED = (0.45, 1.95)  # when reading, a blob of one counter of its colour: this share of the enrolled
                             # counter's area (measured: 0.85-1.86; Qin's near-black ones 0.5-1.0)
SOLID = 0.8  # a blob of one counter fills at least this share of its convex hull (two touching ones less)
SPLIT_PX = (2, 3, 4, 5, 6, 7, 8, 9)  # (at 1 px/mm) counters side by side: a blob eroded by this much parts between them
MATCH_SEARCH_MM = 3.0  # the face is looked for this far from the outline's centre
LIKE_A_VALUE = 0.9  # where values are printed, a counter matching one this well is no talent even when the value
                    # is not sure (a talent's face matches a value counter of its state as often as not; rendered
                    # talents matched values 0.91 at most, values themselves 0.93 and more in 99 of 100)


def counter_outline(mask: np.ndarray, spec: PieceSpec, s: float, gray: np.ndarray,
                    one_mm2: tuple[float, float] | None = None) -> list[tuple[float, float, float]]:
    """The counters in a bool mask that can be told one by one: (cx, cy, angle in degrees) of each
    blob of one counter's size (``one_mm2``, default ``ONE_AREA`` of its footprint) and about as
    convex as a square (``SOLID``), in the mask's pixels: its centroid, and the angle its
    edges in ``gray`` (the image the mask is of) turn it by (``edge_angle``). A bigger blob (counters
    side by side, touching) is eroded until it parts (``SPLIT_PX``); its pixels are shared out to
    the nearest part, and each share of one counter's size is a counter."""
    m = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    m[:] = 0
    cv2.drawContours(m, contours, -1, 1, -1)  # the printed ink inside a counter's rim is the counter's
    n, lbl, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=8)
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    lo, hi = (a * s * s for a in one_mm2) if one_mm2 else (ONE_AREA[0] * spec.area * s * s, ONE_AREA[1] * spec.area * s * s)
    out = []
    for b in range(1, n):
        area = stats[b, cv2.CC_STAT_AREA]
        if area < lo:
            continue
        if area <= hi and _solidity(lbl == b) >= SOLID:
            out.append((float(cents[b][0]), float(cents[b][1]), edge_angle(lbl == b, gx, gy, s)))
            continue
        x, y, w, h = (int(v) for v in stats[b, :4])
        blob = (lbl[y:y + h, x:x + w] == b).astype(np.uint8)
        blob = cv2.copyMakeBorder(blob, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
        for k in SPLIT_PX:
            ek = int(round(k * s))
            eroded = cv2.erode(blob, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * ek + 1,) * 2))
            n2, _, _, parts = cv2.connectedComponentsWithStats(eroded, connectivity=8)
            if n2 <= 2:
                continue
            ys, xs = np.nonzero(blob)
            d = (xs[:, None] - parts[None, 1:, 0]) ** 2 + (ys[:, None] - parts[None, 1:, 1]) ** 2
            nearest = np.argmin(d, axis=1)
            for j in range(n2 - 1):
                sel = nearest == j
                if not lo <= sel.sum() <= hi:
                    continue
                share = np.zeros(m.shape, bool)
                share[ys[sel] + y - 1, xs[sel] + x - 1] = True
                out.append((float(xs[sel].mean() + x - 1), float(ys[sel].mean() + y - 1), edge_angle(share, gx, gy, s)))
            break
    return out


def _solidity(part: np.ndarray) -> float:
    """The part's area over its convex hull's: a square's is near 1, two touching squares' less."""
    pts = np.column_stack(np.nonzero(part)[::-1]).astype(np.int32)
    hull = cv2.convexHull(pts)
    return float(len(pts)) / max(1.0, float(cv2.contourArea(hull)) + 0.5 * cv2.arcLength(hull, True))


def edge_angle(part: np.ndarray, gx: np.ndarray, gy: np.ndarray, s: float) -> float:
    """The angle (degrees, as ``cv2.getRotationMatrix2D`` takes it to turn the part square) of a
    square counter: its edges' gradient directions, four-fold (a quarter turn is the same square),
    weighted by their strength, on a band around the part's outline."""
    k = max(3, 2 * int(round(2 * s)) + 1)
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    p8 = part.astype(np.uint8)
    band = (cv2.dilate(p8, se) > 0) & ~(cv2.erode(p8, se) > 0)
    mx, my = gx[band], gy[band]
    w = mx * mx + my * my
    phi = np.arctan2(my, mx)
    return float(np.degrees(np.arctan2((w * np.sin(4 * phi)).sum(), (w * np.cos(4 * phi)).sum()) / 4))


def contrast(patch: np.ndarray, face_px: float) -> float:
    """How much the middle of a squared counter's top varies (grey std): print, or a plain top."""
    h, w = patch.shape[:2]
    r = max(2, int(round(face_px * CONTRAST_SHARE / 2)))
    mid = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)[h // 2 - r:h // 2 + r, w // 2 - r:w // 2 + r]
    return float(mid.std())


def squared(img: np.ndarray, cx: float, cy: float, angle: float, side_px: int) -> np.ndarray:
    """A ``side_px`` square of ``img`` centred at (cx, cy), turned by ``angle`` (the outline's) so
    that the counter lies square in it."""
    M = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    M[0, 2] += side_px / 2 - cx
    M[1, 2] += side_px / 2 - cy
    return cv2.warpAffine(img, M, (side_px, side_px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def learn_counted_faces(layout: Layout, corrected: np.ndarray, reference: np.ndarray, placed: Mapping[str, Piece],
                        px_per_mm: float, cam: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The faces of the enrolment photo's face-told counters (``face_kinds``), each turned square by
    its outline (what differs from the empty board around its space); keyed by ``token(piece)``."""
    s = px_per_mm
    out: dict[str, np.ndarray] = {}
    for sid, (x, y, ang) in enrolled_counters(layout, corrected, reference, placed, px_per_mm, cam).items():
        piece = placed[sid]
        side = int(round(face_side_mm(layout.pieces[piece.kind])[0] * s))
        out[token(piece)] = squared(corrected, x * s, y * s, ang, side)
    return out


def enrolled_counters(layout: Layout, corrected: np.ndarray, reference: np.ndarray, placed: Mapping[str, Piece],
                      px_per_mm: float, cam: np.ndarray | None = None) -> dict[str, tuple[float, float, float]]:
    """Where each face-told counter of the enrolment photo (``face_kinds``) shows its top: space ->
    (x, y in board mm, the angle that turns it square), found by its outline (what differs from the
    empty board around its space)."""
    kinds = face_kinds(layout)
    s = px_per_mm
    out: dict[str, tuple[float, float, float]] = {}
    for sid, piece in placed.items():
        if piece.kind not in kinds:
            continue
        spec = layout.pieces[piece.kind]
        x, y = top_centre_mm(spec, layout.space(sid).centre, cam)
        r = int(round((max(spec.size) * 0.75 + 12.0) * s))
        x0, y0 = int(round(x * s)) - r, int(round(y * s)) - r
        x1, y1 = x0 + 2 * r, y0 + 2 * r
        if x0 < 0 or y0 < 0 or x1 > corrected.shape[1] or y1 > corrected.shape[0]:
            continue
        diff = cv2.absdiff(corrected[y0:y1, x0:x1], reference[y0:y1, x0:x1]).astype(np.float32).sum(axis=2)
        diff = cv2.GaussianBlur(diff, (0, 0), 0.8)
        d8 = np.clip(diff / max(1.0, float(diff.max())) * 255, 0, 255).astype(np.uint8)
        _, mask = cv2.threshold(d8, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        found = counter_outline(mask > 0, spec, s, cv2.cvtColor(corrected[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY))
        if not found:
            continue
        cx, cy, ang = min(found, key=lambda f: (f[0] - r) ** 2 + (f[1] - r) ** 2)
        out[sid] = ((cx + x0) / s, (cy + y0) / s, ang)
    return out


@dataclass(frozen=True)
class CounterRead:
    """One printed counter as ``CountedFaces.apply`` read it where values are printed: for
    diagnostics (``tools/zhang_yi_values.py``) and tests."""

    space: int
    at_mm: tuple[float, float]
    angle: float  # that turns it square
    talent: Piece | None  # a sure talent face
    talent_score: float
    value: ValueMatch


class CountedFaces:
    """Turns counted pieces into the printed kinds counted as them, by their faces."""

    def __init__(self, layout: Layout, faces: Mapping[str, np.ndarray], px_per_mm: float, space_of: np.ndarray,
                 owners: Sequence[str], sizes: Mapping[Piece, PieceSize] | None = None):
        self.layout = layout
        self.sizes = dict(sizes or {})  # enrolled sizes (``TableModel.sizes``): a lone counter's area
        self.s = px_per_mm
        self.space_of = space_of
        self.owners = tuple(owners)
        self.counted_as = face_kinds(layout)  # printed kind -> the kind colour counting reads it as
        values = value_kinds(layout)  # counters read by the value printed on them (vision/counted_values.py)
        self.values = ValueBook(layout, {t: f for t, f in faces.items() if from_token(t).kind in values or t.endswith(FINE)})
        self.book = FaceBook(layout, {t: f for t, f in faces.items() if from_token(t).kind in self.counted_as
                                      and from_token(t).kind not in values}, self.s)
        h, w = space_of.shape
        self.candidates: dict[int, dict[Piece, list[Piece]]] = {}  # space -> counted piece -> its printed pieces
        self.valued: dict[int, dict[str, tuple[str, ...]]] = {}  # space -> counted kind -> the value counters it holds
        self.boxes: dict[int, tuple[int, int, int, int]] = {}
        self.last_counters: list[CounterRead] = []  # the last ``apply``'s value counters, as read (diagnostics)
        for i, sp in enumerate(layout.spaces):
            held = set(layout.held_kinds(sp))
            by: dict[Piece, list[Piece]] = {}
            for p in self.book.turned:
                if p.kind in held and self.counted_as[p.kind] in held and str(p.owner) in self.owners:
                    by.setdefault(Piece(p.owner, self.counted_as[p.kind]), []).append(p)
            shown: dict[str, list[str]] = {}
            for k in self.values.kinds():
                if k in held and self.counted_as.get(k) in held:
                    shown.setdefault(self.counted_as[k], []).append(k)
            if not by and not shown:
                continue
            self.candidates[i] = {k: sorted(v, key=str) for k, v in by.items()}
            self.valued[i] = {k: tuple(v) for k, v in shown.items()}
            poly = np.asarray(sp.polygon) * self.s
            g = BOX_GROW_MM * self.s
            x0, y0 = np.floor(poly.min(axis=0) - g).astype(int)
            x1, y1 = np.ceil(poly.max(axis=0) + g).astype(int) + 1
            self.boxes[i] = (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))

    def __bool__(self) -> bool:
        return bool(self.boxes)

    def apply(self, counts: Mapping[int, SpaceCount], corrected: np.ndarray, classes: np.ndarray,
              origin_px: tuple[int, int] = (0, 0), indices: Iterable[int] | None = None,
              view: Callable[[tuple[float, float], float, float], np.ndarray | None] | None = None
              ) -> tuple[dict[int, SpaceCount], set[int]]:
        """``counts`` (space index -> counted pieces) with the printed pieces found by face, and the
        spaces left unread (a face not sure). ``corrected``: the rectified, light-corrected board,
        or a crop of it whose top-left is board pixel ``origin_px``; ``classes``: its owner index
        per pixel (``ColourClassifier.classify`` of its foreground), as ``corrected``. ``view(at_mm,
        angle, side_mm)``: a counter's top in the camera frame, turned square (``counted_values.
        counter_view``), where values are read; None: a space with value counters is left unread."""
        out = dict(counts)
        unsure: set[int] = set()
        self.last_counters = []
        todo = list(self.boxes) if indices is None else [i for i in indices if i in self.boxes]
        ch, cw = corrected.shape[:2]
        ox, oy = origin_px
        gray = cv2.cvtColor(corrected, cv2.COLOR_BGR2GRAY)
        for i in todo:
            c = out.get(i)
            if c is None or not c.pieces:
                continue
            pieces = Counter(c.pieces)
            confidence = c.confidence
            x0, y0, x1, y1 = self.boxes[i]
            x0, y0, x1, y1 = max(x0, ox) - ox, max(y0, oy) - oy, min(x1, ox + cw) - ox, min(y1, oy + ch) - oy
            if x1 <= x0 or y1 <= y0:
                continue
            for counted in sorted(pieces, key=str):
                printed = self.candidates[i].get(counted, [])
                valued = self.valued[i].get(counted.kind, ())
                if not (printed or valued) or pieces.get(counted, 0) <= 0 or str(counted.owner) not in self.owners:
                    continue
                if valued and (view is None or view(self.layout.spaces[i].centre, 0.0, 1.0) is None):
                    unsure.add(i)  # the frame too coarse to read a value there: not looked at
                    continue
                oi = self.owners.index(str(counted.owner))
                mask = classes[y0:y1, x0:x1] == oi
                spec = self.layout.pieces[printed[0].kind if printed else valued[0]]
                side = int(round(face_side_mm(spec)[0] * self.s)) + 2 * int(round((MATCH_SEARCH_MM + 1) * self.s))
                size = self.sizes.get(counted)
                one = (ONE_ENROLLED[0] * size.area_mm2, ONE_ENROLLED[1] * size.area_mm2) if size is not None else None
                n_counted, seen, weakest = pieces[counted], 0, 1.0
                for cx, cy, ang in counter_outline(mask, spec, self.s, gray[y0:y1, x0:x1], one):
                    if self._space_at(((cx + x0 + ox) / self.s, (cy + y0 + oy) / self.s)) != i:
                        continue  # a neighbouring space's counter, seen through the box's margin
                    seen += 1
                    patch = squared(corrected[y0:y1, x0:x1], cx, cy, ang, side)
                    if valued:  # every counter is printed: a talent's name or a value, else the space is unread
                        at_mm = ((cx + x0 + ox) / self.s, (cy + y0 + oy) / self.s)
                        fine = view(at_mm, ang, value_search_side_mm(self.layout, valued[0])) if view else None
                        if fine is None:  # the frame too coarse there: recorded unread (value score -1)
                            self.last_counters.append(CounterRead(i, at_mm, ang, None, -1.0, ValueMatch(None, -1.0, -1.0)))
                        found = None if fine is None else \
                            self._talent_or_value(patch, fine, side, printed, valued, counted, i, at_mm, ang)
                        if found is None or pieces[counted] <= 0:
                            unsure.add(i)
                            break
                        pieces[counted] -= 1
                        pieces[found[0]] += 1
                        weakest = min(weakest, found[1])
                        continue
                    if contrast(patch, face_side_mm(spec)[0] * self.s) < PRINT_MIN:
                        continue  # a plain top: no print to match
                    m = self.book.match(patch, (side / 2 / self.s, side / 2 / self.s), printed,
                                        search_mm=MATCH_SEARCH_MM)
                    if m.piece is None:
                        if m.score >= LIKE_A_FACE:
                            unsure.add(i)
                        continue
                    if pieces[counted] <= 0:
                        unsure.add(i)  # more faces than counters: the count or a face is wrong
                        break
                    pieces[counted] -= 1
                    pieces[m.piece] += 1
                    weakest = min(weakest, m.score)
                if valued and (seen != n_counted or pieces[counted] > 0):
                    unsure.add(i)  # a counter not seen alone (or one too many): its value is not known
                elif valued:
                    # every counter seen alone and each one's print sure: as sure as the least sure print (colour
                    # counting is unsure of printed counters, which show less of their colour)
                    confidence = max(confidence, weakest)
                if pieces[counted] < n_counted and seen == n_counted:
                    # a printed counter shows less of its colour than a plain one, so colour counting is less
                    # sure of a count with talents in it; every counter of the count seen one by one confirms it
                    confidence = max(confidence, min(confidence + CONFIRMED_GAIN, weakest))
            pieces = +as_units(self.layout, pieces)  # each value counter as the pieces it counts as
            if pieces != c.pieces:
                out[i] = SpaceCount(pieces, confidence)
        return out, unsure

    def _talent_or_value(self, patch: np.ndarray, fine: np.ndarray, side: int, printed: Sequence[Piece],
                         valued: Sequence[str],
                         counted: Piece, i: int = -1, at_mm: tuple[float, float] = (0.0, 0.0),
                         angle: float = 0.0) -> tuple[Piece, float] | None:
        """A counter that is a value counter (its value sure, also against its state's talents' prints)
        or a talent (its print sure among its state's talents' and the values'; for a table model without
        the talents' prints, its face on the board image sure and its print less like a value than
        ``LIKE_A_VALUE``), with how sure; None when neither. ``patch``: the counter turned square in the
        board image; ``fine``: the same in the camera frame, finer (``counted_values.counter_view``)."""
        v = self.values.match(fine, valued, printed)
        m = self.book.match(patch, (side / 2 / self.s, side / 2 / self.s), printed, search_mm=MATCH_SEARCH_MM) \
            if printed else None
        talent = m is not None and m.piece is not None
        self.last_counters.append(CounterRead(i, at_mm, angle, m.piece if m else None, m.score if m else -1.0, v))
        if v.kind is not None:  # a sure value: a talent's face on the state's colour matches a value counter too
            return Piece(counted.owner, v.kind), v.score
        if v.other_piece is not None:  # a talent's print, read in the frame (finer than its face on the board image)
            return v.other_piece, v.other
        if talent and v.like is None and v.score < LIKE_A_VALUE:  # a table model without the talents' prints
            return m.piece, m.score
        return None

    def _space_at(self, at_mm: tuple[float, float]) -> int:
        xi, yi = int(round(at_mm[0] * self.s)), int(round(at_mm[1] * self.s))
        h, w = self.space_of.shape
        return int(self.space_of[yi, xi]) if 0 <= xi < w and 0 <= yi < h else -1
