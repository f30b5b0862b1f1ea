"""The hand reaching over the board in a rendered frame (``vision.render``): its shape, as
convex polygons in board mm, and the ground truth of what it hides -- the spaces (with their
pieces) and the corner markers it covers in the image.
"""

from __future__ import annotations

import math
from typing import Mapping

import cv2
import numpy as np

from vision.geometry import Camera
from vision.layout import Layout
from vision.render_conditions import Hand


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


def covered_by_hand(layout: Layout, cam: Camera, hand_mask: np.ndarray, piece_masks: Mapping[str, list[np.ndarray]]
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
