"""The printed tags (stickers) pieces carry in marker mode: which tag id each piece type gets
(``default_tag_map``, ``tags_by_piece``), how large a piece's sticker and its code are
(``sticker_size_mm``, ``tag_size_mm``), where on a placed piece it lies (``square_on_piece``), and
drawing it onto a frame (for ``vision.render``, which re-exports the public names).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Mapping, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.geometry import Camera
from vision.layout import Layout, PieceSpec
from vision.markers import PIECE_DICTIONARY, dictionary, marker_bits
from vision.placement import Placement

TagMap = Mapping[int, Piece]
TAG_QUIET_CELLS = 0.5  # white margin of a piece sticker around the tag, in tag cells


def tags_by_piece(tag_map: TagMap) -> dict[Piece, list[int]]:
    out: dict[Piece, list[int]] = {}
    for tid, p in sorted(tag_map.items()):
        out.setdefault(p, []).append(tid)
    return out


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
