"""Procedural artwork for printed piece faces (the renderer's stand-in for a tile's portrait, a
card's type picture, a counter's digit), and drawing it onto a piece's top face in perspective.

Nothing here knows a game: a layout's piece kind with a ``face`` (``PieceSpec.printed``) gets
artwork seeded by its kind name and its place among the layout's printed kinds (so that the kinds
of one layout differ in colour as well as in shape), with the face's ``label`` drawn large, a
player-owned piece's owner colour as its border, and a neutral piece's ``rgb`` as its ground; a face
printed on the owner's colour (layout ``face.ground`` "owner": a Zhang Yi talent counter, its name on
its state's colour) keeps that colour as its ground and rim, its motif and label in one ink.
Each printed copy varies a little (hue, brightness, print offset), as real print runs do.
"""

from __future__ import annotations

import math
import zlib
from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from vision.layout import Layout, PieceSpec

ART_PX = 96  # the artwork's side before it is warped onto a face
BORDER = 0.11  # share of the side an owner's colour border takes


def printed_kinds(layout: Layout) -> tuple[str, ...]:
    """The layout's piece kinds with a printed face, in name order."""
    return tuple(sorted(k for k, p in layout.pieces.items() if p.printed))


def _seed(kind: str) -> int:
    return zlib.crc32(kind.encode("utf-8"))


OWNER_INSET = 0.12  # an art printed on the owner's colour keeps this share of the side plain on each edge


@lru_cache(maxsize=256)
def _owner_art_cached(kind: str, index: int, count: int, label: str | None, owner_rgb: tuple[int, int, int],
                      motif: bool = True) -> np.ndarray:
    """A face printed on the owner's colour (a Zhang Yi talent counter: its state's colour with its
    name): the kind's motif and corner wedge in a light or dark ink (whichever stands out from the
    colour), the label over them, all inside a plain rim of the colour, so that the piece still
    shows mostly its owner's colour. ``motif`` False (layout ``face.motif``): the label alone (an army
    counter's value, the same print on every state's colour)."""
    rng = np.random.default_rng(_seed(kind))
    n = ART_PX
    ground = tuple(int(v) for v in owner_rgb[::-1])
    dark = 0.114 * ground[0] + 0.587 * ground[1] + 0.299 * ground[2] < 140
    ink = (225, 238, 245) if dark else (30, 25, 20)  # near white on a dark colour, else near black
    accent = tuple(int(round(0.35 * g + 0.65 * k)) for g, k in zip(ground, ink))
    inner = n - 2 * int(round(OWNER_INSET * n))
    art = np.empty((inner, inner, 3), np.uint8)
    art[:] = ground
    corner = int(rng.integers(4))
    if motif:
        MOTIFS[index % len(MOTIFS)](art, rng, ink, accent, corner)
    if label:
        _label(art, label, ink if motif else accent, LABEL_ALONE if not motif else LABEL_FILL)
    img = np.empty((n, n, 3), np.uint8)
    img[:] = ground
    o = (n - inner) // 2
    img[o:o + inner, o:o + inner] = art
    return img


def _hsv_bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    px = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


@lru_cache(maxsize=256)
def _art_cached(kind: str, index: int, count: int, label: str | None, ground_rgb: tuple[int, int, int] | None,
                owner_rgb: tuple[int, int, int] | None, motif: bool = True) -> np.ndarray:
    """A face on its own ground: the kind's motif and corner wedge, the label over them; ``motif``
    False (layout ``face.motif``): the label alone (a token's value printed on plain cardboard)."""
    rng = np.random.default_rng(_seed(kind))
    n = ART_PX
    step = 180.0 / max(1, count)
    hue = index * step + rng.uniform(0, step / 3)  # kinds of one layout spread over the hue circle
    if ground_rgb is not None:
        ground = tuple(int(v) for v in ground_rgb[::-1])
    else:
        ground = _hsv_bgr(hue, rng.uniform(70, 140), rng.uniform(150, 220))
    img = np.empty((n, n, 3), np.uint8)
    img[:] = ground
    fg = _hsv_bgr(hue + 90, rng.uniform(150, 230), rng.uniform(60, 130))  # a contrasting, darker hue
    accent = _hsv_bgr(hue + 45 + rng.uniform(0, 40), rng.uniform(120, 220), rng.uniform(170, 250))
    s16 = 16
    corner = int(rng.integers(4))
    # the main motif: a different one for each printed kind of the layout (up to eight) ...
    if motif:
        MOTIFS[index % len(MOTIFS)](img, rng, fg, accent, corner)
        # ... and a corner wedge, so that the four turns of a face differ
        wedge = np.array([[0, 0], [n * rng.uniform(0.4, 0.55), 0], [0, n * rng.uniform(0.4, 0.55)]])
        wedge = _turn_points(wedge, corner, n)
        cv2.fillConvexPoly(img, np.round(wedge * s16).astype(np.int32), fg, cv2.LINE_AA, 4)
    if label:
        ink = fg if sum(ground) > 300 else (245, 245, 245)
        _label(img, label, ink, LABEL_FILL if motif else LABEL_ALONE)
    if owner_rgb is not None:
        b = max(2, int(round(BORDER * n)))
        col = tuple(int(v) for v in owner_rgb[::-1])
        img[:b], img[-b:], img[:, :b], img[:, -b:] = col, col, col, col
    return img


def _bar(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    a = rng.uniform(0, math.pi)
    c = np.array([n * rng.uniform(0.45, 0.6), n * rng.uniform(0.45, 0.6)])
    d = np.array([math.cos(a), math.sin(a)]) * n * 0.42
    cv2.line(img, tuple(np.round((c - d) * 16).astype(int)), tuple(np.round((c + d) * 16).astype(int)), accent,
             max(2, int(n * rng.uniform(0.1, 0.15))), cv2.LINE_AA, 4)


def _disc(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    p = _turn_points(np.array([[n * 0.62, n * 0.6]]), corner, n)[0]
    cv2.circle(img, tuple(np.round(p * 16).astype(int)), int(n * 0.3 * 16), accent, -1, cv2.LINE_AA, 4)


def _stripes(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    w = n // 6  # broad stripes: a 38 mm tile seen at 0.5 px/mm still shows them
    for i in range(1, 6, 2):
        if corner % 2:
            img[:, i * w:(i + 1) * w] = accent
        else:
            img[i * w:(i + 1) * w, :] = accent


def _checker(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    w = n // 3
    for i in range(3):
        for j in range(3):
            if (i + j) % 2 == 0 and (i, j) != (0, 0):
                img[i * w:(i + 1) * w, j * w:(j + 1) * w] = accent


def _triangle(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    tri = _turn_points(np.array([[n * 0.15, n * 0.9], [n * 0.9, n * 0.9], [n * 0.55, n * 0.2]]), corner, n)
    cv2.fillConvexPoly(img, np.round(tri * 16).astype(np.int32), accent, cv2.LINE_AA, 4)


def _ring(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    cv2.circle(img, (n * 8, n * 8), int(n * 0.33 * 16), accent, max(3, n // 9), cv2.LINE_AA, 4)
    p = _turn_points(np.array([[n * 0.85, n * 0.5]]), corner, n)[0]
    cv2.circle(img, tuple(np.round(p * 16).astype(int)), int(n * 0.1 * 16), fg, -1, cv2.LINE_AA, 4)


def _cross(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    w = n // 7
    c = _turn_points(np.array([[n * 0.58, n * 0.42]]), corner, n)[0].astype(int)
    img[:, max(0, c[0] - w):c[0] + w] = accent
    img[max(0, c[1] - w):c[1] + w, :] = accent


def _dots(img: np.ndarray, rng: np.random.Generator, fg, accent, corner: int) -> None:
    n = img.shape[0]
    for i, (x, y) in enumerate(((0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.72))):
        if i == corner:
            continue
        cv2.circle(img, (int(x * n * 16), int(y * n * 16)), int(n * 0.14 * 16), accent, -1, cv2.LINE_AA, 4)


MOTIFS = (_bar, _disc, _stripes, _checker, _triangle, _ring, _cross, _dots)


def _turn_points(pts: np.ndarray, quarter: int, n: int) -> np.ndarray:
    out = np.asarray(pts, float)
    for _ in range(quarter % 4):
        out = np.stack([n - out[:, 1], out[:, 0]], axis=1)
    return out


LABEL_FILL = (0.62, 0.55)  # share of the art's width and height the label may take beside a motif ...
LABEL_ALONE = (0.86, 0.8)  # ... and alone (an army counter's value: some 9.7 mm on a 16 mm counter)


def _label(img: np.ndarray, text: str, colour: Sequence[int], fill: tuple[float, float] = LABEL_FILL) -> None:
    """The label as large as fits the middle of the face (a digit or a letter fills most of it)."""
    n = img.shape[0]
    font = cv2.FONT_HERSHEY_DUPLEX
    thick = max(2, n // 16)
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = min(fill[0] * n / max(w, 1), fill[1] * n / max(h, 1))
    thick = max(2, int(round(thick * scale * 0.8)))
    (w, h), base = cv2.getTextSize(text, font, scale, thick)
    org = (int((n - w) / 2), int((n + h) / 2))
    cv2.putText(img, text, org, font, scale, tuple(int(v) for v in colour), thick, cv2.LINE_AA)


def face_art(layout: Layout, kind: str, owner: str | None = None) -> np.ndarray:
    """The nominal artwork (BGR, ``ART_PX`` square, upright) of a printed kind; ``owner``: the
    player whose colour borders it (neutral pieces: none)."""
    spec = layout.pieces[kind]
    if not spec.printed:
        raise ValueError(f"piece kind {kind!r} has no printed face")
    kinds = printed_kinds(layout)
    owner_rgb = None if spec.neutral or owner is None else tuple(layout.players.get(owner, (128, 128, 128)))
    if spec.on_owner_colour and owner_rgb is not None:
        return _owner_art_cached(kind, kinds.index(kind), len(kinds), spec.face_label, owner_rgb,
                                 spec.with_motif).copy()
    return _art_cached(kind, kinds.index(kind), len(kinds), spec.face_label,
                       tuple(spec.rgb) if spec.rgb else None, owner_rgb, spec.with_motif).copy()


def printed_copy(art: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One printed copy of ``art``: hue and brightness a little off, the print shifted a little."""
    hsv = cv2.cvtColor(art, cv2.COLOR_BGR2HSV).astype(np.int16)
    hsv[..., 0] = (hsv[..., 0] + int(rng.integers(-3, 4))) % 180
    out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32) * float(rng.uniform(0.92, 1.06))
    n = art.shape[0]
    M = np.float32([[1, 0, rng.uniform(-0.025, 0.025) * n], [0, 1, rng.uniform(-0.025, 0.025) * n]])
    return cv2.warpAffine(np.clip(out, 0, 255).astype(np.uint8), M, (n, n), borderMode=cv2.BORDER_REFLECT)


def face_corners(spec: PieceSpec, x: float, y: float, angle_deg: float) -> np.ndarray:
    """The printed area's corners in board mm (TL, TR, BR, BL of the artwork, turned with the
    piece): a rect's whole top, a disc's inscribed-plus square (masked to the disc when drawn)."""
    if spec.footprint == "circle":
        w = l = spec.size[0]
    else:
        w, l = spec.size[0], spec.size[-1]
    pts = np.array([[-w / 2, -l / 2], [w / 2, -l / 2], [w / 2, l / 2], [-w / 2, l / 2]], float)
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return pts @ rot.T + [x, y]


def draw_face(img: np.ndarray, top_px: np.ndarray, corners_px: np.ndarray, art: np.ndarray, shade: float,
              round_face: bool, edge_replicated: bool = False) -> None:
    """Warp ``art`` onto the projected face ``corners_px`` (image px, TL TR BR BL), masked by the
    projected top ``top_px`` (for a disc), darkened by ``shade`` (the top's lighting).
    ``edge_replicated``: the art's edge runs to the face's edge (a face printed on the owner's
    colour), instead of a dark seam where the warp samples outside the art."""
    H, W = img.shape[:2]
    pts = np.vstack([corners_px, top_px])
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    n = art.shape[0]
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    M = cv2.getPerspectiveTransform(src, (corners_px - np.float32([x0, y0])).astype(np.float32))
    warped = cv2.warpPerspective(art, M, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_REPLICATE if edge_replicated else cv2.BORDER_CONSTANT
                                 ).astype(np.float32) * shade
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    outline = top_px if round_face else corners_px
    cv2.fillConvexPoly(mask, np.round((outline - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    alpha = (mask.astype(np.float32) / 255)[..., None]
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - alpha) + warped * alpha, 0, 255).astype(np.uint8)


def turned(layout: Layout, placements: Sequence, rng: np.random.Generator) -> tuple:
    """Printed pieces lie any way round: each turned by a random quarter (a half for a long
    rect, whose outline a quarter turn would change). Other pieces stay as they are."""
    from dataclasses import replace

    out = []
    for pl in placements:
        spec = layout.pieces[pl.piece.kind]
        if spec.printed:
            square = spec.footprint == "circle" or abs(spec.size[0] - spec.size[-1]) < 1e-6
            k = int(rng.integers(4)) if square else 2 * int(rng.integers(2))
            pl = replace(pl, angle=pl.angle + 90.0 * k)
        out.append(pl)
    return tuple(out)
