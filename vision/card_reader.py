"""Camera frame -> cards and tokens per section, for a play mat of card rows (The Great Wall).

The same first steps as ``vision.table_reader.TableReader`` (registration, rectification, light
correction, foreground, the hand test), then, per section the hand leaves free, what the card
convention of ``vision.card_rows`` shows:

* every upright card's **owner square** (the deck colour) in the row's index band: one square,
  one card of that owner (touching squares of one owner are counted by their area);
* under it the card's **type panel**, matched against the table's enrolled panels with
  ``vision.faces.FaceBook`` (the kind with the best match is reported, its score the confidence);
* a **crosswise** card (the dragon) by its own owner square in the band below the index band;
  the card it covers keeps showing its index above it, so it stays reported;
* **tokens**: discs at the token spots (face up) and discs in the row (a claimed token: the
  owner of the card it lies on), their value by their printed face (``vision.card_tokens``); a
  token whose value is not sure is reported without it (``token-?``, ``scorer.core.unvalued``).

What the camera cannot see is not guessed: a card whose index another card or a hand hides is not
reported (the players' declarations and the sensor board cover it). The hand test is
``TableReader``'s: foreground that the cards explain (inside a section) is not a hand; an arm
comes over the board's edge (``_arm``); an arm that crosses the sections' outlines hides their
print (``_print_hidden``), and the hand found so reaches as far as the foreground it joins in the
sections (``_hand_beyond``). The mat around the sections gets its own white balance first
(``_balance_margin``: in a bright frame the sections' white clips and tints the rest).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from typing import Callable

import cv2
import numpy as np

from scorer.core.observation import covers_fact
from scorer.core.types import Piece
from scorer.core.unvalued import unvalued
from vision.card_detail import DetailValues
from vision.card_enrol import BOARD, board_colours, card_colours, cross_panel_centre, faces_of, panel_centre
from vision.card_rows import (INDEX_X, OWNER_Y, PANEL_Y, TOKEN_Y_MM, Row, card_kinds, card_row, covered_card,
                              crosswise_kinds, token_spots)
from vision.card_tokens import TokenFinder, token_faces, values_legible
from vision.colour_classes import UNKNOWN, ColourClassifier
from vision.detection import Detection, SpaceResult
from vision.enrolment import TableModel
from vision.faces import FaceBook
from vision.layout import Layout
from vision.registration import Registrar, Registration
from vision.table_reader import TableReader

MAX_CARDS = 31  # the most cards one row holds in random 5-player games (scorer.games.great_wall.simulate): the fan's least pitch
SQUARE_MIN_SHARE = 0.35  # an owner blob of at least this share of a square's area is a card's index
SEARCH_MM = 3.0  # a panel or token face is looked for this far around where it should be
ARM_MM2 = 1500.0  # foreground at the board's edge with this much outside the sections is an arm
ARM_CLOSE_MM = 3.0
ARM_OPEN_MM = 4.0  # the arm test's foreground without what is narrower than twice this (an arm is far wider; the
                   # speckle that noise, JPEG and a mat's texture leave around the sections is not, but closed it joins up)
LOST_PART_MM2 = 150.0  # print hidden outside the sections: pieces of at least this count
LOST_REACH_MM = 8.0  # the sections this near it are occluded
LOST_CROSSING_MM2 = 250.0  # print hidden near a section's foreground, adding up to this: an arm crossing into it ...
CROSSING_SHARE = 0.5  # ... where at least this share of it is foreground (it differs from the mat) ...
BESIDE_SHARE = 0.5  # ... or at least this share of the sections within LOST_REACH_MM of it is (the arm goes on there)
INDEX_SPREAD = 20.0  # Lab: an index square's colour, blurred into the card, is taken this loosely (limit twice it)
DULL_CHROMA = 15.0  # Lab (8-bit a, b) distance from grey: a deck colour below it is dull
FRINGE_SLACK_MM = 3.0  # neighbouring cards' squares may lie this much nearer than the least pitch (jitter)
SQUARE_Y_SLACK_MM = 3.0  # a grey owner square's centre lies this near the row's at most (a card lies within a mm of
                         # its place, registration within two)
DULL_FILL = 0.7  # a dull (grey) blob must fill at least this share of its bounding box to be a square
MERGE_SLACK_MM = 4.0  # a square looks this much wider at most (blur, a card turned a little)
CROSS_INDEX_CLEAR_MM = 17.0  # a token found this near a crosswise card's index: one of the two is the other's print
MARGIN_SAMPLE = 4  # px: the margin's white balance from every 4th pixel each way
MARGIN_TINT = 0.01  # channel ratios this near 1: the margin is balanced already
CROSS_PANEL_SCORE = 0.5  # a crosswise card's panel must match its kind at least this well


def _polygon_mask(shape: tuple[int, int], poly: np.ndarray, s: float, grow_px: int = 0) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly) * s).astype(np.int32)], 1)
    if grow_px:
        m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1)))
    return m > 0


def _nominal_chroma(layout: Layout, owner: str) -> float:
    """Lab chroma (8-bit a, b distance from grey) of a player's colour as the layout gives it; inf if none."""
    rgb = layout.players.get(owner) if isinstance(layout.players, dict) else None
    if rgb is None:
        return float("inf")
    lab = cv2.cvtColor(np.uint8([[list(rgb)[::-1]]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    return float(np.hypot(lab[1] - 128, lab[2] - 128))


class CardReader(TableReader):
    """Reads a card-row layout (``card_rows.is_card_layout``) frame by frame."""

    def __init__(self, layout: Layout, model: TableModel | None = None, *,
                 clock: Callable[[], float] = time.monotonic, registrar: Registrar | None = None, classifier=None):
        super().__init__(layout, model, clock=clock, registrar=registrar, classifier=None)
        s = self.s
        h, w = self.model.reference.shape[:2]
        self.rows: dict[int, Row] = {i: r for i, sp in enumerate(layout.spaces) if (r := card_row(layout, sp.id)) is not None}
        zone = np.zeros((h, w), bool)
        for sp in layout.spaces:
            zone |= _polygon_mask((h, w), np.asarray(sp.polygon), s, int(round(4 * s)))
        self.card_zone = zone  # what cards and tokens can explain (not a hand)
        inner = np.zeros((h, w), bool)
        for sp in layout.spaces:
            inner |= _polygon_mask((h, w), np.asarray(sp.polygon), s, int(round(1 * s)))
        self.print_zone = inner  # where cards can hide the mat's print: the sections (their outlines stay clear)
        # the mat around the sections (no card lies there; markers left out): its own white balance (_balance_margin)
        keep = np.zeros((h, w), bool)
        keep[::MARGIN_SAMPLE, ::MARGIN_SAMPLE] = True
        self._margin_sample = np.flatnonzero(~zone & ~self.occlusion.marker_print & keep)
        self._margin_ref = self.model.reference.reshape(-1, 3)[self._margin_sample].astype(np.float32) + 1.0
        self._margin = (~inner).astype(np.uint8)
        r = max(1, int(round(LOST_REACH_MM * s)))
        self._reach_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        o = max(1, int(round(ARM_OPEN_MM * s)))
        self._open_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * o + 1, 2 * o + 1))
        c = max(1, int(round(ARM_CLOSE_MM * s)))
        self._close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * c + 1, 2 * c + 1))
        self.token_boxes = {}  # each section's token area (board px box)
        for i, sp in enumerate(layout.spaces):
            for reg in layout.regions:
                if reg.get("id") == f"{sp.id}-tokens":
                    poly = np.asarray(reg["polygon"], float) * s
                    x0, y0 = np.floor(poly.min(axis=0)).astype(int)
                    x1, y1 = np.ceil(poly.max(axis=0)).astype(int)
                    self.token_boxes[i] = (max(0, x0), max(0, y0), min(w, x1), min(h, y1))
        self.spots = {i: token_spots(layout, sp.id) for i, sp in enumerate(layout.spaces)}  # each section's token spots (mm)
        faces = faces_of(self.model, layout)  # (the layout's nominal artwork, drawn, when the model has none)
        self.faces = FaceBook(layout, faces, s)
        # deck colours only: a yellow index must not be taken for a token's gold (tokens are found by their rim)
        self.colours = ColourClassifier(replace(self.model, colours={o: v for o, v in self.model.colours.items()
                                                                     if o != "neutral" and not o.startswith("~")}))
        decks = {o: v for o, v in self.model.colours.items() if o != "neutral" and not o.startswith("~")}
        # deck colours with little chroma (grey): never taken loosely. As learned, or as the layout says the deck
        # is: a grey learned from an over-exposed enrolment photo (its white clipped) comes out tinted
        dull = {o for o, v in decks.items()
                if float(np.hypot(*(np.asarray(v).reshape(-1, 3).mean(axis=0)[1:] - 128))) < DULL_CHROMA
                or _nominal_chroma(layout, o) < DULL_CHROMA}
        # the index squares are read loosely (blur pales them), against the card's own other colours
        # (its face, the panels' ink: learned, else nominal) and the bare board's, which compete
        others = {**card_colours(layout, self.model.reference), **{o: v for o, v in self.model.colours.items() if o.startswith("~")},
                  BOARD: board_colours(self.model.reference)}
        self.index_colours = ColourClassifier(replace(self.model, colours={**decks, **others}, spreads={
            **{o: float(self.model.spreads.get(o, 12.0)) if o in dull else max(INDEX_SPREAD, float(self.model.spreads.get(o, 0.0)))
               for o in decks}, **{o: INDEX_SPREAD for o in others}}))
        self.row_bands = np.zeros((h, w), bool)  # where indexes lie (the upright and the crosswise bands)
        for row in self.rows.values():
            for y0, y1 in ((row.owner_band[0] - 3.0, row.owner_band[1] + 2.5), (row.cross_band[0] - 3.5, row.cross_band[1] + 3.5)):
                bx0, by0, bx1, by1 = self._band(row, y0, y1)
                self.row_bands[by0:by1, bx0:bx1] = True
        self.dull = dull
        self._colourful = np.array([i for i, o in enumerate(self.index_colours.owners) if o in decks and o not in dull], np.int16)
        self.cross = crosswise_kinds(layout)
        self.upright = tuple(k for k in card_kinds(layout) if k not in self.cross)
        self.token_kinds = tuple(k for k, spec in layout.pieces.items() if spec.neutral)
        side = INDEX_X[1] - INDEX_X[0]
        self.square_px = side * (OWNER_Y[1] - OWNER_Y[0]) * s * s
        # the least distance between neighbouring cards' left edges: a full row of the most cards
        self.least_pitch = min((r.pitch(MAX_CARDS) for r in self.rows.values()), default=side + 2)
        d = max((layout.pieces[k].size[0] for k in self.token_kinds), default=26.0)
        self.token_px = np.pi * (d / 2) ** 2 * s * s
        self.token_d = d
        self.detail_values = DetailValues(layout, faces)  # token faces for the detail still
        self._watched: tuple[np.ndarray, Registration] | None = None  # the frame being read (``_finer_value``)
        self.token_finder = TokenFinder(self.model.reference, s, d, self.token_kinds, self._best, self._finer_value,
                                        legible=values_legible(token_faces(layout, faces)))

    # ------------------------------------------------------------------ per frame
    def _read_part(self, frame: np.ndarray, reg: Registration, thumb: np.ndarray, at: float, t0: float,
                   t_reg: float) -> None:
        """Cards are always read whole: a card put down shifts the fan of the row it joins."""
        return None

    def _read_whole(self, frame: np.ndarray, reg: Registration, at: float, t0: float, t_reg: float) -> Detection:
        """Every section read afresh: the owner squares, type panels and tokens of its row."""
        corrected = self._balance_margin(self.light.correct(self._rectify(frame, reg.homography)))
        self._watched = (frame, reg)
        maps = self.fg.measure(corrected)
        self._noise = maps.noise
        raw = self.colours.classify(maps.lab, np.ones(maps.piece.shape, bool))
        loose = self.index_colours.classify(maps.lab, self.row_bands)  # the indexes: a blurred square's colour is paler
        for o in self.dull:  # ... but a dull deck colour (grey) is taken as strictly as ever: ink and shade look grey
            if o in self.colours.owners and o in self.index_colours.owners:
                mine = np.int16(self.index_colours.owners.index(o))
                loose[(loose == mine) & (raw != self.colours.owners.index(o))] = UNKNOWN
                # where the loose reading is a colourful deck colour, that stays: a dark or noisy frame greys a blue square
                # (a blue square's blurred rim, read grey, is dropped as its fringe by _squares)
                loose[(raw == self.colours.owners.index(o)) & self.row_bands & ~np.isin(loose, self._colourful)] = mine
                # ... and only where the frame differs from the empty mat: a pale grey deck (an enrolment photo's
                # square mixed with the card's white) lies within its limit of the sections' white
                loose[(loose == mine) & ~(maps.weak | maps.piece)] = UNKNOWN
        t_cls = time.perf_counter()
        # the hand test: what lies inside a section (a card's face, its print) is explained
        strict = np.where(maps.strict, raw, np.int16(-2))
        card_label = np.int16(len(self.colours.owners))
        strict[self.card_zone & ((strict == UNKNOWN) | ((strict == -2) & maps.weak))] = card_label
        lost = self.print_watcher.lost(maps.lab[..., 0])
        occ = self.occlusion.find(maps, strict, lost, blur=lambda: self.blur_meter.sigma(corrected))
        hidden = set(occ.spaces) | self._arm(maps)
        hidden |= self._print_hidden(lost, maps)
        t_occ = time.perf_counter()
        spaces = []
        for i, sp in enumerate(self.layout.spaces):
            if i in hidden:  # under a hand: the section is not read
                spaces.append(SpaceResult(sp.id, (), 0.0, True))
                continue
            read = self._read_section(i, corrected, loose, maps)
            if read is None:  # seen, but a token on a card is not sure: not read, never guessed
                spaces.append(SpaceResult(sp.id, (), 0.0, unsure=True))
                continue
            pieces, conf, seen = read
            spaces.append(SpaceResult(sp.id, tuple(sorted(pieces.items(), key=lambda kv: (str(kv[0].owner), kv[0].kind))),
                                      round(conf, 3), seen=seen))
        t_end = time.perf_counter()
        return Detection(at, self.mode, reg, tuple(spaces), (), {
            "registration": (t_reg - t0) * 1e3, "classify": (t_cls - t_reg) * 1e3, "occlusion": (t_occ - t_cls) * 1e3,
            "count": (t_end - t_occ) * 1e3, "total": (t_end - t0) * 1e3})

    def _balance_margin(self, corrected: np.ndarray) -> np.ndarray:
        """The mat around the sections with its own white balance (the median ratio per channel
        to the empty mat there). The light correction takes one white balance for the whole mat,
        and the sections' white, most of it, decides it; in a bright frame that white clips (or
        clipped in the empty mat's photo), its ratio is then no longer the light's, and the
        coloured mat around the sections comes out tinted (15 levels of Lab chroma and more).
        That tint was foreground all over the margin: arms where there is none, and a frame's
        noise scale (measured over the whole mat) twice what it is, which made the noisy-frame
        hand test fire. A hand over the margin covers too little of it to move the median."""
        ratio = np.median((corrected.reshape(-1, 3)[self._margin_sample].astype(np.float32) + 1.0) / self._margin_ref, axis=0)
        if np.all(np.abs(ratio - 1.0) < MARGIN_TINT):
            return corrected
        out = corrected.copy()
        cv2.copyTo(np.clip(corrected.astype(np.float32) / ratio, 0, 255).astype(np.uint8), self._margin, out)
        return out

    def _arm(self, maps) -> set[int]:
        """An arm over the board's edge: foreground (what is too narrow for an arm left out)
        reaching the edge band with an arm's area outside the sections (a card never lies
        there), and all it touches (a hand over cards merges with them). The sections it
        touches, with a margin, are occluded."""
        fg = cv2.morphologyEx((maps.piece | maps.weak).astype(np.uint8), cv2.MORPH_OPEN, self._open_kernel)
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, self._close_kernel)
        n, lbl, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n <= 1:
            return set()
        at_edge = np.bincount(lbl[self.occlusion.edge].ravel(), minlength=n) > 0
        # the part outside the sections must itself be as wide as an arm: a thin strip along an outline (a mat
        # a little off its registration, blurred), closed onto a smear at a marker, is none
        wide = cv2.morphologyEx(((fg > 0) & ~self.card_zone).astype(np.uint8), cv2.MORPH_OPEN, self._open_kernel) > 0
        outside = np.bincount(lbl[wide].ravel(), minlength=n)
        arm = at_edge & (outside >= ARM_MM2 * self.s * self.s)
        arm[0] = False
        if not arm.any():
            return set()
        return set(self.occlusion.spaces_hit(cv2.dilate(arm[lbl].astype(np.uint8), self.occlusion.margin_kernel)))

    def _print_hidden(self, lost: np.ndarray, maps) -> set[int]:
        """The mat's print (the sections' outlines, the gaps between them) hidden outside the
        sections, where no card lies: an arm over it. An arm that crosses an outline into a
        section hides the outline there and shows in the section beside it (on the white
        sections even a pale arm stands out, but there it is taken for cards, so that it is no
        hand to the other tests). Hidden print is such a crossing when it is itself mostly
        foreground (``CROSSING_SHARE``) with a section's foreground within ``LOST_REACH_MM``,
        and so is each hidden pixel where most of the sections within that reach of it is
        foreground (``BESIDE_SHARE``: a pale arm over a pale mat differs from it too little, but
        goes on, wide, into the section beside it; measured pixel by pixel, as blur loses long
        stretches of outline that an arm's part would be lost among); these adding up to
        ``LOST_CROSSING_MM2`` are an arm (cards lie clear
        of the outlines, a token covers less). Whatever else is lost is not: blur, noise and a
        mat a little off its registration take thin outlines all over a frame, with no
        foreground beside them (a card's edge or index near an outline fills a little of that
        reach, an arm all of it). The test is thus relative to the frame (the print and the
        foreground around the hidden print), never to its noise level. The sections within a
        hand's reach of it are occluded, and so is every section that the foreground it touches
        inside the sections reaches (the palm and fingers beyond a wrist that crosses an
        outline)."""
        m = cv2.morphologyEx((lost & ~self.print_zone & ~self.occlusion.marker_print).astype(np.uint8), cv2.MORPH_OPEN,
                             np.ones((2, 2), np.uint8))
        n, lbl, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        if n <= 1:
            return set()
        s2 = self.s * self.s
        area = stats[:, cv2.CC_STAT_AREA]
        big = area >= LOST_PART_MM2 * s2
        big[0] = False
        if not big.any():
            return set()
        # hidden by something that differs from the mat (blur, which takes thin lines too, does not) ...
        differs = np.bincount(lbl.ravel(), weights=(maps.weak | maps.piece).ravel(), minlength=n)
        rr = self._reach_kernel.shape[0] // 2
        H, W = lbl.shape
        crossing = np.zeros(n, bool)
        for j in np.flatnonzero(big):
            x, y, w, h = (int(v) for v in stats[j, :4])
            cx0, cy0, cx1, cy1 = max(0, x - rr), max(0, y - rr), min(W, x + w + rr), min(H, y + h + rr)
            part = cv2.dilate((lbl[cy0:cy1, cx0:cx1] == j).astype(np.uint8), self._reach_kernel) > 0
            inside = part & self.print_zone[cy0:cy1, cx0:cx1]
            fg = int(np.count_nonzero(inside & maps.piece[cy0:cy1, cx0:cx1]))
            # ... within a hand's reach of a section's foreground, or with the sections beside it mostly foreground
            crossing[j] = (fg > 0 and differs[j] >= CROSSING_SHARE * area[j]) or \
                (fg > 0 and fg >= BESIDE_SHARE * np.count_nonzero(inside))
        # ... or, pixel by pixel, so measured where each hidden pixel is (blur takes long stretches of outline,
        # which an arm's few cm would be lost among)
        reach = self._reach_kernel.astype(np.float32)
        near_fg = cv2.filter2D((maps.piece & self.print_zone).astype(np.float32), -1, reach, borderType=cv2.BORDER_CONSTANT)
        near_zone = cv2.filter2D(self.print_zone.astype(np.float32), -1, reach, borderType=cv2.BORDER_CONSTANT)
        beside = (near_fg > 0.5) & (near_fg >= BESIDE_SHARE * near_zone)
        seed = crossing[lbl] | (big[lbl] & beside)
        if np.count_nonzero(seed) < LOST_CROSSING_MM2 * s2:
            return set()
        grown = cv2.dilate(seed.astype(np.uint8), self._reach_kernel)
        return set(self.occlusion.spaces_hit(grown | self._hand_beyond(grown > 0, maps)))

    def _hand_beyond(self, seed: np.ndarray, maps) -> np.ndarray:
        """The sure foreground inside the sections (gaps of ``ARM_CLOSE_MM`` closed) that touches
        ``seed`` (where a hand is), grown by ``LOST_REACH_MM``: the rest of the hand. Cards never
        cross from one section to another, a hand does; a section is thus reached only by what
        joins the hand. The reach: fingers that end over the gap between two sections are as
        pale as the mat there and are not seen; the print they hide is too thin to count."""
        fg = cv2.morphologyEx((maps.piece & self.card_zone).astype(np.uint8), cv2.MORPH_CLOSE, self._close_kernel)
        n, lbl = cv2.connectedComponents(fg, connectivity=8)
        if n <= 1:
            return np.zeros(seed.shape, np.uint8)
        touched = np.zeros(n, bool)
        touched[np.unique(lbl[seed & (fg > 0)])] = True
        touched[0] = False
        return cv2.dilate(touched[lbl].astype(np.uint8), self._reach_kernel)

    # ------------------------------------------------------------------ one section
    def _band(self, row: Row, y0: float, y1: float) -> tuple[int, int, int, int]:
        s = self.s
        h, w = self.model.reference.shape[:2]
        return (max(0, int(round((row.x0 - 4) * s))), max(0, int(round(y0 * s))),
                min(w, int(round((row.x1 + 4) * s))), min(h, int(round(y1 * s))))

    def _squares(self, labels: np.ndarray, box: tuple[int, int, int, int], centre_y: float | None = None
                 ) -> list[tuple[str, float, float, int]]:
        """Owner squares in a band: (owner, centre x mm, centre y mm, cards) per blob. ``centre_y``
        (mm): where the squares' centres lie; a dull blob (grey) whose centre is more than
        ``SQUARE_Y_SLACK_MM`` off is the print's outline above the row, or a shadow, not a square."""
        x0, y0, x1, y1 = box
        band = labels[y0:y1, x0:x1]
        out = []
        for oi, owner in enumerate(self.index_colours.owners):
            if owner == "neutral" or owner.startswith("~"):
                continue
            m = (band == oi).astype(np.uint8)
            if not m.any():
                continue
            m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
            n, _, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=8)
            for j in range(1, n):
                area = stats[j, cv2.CC_STAT_AREA]
                if area < SQUARE_MIN_SHARE * self.square_px:
                    continue
                if stats[j, cv2.CC_STAT_HEIGHT] < 0.45 * (OWNER_Y[1] - OWNER_Y[0]) * self.s:
                    continue  # a thin line (a card's edge, a panel's rim): no index
                if centre_y is not None and owner in self.dull and abs((y0 + cents[j][1]) / self.s - centre_y) > SQUARE_Y_SLACK_MM:
                    continue  # (a dark, blurred frame: the section's outline reaches into the band, as grey as a grey deck)
                if owner in self.dull and area < DULL_FILL * stats[j, cv2.CC_STAT_WIDTH] * stats[j, cv2.CC_STAT_HEIGHT]:
                    continue  # a printed square fills its box; grey that does not is part of a card's picture
                # touching squares of one owner (a crowded fan): one more per least pitch of width
                side = INDEX_X[1] - INDEX_X[0]
                width_mm = stats[j, cv2.CC_STAT_WIDTH] / self.s
                k = 1 + max(0, int((width_mm - side + MERGE_SLACK_MM) // self.least_pitch))
                bw = stats[j, cv2.CC_STAT_WIDTH] / k
                for q in range(k):  # touching squares of one owner: side by side
                    cx = (x0 + stats[j, cv2.CC_STAT_LEFT] + (q + 0.5) * bw) / self.s
                    out.append((area / k, owner, cx, (y0 + cents[j][1]) / self.s))
        # two cards' indexes lie a least pitch apart: a smaller blob nearer to a bigger one than that
        # is its blurred fringe in another colour (a blue square's rim looks grey, never the other way)
        kept: list[tuple[float, str, float, float]] = []
        for area, owner, cx, cy in sorted(out, key=lambda t: (t[1] in self.dull, -t[0])):  # a colourful square first
            if all(abs(cx - kx) >= self.least_pitch - FRINGE_SLACK_MM or abs(cy - ky) >= OWNER_Y[1] - OWNER_Y[0]
                   for _, _, kx, ky in kept):
                kept.append((area, owner, cx, cy))
        return sorted(((owner, cx, cy, 1) for _, owner, cx, cy in kept), key=lambda t: t[1])

    def _best(self, corrected: np.ndarray, centre: tuple[float, float], candidates: list[Piece]
              ) -> tuple[Piece | None, float, float]:
        """The candidate whose face matches best near ``centre`` (mm), its score, and by how much it
        beats the next best (1.0 with one candidate)."""
        scores = sorted(((self.faces.match(corrected, centre, [piece], search_mm=SEARCH_MM).score, i)
                         for i, piece in enumerate(candidates)), reverse=True)
        if not scores:
            return None, -1.0, 0.0
        score, i = scores[0]
        return candidates[i], score, (score - scores[1][0]) if len(scores) > 1 else 1.0

    def _finer_value(self, at: tuple[float, float], candidates: list[Piece]
                     ) -> tuple[Piece | None, float, float] | None:
        """A token's value read on the detail still (``vision.card_detail``: a printed value is read
        finer than the watched frame shows it, as Zhang Yi's counters are), the still taken now if it
        is not yet; None without one: as the frame reads it."""
        if not self.detail_values or self._watched is None:
            return None
        frame, reg = self._watched
        still = self._still.get()
        if still is None:
            return None
        return self.detail_values.value(still, self._still.homography(reg, frame.shape), at, candidates,
                                        self.light.gain_at(at[0] * self.s, at[1] * self.s), SEARCH_MM)

    def _read_section(self, i: int, corrected: np.ndarray, labels: np.ndarray, maps
                      ) -> tuple[Counter, float, tuple[str, ...]] | None:
        """The section's cards and tokens (a face-up token whose value is not sure as ``token-?``),
        how sure of them, and which card each crosswise card lies on (``covers_fact``); None when a
        token on a card has a value that is not sure."""
        out: Counter = Counter()
        confs: list[float] = []
        row = self.rows.get(i)
        if row is None:
            return out, 1.0, ()
        uprights: list[tuple[float, Piece]] = []
        # upright cards: their owner squares, then their type panels
        ob = row.owner_band
        squares = self._squares(labels, self._band(row, ob[0] - 2.0, ob[1] + 1.5), (ob[0] + ob[1]) / 2)
        lefts: list[tuple[float, str]] = []
        side = INDEX_X[1] - INDEX_X[0]
        for owner, cx, cy, _ in squares:
            left = cx - (INDEX_X[0] + side / 2)
            top = cy - (OWNER_Y[0] + OWNER_Y[1]) / 2
            lefts.append((left, owner))
            kind, score, _ = self._best(corrected, panel_centre(left, top), [Piece(owner, k) for k in self.upright])
            if kind is not None:
                out[kind] += 1
                confs.append(max(0.0, score))
                uprights.append((left, kind))
        uprights.sort(key=lambda u: u[0])
        seen: list[str] = []
        tokens = self._tokens(i, row, corrected, maps, sorted(lefts))
        # crosswise cards: their owner squares in the band below, each with its kind's panel beside it
        if self.cross:
            cb = row.cross_band
            found = []
            for owner, cx, cy, _ in self._squares(labels, self._band(row, cb[0] - 2.5, cb[1] + 2.5)):
                panel = cross_panel_centre(cx, cy)
                kind, score, _ = self._best(corrected, panel, [Piece(owner, k) for k in self.cross])
                if kind is not None and score >= CROSS_PANEL_SCORE:  # else a square of colour without a
                    found.append((score, cx, cy, panel, kind))  # card's panel beside it (a shadow, a token's print)
            accepted: list[tuple[float, float, tuple[float, float]]] = []
            half = (PANEL_Y[1] - PANEL_Y[0]) / 2 + 2.0
            for score, cx, cy, panel, kind in sorted(found, key=lambda f: -f[0]):
                # the dark blocks of an accepted card's own panel, blurred, can look like a grey square
                if any(abs(cy - y) < 6.0 and abs(cx - p[0]) <= half for _, y, p in accepted):
                    continue
                # a claimed token's print and a crosswise card's index can look alike: the better match wins
                near = [t for t in tokens if str(t[0][0].owner) != "neutral" and
                        min(np.hypot(t[1] - cx, t[2] - cy), np.hypot(t[1] - panel[0], t[2] - panel[1])) < CROSS_INDEX_CLEAR_MM]
                if any(t[0][1] >= score for t in near):
                    continue
                tokens = [t for t in tokens if t not in near]
                confs.append(max(0.0, score))
                out[kind] += 1
                accepted.append((cx, cy, panel))
                under = covered_card([u[0] for u in uprights], cx, row)
                if under is not None:
                    seen.append(covers_fact(str(uprights[under][1].owner), uprights[under][1].kind))
        # tokens: face up at the spots, or lying on a card in the row. A value not sure is never guessed: it is
        # left out (``token-?``: the referee takes the value the game state has there, scorer.core.unvalued). But
        # in the row a card's print can look like a token's rim, and only a face tells them apart: a token there
        # that no still confirmed leaves the section unread (photoreal 1280 tuning split: such "claimed tokens"
        # in the watched frame were print)
        for (piece, score), _x, _y, sure, a_token in tokens:
            if not sure and not a_token:
                return None
            out[piece if sure else unvalued(piece)] += 1
            confs.append(max(0.0, score))
        return out, (min(confs) if confs else 1.0), tuple(sorted(seen))

    def _tokens(self, i: int, row: Row, corrected: np.ndarray, maps, lefts: list[tuple[float, str]]
                ) -> list[tuple[tuple[Piece, float], float, float, bool, bool]]:
        """Tokens by their printed faces: face up in the section's token area, and in the row's
        token band (a claimed token, owned by the player whose card it lies on). Each with whether
        its value is sure and whether it is a token at all whatever its value: in the token area,
        yes; on a card, only where the detail still showed a token's face."""
        out = []
        area = self.token_boxes.get(i)
        if area is not None:
            found = self.token_finder.find(corrected, area)
            found += self.token_finder.at_spots(corrected, self.spots.get(i, ()), found)
            for t in found:
                out.append(((Piece("neutral", t.kind), t.score), t.x, t.y, t.sure, True))
        if lefts:
            y0 = row.top + TOKEN_Y_MM - self.token_d / 2 - SEARCH_MM
            y1 = row.top + TOKEN_Y_MM + self.token_d / 2 + SEARCH_MM
            for t in self.token_finder.find(corrected, self._band(row, y0, y1)):
                under = [o for left, o in lefts if left <= t.x]
                out.append(((Piece(under[-1] if under else lefts[0][1], t.kind), t.score), t.x, t.y, t.sure, t.on_still))
        return out


def reader_for_layout(layout: Layout, model: TableModel | None = None, **kw):
    """The reader a layout needs: ``CardReader`` for card rows, else ``TableReader``."""
    from vision.card_rows import is_card_layout

    if is_card_layout(layout):
        kw.pop("classifier", None)
        return CardReader(layout, model, **kw)
    return TableReader(layout, model, **kw)
