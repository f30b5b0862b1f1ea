"""Hands and arms over the board: which spaces cannot be read in this frame.

Evidence that no learned piece colour explains (skin, a sleeve, the board's print hidden or
changed) is unexplained. An arm comes in over the board's edge, where no space is and so no
piece lies: any foreground region (gaps of a few mm closed) that reaches the edge and is as big
as a piece is a hand, whatever its colour (a sleeve can be yellow). Away from the edge, a region
with much unexplained colour, or far larger than any heap of pieces, is a hand too. The spaces it touches, with a margin, are occluded: never read through.
Its pale fingers may show no such evidence pixel by pixel (a noisy frame): bare board joined to it
whose colour, averaged over a few mm, lies nearer the hand's own than the empty board's is part of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from vision.blobs import clusters, components, dilated, dilated_in, members, stats_components

from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.pale_fingers import PaleFingers
from vision.unread_tiles import TILE_SHARE, inside_tiles, near_a_hand

HALO_MM = 4.0  # weak difference this close to a piece is its blur, shadow or reflection
SPECK_PIECES = 0.05  # a blob of piece colour smaller than this many (biggest) pieces is a speck: a region of weak
                     # difference near specks only is grown over whole by a hand that reaches it (a dark, noisy hand
                     # shows specks of piece colours all over, whose halos hid its fingers: photoreal china-a seed 9
                     # t02-004, 5 spaces read through). No hand on its own: a print region a little off in colour
                     # shows them too (own china-a seed 7302 t3-0042: 12 false flags when tried)
BLURRED_PX = 5.0  # a frame the corner markers show this blurred (px at the board's scale, ~1 px/mm) is read as
                  # blurred by the hand test (``OcclusionFinder.find``). Photoreal Ming tune: the two frames whose
                  # pieces' smears and lost print made hands without one 7.0; every other frame 0-3.5
BLURRED_KEEP_PIECES = 0.5  # ... except the lost print of a region the first look took for a hand, mostly lost print,
BLURRED_KEEP_MM2 = 300.0   # with this much colour or difference of its own (an arm's band over a far board: 395-650 mm²
                           # each part; the Ming tune's blurred print: at most 112; a piece's smear is mostly colour)
EDGE_MM = 12.0  # an arm crosses the board's edge
EDGE_HAND_PIECES = 1.0  # area, in biggest-piece footprints, of a foreground region reaching the edge
CLOSE_MM = 2.5  # gaps this wide inside a region are closed (an arm's colour breaks up over the print)
INNER_HAND_PIECES = 3.0  # ... of an unexplained region anywhere (a hand held over the middle)
SLEEVE_PIECES = 12.0  # a foreground region (all colours, gaps closed) this big is no set of pieces
ONE_COLOUR_PIECES = 4.0  # a blob of ONE piece colour this big is no heap of pieces (six touching
                         # emissaries are ~1.6 houses): a sleeve, or a palm whose skin looks red
PRINT_HAND_MM2 = 2000.0  # a region whose unexplained evidence is mostly print lost is a hand from this area on
                         # (two fingers and some palm; china-a's 3 pieces: 1700-2600 mm², so China is as before)
MARGIN_MM = 3.0  # spaces this close to a hand are occluded too (fingers, blur)
SKIN_REACH_MM = 45.0  # blobs read as pieces but too big for them (``skin``) this near a hand, or one another, are its arm
PIECE_REACH_MM = 10.0  # print lost this close to a piece: the piece (or its shadow) hides it
GROW_ROUNDS = 4
GROW_INTO_PIECES = 1.2  # a blob of piece colour touching the hand and bigger than this many pieces is skin
# a hand whose evidence breaks into patches (skin read as piece colours, print lost in 8 px blocks, gaps where the
# skin looks like the board), each smaller than the tests above, and its arm over the margin unseen (own render-set
# china-a seeds 7302, 7303: 16 and 12 spaces read through). ``_joined_regions``
JOIN_MIN_PIECES = 0.5  # a region with this much unexplained evidence ...
JOIN_SEEN_PIECES = 0.25  # ... this much of it colour or difference (not print lost alone) may be part of a hand
JOIN_MM = 12.5  # ... broken up by gaps up to twice this wide (fingers apart, a palm's print lost in patches)
JOIN_HAND_PIECES = 2.0  # such regions together, with this much colour or difference (and JOIN_HAND_MM2), are a
JOIN_HAND_MM2 = 1500.0  # hand, when one of them has more unexplained evidence than this many pieces (and
JOIN_CORE_PIECES = 1.0  # JOIN_CORE_MM2: a palm; else they may be pieces whose colour was not learned, side by side:
JOIN_CORE_MM2 = 700.0   # six unknown houses round a China region) and they reach within JOIN_EDGE_MM of the edge
JOIN_EDGE_MM = 50.0
GROW_INTO_REGION = 2.5  # a region of evidence (piece colours, unexplained, gaps closed) the growing hand reaches
                        # and bigger than this many pieces is part of it, unless it lies where a heap can show (a dark
                        # palm read as piece colours in fragments, each smaller than GROW_INTO_PIECES: own render-set
                        # china-a seed 7301 t2-0057, seed 7303: 11 of 12 readings through a hand gone)
MARKER_GROW_MM = 10.0  # the corner markers' print and this much around it (the print is compared in 8 px
                       # blocks) is not compared for a hidden board
HEAP_UNKNOWN = 0.5  # heaps side by side show less unknown colour than this many pieces' area (blur between colours)
HEAP_SPACES = 4  # a blob of one colour may lie across this many neighbouring spaces' heaps (Zhang Yi's crowded middle)
FINGERS_MM = 12.5  # weak or unexplained evidence this close to a hand is part of it (thin, pale fingers)


@dataclass(frozen=True)
class Occlusion:
    mask: np.ndarray  # bool, the hand and its margin
    spaces: frozenset[int]


class OcclusionFinder:
    def __init__(self, space_masks: list[tuple[tuple[int, int, int, int], np.ndarray]], size: tuple[int, int],
                 px_per_mm: float, biggest_piece_mm2: float,
                 heaps: list[tuple[tuple[int, int, int, int], np.ndarray]] | None = None,
                 markers_mm: list[np.ndarray] | None = None, reference_lab: np.ndarray | None = None):
        """``reference_lab``: the empty board in Lab (``Foreground.ref``), for a hand's pale fingers
        (``vision.pale_fingers``); None: not looked for."""
        self.space_masks = space_masks
        self.heaps = heaps or []  # where a heap of pieces on one space can show (bbox, mask): see ``_heap``
        w, h = size
        self.s = px_per_mm
        self.edge = border_band((h, w), int(round(EDGE_MM * px_per_mm)))
        self.join_edge = border_band((h, w), int(round(JOIN_EDGE_MM * px_per_mm)))
        j = max(1, int(round(JOIN_MM * px_per_mm)))
        self.join_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * j + 1, 2 * j + 1))
        self.piece_px = biggest_piece_mm2 * px_per_mm ** 2
        r = max(1, int(round(HALO_MM * px_per_mm)))
        self.halo_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        c = max(1, int(round(CLOSE_MM * px_per_mm)))
        self.close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * c + 1, 2 * c + 1))
        p = max(1, int(round(PIECE_REACH_MM * px_per_mm)))
        self.piece_reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * p + 1, 2 * p + 1))
        f = max(1, int(round(FINGERS_MM * px_per_mm)))
        self.finger_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * f + 1, 2 * f + 1))
        k = max(1, int(round(SKIN_REACH_MM * px_per_mm)))
        self.skin_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
        m = max(1, int(round(MARGIN_MM * px_per_mm)))
        self.margin_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * m + 1, 2 * m + 1))
        # the corner markers' print: small, all edges, it changes with exposure, blur and JPEG more than the
        # board's and is no sign of a hand there (a hand over a marker shows as skin and an arm at the edge)
        self.marker_print = np.zeros((h, w), bool)
        for corners in markers_mm or ():
            c = np.asarray(corners, np.float64).mean(axis=0)
            grown = c + (np.asarray(corners, np.float64) - c) * (1.0 + 2 * MARKER_GROW_MM / max(np.ptp(corners[:, 0]), 1.0))
            cv2.fillConvexPoly(self.marker_print.view(np.uint8), np.round(grown * px_per_mm).astype(np.int32), 1)
        self.fingers = PaleFingers(reference_lab, px_per_mm, self.piece_px, self.marker_print)

    def find(self, maps: ForegroundMaps, labels: np.ndarray, lost_print: np.ndarray | None = None,
             seed: np.ndarray | None = None, covered: np.ndarray | None = None,
             faded_print: np.ndarray | Callable[[], np.ndarray] | None = None,
             blur: Callable[[], float] | None = None, skin: np.ndarray | None = None,
             tiles: np.ndarray | None = None) -> Occlusion:
        """The hand, as ``_find`` finds it (``skin``: see there); in a frame found to hide spaces, ``blur`` (the frame's blur,
        px at the board's scale, as the corner markers show it: ``vision.frame_blur.BlurMeter``) is
        asked, and a frame blurred ``BLURRED_PX`` or more is looked at again as blurred: a piece's
        colour smeared up to ``HALO_MM`` + that blur round it is its blur, and print lost anywhere only
        faded (it makes no hand on its own; a hand found otherwise still grows over it). Photoreal Ming
        tune: two frames without a hand, motion-blurred 7 px, showed 46 spaces "under a hand" made of
        pieces' smears and print the blur took. Not faded: the print lost in a region the first look
        took for a hand that shows colour of its own there (``BLURRED_KEEP_MM2``: an arm lying across)."""
        regions: dict = {}
        occ = self._find(maps, labels, lost_print, seed, covered, faded_print, self.halo_kernel, regions, skin, tiles)
        if not occ.spaces or blur is None:
            return occ
        sigma = blur()
        if sigma < BLURRED_PX:
            return occ
        r = max(1, int(round((HALO_MM + sigma) * self.s)))
        halo = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        faded = faded_print
        if lost_print is not None:
            # print lost where the region it lies in shows colour or difference of its own is hidden, not faded
            # (own render-set ming-provisional seed 7401 t2-0033: an arm lying across a far board blurred 6 px,
            # its band of lost print a fifth colour; taken as faded, 19 spaces were read through it)
            faded = lost_print
            if "lbl" in regions:
                faded = lost_print & ~regions["accompanied"][regions["lbl"]]
        return self._find(maps, labels, lost_print, seed, covered, faded, halo, skin=skin, tiles=tiles)

    def _find(self, maps: ForegroundMaps, labels: np.ndarray, lost_print: np.ndarray | None,
              seed: np.ndarray | None, covered: np.ndarray | None,
              faded_print: np.ndarray | Callable[[], np.ndarray] | None, halo_kernel: np.ndarray,
              regions: dict | None = None, skin: np.ndarray | None = None,
              tiles: np.ndarray | None = None) -> Occlusion:
        """``seed`` (bool, board px): evidence already known to be a hand (an arm the colour of the
        board, ``vision.pale_arm``): it is one whatever the tests below say (its edge may lie just
        short of the board's edge, where those look for an arm). ``covered`` (bool, board px): pieces
        explained before the hand test and taken out of ``maps`` and ``labels`` (tiles read by their
        look): not bare board, so their print is never weighed as a pale finger (``vision.pale_fingers``), and
        weak difference within ``HALO_MM`` of them is their blur, as round a piece of a learned colour. ``faded_print``
        (bool, board px, ``structure.PrintLoss.faded``): lost print still there, faint (glare, a
        shadow): it makes no hand on its own, but a hand found otherwise grows over it; or a function making it,
        called only when print was lost away from pieces (elsewhere it changes nothing). ``regions``: filled
        with the evidence regions (``lbl``) and which of them are such a hand (``accompanied``). ``skin`` (bool,
        board px): blobs read as pieces, too big for the one their spaces hold, on several spaces
        (``AppearanceRead.oversized``): with a hand found otherwise they are part of it when they reach it
        (``_skin_reached``: a forearm over tiles matched under it shows only strips of skin between them, read
        as pieces, none touching its palm); on their own they make no hand. ``tiles`` (bool, board px): the outlines
        of tiles seen but not told apart (``AppearanceRead.unread_tiles``): a region mostly inside them is no hand
        unless one found otherwise is near (``vision.unread_tiles``)."""
        known = (labels >= 0).astype(np.uint8)
        # a piece read by its look blurs into the board as much as one of a learned colour: its weak rim
        # beyond the outline explained is no hand either (photoreal-cheops2 tune t00-004: 2167 px round
        # matched tiles, with two unmatched laws, made a hand of 21 spaces in a frame without one)
        near_piece = cv2.dilate(known if covered is None else known | covered.astype(np.uint8), halo_kernel) > 0
        seen_unexplained = (labels == UNKNOWN) | (maps.weak & ~near_piece & (labels == -2))
        unexplained = seen_unexplained
        faded = None
        if lost_print is not None:
            # print under a piece is hidden by the piece: only print lost away from pieces (and markers) counts
            away = lost_print & ~self._near_pieces(known, lost_print) & ~self.marker_print
            if faded_print is not None and away.any():  # (no print lost away from pieces: nothing faded counts)
                faded_print = faded_print() if callable(faded_print) else faded_print
                faded, away = away & faded_print, away & ~faded_print
            unexplained = unexplained | away
        unexplained = cv2.morphologyEx(unexplained.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        evidence = ((unexplained > 0) | (known > 0)).astype(np.uint8)
        evidence = cv2.morphologyEx(evidence, cv2.MORPH_CLOSE, self.close_kernel)
        n, lbl, stats, _ = stats_components(evidence)
        ev_lbl = lbl  # (``lbl`` is reused for blobs of one colour below; ``stats`` stays theirs)
        hand = np.zeros(labels.shape, bool)
        if n > 1:
            unexpl_px = unexplained > 0
            # pixel counts per region (as the float sums of 0/1 weights were: exact), over the few pixels counted
            unexpl_area = np.bincount(lbl[unexpl_px], minlength=n).astype(np.float64)
            at_edge = np.bincount(lbl[self.edge].ravel(), minlength=n) > 0
            total = stats[:, cv2.CC_STAT_AREA]
            at_edge_hand = (stats[:, cv2.CC_STAT_AREA] >= EDGE_HAND_PIECES * self.piece_px) & at_edge
            seen_area = np.bincount(lbl[unexpl_px & seen_unexplained], minlength=n).astype(np.float64)
            unexplained_hand = _unexplained_hand(unexpl_area, seen_area, INNER_HAND_PIECES * self.piece_px,
                                                 PRINT_HAND_MM2 * self.s ** 2)
            tile_made = np.zeros(n, bool)
            if tiles is not None and tiles.any():  # tiles seen, not told apart: no hand by themselves
                in_tiles, seen_in_tiles = inside_tiles(lbl, n, unexpl_px, seen_unexplained, tiles)
                tile_made = unexplained_hand & (in_tiles >= TILE_SHARE * unexpl_area)
                unexplained_hand &= ~tile_made
                unexpl_area, seen_area = unexpl_area - in_tiles, np.maximum(0.0, seen_area - seen_in_tiles)
            is_hand = at_edge_hand | unexplained_hand | (total >= SLEEVE_PIECES * self.piece_px)
            is_hand[0] = False
            for j in np.flatnonzero(is_hand & ~at_edge_hand & ~unexplained_hand):
                is_hand[j] = not (self._heap(lbl, j, stats[j]) or self._heaps(lbl, j, stats[j], labels))
            is_hand |= self._joined_regions(lbl, n, is_hand, unexpl_area, seen_area)
            if tile_made.any():  # ... but near a hand found otherwise (an arm over tiles) they are
                is_hand |= near_a_hand(lbl, n, tile_made & ~is_hand, is_hand, self.s)
            if regions is not None:  # for ``find``'s look at a blurred frame
                accompanied = is_hand & (unexpl_area >= 2 * seen_area) & \
                    (seen_area >= max(BLURRED_KEEP_PIECES * self.piece_px, BLURRED_KEEP_MM2 * self.s ** 2))
                accompanied[0] = False
                regions.update(lbl=lbl, accompanied=accompanied)
            if is_hand.any():
                hand = is_hand[lbl]
        if not hand.any() and (seed is None or not seed.any()) and \
                _largest(stats) <= ONE_COLOUR_PIECES * self.piece_px:
            # every blob of one colour lies inside a region of ``evidence`` (it holds all piece pixels, 8-connected
            # as they are): none of them can be too big for a heap either, and no hand is there to grow
            return Occlusion(hand, frozenset())
        # only blobs of one colour bigger than GROW_INTO_PIECES pieces are asked about below
        lbl_c, areas = _colour_components(labels, min(ONE_COLOUR_PIECES, GROW_INTO_PIECES) * self.piece_px)
        big = areas > ONE_COLOUR_PIECES * self.piece_px
        big[0] = False
        if self.heaps and big.any():
            for j in np.flatnonzero(big):
                ys, xs = np.nonzero(lbl_c == j)
                box = np.array([xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1, len(xs)])
                blob = lbl_c[box[1]:box[1] + box[3], box[0]:box[0] + box[2]] == j
                big[j] = not (self._heap(lbl_c, j, box) or _in_zone(self.heaps, blob, int(box[0]), int(box[1])))
        if big.any():
            hand |= big[lbl_c]
        if seed is not None:
            hand |= seed
        if not hand.any():
            return Occlusion(hand, frozenset())
        if skin is not None:
            hand |= self._skin_reached(skin, hand)
        # the hand grows into what lies within a finger's reach, a few times over (a wrist or a
        # cuff can break the evidence between arm and palm): colour or difference no piece explains, and
        # blobs of piece colour bigger than any one piece (skin can look like a piece colour)
        lbl, too_big = lbl_c, areas > GROW_INTO_PIECES * self.piece_px
        too_big[0] = False
        # evidence regions bigger than GROW_INTO_REGION pieces, but for heaps: part of a hand that reaches them
        part = stats[:, cv2.CC_STAT_AREA] > GROW_INTO_REGION * self.piece_px
        part[0] = False
        for j in np.flatnonzero(part):
            part[j] = not self._heap(ev_lbl, j, stats[j])
        # colour or difference, not print lost alone: a noisy frame loses the 8 px blocks beside an arm, and a hand
        # grown over them took spaces it did not cover (photoreal china-a seed 9 t02-010); a finger shows colour
        loose = (cv2.morphologyEx(seen_unexplained.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0) \
            | maps.weak_chroma
        if faded is not None:
            loose |= faded
        # weak difference near specks of piece colour only, not near a piece (a dark, noisy hand shows such specks
        # all over, whose halos hide it): a hand reaching a region of it grows over all of it
        solid = _without_specks(known, SPECK_PIECES * self.piece_px)
        speckled = maps.weak & near_piece & ~(cv2.dilate(solid if covered is None else solid | covered.astype(np.uint8),
                                                          halo_kernel) > 0)
        speckled = cv2.morphologyEx(speckled.astype(np.uint8), cv2.MORPH_CLOSE, self.close_kernel)
        sp_n, sp_lbl = cv2.connectedComponents(speckled, connectivity=8)
        every = np.ones(sp_n, bool)
        every[0] = False
        # what the hand takes whole once it reaches it: (labels, which labels, where they lie)
        wholes = ((lbl, too_big, known > 0), (ev_lbl, part, evidence > 0), (sp_lbl, every, speckled > 0))
        for _ in range(GROW_ROUNDS):
            reach = dilated(hand, self.finger_kernel) > 0
            grown_hand = hand | (reach & loose)
            for labelled, taken, where in wholes:
                reached = np.unique(labelled[reach & where])
                reached = reached[taken[reached]]
                if reached.size:
                    grown_hand |= members(labelled, reached, len(taken))
            if grown_hand.sum() == hand.sum():
                break
            hand = grown_hand
        grown = dilated(hand, self.margin_kernel)
        like = self.fingers.find(maps.lab, grown > 0, near_piece if covered is None else near_piece | covered)
        if like is not None:
            grown |= dilated(like, self.margin_kernel)
        return Occlusion(grown > 0, self.spaces_hit(grown))

    def _skin_reached(self, skin: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """The blobs of ``skin`` (bool, board px) within ``SKIN_REACH_MM`` of the hand, or of one such
        blob, and so on: a forearm over tiles matched under it shows strips of skin a tile apart, none
        touching its palm; a lone scarab and its shadow, or a pale print seen as one, two spaces away
        from any hand is no part of it (photoreal cheops10 t03-007: white "scarabs" on the pyramid's edge,
        four spaces from the arm, made 6 of its 20 false flags)."""
        n, lbl = cv2.connectedComponents(skin.view(np.uint8), connectivity=8)
        taken = np.zeros(n, bool)
        reached = hand
        x, y, w, h = cv2.boundingRect(skin.view(np.uint8))
        box = (x, y, x + w, y + h)  # the hand grown only where skin lies
        skin_in, lbl_in = skin[y:y + h, x:x + w], lbl[y:y + h, x:x + w]
        for _ in range(n - 1):
            near = np.unique(lbl_in[(dilated_in(reached, self.skin_kernel, box) > 0) & skin_in])
            near = near[(near > 0) & ~taken[near]]
            if not near.size:
                break
            taken[near] = True
            reached = hand | members(lbl, np.flatnonzero(taken), n)
        return members(lbl, np.flatnonzero(taken), n)

    def _joined_regions(self, lbl: np.ndarray, n: int, is_hand: np.ndarray, unexpl: np.ndarray,
                        seen: np.ndarray) -> np.ndarray:
        """Per region of ``lbl``: whether it is part of a hand broken into pieces. Regions with
        ``JOIN_MIN_PIECES`` of unexplained evidence (``unexpl`` px; ``seen``: of it, colour or difference,
        not print lost) within ``2 * JOIN_MM`` of one another are a hand together when their colour or
        difference makes ``JOIN_HAND_PIECES``, one of them is bigger than a piece (``JOIN_CORE_PIECES``: a
        palm) and they come within ``JOIN_EDGE_MM`` of the board's edge (the arm over the margin unseen:
        a patch of glare in the middle of the board is no hand)."""
        out = np.zeros(n, bool)
        pp = self.piece_px
        mm2 = self.s ** 2
        cand = (unexpl >= JOIN_MIN_PIECES * pp) & (seen >= JOIN_SEEN_PIECES * pp) & ~is_hand
        cand[0] = False
        ids = np.flatnonzero(cand)
        if ids.size < 2:
            return out
        member = members(lbl, ids, n)
        m, joined = cv2.connectedComponents(dilated(member, self.join_kernel), connectivity=8)
        cluster = np.zeros(n, np.int64)
        cluster[lbl[member]] = joined[member]
        c = cluster[ids]
        tot_s = np.bincount(c, weights=seen[ids], minlength=m)
        core = np.bincount(c, weights=(unexpl[ids] >= max(JOIN_CORE_PIECES * pp, JOIN_CORE_MM2 * mm2)).astype(np.float64),
                           minlength=m) > 0
        near_edge = np.zeros(m, bool)
        near_edge[np.unique(joined[self.join_edge])] = True
        hand_cluster = (tot_s >= max(JOIN_HAND_PIECES * pp, JOIN_HAND_MM2 * mm2)) & core & near_edge
        hand_cluster[0] = False
        out[ids] = hand_cluster[c]
        return out

    def _near_pieces(self, known: np.ndarray, where: np.ndarray) -> np.ndarray:
        """``cv2.dilate(known, self.piece_reach) > 0`` where it is asked about: inside the boxes of the
        clusters of ``where`` (bool, board px: the print lost, a few blocks here and there; ``blobs.clusters``),
        False elsewhere. The dilation there needs only ``known`` within the kernel's reach of a box, so it is
        dilated in that crop alone (the board's edges stay edges: nothing beyond them counts either way),
        not over the whole board."""
        out = np.zeros(where.shape, bool)
        ry, rx = self.piece_reach.shape[0] // 2, self.piece_reach.shape[1] // 2
        for x, y, x1, y1 in clusters(where if where.dtype == bool else where > 0):
            ax, ay = max(0, x - rx), max(0, y - ry)
            bx, by = min(where.shape[1], x1 + rx), min(where.shape[0], y1 + ry)
            grown = cv2.dilate(known[ay:by, ax:bx], self.piece_reach)
            out[y:y1, x:x1] = grown[y - ay:y1 - ay, x - ax:x1 - ax] > 0
        return out

    def joined(self, occ: Occlusion, extra: np.ndarray) -> Occlusion:
        """``occ`` with ``extra`` (bool, board px) as part of the hand too: a "piece" touching the hand
        that may be its skin (a fingertip read as a pale scarab) hides the spaces it lies over (their
        outlines grown as for the hand). No margin round it: a real scarab beside a hand hid its
        neighbours too (cheops render-set seed 1322: 25 more false flags with ``MARGIN_MM``)."""
        if not extra.any():
            return occ
        return Occlusion(occ.mask | extra, occ.spaces | self.spaces_hit(extra.astype(np.uint8)))

    def spaces_hit(self, grown: np.ndarray) -> frozenset[int]:
        """The spaces ``grown`` (uint8, board px: a hand grown by its margin) touches."""
        return frozenset(i for i, ((x0, y0, x1, y1), m) in enumerate(self.space_masks) if (grown[y0:y1, x0:x1] & m).any())

    def _heap(self, lbl: np.ndarray, j: int, stat: np.ndarray) -> bool:
        """Whether region ``j`` of ``lbl`` lies where a heap of pieces on one space can show (the
        space, grown by how far its tallest pieces lean): a Ming province space can hold a dozen
        family members, more than any hand test's size; an arm reaches in from beyond."""
        x, y, w, h = (int(v) for v in stat[:4])
        for (x0, y0, x1, y1), m in self.heaps:
            if x < x0 or y < y0 or x + w > x1 or y + h > y1:
                continue
            region = lbl[y:y + h, x:x + w] == j
            if not (region & (m[y - y0:y - y0 + h, x - x0:x - x0 + w] == 0)).any():
                return True
        return False

    def _heaps(self, lbl: np.ndarray, j: int, stat: np.ndarray, labels: np.ndarray) -> bool:
        """Whether region ``j`` is heaps of pieces on neighbouring spaces: two piece colours or more
        (hardly any unknown), and each colour's blob where a heap on one space can show (Zhang Yi's crowded
        areas side by side: a dozen counters across a border are no sleeve)."""
        if not self.heaps:
            return False
        x, y, w, h = (int(v) for v in stat[:4])
        region = lbl[y:y + h, x:x + w] == j
        colours = labels[y:y + h, x:x + w]
        if (region & (colours == UNKNOWN)).sum() > HEAP_UNKNOWN * self.piece_px:
            return False
        present = np.unique(colours[region & (colours >= 0)])
        if len(present) < 2:  # one colour only: a palm whose skin looks like a piece colour (the blob test decides)
            return False
        for oi in present:
            n, cl, cs, _ = components(region & (colours == oi))
            for k in range(1, n):
                bx, by, bw, bh = (int(v) for v in cs[k, :4])
                if not _in_zone(self.heaps, cl[by:by + bh, bx:bx + bw] == k, x + bx, y + by):
                    return False
        return True


def border_band(shape: tuple[int, int], width: int) -> np.ndarray:
    """A board-sized mask (bool) of the band ``width`` px wide along its four edges."""
    band = np.zeros(shape, bool)
    band[:width, :] = band[-width:, :] = True
    band[:, :width] = band[:, -width:] = True
    return band


def _largest(stats: np.ndarray) -> int:
    """The area of the biggest region of a ``stats_components`` result (0 without any)."""
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if len(stats) > 1 else 0


def _without_specks(mask: np.ndarray, min_px: float) -> np.ndarray:
    """``mask`` (uint8 0/1) without its 8-connected blobs smaller than ``min_px``."""
    n, lbl, stats, _ = stats_components(mask)
    if n <= 1:
        return mask
    keep = stats[:, cv2.CC_STAT_AREA] >= min_px
    keep[0] = False
    return keep[lbl].astype(np.uint8)


def _unexplained_hand(unexplained: np.ndarray, seen: np.ndarray, pieces_px: float, hand_px: float) -> np.ndarray:
    """Per region: whether its unexplained evidence (``unexplained`` px, of which ``seen`` is colour or
    difference, the rest print lost) makes it a hand: ``pieces_px`` of it, as before; and when its
    colour or difference alone is under ``pieces_px``, ``hand_px`` of it. No piece loses print (print
    near pieces is not weighed), so the pieces' size says nothing of how much lost print a hand is,
    and on a game of small pieces (Ming's 12 mm family members: 3 pieces ~ 600-850 mm²) print faded
    by the noise and blur of a far frame, in patches of a few 8 px blocks, made hands (photoreal Ming
    tune: without the print test, 4 % of the spaces were flagged instead of 24 %)."""
    return (unexplained >= pieces_px) & ((seen >= pieces_px) | (unexplained >= hand_px))


def _in_zone(zones: list[tuple[tuple[int, int, int, int], np.ndarray]], mask: np.ndarray, x: int, y: int,
             most: int | None = None) -> bool:
    """Whether ``mask`` (a crop whose top left is at x, y) lies wholly inside one of ``zones``, or
    inside the union of the ``most`` that cover most of it (neighbouring areas of one state, crowded
    at their borders)."""
    most = HEAP_SPACES if most is None else most
    h, w = mask.shape
    n = int(mask.sum())
    cover = []
    for (x0, y0, x1, y1), m in zones:
        ax, ay, bx, by = max(x, x0), max(y, y0), min(x + w, x1), min(y + h, y1)
        if ax >= bx or ay >= by:
            continue
        c = np.zeros((h, w), bool)
        c[ay - y:by - y, ax - x:bx - x] = (m[ay - y0:by - y0, ax - x0:bx - x0] > 0) & mask[ay - y:by - y, ax - x:bx - x]
        k = int(c.sum())
        if k == n:
            return True
        if k:
            cover.append(c)
    if most < 2 or not cover:
        return False
    union = np.zeros((h, w), bool)
    for c in sorted(cover, key=lambda c: -int(c.sum()))[:most]:  # the zones covering most of it, together
        union |= c
    return int(union.sum()) == n


def _colour_components(labels: np.ndarray, min_area: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Connected blobs of each colour separately (touching pieces of two colours stay two), as
    one label image (0: none) and the area of each label. One pass over all piece pixels; only
    the blobs where two colours touch are split by colour (a pass per colour over the whole board
    cost several times more), and of them only those bigger than ``min_area`` px: the caller asks
    only which colour blobs are bigger than that, and no colour of a smaller blob can be."""
    n, lbl, stats, _ = stats_components((labels >= 0).astype(np.uint8))
    areas = stats[:, cv2.CC_STAT_AREA].astype(np.int64)
    areas[0] = 0
    for j in np.flatnonzero(_mixed(labels, lbl, n) & (areas > min_area)):
        x, y, w, h = (int(v) for v in stats[j, :4])
        region = lbl[y:y + h, x:x + w] == j
        colours = labels[y:y + h, x:x + w]
        first = True
        for oi in np.unique(colours[region]):
            m, sub, sub_stats, _ = stats_components((region & (colours == oi)).astype(np.uint8))
            for k in range(1, m):
                if first:  # the first blob keeps the label
                    new_label, first = j, False
                    areas[j] = sub_stats[k, cv2.CC_STAT_AREA]
                else:
                    new_label = len(areas)
                    areas = np.append(areas, sub_stats[k, cv2.CC_STAT_AREA])
                lbl[y:y + h, x:x + w][sub == k] = new_label
    return lbl, areas


def _mixed(labels: np.ndarray, lbl: np.ndarray, n: int) -> np.ndarray:
    """Per blob of ``lbl`` (8-connected blobs of ``labels >= 0``): whether two of its 8-neighbouring pixels
    have different colours. A blob is 8-connected, so that is whether it holds two colours at all (along
    a path between them two neighbours differ): counted per (blob, colour) over its pixels alone, not
    by comparing the whole board with itself shifted four ways."""
    piece = labels >= 0
    colours = labels[piece].astype(np.int64)
    k = int(colours.max()) + 1 if colours.size else 1
    present = np.bincount(lbl[piece].astype(np.int64) * k + colours, minlength=n * k).reshape(n, k) > 0
    return present.sum(axis=1) > 1
