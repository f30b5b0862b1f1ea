"""Spaces whose pieces are all neutral, read by how each piece kind looks (Cheops' tiles and
treasures): printed kinds by their face (``vision.faces``), plain kinds by their own colour.

Counting colour blobs (``vision.counting``) tells players' pieces apart by owner colour; neutral
pieces are one "owner" there. A game whose pieces are all neutral and differ by print or colour
(Cheops: four family portraits, the neighbour tile and the laws' back, all 38 mm tiles; scarabs of
six colours) is read here instead, space by space, from what enrolment learned of each kind:

1. a space that may hold printed kinds: its face is matched (``FaceBook.match``); a sure match is
   the piece, and the tile's outline is *explained* (the hand test does not see it); on a space for
   one printed kind only (a law box), a body of that tile's size is the tile whatever its face shows;
2. plain kinds (a colour each, ``vision.kind_colours.learn_kind_colours`` from the enrolment photo),
   read by ``vision.plain_kinds``: with the light measured around the space itself
   (``local_difference``: a board covered with tiles bends the reader's smooth light field), pixels
   that differ from the empty board and have a kind's colour, grouped in blobs, each blob given to
   the space under its foot (parallax of its height taken off), counted by the kind's apparent area
   as enrolment measured it; a space that can hold one plain kind only (a Cheops dot: its colour's
   marker) by size alone (``vision.sole_kind``); where the colour says too little, by the pieces'
   bodies (``vision.heap_bodies``, ``sole_kind.body_kind``);
3. a space mostly covered by something no face matches sure is *not sure*: left unread (the
   caller reports it occluded) rather than guessed -- unless the coverage already says a tile lies
   there and one face, matched at ``LIKE_A_FACE`` or better, leads every other kind by
   ``TILE_MARGIN``: then which tile is told by the lead, not by ``faces.MIN_SCORE`` (a sure score is
   for "a face at all"). Its pixels stay the hand test's evidence, as an unread tile's (a hand over a
   tile can match a face this well, ``vision.unread_tiles``). A space with neither is empty. A model
   that was not enrolled (no faces, no colours) reads none of these spaces.

The caller (``TableReader``) masks the explained pixels (matched tiles, minus what disagrees with
the face: a finger; scarab-sized blobs) out of the foreground before its hand test (``masked``),
so tiles covering the board are not a hand, while a hand over a tile is; every other colour there
counts as unknown, since no piece read explains it.
Nothing here names a game: the kinds, their faces, colours and sizes come from the layout and the
table model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Collection

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.blobs import dilated
from vision.counting import SpaceCount
from vision.enrolment import TableModel
from vision.faces import FaceBook, FaceMatch, bare_likeness, disagreement, face_side_mm, top_centre_mm
from vision.foreground import Foreground, ForegroundMaps
from vision.frame_blur import BlurMeter, books_for, match_either
from vision.hand_colour import lab_distance, skin_colour
from vision.layout import Layout
from vision.local_light import local_difference
from vision.pale_arm import pale_arm
from vision.heap_bodies import touches_border
from vision.plain_kinds import PlainKinds, box_of, opened
from vision.sole_kind import fill_holes

MAYBE_COVERED = 0.4  # ... this much: perhaps a tile (a scarab covers up to ~0.6): its face is matched
LIKE_A_FACE, LIKE_COVERED = 0.5, 0.6  # a face matched this well on a space this covered is a tile, not a scarab
BARE_MARGIN = 0.08  # a face matched on a space that barely differs in colour beats the empty board's print by this
BOARD_SHOWS = 0.7  # ... and no tile is looked for where the board's print matches this well (no tile seen: 0.68 at most)
SCARAB_MIDDLE, SCARAB_RIM = 0.6, 0.1  # ... nor where this much of the middle differs and no more of the rim (a scarab)
MIDDLE_MM, RIM_MM = 7.0, 5.0  # the middle: this far inside the space's inner part; the rim: within this of its edge
COVERED = 0.8  # share of a space's inner part that differs from the empty board: something tile-sized is there
TILE_MARGIN = 0.1  # on a space a tile covers, a face matched at LIKE_A_FACE that leads every other kind by this is that tile
TILES_AROUND = 0.5  # share of the board around a space under matched tiles: they may bend the light measured there
INNER_MM = 4.0  # the inner part: the space shrunk by this much
SKIN_NEAR_MM = 25.0  # a plain piece's blob this near a hand (a finger's length) ...
SKIN_LIKE = 15.0  # ... and this near its skin's colour (``lab_distance``) may be its skin: unread
SKIN_SPACES = 2  # spaces with a blob too big for their one piece: an arm read as pieces (``AppearanceRead.oversized``).
                 # photoreal-cheops8 tune t03-003: a pale forearm read as 6 such "scarabs", 7 spaces read through a
                 # hand; one alone, no hand in the frame: a piece and its shadow, or light (own cheops seed 7401: 3 frames)
ONE_PIECE_SHARE = 0.5  # a held kind covering this share of a space: the space holds one piece
MARKER_GROW_MM = 10.0  # the corner markers' print and this much around it is never bare board (as vision.occlusion)
UNREAD_TILE_MM = 6.0  # a tile left unread (which, not sure) shows this much beyond its outline: its rim, shadow, blur
EXPLAIN_MARGIN_MM = 2.5  # a matched tile explains its outline grown by this much (its rim, blur, walls)
SOLE_TILE = (0.6, 1.6)  # of a tile's footprint: a body this big on a space for that tile only is the tile
SOLE_TILE_REACH_MM = 12.0  # ... looked for this far round the space (a tile overhangs its box, shifted, turned)


def read_by_appearance(layout: Layout, space) -> bool:
    """Whether a space is read here: it holds pieces, and all of them are neutral (not a dice tray:
    the dice reader reads that one, vision/dice.py)."""
    held = layout.held_kinds(space)
    return bool(held) and space.kind != "dice" and all(layout.pieces[k].neutral for k in held)


@dataclass
class AppearanceRead:
    counts: dict[int, SpaceCount]  # space index -> pieces (empty spaces too)
    unsure: set[int]  # spaces left unread
    explained: np.ndarray  # bool, board px: pixels the pieces read explain
    arm: np.ndarray | None = None  # bool, board px: an arm the colour of the board (``vision.pale_arm``)
    blobs: np.ndarray | None = None  # int16, board px: 1 + the space index of each explained plain piece's blob
    # bool, board px: blobs of a plain kind's colour, on spaces that hold one such piece, bigger than one
    # (``plain_kinds.ONE_SCARAB_MAX``) and reaching in from beyond the space's reach, on ``SKIN_SPACES`` spaces or more: each
    # counted as its space's piece, but in a frame with a hand they are an arm across the spaces, read as
    # pieces (``OcclusionFinder._find``'s ``skin``). None when fewer (one alone can be a piece and its shadow)
    oversized: np.ndarray | None = None
    # bool, board px: the outlines (grown by ``UNREAD_TILE_MM``) of tiles seen but not told apart, left unread: no
    # hand by themselves (``vision.unread_tiles``)
    unread_tiles: np.ndarray | None = None

    def touching(self, hand: np.ndarray, lab: np.ndarray | None = None, px_per_mm: float = 1.0) -> frozenset[int]:
        """Spaces whose plain piece's blob touches the hand (``hand``: the occlusion's mask, bool):
        skin can take a pale piece's colour, so a "piece" there may be the hand's edge: unread. With the
        frame's ``lab`` (board px), also those whose blob lies within ``SKIN_NEAR_MM`` of the hand in the
        hand's own colour (``SKIN_LIKE``; its skin as this frame shows it, ``skin_colour``): the lit edge of
        a pale forearm that the hand test did not take, read as white scarabs beyond it (photoreal cheops12
        t02-007, 16 mm; own render-set 7401 t1-0076, 21 mm: both read through a hand)."""
        if self.blobs is None or not hand.any():
            return frozenset()
        hit = set(np.unique(self.blobs[hand & (self.blobs > 0)]).tolist())
        skin = None if lab is None else skin_colour(hand, self.explained, lab, px_per_mm)
        if skin is not None:
            r = max(1, int(round(SKIN_NEAR_MM * px_per_mm)))
            near = (dilated(hand, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0) \
                & (self.blobs > 0)
            for v in np.unique(self.blobs[near]).tolist():
                if v not in hit and lab_distance(np.median(lab[self.blobs == v], axis=0), skin) <= SKIN_LIKE:
                    hit.add(v)
        return frozenset(int(v) - 1 for v in hit)


class AppearanceStep:
    """Reads the spaces ``read_by_appearance`` selects, from a table model's faces and kind colours."""

    def __init__(self, layout: Layout, model: TableModel, space_of: np.ndarray, blur: BlurMeter | None = None):
        """``blur``: the reader's own meter of a frame's blur on the corner markers (one for both
        the faces and the hand test); without one, made here."""
        self.layout = layout
        self.s = model.px_per_mm
        self.space_of = space_of
        self.indices = [i for i, sp in enumerate(layout.spaces) if read_by_appearance(layout, sp)]
        self.book = FaceBook(layout, model.faces, self.s)
        if not self.indices:
            self.kinds: PlainKinds | None = None
            return  # nothing to read here (China, Ming): no tables built
        h, w = space_of.shape
        self.inner = {i: self._inner_mask(i, w, h) for i in self.indices}
        self.middle_and_rim = {i: _middle_and_rim(m, self.s) for i, (_, m) in self.inner.items()}
        # a space one of whose kinds nearly fills it (a tile slot, a scarab's dot) holds one piece
        self.capacity = {i: 1 if any(layout.pieces[k].area >= ONE_PIECE_SHARE * layout.spaces[i].area
                                     for k in layout.held_kinds(layout.spaces[i])) else 10 ** 6 for i in self.indices}
        self.reference = model.reference
        self.ref_lab = Foreground.lab_of(model.reference)
        self.kinds = PlainKinds(layout, model, space_of, self.indices, self.capacity)  # scarabs (vision/plain_kinds.py)
        self.markers = np.zeros((h, w), np.uint8)  # the corner markers' print (and a margin): never bare board
        for corners in layout.marker_corners_mm().values():
            c = np.asarray(corners, np.float64)
            mid = c.mean(axis=0)
            grown = mid + (c - mid) * (1.0 + 2 * MARKER_GROW_MM / max(float(np.ptp(c[:, 0])), 1.0))
            cv2.fillConvexPoly(self.markers, np.round(grown * self.s).astype(np.int32), 1)
        self.markers = self.markers > 0
        # how blurred a frame is, on the markers: the faces are matched as blurred (vision/frame_blur.py)
        self.blur = (blur or BlurMeter(model.reference, self.markers)) if self.book else None

    def __bool__(self) -> bool:
        return bool(self.indices)

    @property
    def ready(self) -> bool:
        """Whether the table model knows these pieces' looks (enrolled): else nothing is read."""
        return bool(self.book) or (self.kinds is not None and self.kinds.lut is not None)

    def _inner_mask(self, i: int, w: int, h: int) -> tuple[tuple[int, int, int, int], np.ndarray]:
        sp = self.layout.spaces[i]
        poly = np.asarray(sp.polygon) * self.s
        x0, y0 = np.floor(poly.min(axis=0)).astype(int)
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [np.round(poly - [x0, y0]).astype(np.int32)], 1)
        g = int(round(INNER_MM * self.s))
        m = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))
        return (x0, y0, x1, y1), m > 0

    def read(self, corrected: np.ndarray, maps: ForegroundMaps, cam: np.ndarray | None, rect: np.ndarray | None = None,
             fg: Foreground | None = None, *, only: Collection[int] | None = None,
             explained_before: np.ndarray | None = None) -> AppearanceRead:
        """``corrected``/``maps``: the frame as the reader corrected and measured it; with the
        uncorrected ``rect`` and the reader's ``fg``, the light is measured again without the
        tiles matched (a board covered with tiles bends the light field: the bare spaces between
        them come out pale) and the plain kinds are read on that.

        ``only``: read just these spaces (a part of the board changed: ``TableReader._read_part``);
        ``explained_before`` is then what the last read explained, kept for the other spaces (their
        tiles still bend the light the same way), and no pale arm is looked for (the caller weighs
        what the read leaves unexplained)."""
        h, w = self.space_of.shape
        indices = self.indices if only is None else [i for i in self.indices if i in only]
        if only is not None and explained_before is not None:
            explained = explained_before.astype(np.uint8)
            explained[np.isin(self.space_of, list(only))] = 0
        else:
            explained = np.zeros((h, w), np.uint8)
        counts: dict[int, SpaceCount] = {}
        unsure: set[int] = set()
        if not self.ready:  # not enrolled: the layout says nothing of how these pieces look, so no guess
            return AppearanceRead(counts, set(indices), explained > 0)
        busy = maps.piece | maps.weak
        sigma = 0.0 if self.blur is None else self.blur.sigma(corrected)
        books = [self.book] if self.blur is None else books_for(self.book, sigma)
        tiled: set[int] = set(self.indices) - set(indices)  # not read here (``only``): no plain pieces looked for
        doubtful: list[int] = []
        unread_tiles = np.zeros((h, w), np.uint8)
        for i in indices:
            sp = self.layout.spaces[i]
            held = self.layout.held_kinds(sp)
            printed = [Piece("neutral", k) for k in held if self.layout.pieces[k].printed]
            (x0, y0, x1, y1), inner = self.inner[i]
            covered = float(busy[y0:y1, x0:x1][inner].mean()) if inner.any() else 0.0
            if not printed:
                continue
            if covered < MAYBE_COVERED:
                if self.book and self._tile_like_the_board(i, busy, corrected, printed, cam, books, sigma, explained,
                                                           counts):
                    tiled.add(i)
                continue
            if not self.book:
                if covered >= COVERED:
                    unsure.add(i)  # something tile-sized, no face to tell it by
                    tiled.add(i)
                continue
            spec = self.layout.pieces[printed[0].kind]
            centre = top_centre_mm(spec, sp.centre, cam)
            book, m = match_either(books, corrected, centre, printed)
            if m.piece is None and len(held) == 1 and rect is not None:  # the one kind the space holds (a law box)
                body = self._sole_tile(i, rect, maps.noise, explained)
                if body is not None:
                    tiled.add(i)
                    counts[i] = SpaceCount(Counter({printed[0]: 1}), 1.0)
                    continue
            if m.piece is None:
                if covered >= COVERED or (m.score >= LIKE_A_FACE and covered >= LIKE_COVERED):  # a tile: which, not sure
                    tiled.add(i)
                    self._fill_outline(unread_tiles, printed[0].kind, centre, UNREAD_TILE_MM)
                    if m.best is not None and m.score >= LIKE_A_FACE and m.score - m.second >= TILE_MARGIN:
                        counts[i] = SpaceCount(Counter({m.best: 1}), round(m.score, 3))  # not explained: see 3. above
                        continue
                    unsure.add(i)
                    if m.score < LIKE_A_FACE:
                        doubtful.append(i)  # only the share covered says "tile": looked at again below
                continue  # else: no tile (a scarab, read below)
            tiled.add(i)
            self._tile(i, book, m, corrected, centre, explained, counts)
        # the light bent by tiles all round can make a space with a scarab look covered: in the light of the
        # bare board around it, is it? Then its scarab is read below; a space where none is found stays unread
        again = [i for i in doubtful if rect is not None and
                 self._covered_in_local_light(rect, maps.noise, i, explained > 0) < COVERED]
        tiled.difference_update(again)
        blobs = np.zeros((h, w), np.int16)
        oversized: dict[int, np.ndarray] = {}
        if self.kinds is not None and self.kinds.lut is not None and rect is not None:
            self.kinds.read(rect, maps.noise, cam, counts, explained, tiled, blobs, oversized, blur=sigma)
        unsure.difference_update(i for i in again if i in counts)
        for i in indices:
            if i not in counts and i not in unsure:
                counts[i] = SpaceCount(Counter(), 1.0)
        arm = pale_arm(corrected, self.reference, explained > 0, self.s, self.markers) if only is None else None
        skin = None
        if len(oversized) >= SKIN_SPACES:
            skin = np.zeros((h, w), bool)
            for mask in oversized.values():
                skin |= mask
        return AppearanceRead(counts, unsure, explained > 0, arm, blobs, skin, unread_tiles > 0)

    def _sole_tile(self, i: int, rect: np.ndarray, noise: float, explained: np.ndarray) -> np.ndarray | None:
        """On a space that holds one printed kind only (a Cheops price table's law box: rules, laws 4-7), a
        body that differs from the empty board (in the light measured round it, holes filled), of that tile's
        size (``SOLE_TILE``) and inside the box looked at, is that tile whatever its face shows: a law's back
        blurred or lit off its enrolled look matched no face and was read as nothing (photoreal Cheops tuning
        sets: 57 laws). Its pixels are then explained (set in ``explained``, uint8), and returned; None when
        there is no such body (a hand reaches in from beyond: its body touches the box's edge)."""
        sp = self.layout.spaces[i]
        spec = self.layout.pieces[self.layout.held_kinds(sp)[0]]
        box = box_of(sp, SOLE_TILE_REACH_MM, self.s, rect.shape)
        differs, _ = local_difference(rect, self.reference, self.ref_lab, box, noise, explained > 0)
        n, lbl, stats, cents = cv2.connectedComponentsWithStats(fill_holes(opened(differs)), connectivity=8)
        if n < 2:
            return None
        b = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        share = stats[b, cv2.CC_STAT_AREA] / (spec.area * self.s ** 2)
        body = lbl == b
        cx, cy = cents[b] + box[:2]
        if not SOLE_TILE[0] <= share <= SOLE_TILE[1] or touches_border(body) or \
                self.space_of[int(round(cy)), int(round(cx))] != i:
            return None
        x0, y0, x1, y1 = box
        explained[y0:y1, x0:x1][body] = 1
        return body

    def _tile(self, i: int, book: FaceBook, m: FaceMatch, corrected: np.ndarray, centre: tuple[float, float],
              explained: np.ndarray, counts: dict[int, SpaceCount]) -> None:
        """Space ``i`` holds the tile ``m`` matched: counted, and its outline explained (minus what does
        not look like its face: a finger on the tile stays evidence of a hand)."""
        assert m.piece is not None
        h, w = explained.shape
        counts[i] = SpaceCount(Counter({m.piece: 1}), round(max(0.0, m.score), 3))
        self._fill_outline(explained, m.piece.kind, (centre[0] + m.offset_mm[0], centre[1] + m.offset_mm[1]),
                           EXPLAIN_MARGIN_MM)
        off = disagreement(book, corrected, centre, m)
        if off is not None:
            (fx, fy), bad = off
            bh, bw = bad.shape
            if fx >= 0 and fy >= 0 and fy + bh <= h and fx + bw <= w:
                explained[fy:fy + bh, fx:fx + bw][bad] = 0

    def _fill_outline(self, mask: np.ndarray, kind: str, centre: tuple[float, float], grow_mm: float) -> None:
        """``mask`` (uint8, board px) set to 1 over the outline of a ``kind`` centred at ``centre`` (mm), grown."""
        outline = self.layout.pieces[kind].outline(centre[0], centre[1], 0.0)
        cv2.fillPoly(mask, [np.round(_grow(outline, grow_mm) * self.s).astype(np.int32)], 1)

    def _tile_like_the_board(self, i: int, busy: np.ndarray, corrected: np.ndarray, printed: list[Piece],
                             cam: np.ndarray | None, books: list[FaceBook], sigma: float, explained: np.ndarray,
                             counts: dict[int, SpaceCount]) -> bool:
        """A tile on a space that barely differs from the empty board in colour (a law's brown back
        on the brown pyramid: photoreal Cheops tune, 194 tiles read as bare and 81 as scarabs): read
        when a face matches sure there and better than the empty board's own print does
        (``bare_likeness`` + ``BARE_MARGIN``); else nothing is said of the space here. Not looked
        for (the faces cost ~2.5 ms a space) where a piece plainly fills the middle and leaves the rim
        bare (a scarab), or the board's own print plainly shows."""
        (x0, y0, x1, y1), _ = self.inner[i]
        middle, rim = self.middle_and_rim[i]
        b = busy[y0:y1, x0:x1]
        if middle.any() and rim.any() and b[middle].mean() >= SCARAB_MIDDLE and b[rim].mean() <= SCARAB_RIM:
            return False
        sp = self.layout.spaces[i]
        spec = self.layout.pieces[printed[0].kind]
        bare = bare_likeness(corrected, self.reference, sp.centre, face_side_mm(spec), self.s, sigma)
        if bare >= BOARD_SHOWS:
            return False
        centre = top_centre_mm(spec, sp.centre, cam)
        book, m = match_either(books, corrected, centre, printed)
        if m.piece is None or m.score < bare + BARE_MARGIN:
            return False
        self._tile(i, book, m, corrected, centre, explained, counts)
        return True

    def _covered_in_local_light(self, rect: np.ndarray, noise: float, i: int, explained: np.ndarray) -> float:
        """The share of space ``i``'s inner part that differs from the empty board, the light measured
        on the bare board around it only (neither the space itself nor the tiles matched around it).
        1.0 (covered, as the frame's light said) unless matched tiles lie around it: only they bend the
        light that way -- a hand beside a space must not get its light measured away."""
        sp = self.layout.spaces[i]
        (ix0, iy0, ix1, iy1), inner = self.inner[i]
        x0, y0, x1, y1 = box_of(sp, self.kinds.grow, self.s, rect.shape)
        ring = np.ones((y1 - y0, x1 - x0), bool)
        ring[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0] &= ~inner
        if explained[y0:y1, x0:x1][ring].mean() < TILES_AROUND:
            return 1.0
        ignore = explained.copy()
        ignore[iy0:iy1, ix0:ix1] |= inner
        differs, _ = local_difference(rect, self.reference, self.ref_lab, (x0, y0, x1, y1), noise, ignore, judge_ignored=True)
        part = differs[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
        return float(part[inner].mean()) if inner.any() else 0.0


def _middle_and_rim(inner: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """A space's inner part (bool) split: its middle (``MIDDLE_MM`` or more from its edge) and its rim
    (within ``RIM_MM``)."""
    d = cv2.distanceTransform(np.pad(inner, 1).astype(np.uint8), cv2.DIST_L2, 3)[1:-1, 1:-1] / s
    return inner & (d >= MIDDLE_MM), inner & (d < RIM_MM)


def _grow(outline: np.ndarray, mm: float) -> np.ndarray:
    c = outline.mean(axis=0)
    v = outline - c
    r = np.linalg.norm(v, axis=1, keepdims=True)
    return c + v * (1 + mm / np.maximum(r, 1e-6))
