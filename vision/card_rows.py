"""Cards laid in a row on a play mat (The Great Wall): where each card physically lies, and what
its printed face looks like. Shared by the renderer (``vision.placement`` places them,
``vision.render`` draws them) and the card reader (``vision.card_reader`` knows where to look).

How cards lie (the convention the reader relies on; docs/great-wall.md, "Camera"):

* A space that holds cards has a region ``<space>-row`` (its card row) and regions
  ``<space>-token-<k>`` (the spots of its face-up tokens), both from the layout.
* Cards lie **upright** (long side across the row) in one row shared by all players, in the
  order played, the first nearest the tokens (the rules' position 1). Each new card is laid to
  the right of the last, on top of it: a **fan**. Up to ``row length / (card + gap)`` cards lie
  side by side; more overlap evenly, each card showing at least its **index** strip.
* The **index**: a patch in the owner's colour (the deck colour) along the card's top-left
  corner, with the card's label in it. It is what the reader reads: one index, one card.
* A card that lies **on** another (a kind marked ``crosswise`` in the layout: the Great Wall's
  dragon) lies turned 90 degrees over the lower part of the card it covers, so that the covered
  card's index still shows above it; its own index is at its own top-left, below the row's
  index band.
* A token claimed by a player lies on one of that player's cards, below the card's index.

Everything here comes from the layout (card size, row and token regions, which kinds lie
crosswise); nothing is game-specific.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.layout import Layout, PieceSpec

CARD_MAX_HEIGHT_MM = 1.0  # a flat rectangular piece no thicker than this is a card
ROW_MARGIN_MM = 3.0  # first card this far into its row
TOP_MARGIN_MM = 3.0  # card tops this far below the row's top edge
GAP_MM = 4.0  # cards side by side leave this gap
INDEX_X = (1.5, 12.5)  # the index patch on an upright card, mm from its top-left corner ...
INDEX_Y = (1.5, 37.0)  # ... (x across the card, y down it): the owner square, then the type panel
OWNER_Y = (1.5, 12.5)  # the owner square at the top of the index
PANEL_Y = (14.0, 37.0)  # the type panel under it
CROSS_TOP_MM = 40.0  # a crosswise card's top edge lies this far below the covered card's top
TOKEN_Y_MM = 52.0  # a token on a card: its centre this far below the card's top
CARD_FACE_RGB = (246, 240, 226)
ART_PX_PER_MM = 4.0


def is_card(spec: PieceSpec) -> bool:
    return spec.footprint == "rect" and spec.height <= CARD_MAX_HEIGHT_MM


def card_kinds(layout: Layout) -> tuple[str, ...]:
    return tuple(k for k, spec in layout.pieces.items() if is_card(spec) and not spec.neutral)


def crosswise_kinds(layout: Layout) -> tuple[str, ...]:
    """Card kinds that lie across another card (the layout's ``crosswise``)."""
    return tuple(k for k in card_kinds(layout) if layout.source.get("pieces", {}).get(k, {}).get("crosswise"))


def _region(layout: Layout, rid: str) -> np.ndarray | None:
    for reg in layout.regions:
        if reg.get("id") == rid:
            return np.asarray(reg["polygon"], float)
    return None


@dataclass(frozen=True)
class Row:
    """A space's card row: where upright cards lie (board mm)."""

    space: str
    x0: float  # the first card's left edge
    x1: float  # the row's right end
    top: float  # the upright cards' top edge
    card_w: float
    card_h: float

    def pitch(self, n: int) -> float:
        """Distance between the left edges of neighbouring cards when ``n`` lie in the row."""
        if n <= 1:
            return self.card_w + GAP_MM
        return min(self.card_w + GAP_MM, (self.x1 - self.x0 - self.card_w) / (n - 1))

    @property
    def index_band(self) -> tuple[float, float]:
        """The y range (mm) of upright cards' indexes."""
        return self.top + INDEX_Y[0], self.top + INDEX_Y[1]

    @property
    def owner_band(self) -> tuple[float, float]:
        """The y range (mm) of upright cards' owner squares."""
        return self.top + OWNER_Y[0], self.top + OWNER_Y[1]

    @property
    def cross_band(self) -> tuple[float, float]:
        """The y range (mm) of crosswise cards' indexes (along their top edge, turned)."""
        return self.top + CROSS_TOP_MM + INDEX_X[0], self.top + CROSS_TOP_MM + INDEX_X[1]


def card_row(layout: Layout, space_id: str) -> Row | None:
    """The card row of a space, or None when the space has none (not a card layout)."""
    kinds = card_kinds(layout)
    poly = _region(layout, f"{space_id}-row")
    if not kinds or poly is None:
        return None
    spec = layout.pieces[kinds[0]]
    w, h = spec.size[0], spec.size[-1]
    return Row(space_id, float(poly[:, 0].min()) + ROW_MARGIN_MM, float(poly[:, 0].max()) - ROW_MARGIN_MM,
               float(poly[:, 1].min()) + TOP_MARGIN_MM, w, h)


def covered_card(lefts: Sequence[float], square_x: float, row: Row) -> int | None:
    """Which upright card (index into ``lefts``, their left edges in mm, in row order) a crosswise
    card whose owner square is centred at ``square_x`` lies on: the one whose visible part's middle
    is nearest the crosswise card's middle (``place_row`` lays it there). Turned, the crosswise
    card's own top-left corner, with its owner square, is its right end. None: no upright card, or
    none within half a card of it (laid in the row's free space)."""
    if not len(lefts):
        return None
    middle = square_x + (OWNER_Y[0] + OWNER_Y[1]) / 2 - row.card_h / 2
    ends = list(lefts[1:]) + [float("inf")]
    centres = [left + min(end - left, row.card_w) / 2 for left, end in zip(lefts, ends)]
    k = int(np.argmin([abs(c - middle) for c in centres]))
    return k if abs(centres[k] - middle) <= row.card_w / 2 else None


def token_spots(layout: Layout, space_id: str) -> list[tuple[float, float]]:
    """Centres of the space's token spots (regions ``<space>-token-<k>``), in order."""
    out = []
    k = 1
    while (poly := _region(layout, f"{space_id}-token-{k}")) is not None:
        out.append((float(poly[:, 0].mean()), float(poly[:, 1].mean())))
        k += 1
    return out


def is_card_layout(layout: Layout) -> bool:
    return any(card_row(layout, sp.id) is not None for sp in layout.spaces)


# ------------------------------------------------------------------------------------------
# placement

def place_row(layout: Layout, space_id: str, content: Mapping[Piece, int], rng: np.random.Generator,
              jitter: float = 2.0) -> list:
    """Where each piece of one section lies: upright cards in a fan (in a random order: the board
    does not say the order of play), crosswise cards each on an upright card of another owner
    where there is one, face-up tokens on the token spots, a token of a player on one of their cards."""
    from vision.placement import Placement

    row = card_row(layout, space_id)
    assert row is not None
    cards = card_kinds(layout)
    cross = set(crosswise_kinds(layout))
    items = [p for p, n in sorted(content.items()) for _ in range(n)]
    upright = [p for p in items if p.kind in cards and p.kind not in cross]
    crossing = [p for p in items if p.kind in cross]
    tokens = [p for p in items if p.kind not in cards]
    kinds = [k for k in cards if k not in cross]
    if sorted(p.kind for p in upright) == sorted(kinds):
        # one card of each kind: the enrolment photo's row, laid in the layout's order (enrol_board)
        order = sorted(upright, key=lambda p: kinds.index(p.kind))
    else:
        order = [upright[int(i)] for i in rng.permutation(len(upright))]
    pitch = row.pitch(len(order))
    small = min(jitter, 1.0)
    out = []
    lefts = []
    xj = min(small, max(0.0, (pitch - INDEX_X[1] - 1.5) / 2))  # a crowded fan still shows every index whole
    for k, p in enumerate(order):
        x = row.x0 + k * pitch + float(rng.uniform(-xj, xj))
        y = row.top + float(rng.uniform(-small, small))
        lefts.append(x)
        out.append(Placement(space_id, p, x + row.card_w / 2, y + row.card_h / 2, float(rng.uniform(-1.5, 1.5)),
                             0.01 * k))
    visible = [min(pitch, row.card_w) if k < len(order) - 1 else row.card_w for k in range(len(order))]
    free = list(range(len(order)))
    taken_by_token: set[int] = set()
    for p in [t for t in tokens if str(t.owner) != "neutral"]:
        own = [k for k in free if str(order[k].owner) == str(p.owner)] or free
        if not own:
            continue
        k = own[int(rng.integers(len(own)))]
        taken_by_token.add(k)
        x = lefts[k] + visible[k] / 2 + float(rng.uniform(-1, 1))
        out.append(Placement(space_id, p, x, row.top + TOKEN_Y_MM + float(rng.uniform(-1, 1)), float(rng.uniform(-3, 3)), 2.0))
    covered: set[int] = set()
    for j, p in enumerate(crossing):
        cands = [k for k in free if k not in covered and k not in taken_by_token and str(order[k].owner) != str(p.owner)]
        cands = cands or [k for k in free if k not in covered] or free
        if not cands:  # nothing to lie on: laid in the row's free space
            x = row.x0 + len(order) * pitch + row.card_h / 2
        else:
            k = cands[int(rng.integers(len(cands)))]
            covered.add(k)
            x = lefts[k] + visible[k] / 2
        y = row.top + CROSS_TOP_MM + row.card_w / 2
        out.append(Placement(space_id, p, x + float(rng.uniform(-small, small)), y + float(rng.uniform(-small, small)),
                             90.0 + float(rng.uniform(-1.5, 1.5)), 1.0 + 0.01 * j))
    spots = token_spots(layout, space_id)
    for i, p in enumerate([t for t in tokens if str(t.owner) == "neutral"]):
        if i < len(spots):
            x, y = spots[i]
        else:  # more face-up tokens than spots: beside the last
            x, y = spots[-1][0], spots[-1][1] + 28.0 * (i - len(spots) + 1)
        out.append(Placement(space_id, p, x + float(rng.uniform(-small, small)), y + float(rng.uniform(-small, small)),
                             float(rng.uniform(-3, 3)), 0.0))  # square, give or take; turned by quarters (face_art.turned)
    return out


# ------------------------------------------------------------------------------------------
# the printed face

def label_of(layout: Layout, kind: str) -> str:
    face = layout.source.get("pieces", {}).get(kind, {}).get("face") or {}
    return str(face.get("label") or kind[:1].upper())


def _panel_colour(kind: str, kinds: tuple[str, ...]) -> tuple[int, int, int]:
    """The light ground of a kind's type panel, the kinds spread over the hue circle (BGR)."""
    i = kinds.index(kind) if kind in kinds else 0
    hsv = np.uint8([[[int(i * 180 / max(1, len(kinds))) % 180, 120, 235]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


PANEL_BLOCKS = 4  # the type panel is this many blocks down the card, each light (the kind's hue) or dark
PANEL_INK = (60, 50, 45)  # BGR


def panel_pattern(kind: str, kinds: tuple[str, ...]) -> tuple[int, ...]:
    """Which of the panel's blocks are dark (1): two of four, a different pair for each kind (six
    pairs; any two kinds differ in at least two blocks, so blur cannot make one look like another).
    A seventh kind and beyond reuse the pairs (told apart by their hue only)."""
    from itertools import combinations

    pairs = list(combinations(range(PANEL_BLOCKS), 2))
    order = [pairs[i] for i in (0, 5, 3, 2, 4, 1)] + pairs[6:]  # (0,1) (2,3) (1,2) (0,3) (1,3) (0,2)
    i = kinds.index(kind) if kind in kinds else 0
    dark = order[i % len(order)]
    return tuple(int(b in dark) for b in range(PANEL_BLOCKS))


@lru_cache(maxsize=128)
def _card_art(kind: str, kinds: tuple[str, ...], label: str, owner_rgb: tuple[int, int, int], w_mm: float,
              h_mm: float) -> np.ndarray:
    """The card's face (BGR) at ``ART_PX_PER_MM``, upright: cream; at the top left the index: the
    owner square (the deck colour) and under it the type panel (four blocks down the card, two in
    dark ink and two in the kind's own light hue, a different pair for each kind, with the label
    small in a light block); a faint picture in the middle (no player colour)."""
    s = ART_PX_PER_MM
    W, H = int(round(w_mm * s)), int(round(h_mm * s))
    img = np.empty((H, W, 3), np.uint8)
    img[:] = CARD_FACE_RGB[::-1]
    x0, x1 = (int(round(v * s)) for v in INDEX_X)
    y0, y1 = (int(round(v * s)) for v in OWNER_Y)
    cv2.rectangle(img, (x0, y0), (x1, y1), tuple(int(v) for v in owner_rgb[::-1]), -1)
    p0, p1 = PANEL_Y
    step = (p1 - p0) / PANEL_BLOCKS
    ground = _panel_colour(kind, kinds)
    light = None
    for b, dark in enumerate(panel_pattern(kind, kinds)):
        b0, b1 = int(round((p0 + b * step) * s)), int(round((p0 + (b + 1) * step) * s)) - 1
        cv2.rectangle(img, (x0, b0), (x1, b1), PANEL_INK if dark else ground, -1)
        if not dark and light is None:
            light = (b0, b1)
    if light is not None and label:
        scale = (light[1] - light[0]) / 30.0
        (tw, th), _ = cv2.getTextSize(label[:1], cv2.FONT_HERSHEY_DUPLEX, scale, 1)
        cv2.putText(img, label[:1], (x0 + (x1 - x0 - tw) // 2, (light[0] + light[1]) // 2 + th // 2), cv2.FONT_HERSHEY_DUPLEX,
                    scale, PANEL_INK, 1, cv2.LINE_AA)
    cx, cy = W // 2 + int(3 * s), H // 2 + int(6 * s)
    cv2.ellipse(img, (cx, cy), (int(16 * s), int(22 * s)), 0, 0, 360, (180, 190, 200), max(1, int(0.5 * s)), cv2.LINE_AA)
    return img


def draw_card(img: np.ndarray, cam, pl, spec: PieceSpec, layout: Layout, owner_rgb: Sequence[float],
              light: np.ndarray) -> np.ndarray:
    """Draw one card lying flat (its face up) into the frame; returns its projected outline."""
    z = -(pl.base + spec.height)
    outline = spec.outline(pl.x, pl.y, pl.angle)  # TL, TR, BR, BL of the upright card, turned
    dst = cam.project(outline, z).astype(np.float32)
    art = _card_art(pl.piece.kind, card_kinds(layout), label_of(layout, pl.piece.kind), tuple(int(v) for v in owner_rgb),
                    spec.size[0], spec.size[-1])
    lit = 0.97 + 0.03 * float(np.clip(light[0], -1, 1))
    h, w = art.shape[:2]
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return dst
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    M = cv2.getPerspectiveTransform(src, dst - np.float32([x0, y0]))
    warped = cv2.warpPerspective(art, M, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    roi = img[y0:y1, x0:x1]
    alpha = (mask.astype(np.float32) / 255)[..., None]
    roi[:] = np.clip(roi * (1 - alpha) + warped.astype(np.float32) * lit * alpha, 0, 255).astype(np.uint8)
    return dst


def counts_of(placements) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for pl in placements:
        out.setdefault(pl.space, Counter())[pl.piece] += 1
    return out


def enrol_board(layout: Layout) -> dict[str, Counter]:
    """The enrolment photo of a card layout: in the first row one card of each upright kind, in
    the layout's order, the owners taking turns in the players' order (so every deck colour
    shows), with each crosswise kind on one of them; one face-up token of each kind on the token
    spots, in the layout's order, two per section."""
    players = list(layout.players)
    cross = crosswise_kinds(layout)
    upright = [k for k in card_kinds(layout) if k not in cross]
    rows = [sp.id for sp in layout.spaces if card_row(layout, sp.id) is not None]
    cells: dict[str, Counter] = {sid: Counter() for sid in rows}
    for i, kind in enumerate(upright):
        cells[rows[0]][Piece(players[i % len(players)], kind)] += 1
    for j, kind in enumerate(cross):
        cells[rows[0]][Piece(players[(len(upright) + j) % len(players)], kind)] += 1
    tokens = [k for k, spec in layout.pieces.items() if spec.neutral]
    at = 0
    for sid in rows:
        for _ in token_spots(layout, sid):
            if at < len(tokens):
                cells[sid][Piece("neutral", tokens[at])] += 1
                at += 1
    return {sid: c for sid, c in cells.items() if c}
