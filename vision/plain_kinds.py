"""Plain neutral kinds (a colour each: Cheops' scarabs) on the spaces ``vision.appearance`` reads, for
its ``AppearanceStep``: by their colour, space by space, with the light measured around each space
(``local_kinds``); blobs of a kind's colour whose foot lies on the space, counted by the kind's
apparent area as enrolment measured it. A space that can hold one plain kind only is read by size
alone (``vision.sole_kind``); a pale piece on pale print by its brightness, then by its body
(``vision.sole_kind.body_kind``); heaps in a line by their length (``vision.piece_lines``), and heaps
of one kind on a space for several (a price table) by their bodies' length (``vision.heap_bodies``).
Nothing here names a game: the kinds, their colours and sizes come from the layout and the table model.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.blurred_kinds import board_prototypes, core_kind, mixed_piece
from vision.counting import SpaceCount
from vision.enrolment import TableModel, apparent_area
from vision.foreground import Foreground
from vision.geometry import parallax
from vision.heap_bodies import MIN_WIDTH, SINGLES_LOOKED_AT, heap_count, single_length, touches_border
from vision.layout import Layout
from vision.local_light import board_kinds, kind_lut, kind_table, local_difference, local_kinds
from vision.piece_lines import extent_mm, in_lines, one_piece_mm
from vision.sole_kind import body_kind, shaded_body, sole_blobs, sole_kinds

SPECK = 0.2  # of a plain kind's apparent area: a smaller blob is noise
PRESENT = 0.45  # of a plain kind's apparent area: at least one piece
MIXED_PRESENT = 1.0  # ... in several kinds' colours together (``mixed_piece``): a whole piece's worth
LEAN_PER_HEIGHT, GROW_MM = 0.8, 4.0  # a piece's blob reaches this share of its height (+ this) out of its space
HEAP_SHARE = 0.9  # touching pieces in a heap show a little less than their sum
HEAP_AT_LEAST_COLOUR = True  # a heap counted by its bodies' length holds at least what its colour counted (a line
                             # of n is n - 1 entry pitches and one body long, a body longer than a pitch: read n - 1)
ONE_SCARAB_MAX = 1.7  # of a plain kind's enrolled area: a blob bigger than this is not one piece
CORE_SHARE = 0.5  # of the deepest point's depth: the middle of a blob (for telling a rim from a piece)
BLOB_GROW_MM = 2.0  # a plain piece's blob explains this much around it (its blurred rim)

def box_of(sp, grow_mm: float, s: float, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A space's bounding box on the board (px), grown by ``grow_mm``, clipped to ``shape``."""
    poly = np.asarray(sp.polygon) * s
    g = grow_mm * s
    x0, y0 = np.floor(poly.min(axis=0) - g).astype(int)
    x1, y1 = np.ceil(poly.max(axis=0) + g).astype(int) + 1
    return max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1)


def opened(mask: np.ndarray) -> np.ndarray:
    """``mask`` opened by a 2 x 2 square: specks and one-pixel threads gone."""
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0


class PlainKinds:
    """The plain kinds of a table model, read on the spaces ``indices`` (each holding at most
    ``capacity[i]`` pieces)."""

    def __init__(self, layout: Layout, model: TableModel, space_of: np.ndarray, indices: list[int],
                 capacity: dict[int, int]):
        self.layout = layout
        self.s = model.px_per_mm
        self.space_of = space_of
        self.indices = indices
        self.capacity = capacity
        self.reference = model.reference
        self.ref_lab = Foreground.lab_of(model.reference)
        entries = [(t, v) for t, v in sorted(model.kind_colours.items()) if t.split(":", 1)[1] in layout.pieces]
        self.plain = [Piece(*t.split(":", 1)) for t, _ in entries]
        self.scale = [max(0.3, v[2]) for _, v in entries]  # how much colour one piece shows (enrolled)
        protos, owner_of, limits = kind_table(entries)
        self.lut: np.ndarray | None = kind_lut(protos, owner_of, limits) if len(protos) else None
        # a space for one piece of one plain kind only (a Cheops dot: its colour's marker) is read by size
        # alone; one for several (a price table) by their colour first, then by their bodies' length: their
        # bodies' area takes in their shadows (a line of 4 scarabs measured 5; photoreal Cheops tuning sets)
        sole = sole_kinds(layout, indices, self.plain)
        self.sole = {i: j for i, j in sole.items() if capacity[i] == 1}
        self.heaps_of_one = {i: j for i, j in sole.items() if capacity[i] > 1}
        # the board's own colours, weighed against the kinds' without their blurred rims (vision/blurred_kinds.py)
        ids = {sp.id: k for k, sp in enumerate(layout.spaces)}
        unrimmed = board_prototypes(entries, model.placed, self.ref_lab, space_of, ids)
        self.ref_kind = board_kinds(self.ref_lab, *kind_table(unrimmed))
        g = max(1, int(round(BLOB_GROW_MM * self.s)))
        self.blob_kernel = np.ones((2 * g + 1, 2 * g + 1), np.uint8)
        tallest = max((layout.pieces[p.kind].height for p in self.plain), default=0.0)
        self.grow = LEAN_PER_HEIGHT * tallest + GROW_MM  # a plain piece's blob reaches this far out of its space
        self._lightness: tuple[float, np.ndarray] | None = None  # ``board_lightness``'s last blur and its answer

    def read(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, counts: dict[int, SpaceCount],
               explained: np.ndarray, skip: set[int], blob_map: np.ndarray,
               oversized: dict[int, np.ndarray] | None = None, blur: float = 0.0) -> None:
        """Plain kinds by colour, space by space (``local_kinds``: the light measured around the
        space): blobs of each kind's colour whose foot lies on the space, counted by the kind's
        enrolled apparent area. ``blur``: how much more blurred the frame is than the empty board
        (``frame_blur.BlurMeter``, px)."""
        ex = explained > 0
        self._singles: list[float] = []
        self._heaps: dict[int, tuple[int, list[tuple[float, tuple[float, float], int]]]] = {}
        self._plain_spaces(rect, noise, cam, counts, explained, ex, skip, blob_map, oversized,
                           self.board_lightness(blur))
        self._lines(counts)
        self._heaps_by_body(rect, noise, cam, counts, explained, ex, skip, blob_map)

    def _heaps_by_body(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, counts: dict[int, SpaceCount],
                       explained: np.ndarray, ex: np.ndarray, skip: set[int], blob_map: np.ndarray) -> None:
        """Spaces for several pieces of one kind (``heaps_of_one``) counted again by their bodies' length
        (``vision.heap_bodies``), one body's length measured on single pieces read on spaces for one."""
        seen = {}
        for i in self.heaps_of_one:
            if i not in skip:
                box = box_of(self.layout.spaces[i], self.grow, self.s, rect.shape)
                blobs = self._bodies(rect, noise, cam, ex, i, box, self.heaps_of_one[i])
                if any(v >= PRESENT for v, _ in blobs):  # else no body: the colour's count stands
                    seen[i] = (box, blobs)
        body = self._one_body(rect, noise, cam, counts, ex) if seen else None
        if body is None:
            return
        for i, (box, blobs) in seen.items():
            j = self.heaps_of_one[i]
            n = heap_count(blobs, body, PRESENT, ONE_SCARAB_MAX, self.s)
            if n is None:
                continue
            old = counts.get(i)
            if old is not None and HEAP_AT_LEAST_COLOUR:
                n = max(n, old.pieces.get(self.plain[j], 0))
            counts[i] = SpaceCount(Counter({self.plain[j]: min(n, self.capacity[i])}), 1.0 if old is None else old.confidence)
            for v, blob in blobs:
                if v >= PRESENT and extent_mm(blob, self.s)[1] >= MIN_WIDTH * body:
                    self._explain(i, box, blob, explained, blob_map)

    def _one_body(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, counts: dict[int, SpaceCount],
                  ex: np.ndarray) -> float | None:
        """What one piece's body measures in this frame: the median length (``piece_lines.one_piece_mm``) of
        the bodies of up to ``SINGLES_LOOKED_AT`` single pieces read on spaces for one; None when too few show one."""
        lengths: list[float] = []
        for i, c in counts.items():
            if len(lengths) >= SINGLES_LOOKED_AT:
                break
            if self.capacity[i] != 1 or i in self.sole or sum(c.pieces.values()) != 1:
                continue
            (piece, _), = c.pieces.items()
            if piece in self.plain:
                box = box_of(self.layout.spaces[i], self.grow, self.s, rect.shape)
                length = single_length(self._bodies(rect, noise, cam, ex, i, box, self.plain.index(piece)),
                                       PRESENT, ONE_SCARAB_MAX, self.s)
                if length is not None:
                    lengths.append(length)
        return one_piece_mm(lengths)

    def _bodies(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, ex: np.ndarray, i: int,
                box: tuple[int, int, int, int], j: int) -> list[tuple[float, np.ndarray]]:
        """What differs from the empty board on space ``i`` (in the light measured round it), as bodies of
        plain kind ``j`` (``sole_kind.sole_blobs``: holes filled, feet on the space)."""
        differs, _ = local_difference(rect, self.reference, self.ref_lab, box, noise, ex)
        spec = self.layout.pieces[self.plain[j].kind]
        return sole_blobs(opened(differs), box, self.s, cam, spec.height, spec.area, spec.min_width,
                          lambda x, y: self._space(x, y) == i, SPECK)

    def _lines(self, counts: dict[int, SpaceCount]) -> None:
        """Heaps that are lines of touching pieces hold at least as many as their length says
        (``vision.piece_lines``: one piece's length from the single pieces this frame shows)."""
        piece = one_piece_mm(self._singles)
        if piece is None:
            return
        for i, (j, blobs) in self._heaps.items():
            n = min(in_lines(blobs, piece, ONE_SCARAB_MAX), self.capacity[i])
            if n > counts[i].pieces[self.plain[j]]:
                counts[i] = SpaceCount(Counter({self.plain[j]: n}), counts[i].confidence)

    def _plain_spaces(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, counts: dict[int, SpaceCount],
                      explained: np.ndarray, ex: np.ndarray, skip: set[int], blob_map: np.ndarray,
                      oversized: dict[int, np.ndarray] | None, board_l: np.ndarray | None) -> None:
        """``board_l``: what the brighter look measures against (``board_lightness``; None: the empty board)."""
        for i in self.indices:
            if i in skip:
                continue
            sp = self.layout.spaces[i]
            held = set(self.layout.held_kinds(sp))
            js = [j for j, p in enumerate(self.plain) if p.kind in held]
            if not js:
                continue
            box = box_of(sp, self.grow, self.s, rect.shape)
            if i in self.sole:
                blobs = self._sole(rect, noise, cam, ex, i, box)
                if blobs:
                    self._count(i, self.sole[i], blobs, box, counts, explained, blob_map, oversized)
                continue
            difference = local_difference(rect, self.reference, self.ref_lab, box, noise, ex)
            kind_of = local_kinds(rect, self.reference, self.ref_lab, box, self.lut, noise, ex, self.ref_kind,
                                  difference=difference)
            present = self._blobs_by_kind(i, js, kind_of, box, cam)
            if not present:
                # a piece whose colour blur spread over several kinds' (vision/blurred_kinds.py)
                mixed = mixed_piece(kind_of, opened(np.isin(kind_of, js)), js,
                                    lambda k, c: self._piece_area(i, k, c, box, cam),
                                    MIXED_PRESENT, ONE_SCARAB_MAX, CORE_SHARE) if self.capacity[i] == 1 else None
                if mixed is not None:
                    self._count(i, mixed[0], [(mixed[1], mixed[2])], box, counts, explained, blob_map, oversized)
                elif self.capacity[i] == 1:  # a pale piece on a pale board: brighter than it, of one kind's colour
                    kind_of = local_kinds(rect, self.reference, self.ref_lab, box, self.lut, noise, ex, self.ref_kind,
                                          brighter=True, difference=difference, board_l=board_l)
                    pale = self._blobs_by_kind(i, js, kind_of, box, cam, ONE_SCARAB_MAX)
                    if len(pale) == 1:
                        (j, blobs), = pale.items()
                        self._count(i, j, blobs, box, counts, explained, blob_map, oversized)
                    else:  # a piece's body seen whole, its own colour on its lit side only (a white scarab)
                        body = self._coloured_body(rect, noise, cam, ex, i, js, kind_of, box)
                        if body is not None:
                            self._count(i, body[0], [body[1]], box, counts, explained, blob_map, oversized)
                continue
            # the kind is the one whose biggest blob is most like a piece (a blurred yellow scarab
            # has pale edges; scattered pale specks do not add up to a white one) ...
            j = max(present, key=lambda k: max(v for v, _ in present[k]))
            if len(present) > 1:  # ... unless another kind holds the middle of the pieces seen there
                j = core_kind(kind_of, present, j, PRESENT, CORE_SHARE)
            self._count(i, j, present[j], box, counts, explained, blob_map, oversized)

    def board_lightness(self, blur: float) -> np.ndarray | None:
        """What a pale piece must be brighter than (``local_kinds``' brighter look) in a frame ``blur`` px more
        blurred than the empty board: the board's lightness as enrolled or blurred as much, whichever is
        brighter. Blur spreads the board's dark print lines, paler, over the squares beside them: against the
        enrolled board alone they were "brighter", and read as pale scarabs (own renders, a far board blurred 4 px:
        a black scarab on 26 empty pyramid spaces of one frame). None for a frame as sharp as the empty board."""
        if blur <= 0:
            return None
        key = round(float(blur), 2)
        if self._lightness is None or self._lightness[0] != key:  # one kept (a board's worth): blur changes slowly
            blurred = Foreground.lab_of(cv2.GaussianBlur(self.reference, (0, 0), key))[..., 0]
            self._lightness = (key, np.maximum(self.ref_lab[..., 0], blurred))
        return self._lightness[1]

    def _blobs_by_kind(self, i: int, js: Sequence[int], kind_of: np.ndarray, box: tuple[int, int, int, int],
                       cam: np.ndarray | None, largest: float = np.inf) -> dict[int, list[tuple[float, np.ndarray]]]:
        """Per kind ``js`` with a piece on space ``i`` (a blob of at least ``PRESENT`` of its apparent area):
        its blobs there bigger than a speck and no bigger than ``largest`` pieces, as (share of one piece, mask)."""
        found: dict[int, list[tuple[float, np.ndarray]]] = {}
        for j in js:
            m = opened(kind_of == j).astype(np.uint8)
            if not m.any():
                continue
            n, lbl, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=8)
            blobs: list[tuple[float, np.ndarray]] = []
            for b in range(1, n):
                app = self._piece_area(i, j, cents[b], box, cam)
                a = stats[b, cv2.CC_STAT_AREA]
                if app is not None and SPECK * app <= a <= largest * app:
                    blobs.append((a / app, lbl == b))
            if blobs and max(v for v, _ in blobs) >= PRESENT:
                found[j] = blobs
        return found

    def _coloured_body(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, ex: np.ndarray, i: int,
                       js: Sequence[int], kind_of: np.ndarray, box: tuple[int, int, int, int]
                       ) -> tuple[int, tuple[float, np.ndarray]] | None:
        """On a space that holds one piece: the one blob that differs from the empty board with a piece's
        size and shape (``vision.sole_kind.sole_blobs``, its shaded side included), told by the kind whose
        colour holds enough of it (``body_kind``): (kind, (its share of one piece, its mask)), or None."""
        spec = self.layout.pieces[self.plain[js[0]].kind]
        if any(self.layout.pieces[self.plain[j].kind].area != spec.area for j in js):
            return None  # kinds of different sizes: the body's size does not say a piece
        # too little of any kind's colour in the whole box for a body to hold enough of it (no parallax: the least
        # apparent area): the body is not looked for (an empty space, most of those that come here)
        if max(int((kind_of == j).sum()) - SPECK * self.scale[j] * spec.area * self.s ** 2 for j in js) < 0:
            return None
        blobs = [(v, m) for v, m in self._bodies(rect, noise, cam, ex, i, box, js[0]) if v >= PRESENT]
        if len(blobs) != 1 or blobs[0][0] > ONE_SCARAB_MAX or touches_border(blobs[0][1]):
            return None
        v, mask = blobs[0]
        least = {j: SPECK * (self._piece_area(i, j, np.argwhere(mask).mean(axis=0)[::-1], box, cam) or np.inf)
                 for j in js}
        j = body_kind(kind_of, mask, js, least)
        return None if j is None else (j, (min(v, 1.0), mask))

    def _piece_area(self, i: int, j: int, centre_px: np.ndarray, box: tuple[int, int, int, int],
                    cam: np.ndarray | None) -> float | None:
        """Plain kind ``j``'s apparent area in pixels (as much of its colour as enrolment saw) for a
        blob centred at ``centre_px`` (pixels of ``box``); None when the blob's foot (its height's
        parallax taken off) is not on space ``i``."""
        spec = self.layout.pieces[self.plain[j].kind]
        cx, cy = (centre_px + np.asarray(box[:2])) / self.s
        par = parallax(np.array([[cx, cy]]), cam, spec.height)[0]
        if self._space(cx - par[0] / 2, cy - par[1] / 2) != i:
            return None
        return self.scale[j] * apparent_area(spec.area, float(np.linalg.norm(par))) * self.s ** 2

    def _sole(self, rect: np.ndarray, noise: float, cam: np.ndarray | None, ex: np.ndarray, i: int,
              box: tuple[int, int, int, int]) -> list[tuple[float, np.ndarray]]:
        """The blobs on a space that can hold one plain kind only (``vision.sole_kind``): whatever
        differs from the empty board there, of the kind's size, is the kind, whatever its colour.
        When none is big enough to be one (``PRESENT``): the kind's body (a disc of its width) if the
        space's middle is shaded (``sole_kind.shaded_body``) and no other piece's explained blob reaches
        into that disc; else empty."""
        differs, lab = local_difference(rect, self.reference, self.ref_lab, box, noise, ex)
        spec = self.layout.pieces[self.plain[self.sole[i]].kind]
        blobs = sole_blobs(opened(differs), box, self.s, cam, spec.height, spec.area, spec.min_width,
                           lambda x, y: self._space(x, y) == i, SPECK)
        if any(v >= PRESENT for v, _ in blobs):
            return blobs
        # none big enough: a body shaded where the print under it is flat (its colour's own dot)
        x0, y0, x1, y1 = box
        return shaded_body(lab, self.ref_lab[y0:y1, x0:x1], ex[y0:y1, x0:x1], box, self.s,
                           self.layout.spaces[i].centre, spec.min_width, noise)

    def _count(self, i: int, j: int, blobs: list[tuple[float, np.ndarray]], box: tuple[int, int, int, int],
               counts: dict[int, SpaceCount], explained: np.ndarray, blob_map: np.ndarray,
               oversized: dict[int, np.ndarray] | None = None) -> None:
        """The pieces of plain kind ``j`` its blobs on space ``i`` show; the piece-sized blobs explained; blobs
        too big for the one piece the space holds, reaching in from beyond it, in ``oversized`` (space -> board px)."""
        x0, y0, x1, y1 = box
        v = sum(bv for bv, _ in blobs)
        # pieces apart on a space are separate blobs: each blob is at least one of them (a heap in
        # one blob shows a little less than its pieces' sum, as the whole)
        seen = [(bv, blob, max(1, int(round(HEAP_SHARE * bv if bv > ONE_SCARAB_MAX else bv))))
                for bv, blob in blobs if bv >= PRESENT]
        n_pieces = min(max(1, int(round(HEAP_SHARE * v)), sum(n for _, _, n in seen)), self.capacity[i])
        counts[i] = SpaceCount(Counter({self.plain[j]: n_pieces}), round(min(1.0, v / n_pieces), 3))
        if self.capacity[i] == 1 and n_pieces == 1 and len(blobs) == 1 and PRESENT <= v <= ONE_SCARAB_MAX:
            self._singles.append(extent_mm(blobs[0][1], self.s)[0])  # what one piece measures in this frame
        elif self.capacity[i] > 1 and i not in self.sole:
            self._heaps[i] = (j, [(bv, extent_mm(blob, self.s), n) for bv, blob, n in seen])
        # a scarab-sized blob is explained for the hand test; a bigger one is not (skin can take
        # a scarab's colour: a hand read as a scarab must still be seen as a hand), but for a heap
        # on a space that holds several or only the one kind (a difference blob: the piece and its
        # shadow), wholly inside the space's reach (a hand comes from beyond)
        for bv, blob in blobs:
            heap = (self.capacity[i] > 1 or i in self.sole) and not touches_border(blob)
            if PRESENT <= bv and (bv <= ONE_SCARAB_MAX or heap):
                self._explain(i, box, blob, explained, blob_map)
            elif oversized is not None and bv > ONE_SCARAB_MAX and self.capacity[i] == 1 and i not in self.sole \
                    and touches_border(blob):
                if i not in oversized:
                    oversized[i] = np.zeros(explained.shape, bool)
                oversized[i][y0:y1, x0:x1] |= blob

    def _explain(self, i: int, box: tuple[int, int, int, int], blob: np.ndarray, explained: np.ndarray,
                 blob_map: np.ndarray) -> None:
        """A piece's blob (bool, in ``box``) on space ``i`` explained, with its blurred rim: not evidence of a
        hand, and marked as that space's in ``blob_map``."""
        x0, y0, x1, y1 = box
        grown = cv2.dilate(blob.astype(np.uint8), self.blob_kernel)
        explained[y0:y1, x0:x1] |= grown
        blob_map[y0:y1, x0:x1][grown > 0] = i + 1

    def _space(self, x: float, y: float) -> int:
        xi, yi = int(round(x * self.s)), int(round(y * self.s))
        h, w = self.space_of.shape
        return int(self.space_of[yi, xi]) if 0 <= xi < w and 0 <= yi < h else -1
