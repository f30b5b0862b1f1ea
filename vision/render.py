"""Synthetic scene renderer: what an overhead camera would see of a board with pieces on it,
together with the ground truth. Deterministic from a seed.

Pieces are drawn as lit prisms seen through a pinhole camera (so tall pieces lean away from the
camera as real ones do); the board is a printed texture with the four corner markers; on top
come uneven light, soft shadows, an optional hand and arm (with its shadow), lens blur, sensor
noise and JPEG compression. The ground truth says which pieces are on which space, which spaces
the hand covers, and the true homography.

Where the pieces stand is ``vision.placement``; the tags they carry in marker mode,
``vision.piece_tags``; what a frame is told besides its pieces, ``vision.render_conditions``; the
printed board, ``vision.render_texture``; the hand's shape and what it hides, ``vision.render_hand``
(all re-exported here, where tests and tools find them).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.geometry import Camera, look_at_camera
from vision.layout import Layout
from vision.markers import PIECE_DICTIONARY
from vision.dice import die_kinds
from vision.face_art import draw_face, face_art, face_corners, printed_copy, printed_kinds, turned
from vision.render_dice import draw_die_pips
from vision.card_rows import draw_card, is_card
from vision.placement import PRINTED_ANGLE_SHARE, Placement, PlacementError, place_pieces
from vision.piece_tags import (DEFAULT_SET, TAG_QUIET_CELLS, TagMap, _draw_tag, default_tag_map, square_on_piece,
                               sticker_size_mm, tag_size_mm, tags_by_piece)
from vision.render_conditions import SKIN_TONES, Conditions, Hand, Shadow, random_conditions
from vision.render_hand import covered_by_hand, hand_polygons
from vision.render_texture import TEXTURE_PX_PER_MM, board_texture, cached_board_texture
from vision.scenes import random_board

# Conditions, Hand, Shadow, SKIN_TONES, random_conditions, TEXTURE_PX_PER_MM, board_texture, hand_polygons and
# everything from PRINTED_ANGLE_SHARE on: re-exported from their own modules, where tests, tools and benchmarks
# find them
__all__ = [
    "Conditions", "Hand", "Rendered", "Shadow", "Truth", "SKIN_TONES", "TABLE_RGB", "TEXTURE_PX_PER_MM", "TagMap",
    "board_texture", "frame_camera", "hand_polygons", "random_conditions", "render", "with_faces", "without_piece",
    "PRINTED_ANGLE_SHARE", "Placement", "PlacementError", "place_pieces",
    "DEFAULT_SET", "TAG_QUIET_CELLS", "default_tag_map", "square_on_piece", "sticker_size_mm", "tag_size_mm",
    "tags_by_piece", "random_board",
]

TABLE_RGB = (120, 86, 60)


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
    hand: np.ndarray | None = field(default=None, compare=False, repr=False)  # uint8, 255 where the hand is drawn


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
    tex = cached_board_texture(id(layout), layout) if texture is None else texture
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
        occluded, covered_markers = covered_by_hand(layout, cam, mask, piece_masks)
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
    return Rendered(out, truth, c, mask)


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


# --------------------------------------------------------------------------------------------
# a piece taken away

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
