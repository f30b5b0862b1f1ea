"""The fake table's pictures, drawn instead of photographed: the board (and its pieces) top-down
from the board's geometry, as a rectified camera picture would look, and that drawing seen in
perspective on a table, as the dashboard's live camera view would show it.
"""

from __future__ import annotations

from typing import Any, Mapping

import cv2
import numpy as np

from scorer.core import Game
from scorer.core.boardkit import PLAYER_HEX
from web.boards import default_markers


def draw_board(geo: Mapping[str, Any], game: Game | None, state: Any, *, pieces: bool = True,
               px_per_mm: float = 2.0) -> np.ndarray:
    """Draw the board of ``geo`` (and, with ``pieces``, what ``game``'s ``state`` shows on it)
    top-down, as a rectified camera picture would look."""
    w, h = geo["size"]
    img = np.full((int(h * px_per_mm), int(w * px_per_mm), 3), (184, 214, 226), np.uint8)

    def bgr(hex_: str) -> tuple[int, int, int]:
        v = hex_.lstrip("#")
        return int(v[4:6], 16), int(v[2:4], 16), int(v[0:2], 16)

    def pt(x: float, y: float) -> tuple[int, int]:
        return int(round(x * px_per_mm)), int(round(y * px_per_mm))

    for r in geo["regions"]:
        poly = np.array([pt(x, y) for x, y in r["polygon"]], np.int32)
        if str(r.get("fill", "none")).startswith("#"):
            cv2.fillPoly(img, [poly], bgr(r["fill"]))
        cv2.polylines(img, [poly], True, (90, 90, 90), 2)
    centre = {s["id"]: (s["x"], s["y"]) for s in geo["spaces"]}
    for a, b in geo.get("roads", []):
        if a in centre and b in centre:
            cv2.line(img, pt(*centre[a]), pt(*centre[b]), (70, 110, 150), 4)
    for s in geo["spaces"]:
        if "points" in s:
            poly = np.array([pt(x, y) for x, y in s["points"]], np.int32)
            cv2.fillPoly(img, [poly], (225, 232, 238))
            cv2.polylines(img, [poly], True, (60, 60, 60), 2)
            continue
        cv2.circle(img, pt(s["x"], s["y"]), int(s["r"] * px_per_mm), (235, 240, 245), -1)
        cv2.circle(img, pt(s["x"], s["y"]), int(s["r"] * px_per_mm), (60, 60, 60), 2)
    if pieces and state is not None and game is not None:
        board = game.visible_board(state)
        for space, piece, n in board.items():
            if space not in centre:
                continue
            x, y = centre[space]
            colour = bgr(PLAYER_HEX.get(str(piece.owner), "#888888"))
            if game.id != "china":
                cv2.circle(img, pt(x, y), int(7 * px_per_mm), colour, -1)
            elif piece.kind == "emissary":
                for k in range(n):
                    cv2.circle(img, pt(x - 12 + 8 * k, y), int(6 * px_per_mm), colour, -1)
            else:
                half = 8 if piece.kind == "house" else 11
                cv2.rectangle(img, pt(x - half, y - half), pt(x + half, y + half), colour, -1 if piece.kind == "house" else 3)
    markers = geo.get("markers") or default_markers((float(w), float(h)))
    half = markers["size_mm"] / 2
    for i, m in enumerate(markers["corners"]):
        x, y = m["centre_mm"]
        cv2.rectangle(img, pt(x - half, y - half), pt(x + half, y + half), (0, 0, 0), -1)
        q = half / 2
        cv2.rectangle(img, pt(x - q, y - q), pt(x + q - q * (i % 2), y + q), (255, 255, 255), -1)
    return img


def camera_jpeg(img: np.ndarray) -> bytes | None:
    """``img`` as a camera sees the board: in perspective, on a table; JPEG."""
    h, w = img.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[w * 0.08, h * 0.06], [w * 0.93, h * 0.03], [w * 0.98, h * 0.97], [w * 0.03, h * 0.92]])
    warped = cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (w, h), borderValue=(60, 86, 120))
    ok, buf = cv2.imencode(".jpg", warped, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes() if ok else None
