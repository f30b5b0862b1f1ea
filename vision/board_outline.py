"""The board's own edge as a registration fallback.

A board far from the camera shows its corner markers only 15-20 px across: too small to decode
at all, or only one or two of them. Its outline (a light board on a table, or a dark one) is
still plain: the largest four-sided shape in the frame. Each side is a line fitted to the
outline's points, the corners are where they meet, and which corner is which comes from the
markers that were decoded (one is enough). Accepted only when a marker lands where the outline
puts it.
"""

from __future__ import annotations

import cv2
import numpy as np

MIN_AREA = 0.02  # of the frame: smaller shapes are not the board
MAX_AREA = 0.97
AGREE_MARKER_SIDES = 0.5  # a decoded marker's centre within this many of its side lengths of where the outline puts it


def board_quads(gray: np.ndarray) -> list[np.ndarray]:
    """Candidate outlines (4x2 image corners, clockwise), largest first."""
    h, w = gray.shape[:2]
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    _, bright = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out = []
    for mask in (bright, 255 - bright):
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
            area = cv2.contourArea(c)
            if not MIN_AREA * w * h <= area <= MAX_AREA * w * h:
                continue
            hull = cv2.convexHull(c)
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
            if len(approx) != 4:
                continue
            quad = _refine(c.reshape(-1, 2).astype(np.float64), approx.reshape(4, 2).astype(np.float64))
            if quad is not None:
                out.append(quad)
    return out


def _refine(points: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """Corners where lines fitted to each side's outline points meet (clockwise)."""
    if cv2.contourArea(corners.astype(np.float32)) < 0:
        corners = corners[::-1]
    # order clockwise in image coordinates (y down): signed area > 0
    area = 0.5 * np.sum(corners[:, 0] * np.roll(corners[:, 1], -1) - np.roll(corners[:, 0], -1) * corners[:, 1])
    if area < 0:
        corners = corners[::-1]
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 10:
            return None
        n = np.array([-d[1], d[0]]) / length
        t = ((points - a) @ d) / (length * length)
        near = (np.abs((points - a) @ n) < max(3.0, 0.02 * length)) & (t > 0.1) & (t < 0.9)
        sel = points[near] if near.sum() >= 10 else np.vstack([a, b])
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-9:
            return None
        s, _ = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s * d1)
    return np.array(out)


def homography_from_outline(gray: np.ndarray, board_size: tuple[float, float], found: dict[int, np.ndarray],
                            marker_centres_mm: dict[int, np.ndarray]) -> np.ndarray | None:
    """Board mm -> image homography from the board's outline, its orientation taken from the
    decoded markers (``found``: id -> 4 image corners). None when no outline agrees."""
    if not found:
        return None
    w, h = board_size
    board = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)  # clockwise, y down
    best: tuple[float, np.ndarray] | None = None
    for quad in board_quads(gray):
        for k in range(4):
            H = cv2.getPerspectiveTransform(board.astype(np.float32), np.roll(quad, -k, axis=0).astype(np.float32))
            err = 0.0
            for mid, pts in found.items():
                side = float(np.mean(np.linalg.norm(np.roll(pts, -1, axis=0) - pts, axis=1)))
                c = cv2.perspectiveTransform(marker_centres_mm[mid].reshape(1, 1, 2).astype(np.float64), H).reshape(2)
                err = max(err, float(np.linalg.norm(c - pts.mean(axis=0))) / max(side, 1.0))
            if err <= AGREE_MARKER_SIDES and (best is None or err < best[0]):
                best = (err, H)
    return None if best is None else best[1]
