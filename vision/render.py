"""Synthetic scene renderer: what an overhead camera would see of a board with pieces on it,
together with the ground truth. Deterministic from a seed.

Pieces are drawn as lit prisms seen through a pinhole camera (so tall pieces lean away from the
camera as real ones do); the board is a printed texture with the four corner markers; on top
come uneven light, soft shadows, an optional hand and arm (with its shadow), lens blur, sensor
noise and JPEG compression. The ground truth says which pieces are on which space, which spaces
the hand covers, and the true homography.

Where the pieces stand is ``vision.placement``; the tags they carry in marker mode,
``vision.piece_tags`` (both re-exported here, where tests and tools find them).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.geometry import Camera, look_at_camera
from vision.layout import Layout
from vision.markers import PIECE_DICTIONARY, dictionary, marker_bits
from vision.dice import die_kinds
from vision.face_art import draw_face, face_art, face_corners, printed_copy, printed_kinds, turned
from vision.render_dice import draw_die_pips
from vision.card_rows import draw_card, is_card
from vision.placement import PRINTED_ANGLE_SHARE, Placement, PlacementError, place_pieces
from vision.piece_tags import (DEFAULT_SET, TAG_QUIET_CELLS, TagMap, _draw_tag, default_tag_map, square_on_piece,
                               sticker_size_mm, tag_size_mm, tags_by_piece)
from vision.scenes import random_board

# from PRINTED_ANGLE_SHARE on: re-exported from vision.placement, vision.piece_tags and vision.scenes, where
# tests, tools and benchmarks find them
__all__ = [
    "Conditions", "Hand", "Rendered", "Shadow", "Truth", "SKIN_TONES", "TABLE_RGB", "TEXTURE_PX_PER_MM", "TagMap",
    "board_texture", "frame_camera", "hand_polygons", "random_conditions", "render", "with_faces", "without_piece",
    "PRINTED_ANGLE_SHARE", "Placement", "PlacementError", "place_pieces",
    "DEFAULT_SET", "TAG_QUIET_CELLS", "default_tag_map", "square_on_piece", "sticker_size_mm", "tag_size_mm",
    "tags_by_piece", "random_board",
]

TEXTURE_PX_PER_MM = 2.0
TABLE_RGB = (120, 86, 60)
SKIN_TONES = ((232, 190, 160), (210, 160, 120), (170, 120, 90), (120, 80, 55), (245, 205, 180))


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
                      spec.footprint == "circle", spec.on_owner_colour)
        if pl.face is not None:
            draw_die_pips(img, cam, outline, pl.base, pl.base + spec.height, pl.face, light, dice_rng)
        bottom = cam.project(outline, -pl.base)
        piece_masks.setdefault(pl.space, []).append(cv2.convexHull(np.vstack([top, bottom]).astype(np.float32)))
        if pl.tag is not None:
            _draw_tag(img, cam, pl, spec, pl.base + spec.height, tag_dictionary, layout)
        elif spec.footprint == "rect" and not spec.neutral and not is_card(spec) and not spec.printed:
            # roof ridge of a house (a printed top, a Zhang Yi talent counter's, has none)
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
    counts_as = layout.pieces[gone.piece.kind].counts_as  # a printed counter: the truth holds what it counts as
    kind, n = counts_as if counts_as is not None else (gone.piece.kind, 1)
    without = render(layout, first.truth.board.with_removed(gone.space, Piece(gone.piece.owner, kind), n),
                     first.conditions, placements=rest).image
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
