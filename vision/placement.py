"""Where pieces physically stand on the board: ``place_pieces`` turns a board (pieces per space)
into ``Placement``s (position, angle, what a piece stands on, its tag), deterministic from a seed;
a kind shown by printed counters (``counts_as``: a Zhang Yi army) as the fewest counters.
One piece on a space lies near its centre; several are spread without overlapping; a player's
piece on a neutral one is stacked on it; cards lie in a row (``vision.card_rows``). Used by the
renderer (``vision.render``), which re-exports these names.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.card_rows import card_row, place_row
from vision.counted_values import as_counters
from vision.layout import Layout, SpaceShape

LONE_SHIFT = 3.0  # a lone counter read for its value lies this many times the usual jitter off its area's centre (a
                  # 4 changed for a 1 is put down elsewhere: the camera sees that it changed)
APART = 0.45  # of a square counter's diagonal: the room each of several counters read one by one takes (0.5: never touching)
PRINTED_ANGLE_SHARE = 0.15  # of a neutral piece's random angle (±20°): a printed tile lies within ±3° of square


@dataclass(frozen=True, slots=True)
class Placement:
    space: str
    piece: Piece
    x: float
    y: float
    angle: float
    base: float  # height of what it stands on (a house on a fortress)
    tag: int | None = None
    face: int | None = None  # a die: the value on its top face (vision.render_dice)


class PlacementError(ValueError):
    pass


def _sample_in_space(space: SpaceShape, radius: float, rng: np.random.Generator, taken: list[tuple[float, float, float]],
                     jitter: float, centred: bool) -> tuple[float, float]:
    cx, cy = space.centre
    if centred:
        return cx + rng.uniform(-jitter, jitter), cy + rng.uniform(-jitter, jitter)
    for k in range(300):
        if space.radius is not None:
            rr = max(0.0, space.radius - radius - 0.5)
            a, d = rng.uniform(0, 2 * math.pi), rr * math.sqrt(rng.uniform(0, 1))
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
        else:
            xs = [p[0] for p in space.polygon]
            ys = [p[1] for p in space.polygon]
            x, y = rng.uniform(min(xs), max(xs)), rng.uniform(min(ys), max(ys))
            if not space.contains(x, y, -radius):
                continue
        gap = rng.uniform(0.2, 4.0) * (1 - k / 300)
        if all(math.hypot(x - tx, y - ty) >= radius + tr + gap for tx, ty, tr in taken):
            return x, y
    raise PlacementError(f"cannot fit the pieces on space {space.id}")


def _packed(space: SpaceShape, radii: Sequence[float], rng: np.random.Generator) -> list[tuple[float, float]]:
    """Fallback for a crowded space: one piece in the middle, the rest on rings around it."""
    cx, cy = space.centre
    out = [(cx, cy)]
    r = max(radii) if radii else 1.0
    ring, left = 1, len(radii) - 1
    while left > 0:
        rad = ring * (2 * r + 0.4)
        n = min(left, int(2 * math.pi * rad / (2 * r + 0.4)))
        a0 = rng.uniform(0, 2 * math.pi)
        out += [(cx + rad * math.cos(a0 + 2 * math.pi * i / n), cy + rad * math.sin(a0 + 2 * math.pi * i / n)) for i in range(n)]
        left -= n
        ring += 1
    for x, y in out:
        if not space.contains(x, y, -r + 0.6):
            return _grid(space, radii, rng)
    return out


def _grid(space: SpaceShape, radii: Sequence[float], rng: np.random.Generator) -> list[tuple[float, float]]:
    """Last resort for a long, crowded space (a Ming province space with a dozen family members):
    pieces on random cells of a square grid that fills it, shaken a little."""
    r = max(radii) if radii else 1.0
    pitch = 2 * r + 0.4
    xs = [p[0] for p in space.polygon]
    ys = [p[1] for p in space.polygon]
    x0, y0 = min(xs) + r, min(ys) + r
    cells = [(x0 + i * pitch, y0 + j * pitch) for j in range(int((max(ys) - min(ys) - 2 * r) // pitch) + 1)
             for i in range(int((max(xs) - min(xs) - 2 * r) // pitch) + 1)]
    cells = [(x, y) for x, y in cells if space.contains(x, y, -r + 0.6)]
    if len(cells) < len(radii):
        raise PlacementError(f"too many pieces for space {space.id}")
    pick = rng.choice(len(cells), size=len(radii), replace=False)
    return [(cells[int(i)][0] + float(rng.uniform(-0.2, 0.2)), cells[int(i)][1] + float(rng.uniform(-0.2, 0.2))) for i in pick]


def place_pieces(layout: Layout, board: Board, rng: np.random.Generator, jitter: float = 2.0,
                 tags: Mapping[Piece, Sequence[int]] | None = None) -> tuple[Placement, ...]:
    """Where each piece of ``board`` physically stands. One piece on a space: near its centre;
    several: spread without overlapping; a player piece on a neutral one (house on fortress):
    stacked on it."""
    out: list[Placement] = []
    tag_pool = {p: list(ids) for p, ids in (tags or {}).items()}
    table = int(rng.integers(2**62))
    # a kind shown by printed counters (a Zhang Yi army of 7 by a 4 and a 3, ``counts_as``) is placed as them
    board = as_counters(layout, board, table)
    valued = {k for k, spec in layout.pieces.items() if spec.counts_as is not None}
    for space_id in board.spaces():
        # each space's own stream: a piece put down on one space leaves every other space's pieces where they
        # stood (the synthetic camera renders each new board afresh; real pieces nobody touched do not move)
        content = board.pieces(space_id)
        seed = [table, zlib.crc32(space_id.encode())]
        if valued & {p.kind for p in content}:
            # counters changed (a 2 for a 1) were taken up and put down by a hand: they lie elsewhere now
            seed.append(zlib.crc32(" ".join(sorted(f"{p}x{n}" for p, n in content.items())).encode()))
        rng = np.random.default_rng(seed)
        space = layout.space(space_id)
        if card_row(layout, space_id) is not None:  # cards in a row on a play mat (vision.card_rows)
            out += place_row(layout, space_id, content, rng, jitter)
            continue
        items = sorted(content.elements(), key=lambda p: (not layout.pieces[p.kind].neutral, p))
        neutral = [p for p in items if layout.pieces[p.kind].neutral]
        players = [p for p in items if not layout.pieces[p.kind].neutral]
        taken: list[tuple[float, float, float]] = []
        base_at: tuple[float, float, float, float] | None = None
        for p in neutral:
            spec = layout.pieces[p.kind]
            r = spec.max_width / 2
            try:
                x, y = _sample_in_space(space, r, rng, taken, jitter, centred=len(items) <= 2 and not taken)
            except PlacementError:
                if base_at is None:
                    raise
                # no room beside what lies there (a tile put on a space whose scarab is still on it):
                # it lies on top of it
                bx, by, bh, ba = base_at
                angle = float(rng.uniform(-3, 3))
                below = out[-1]
                if spec.area < layout.pieces[below.piece.kind].area:  # the bigger one lies on top
                    out[-1] = Placement(space_id, p, bx, by, angle, below.base, _take_tag(tag_pool, p))
                    out.append(replace(below, base=below.base + spec.height))
                else:
                    out.append(Placement(space_id, p, bx, by, angle, bh, _take_tag(tag_pool, p)))
                base_at = (bx, by, bh + spec.height, ba)
                continue
            taken.append((x, y, r))
            angle = float(rng.uniform(-20, 20))
            if spec.printed and len(items) == 1:
                # a printed tile or card lies square with its space, give or take (vision/face_art.py turns it)
                angle *= PRINTED_ANGLE_SHARE
                x, y = space.centre[0] + (x - space.centre[0]) * 0.5, space.centre[1] + (y - space.centre[1]) * 0.5
            base_at = (x, y, spec.height, angle)
            out.append(Placement(space_id, p, x, y, angle, 0.0, _take_tag(tag_pool, p)))
        if base_at is not None and len(players) == 1:
            p = players[0]
            x, y = base_at[0] + rng.uniform(-1, 1), base_at[1] + rng.uniform(-1, 1)
            # players set a house square on the fortress, give or take
            angle = base_at[3] + float(rng.choice([0.0, 90.0])) + float(rng.uniform(-25, 25))
            out.append(Placement(space_id, p, x, y, angle, base_at[2], _take_tag(tag_pool, p)))
            continue
        # counters read one by one for their printed values (``counts_as``) are laid apart, as players lay an area's
        # counters side by side, seldom touching (the reader cannot read a heap of them)
        apart = bool(valued & {p.kind for p in content})
        radii = [layout.pieces[p.kind].max_width / 2 if layout.pieces[p.kind].footprint == "circle"
                 else layout.pieces[p.kind].max_width * APART if apart
                 else layout.pieces[p.kind].min_width / 2 + 1 for p in players]
        spots: list[tuple[float, float]] | None = None
        for _ in range(20):
            trial = list(taken)
            try:
                spots = []
                for r in radii:
                    x, y = _sample_in_space(space, r, rng, trial, jitter * (LONE_SHIFT if apart else 1.0),
                                            centred=len(items) == 1)
                    trial.append((x, y, r))
                    spots.append((x, y))
                break
            except PlacementError:
                spots = None
        if spots is None:
            if taken:
                raise PlacementError(f"cannot fit the pieces on space {space_id}")
            spots = _packed(space, radii, rng)
        outlines: list[np.ndarray] = []
        for p, (x, y) in zip(players, spots):
            spec = layout.pieces[p.kind]
            angle = float(rng.uniform(0, 180))
            if spec.footprint == "rect" and outlines:
                # square pieces side by side: turned so that they touch at most, as real ones do
                for _ in range(12):
                    if not _overlaps(spec.outline(x, y, angle), outlines):
                        break
                    angle = float(rng.uniform(0, 180))
            outlines.append(spec.outline(x, y, angle))
            out.append(Placement(space_id, p, x, y, angle, 0.0, _take_tag(tag_pool, p)))
    return tuple(out)


def _overlaps(outline: np.ndarray, others: Sequence[np.ndarray], tolerance_mm2: float = 0.5) -> bool:
    a = outline.astype(np.float32)
    for o in others:
        area, _ = cv2.intersectConvexConvex(a, o.astype(np.float32))
        if area > tolerance_mm2:
            return True
    return False


def _take_tag(pool: dict[Piece, list[int]], piece: Piece) -> int | None:
    """Next tag id for a piece type; ids are reused when a set has more pieces than ids
    (identical stickers on identical pieces are fine: a tag names a piece type)."""
    if not pool:
        return None
    ids = pool.get(piece)
    if not ids:
        raise PlacementError(f"no tag id for {piece!r} in the tag map")
    tid = ids.pop(0)
    ids.append(tid)
    return tid
