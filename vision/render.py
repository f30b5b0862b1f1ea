"""Synthetic scene renderer: what an overhead camera would see of a board with pieces on it,
together with the ground truth. Deterministic from a seed.

Pieces are drawn as lit prisms seen through a pinhole camera (so tall pieces lean away from the
camera as real ones do); the board is a printed texture with the four corner markers; on top
come uneven light, soft shadows, an optional hand and arm (with its shadow), lens blur, sensor
noise and JPEG compression. The ground truth says which pieces are on which space, which spaces
the hand covers, and the true homography.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.geometry import Camera, look_at_camera
from vision.layout import Layout, PieceSpec, SpaceShape
from vision.markers import PIECE_DICTIONARY, dictionary, marker_bits
from vision.dice import die_kinds
from vision.face_art import draw_face, face_art, face_corners, printed_copy, printed_kinds, turned
from vision.render_dice import draw_die_pips
from vision.card_rows import card_row, draw_card, is_card, place_row
from vision.scenes import random_board as random_board  # re-exported: where tests, tools and benchmarks find it

TEXTURE_PX_PER_MM = 2.0
TABLE_RGB = (120, 86, 60)
SKIN_TONES = ((232, 190, 160), (210, 160, 120), (170, 120, 90), (120, 80, 55), (245, 205, 180))

TagMap = Mapping[int, Piece]
PRINTED_ANGLE_SHARE = 0.15  # of a neutral piece's random angle (±20°): a printed tile lies within ±3° of square


@dataclass(frozen=True, slots=True)
class Hand:
    """An arm reaching over the board: the hand centred at ``target`` (board mm), the arm coming
    from direction ``from_deg``, ``height`` mm above the board."""

    target: tuple[float, float]
    from_deg: float
    height: float = 60.0
    scale: float = 1.0
    rgb: tuple[int, int, int] = SKIN_TONES[0]
    shadow: float = 0.6  # darkening factor of its shadow (1 = none)


@dataclass(frozen=True, slots=True)
class Shadow:
    """A soft shadow (e.g. of a person) over a convex polygon of the board, in board mm."""

    polygon: tuple[tuple[float, float], ...]
    factor: float = 0.7
    softness_px: float = 25.0


@dataclass(frozen=True, slots=True)
class Conditions:
    """Everything about one frame except the pieces. ``random_conditions`` draws these."""

    size: tuple[int, int] = (1280, 720)
    fov_deg: float = 66.0
    fill: float = 0.85
    tilt_deg: float = 0.0
    tilt_azimuth_deg: float = 0.0
    roll_deg: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)  # shift of the aim point, fraction of the board size
    brightness: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # multipliers on R, G, B
    gradient: float = 0.0  # light falls off by this fraction across the board
    gradient_deg: float = 0.0
    vignette: float = 0.0
    shadows: tuple[Shadow, ...] = ()
    hand: Hand | None = None
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    jitter_mm: float = 2.0
    light_deg: float = 225.0  # light azimuth (for piece shading and shadows)
    seed: int = 0

    def describe(self) -> dict[str, object]:
        return {
            "tilt_deg": round(self.tilt_deg, 1), "roll_deg": round(self.roll_deg, 1), "fill": round(self.fill, 2),
            "fov_deg": round(self.fov_deg, 1), "blur": round(self.blur_sigma, 2), "noise": round(self.noise_sigma, 1),
            "jpeg": self.jpeg_quality, "gradient": round(self.gradient, 2), "vignette": round(self.vignette, 2),
            "brightness": round(self.brightness, 2), "shadows": len(self.shadows), "hand": self.hand is not None,
        }


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


@dataclass(frozen=True)
class Truth:
    board: Board
    occluded: frozenset[str]
    homography: np.ndarray  # board mm -> image px
    camera: Camera
    placements: tuple[Placement, ...]
    markers_covered: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Rendered:
    image: np.ndarray  # BGR uint8
    truth: Truth
    conditions: Conditions


class PlacementError(ValueError):
    pass


# --------------------------------------------------------------------------------------------
# board texture

@lru_cache(maxsize=8)
def _board_texture_cached(layout_key: int, layout: Layout) -> np.ndarray:
    return board_texture(layout)


def board_texture(layout: Layout, px_per_mm: float = TEXTURE_PX_PER_MM) -> np.ndarray:
    """The printed board (BGR) at ``px_per_mm``: parchment, tinted provinces, roads, spaces and
    the four corner markers with their white quiet zones."""
    W, H = int(round(layout.size[0] * px_per_mm)), int(round(layout.size[1] * px_per_mm))
    bg = layout.background_rgb[::-1]
    img = np.empty((H, W, 3), np.uint8)
    img[:] = bg
    rng = np.random.default_rng(12345)
    grain = cv2.GaussianBlur(rng.normal(0, 6, (H, W)).astype(np.float32), (0, 0), 3)
    for y0 in range(0, H, 256):  # in bands: two board-sized float copies added to the start-up peak
        band = img[y0:y0 + 256].astype(np.float32)
        band += grain[y0:y0 + 256, :, None]
        img[y0:y0 + 256] = np.clip(band, 0, 255, out=band).astype(np.uint8)
    del grain
    s = px_per_mm

    def pts(poly: Iterable[Sequence[float]]) -> np.ndarray:
        return (np.asarray(list(poly), np.float64) * s * 16).astype(np.int32)

    for reg in layout.regions:
        tint = reg.get("tint_rgb")
        if tint:
            cv2.fillPoly(img, [pts(reg["polygon"])], tuple(int(v) for v in tint[::-1]), cv2.LINE_AA, 4)
        cv2.polylines(img, [pts(reg["polygon"])], True, (70, 80, 95), max(1, int(s)), cv2.LINE_AA, 4)
        label = reg.get("label") or reg["id"]
        x0, y0 = np.min(np.asarray(reg["polygon"]), axis=0)
        cv2.putText(img, label.upper(), (int((x0 + 5) * s), int((y0 + 14) * s)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.22 * s, (80, 90, 110), max(1, int(s)), cv2.LINE_AA)
    centres = {sp.id: sp.centre for sp in layout.spaces}
    for a, b in layout.roads:
        pa, pb = np.asarray(centres[a]), np.asarray(centres[b])
        cv2.line(img, tuple(int(v) for v in pa * s * 16), tuple(int(v) for v in pb * s * 16), (60, 100, 150),
                 max(1, int(3 * s)), cv2.LINE_AA, 4)
    for sp in layout.spaces:
        fill = (238, 242, 244) if sp.kind != "dragon" else (200, 210, 225)
        if sp.kind in layout.source.get("space_fill", {}):  # the layout's own print (BGR here)
            fill = tuple(int(v) for v in layout.source["space_fill"][sp.kind][::-1])
        cv2.fillPoly(img, [pts(sp.polygon)], fill, cv2.LINE_AA, 4)
        cv2.polylines(img, [pts(sp.polygon)], True, (50, 60, 70), max(1, int(1.2 * s)), cv2.LINE_AA, 4)
        if sp.kind == "dragon":
            cx, cy = sp.centre
            r = (sp.radius or 20) * 0.55
            cv2.ellipse(img, (int(cx * s * 16), int(cy * s * 16)), (int(r * s * 16), int(r * 0.6 * s * 16)), 20, 0, 300,
                        (90, 110, 160), max(1, int(s)), cv2.LINE_AA, 4)
    d = dictionary(layout.dictionary)
    cells = marker_bits(layout.dictionary)
    for m in layout.markers:
        body = int(round(layout.marker_size * s))
        q = body / cells
        x0 = int(round((m.centre[0] - layout.marker_size / 2) * s))
        y0 = int(round((m.centre[1] - layout.marker_size / 2) * s))
        qi = int(round(q))
        img[y0 - qi:y0 + body + qi, x0 - qi:x0 + body + qi] = 255
        tag = cv2.aruco.generateImageMarker(d, m.id, body)
        img[y0:y0 + body, x0:x0 + body] = tag[..., None]
    return img


# --------------------------------------------------------------------------------------------
# camera placement

def frame_camera(layout: Layout, c: Conditions) -> Camera:
    """A camera that sees the whole board (with markers) filling ``c.fill`` of the frame."""
    w, h = layout.size
    target = (w / 2 + c.offset[0] * w, h / 2 + c.offset[1] * h)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    dist = 1000.0
    W, H = c.size
    for _ in range(4):
        cam = look_at_camera(c.size, c.fov_deg, target, dist, c.tilt_deg, c.tilt_azimuth_deg, c.roll_deg)
        p = cam.project(corners)
        # half-extent of the board around the image centre, as a fraction of the half frame
        ext = max(np.max(np.abs(p[:, 0] - W / 2)) / (W / 2), np.max(np.abs(p[:, 1] - H / 2)) / (H / 2))
        dist *= ext / c.fill
    return look_at_camera(c.size, c.fov_deg, target, dist, c.tilt_deg, c.tilt_azimuth_deg, c.roll_deg)


# --------------------------------------------------------------------------------------------
# placing pieces in spaces

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
    for space_id in board.spaces():
        # each space's own stream: a piece put down on one space leaves every other space's pieces where they
        # stood (the synthetic camera renders each new board afresh; real pieces nobody touched do not move)
        rng = np.random.default_rng([table, zlib.crc32(space_id.encode())])
        space = layout.space(space_id)
        content = board.pieces(space_id)
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
        radii = [layout.pieces[p.kind].max_width / 2 if layout.pieces[p.kind].footprint == "circle"
                 else layout.pieces[p.kind].min_width / 2 + 1 for p in players]
        spots: list[tuple[float, float]] | None = None
        for _ in range(20):
            trial = list(taken)
            try:
                spots = []
                for r in radii:
                    x, y = _sample_in_space(space, r, rng, trial, jitter, centred=len(items) == 1)
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


def tags_by_piece(tag_map: TagMap) -> dict[Piece, list[int]]:
    out: dict[Piece, list[int]] = {}
    for tid, p in sorted(tag_map.items()):
        out.setdefault(p, []).append(tid)
    return out


# --------------------------------------------------------------------------------------------
# drawing

def _shade(rgb: Sequence[float], f: float) -> tuple[float, float, float]:
    return (float(rgb[2]) * f, float(rgb[1]) * f, float(rgb[0]) * f)


def _fill(img: np.ndarray, pts: np.ndarray, bgr: Sequence[float]) -> None:
    cv2.fillConvexPoly(img, np.round(pts * 16).astype(np.int32), tuple(float(v) for v in bgr), cv2.LINE_AA, 4)


def _draw_prism(img: np.ndarray, cam: Camera, outline: np.ndarray, z0: float, z1: float, rgb: Sequence[float],
                light: np.ndarray, top_extra=None) -> np.ndarray:
    """A vertical prism over ``outline`` (board mm) from height z0 to z1 (mm above the board).
    Returns the projected top face."""
    bottom = cam.project(outline, -z0)
    top = cam.project(outline, -z1)
    C = cam.centre
    n = len(outline)
    centroid = outline.mean(axis=0)
    for i in range(n):
        a, b = outline[i], outline[(i + 1) % n]
        mid = (a + b) / 2
        normal = np.array([b[1] - a[1], -(b[0] - a[0])])
        if normal @ (mid - centroid) < 0:
            normal = -normal
        normal /= np.linalg.norm(normal) + 1e-9
        to_cam = C[:2] - mid
        # a wall faces the camera when the camera lies on its outer side
        if normal @ to_cam <= 0:
            continue
        f = 0.5 + 0.3 * max(0.0, float(normal @ light))
        quad = np.array([bottom[i], bottom[(i + 1) % n], top[(i + 1) % n], top[i]])
        _fill(img, quad, _shade(rgb, f))
    _fill(img, top, _shade(rgb, 1.0))
    return top


TAG_QUIET_CELLS = 0.5  # white margin of a piece sticker around the tag, in tag cells


@lru_cache(maxsize=512)
def _tag_texture(tag_id: int, dictionary_name: str = PIECE_DICTIONARY) -> np.ndarray:
    cells = marker_bits(dictionary_name)
    body = cv2.aruco.generateImageMarker(dictionary(dictionary_name), int(tag_id), cells * 20)
    q = int(round(TAG_QUIET_CELLS * 20))
    return cv2.copyMakeBorder(body, q, q, q, q, cv2.BORDER_CONSTANT, value=245)


def sticker_size_mm(spec: PieceSpec, layout: Layout | None = None) -> float:
    """Side of the square sticker (tag plus white margin) that fits the piece's top face. With
    ``layout``: a neutral piece (a fortress), on which a player's piece may stand, gets a sticker
    no larger than the largest player piece's (a house's), so that a piece standing on it hides
    the sticker whole and its own colour shows all round (as in colour mode) instead of the
    sticker's white margin."""
    inner = spec.size[0] / math.sqrt(2) if spec.footprint == "circle" else spec.min_width
    side = round(inner - 0.5, 1)
    if layout is not None and spec.neutral:
        players = [sticker_size_mm(layout.pieces[k]) for k in layout.player_kinds()]
        side = min(side, max(players)) if players else side
    return side


def tag_size_mm(spec: PieceSpec, dictionary_name: str = PIECE_DICTIONARY, layout: Layout | None = None) -> float:
    """Printed tag (black square) side for a piece kind (see ``sticker_size_mm`` for ``layout``)."""
    cells = marker_bits(dictionary_name)
    return round(sticker_size_mm(spec, layout) * cells / (cells + 2 * TAG_QUIET_CELLS), 1)


def square_on_piece(pl: Placement, side_mm: float) -> np.ndarray:
    """Corners (board mm) of a square of ``side_mm`` centred on a placed piece, turned with it:
    where its sticker (or the sticker's code) lies."""
    h = side_mm / 2
    a = math.radians(pl.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + [pl.x, pl.y]


def _draw_tag(img: np.ndarray, cam: Camera, pl: Placement, spec: PieceSpec, z: float,
              dictionary_name: str = PIECE_DICTIONARY, layout: Layout | None = None) -> None:
    tex = _tag_texture(pl.tag, dictionary_name)
    n = tex.shape[0]
    corners = square_on_piece(pl, sticker_size_mm(spec, layout))
    dst = cam.project(corners, -z).astype(np.float32)
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    M = cv2.getPerspectiveTransform(src, (dst - np.float32([x0, y0])).astype(np.float32))
    warped = cv2.warpPerspective(tex, M, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full_like(tex, 255), M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    roi = img[y0:y1, x0:x1]
    alpha = (mask.astype(np.float32) / 255)[..., None]
    roi[:] = (roi * (1 - alpha) + warped[..., None].astype(np.float32) * alpha).astype(np.uint8)


def hand_polygons(hand: Hand) -> list[np.ndarray]:
    """Arm, palm and fingers as convex polygons in board mm."""
    s = hand.scale
    tx, ty = hand.target
    a = math.radians(hand.from_deg)
    d = np.array([math.cos(a), math.sin(a)])  # towards the shoulder
    n = np.array([-d[1], d[0]])
    t = np.array([tx, ty])
    polys = []
    start = t + d * 900
    arm_w = 38 * s
    wrist = t + d * 55 * s
    polys.append(np.array([start + n * arm_w * 1.2, start - n * arm_w * 1.2, wrist - n * arm_w, wrist + n * arm_w]))
    ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    palm = np.stack([45 * s * np.cos(ang), 52 * s * np.sin(ang)], axis=1)
    rot = np.column_stack([n, d])
    polys.append(palm @ rot.T + t)
    for k, off in enumerate((-30, -11, 8, 26)):
        base = t + n * off * s - d * 30 * s
        length = (55 + (8 if k in (1, 2) else 0)) * s
        tip = base - d * length + n * off * 0.15 * s
        w = 8.5 * s
        polys.append(np.array([base + n * w, base - n * w, tip - n * w * 0.85, tip + n * w * 0.85]))
    thumb_base = t + n * 40 * s
    thumb_tip = thumb_base + n * 40 * s - d * 25 * s
    polys.append(np.array([thumb_base + d * 10 * s, thumb_base - d * 10 * s, thumb_tip - d * 8 * s, thumb_tip + d * 8 * s]))
    return polys


# --------------------------------------------------------------------------------------------
# the frame

@lru_cache(maxsize=4)
def _noise_buffer(shape: tuple[int, ...]) -> np.ndarray:
    """Unit Gaussian sensor noise, drawn once per frame size; frames take shifted crops of it."""
    rng = np.random.default_rng(7)
    return rng.standard_normal((shape[0] + 64, shape[1] + 64, shape[2]), dtype=np.float32)


@lru_cache(maxsize=8)
def _table_cached(size: tuple[int, int], seed: int) -> np.ndarray:
    return _table(size, seed)


def _table(size: tuple[int, int], seed: int) -> np.ndarray:
    W, H = size
    rng = np.random.default_rng(seed)
    base = np.array(TABLE_RGB[::-1], np.float32)
    small = cv2.resize(rng.normal(0, 1, (H // 16 + 1, W // 64 + 1)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    img = base[None, None, :] * (1 + 0.12 * small[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def render(layout: Layout, board: Board, conditions: Conditions = Conditions(), *,
           tag_map: TagMap | None = None, placements: Sequence[Placement] | None = None,
           tag_dictionary: str = PIECE_DICTIONARY, texture: np.ndarray | None = None,
           dice: Sequence[int] | None = None) -> Rendered:
    """Render ``board`` (pieces per space) as a camera frame under ``conditions``. ``texture``:
    the printed board at ``TEXTURE_PX_PER_MM`` (BGR), instead of the layout's own artwork.
    ``dice``: the top faces of the board's dice (pieces its dice spaces hold), in placement order;
    a die without one shows a face drawn from the seed (``Truth.placements`` say which).

    With ``tag_map`` (tag id -> piece) every piece carries a printed tag on its top face; the
    tags are handed out in id order for each piece type (``tag_dictionary``: which codes).
    """
    c = conditions
    rng = np.random.default_rng(c.seed)
    W, H = c.size
    cam = frame_camera(layout, c)
    Hb = cam.homography()
    face_rng = np.random.default_rng([c.seed, 14]) if printed_kinds(layout) else None  # its own stream too
    if placements is None:
        placements = place_pieces(layout, board, rng, c.jitter_mm, tags_by_piece(tag_map) if tag_map else None)
        if face_rng is not None:
            placements = turned(layout, placements, face_rng)  # given placements keep their turns
    dice_rng = np.random.default_rng([c.seed, 6])  # its own stream: frames without dice stay as they were
    placements = with_faces(layout, placements, dice, dice_rng)
    img = _table_cached(c.size, c.seed % 4).copy()
    tex = _board_texture_cached(id(layout), layout) if texture is None else texture
    S = np.diag([TEXTURE_PX_PER_MM, TEXTURE_PX_PER_MM, 1.0])
    cv2.warpPerspective(tex, Hb @ np.linalg.inv(S), (W, H), dst=img, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)
    la = math.radians(c.light_deg)
    light = np.array([math.cos(la), math.sin(la)])
    C = cam.centre
    # a stacked piece is drawn after what it stands on; otherwise far pieces first
    order = sorted(placements, key=lambda p: (p.base > 0, p.base, -math.hypot(p.x - C[0], p.y - C[1])))
    piece_masks: dict[str, list[np.ndarray]] = {}
    for pl in order:
        spec = layout.pieces[pl.piece.kind]
        rgb = spec.rgb if spec.neutral and spec.rgb else layout.players.get(str(pl.piece.owner), (128, 128, 128))
        # each copy's own colour, from where it stands: a piece put down elsewhere leaves it as it was
        jit = np.random.default_rng([c.seed, 7, zlib.crc32(f"{pl.space}/{pl.x:.1f}/{pl.y:.1f}".encode())]).normal(0, 6, 3)
        rgb = np.clip(np.asarray(rgb, float) + jit, 0, 255)
        outline = spec.outline(pl.x, pl.y, pl.angle)
        top = draw_card(img, cam, pl, spec, layout, rgb, light) if is_card(spec) else \
            _draw_prism(img, cam, outline, pl.base, pl.base + spec.height, rgb, light)
        if spec.printed and face_rng is not None:
            z = pl.base + spec.height
            copy_rng = np.random.default_rng([c.seed, 14, zlib.crc32(f"{pl.space}/{pl.x:.1f}/{pl.y:.1f}".encode())])
            art = printed_copy(face_art(layout, pl.piece.kind, str(pl.piece.owner)), copy_rng)
            draw_face(img, top, cam.project(face_corners(spec, pl.x, pl.y, pl.angle), -z), art, 1.0,
                      spec.footprint == "circle")
        if pl.face is not None:
            draw_die_pips(img, cam, outline, pl.base, pl.base + spec.height, pl.face, light, dice_rng)
        bottom = cam.project(outline, -pl.base)
        piece_masks.setdefault(pl.space, []).append(cv2.convexHull(np.vstack([top, bottom]).astype(np.float32)))
        if pl.tag is not None:
            _draw_tag(img, cam, pl, spec, pl.base + spec.height, tag_dictionary, layout)
        elif spec.footprint == "rect" and not spec.neutral and not is_card(spec):
            # roof ridge of a house
            a = math.radians(pl.angle)
            d = np.array([-math.sin(a), math.cos(a)]) * spec.size[-1] / 2 * 0.9
            ridge = cam.project(np.array([[pl.x, pl.y] - d, [pl.x, pl.y] + d]), -(pl.base + spec.height))
            cv2.line(img, tuple(np.round(ridge[0] * 16).astype(int)), tuple(np.round(ridge[1] * 16).astype(int)),
                     _shade(rgb, 0.8), 1, cv2.LINE_AA, 4)

    # the light field is smooth: compute it at 1/8 resolution and scale it up
    q = 8
    h8, w8 = H // q + 1, W // q + 1
    f = np.ones((h8, w8), np.float32)
    yy, xx = np.mgrid[0:h8, 0:w8].astype(np.float32) * q
    if c.gradient:
        g = math.radians(c.gradient_deg)
        proj = ((xx - W / 2) * math.cos(g) + (yy - H / 2) * math.sin(g)) / (W / 2)
        f *= 1 - c.gradient * (np.clip(proj, -1, 1) + 1) / 2
    if c.vignette:
        r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        f *= 1 - c.vignette * r2
    for sh in c.shadows:
        m = np.zeros((h8, w8), np.float32)
        cv2.fillPoly(m, [np.round(cam.project(np.asarray(sh.polygon)) / q * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
        m = cv2.GaussianBlur(m, (0, 0), max(0.5, sh.softness_px / q))
        f *= 1 - (1 - sh.factor) * m
    occluded: frozenset[str] = frozenset()
    covered_markers: frozenset[int] = frozenset()
    mask = None
    if c.hand is not None:
        hand = c.hand
        polys = hand_polygons(hand)
        sh = np.zeros((H // 2, W // 2), np.float32)
        off = -light * hand.height * 0.6
        for p in polys:
            _fill(sh, cam.project(p + off) / 2, (1.0,))
        sh = cv2.GaussianBlur(sh, (0, 0), (6 + hand.height / 15) / 2)
        shadow = 1 - (1 - hand.shadow) * cv2.resize(sh, (W, H), interpolation=cv2.INTER_LINEAR)
    f_full = cv2.resize(f, (W, H), interpolation=cv2.INTER_LINEAR)
    if c.hand is not None:
        f_full *= shadow
    wb = np.array([c.white_balance[2], c.white_balance[1], c.white_balance[0]], np.float32) * c.brightness
    img_f = img.astype(np.float32)
    img_f *= f_full[..., None]
    if c.hand is not None:
        mask = np.zeros((H, W), np.uint8)
        hz = -hand.height
        for p in polys:
            _fill(mask, cam.project(p, hz), (255,))
        rgbh = np.asarray(hand.rgb[::-1], np.float32)
        # skin: shaded across the arm, with a little blotchy texture
        tex_small = cv2.GaussianBlur(rng.normal(0, 1, (H // 4, W // 4)).astype(np.float32), (0, 0), 1.5) * 10
        tex_n = cv2.resize(tex_small, (W, H), interpolation=cv2.INTER_LINEAR)
        ys, xs = np.nonzero(cv2.dilate(mask, np.ones((3, 3), np.uint8)))
        alpha = cv2.GaussianBlur(mask, (3, 3), 0)[ys, xs].astype(np.float32)[:, None] / 255
        shade = (0.85 + 0.15 * np.clip(((xs - W / 2) * light[0] + (ys - H / 2) * light[1]) / W, -1, 1)).astype(np.float32)
        skin = rgbh[None, :] * shade[:, None] + tex_n[ys, xs][:, None]
        skin *= (f_full[ys, xs] ** 0.3)[:, None]
        img_f[ys, xs] = img_f[ys, xs] * (1 - alpha) + skin * alpha
        occluded, covered_markers = _covered(layout, cam, mask, piece_masks)
    img_f *= wb
    out = np.clip(img_f, 0, 255).astype(np.uint8)
    if c.blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), c.blur_sigma)
    if c.noise_sigma > 0:
        buf = _noise_buffer(out.shape)
        oy, ox = int(rng.integers(0, 64)), int(rng.integers(0, 64))
        noisy = out.astype(np.float32)
        cv2.scaleAdd(buf[oy:oy + H, ox:ox + W], float(c.noise_sigma), noisy, noisy)
        out = np.clip(noisy, 0, 255).astype(np.uint8)
    if c.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(c.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truth = Truth(board, occluded, Hb, cam, tuple(placements), covered_markers)
    return Rendered(out, truth, c)


def with_faces(layout: Layout, placements: Sequence[Placement], dice: Sequence[int] | None,
               rng: np.random.Generator) -> tuple[Placement, ...]:
    """Each die among ``placements`` with its top face: the next of ``dice``, else its own, else
    one drawn from ``rng``."""
    from dataclasses import replace

    kinds = die_kinds(layout)
    given = list(dice or ())
    out = []
    for pl in placements:
        if pl.piece.kind in kinds:
            face = given.pop(0) if given else (pl.face or int(rng.integers(1, 7)))
            pl = replace(pl, face=int(face))
        out.append(pl)
    return tuple(out)


def _covered(layout: Layout, cam: Camera, hand_mask: np.ndarray, piece_masks: Mapping[str, list[np.ndarray]]
             ) -> tuple[frozenset[str], frozenset[int]]:
    """Spaces whose area (grown by 3 mm) or whose pieces the hand overlaps."""
    H, W = hand_mask.shape
    out = set()
    for sp in layout.spaces:
        poly = np.asarray(sp.polygon)
        c = np.asarray(sp.centre)
        v = poly - c
        grown = c + v * (1 + 3.0 / max(1.0, float(np.linalg.norm(v, axis=1).mean())))
        shapes = [cam.project(grown).astype(np.float32)] + list(piece_masks.get(sp.id, []))
        for shp in shapes:
            x0, y0 = np.floor(shp.reshape(-1, 2).min(axis=0)).astype(int)
            x1, y1 = np.ceil(shp.reshape(-1, 2).max(axis=0)).astype(int) + 1
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
            if x1 <= x0 or y1 <= y0:
                continue
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(m, [np.round((shp.reshape(-1, 2) - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
            if np.any((m > 0) & (hand_mask[y0:y1, x0:x1] > 127)):
                out.add(sp.id)
                break
    markers = set()
    for mid, corners in layout.marker_corners_mm().items():
        p = cam.project(corners)
        x0, y0 = np.floor(p.min(axis=0)).astype(int)
        x1, y1 = np.ceil(p.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if x1 > x0 and y1 > y0 and np.any(hand_mask[y0:y1, x0:x1] > 0):
            markers.add(mid)
    return frozenset(out), frozenset(markers)


# --------------------------------------------------------------------------------------------
# random scenes

def without_piece(layout: Layout, first: Rendered, gone: Placement, radius_px: int = 40) -> np.ndarray:
    """``first``'s frame with one placed piece taken away and nothing else changed (a move, for
    change detection). The renderer's shading is not bit-identical between calls, so only the
    part of the frame around the piece comes from a new render."""
    rest = [p for p in first.truth.placements if p is not gone]
    without = render(layout, first.truth.board.with_removed(gone.space, gone.piece), first.conditions,
                     placements=rest).image
    c = cv2.perspectiveTransform(np.array([[[gone.x, gone.y]]], float), first.truth.homography).reshape(2)
    x, y, r = int(c[0]), int(c[1]), radius_px
    out = first.image.copy()
    y0, x0 = max(0, y - r), max(0, x - r)
    out[y0:y + r, x0:x + r] = without[y0:y + r, x0:x + r]
    return out


def random_conditions(layout: Layout, rng: np.random.Generator, *, size: tuple[int, int] = (1280, 720),
                      hand_probability: float = 0.3, strength: float = 1.0) -> Conditions:
    """Draw a frame's conditions: camera pose, light, shadows, hand, blur, noise, JPEG.
    ``strength`` 0 gives a clean frontal view, 1 the full range used by the benchmark."""
    s = strength
    w, h = layout.size
    shadows = []
    if rng.random() < 0.35 * s:
        # a person's shadow falling in from one edge
        edge = rng.integers(4)
        depth = rng.uniform(0.15, 0.45)
        x0, x1 = sorted(rng.uniform(0, w, 2))
        y0, y1 = sorted(rng.uniform(0, h, 2))
        poly = {0: [(x0, -50), (x1, -50), (x1, depth * h), (x0, depth * h)],
                1: [(w + 50, y0), (w + 50, y1), (w * (1 - depth), y1), (w * (1 - depth), y0)],
                2: [(x0, h + 50), (x1, h + 50), (x1, h * (1 - depth)), (x0, h * (1 - depth))],
                3: [(-50, y0), (-50, y1), (depth * w, y1), (depth * w, y0)]}[int(edge)]
        shadows.append(Shadow(tuple(poly), float(rng.uniform(0.55, 0.85)), float(rng.uniform(15, 45))))
    hand = None
    if rng.random() < hand_probability:
        spaces = layout.spaces
        target = spaces[int(rng.integers(len(spaces)))].centre
        target = (target[0] + rng.uniform(-30, 30), target[1] + rng.uniform(-30, 30))
        # the arm comes from the nearest long edge's side, roughly
        from_deg = float(rng.uniform(0, 360))
        hand = Hand(target, from_deg, float(rng.uniform(30, 150)), float(rng.uniform(0.85, 1.15)),
                    SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], float(rng.uniform(0.5, 0.85)))
    return Conditions(
        size=size,
        fov_deg=float(rng.uniform(55, 75)),
        fill=float(rng.uniform(0.78, 0.95)) if s else 0.88,
        tilt_deg=float(rng.uniform(0, 22 * s)),
        tilt_azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-180, 180) * s if rng.random() < 0.3 * s else rng.uniform(-8, 8) * s),
        offset=(float(rng.uniform(-0.04, 0.04) * s), float(rng.uniform(-0.04, 0.04) * s)),
        brightness=float(rng.uniform(1 - 0.35 * s, 1 + 0.12 * s)),
        white_balance=tuple(float(v) for v in rng.uniform(1 - 0.12 * s, 1 + 0.12 * s, 3)),
        gradient=float(rng.uniform(0, 0.35 * s)),
        gradient_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0, 0.3 * s)),
        shadows=tuple(shadows),
        hand=hand,
        blur_sigma=float(rng.uniform(0, 1.3 * s)),
        noise_sigma=float(rng.uniform(0, 6 * s)),
        jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.8 * s else None,
        jitter_mm=2.0,
        light_deg=float(rng.uniform(0, 360)),
        seed=int(rng.integers(2**31)),
    )


DEFAULT_SET = {"house": 20, "emissary": 9, "fortress": 5}  # China: per player; fortresses in all


def default_tag_map(layout: Layout, players: Sequence[str] | None = None,
                    dictionary_name: str = PIECE_DICTIONARY) -> dict[int, Piece]:
    """A tag id -> piece table with one id per piece TYPE (owner and kind): identical pieces carry
    identical stickers, since the referee needs to know what a piece is, not which one. China
    (5 players x house, emissary + the neutral fortress) needs 11 of the dictionary's codes.
    For tests, the demo and printing a sticker sheet."""
    from vision.markers import dictionary_size

    players = list(players or layout.players.keys())
    types = [Piece(p, kind) for kind in layout.player_kinds() for p in players]
    types += [Piece("neutral", kind) for kind in layout.neutral_kinds()]
    if len(types) > dictionary_size(dictionary_name):
        raise ValueError(f"{len(types)} piece types but only {dictionary_size(dictionary_name)} codes in {dictionary_name}")
    return dict(enumerate(types))
