"""The printed board, drawn in a style of its own from the layout file's geometry (read as plain
JSON): paper, areas, the holding boxes and a dice tray whose surface varies by table (paper,
felt, wood, card), and the four corner markers (OpenCV's own marker images)."""

from __future__ import annotations

import math

import cv2
import numpy as np

TRAY_STYLES = ("paper", "felt", "wood", "card")


def _poly(points, s: float) -> np.ndarray:
    return np.round(np.asarray(points, float) * s * 8).astype(np.int32)


def tray_polygon(layout: dict) -> np.ndarray:
    for sp in layout["spaces"]:
        if sp.get("kind") == "dice":
            return np.asarray(sp["points_mm"], float)
    raise ValueError("the layout has no dice space")


def draw_board(layout: dict, rng: np.random.Generator, px_per_mm: float) -> tuple[np.ndarray, dict]:
    """The board texture (BGR float32, albedo 0..1) and a description of its style."""
    w, h = (float(v) for v in layout["size_mm"])
    W, H = int(round(w * px_per_mm)), int(round(h * px_per_mm))
    s = px_per_mm
    paper = np.array([rng.uniform(0.78, 0.95), rng.uniform(0.8, 0.95), rng.uniform(0.82, 0.97)])[::-1]
    img = np.empty((H, W, 3), np.float32)
    img[:] = paper
    fibre = cv2.resize(rng.normal(0, 1, (H // 4 + 1, W // 4 + 1)).astype(np.float32), (W, H)) * 0.02
    img += fibre[..., None]
    ink = np.array([rng.uniform(0.1, 0.35)] * 3) * np.array([1.0, rng.uniform(0.8, 1.1), rng.uniform(0.7, 1.2)])
    for reg in layout.get("regions", ()):
        tint = paper * rng.uniform(0.75, 1.0, 3)
        cv2.fillPoly(img, [_poly(reg["polygon"], s)], tuple(float(v) for v in tint), cv2.LINE_AA, 3)
        cv2.polylines(img, [_poly(reg["polygon"], s)], True, tuple(float(v) for v in ink), max(1, int(round(0.8 * s))),
                      cv2.LINE_AA, 3)
    for sp in layout["spaces"]:
        if sp.get("kind") == "dice" or "points_mm" not in sp:
            continue
        if rng.random() < 0.5:
            fill = np.clip(paper * rng.uniform(0.85, 1.1, 3), 0, 1)
            cv2.fillPoly(img, [_poly(sp["points_mm"], s)], tuple(float(v) for v in fill), cv2.LINE_AA, 3)
        cv2.polylines(img, [_poly(sp["points_mm"], s)], True, tuple(float(v) for v in ink), max(1, int(round(0.6 * s))),
                      cv2.LINE_AA, 3)
    # scribbles standing for the printed art and names
    for _ in range(int(rng.integers(20, 60))):
        x, y = rng.uniform(60, w - 60), rng.uniform(60, h - 60)
        pts = np.cumsum(rng.normal(0, 4, (6, 2)), axis=0) + [x, y]
        cv2.polylines(img, [_poly(pts, s)], False, tuple(float(v) for v in ink * rng.uniform(0.8, 1.5)),
                      max(1, int(round(0.5 * s))), cv2.LINE_AA, 3)
    style = str(rng.choice(TRAY_STYLES))
    tray = tray_polygon(layout)
    # the tray's surface, drawn in its bounding box only
    tx0, ty0 = np.floor(tray.min(axis=0) * s).astype(int) - 2
    tx1, ty1 = np.ceil(tray.max(axis=0) * s).astype(int) + 3
    tx0, ty0, tx1, ty1 = max(tx0, 0), max(ty0, 0), min(tx1, W), min(ty1, H)
    Hs, Ws = ty1 - ty0, tx1 - tx0
    mask = np.zeros((Hs, Ws), np.uint8)
    cv2.fillPoly(mask, [np.round((tray * s - [tx0, ty0]) * 8).astype(np.int32)], 255, cv2.LINE_AA, 3)
    a = (mask.astype(np.float32) / 255)[..., None]
    H, W = Hs, Ws
    if style == "paper":
        base = np.clip(paper * rng.uniform(0.95, 1.08, 3), 0, 1)
        surf = np.broadcast_to(base, (H, W, 3)).copy()
    elif style == "felt":
        base = np.array([rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.35)])
        surf = base + cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 0.6 * s)[..., None] * 0.03
    elif style == "wood":
        base = np.array([rng.uniform(0.25, 0.45), rng.uniform(0.4, 0.6), rng.uniform(0.55, 0.8)])
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = (xx * math.cos(ang) + yy * math.sin(ang)) / s
        grain = np.sin(u * rng.uniform(0.5, 1.5) + 3 * np.sin(u * 0.05)) * 0.06
        surf = base * (1 + grain[..., None])
    else:  # card: a mid-tone printed square
        base = np.array(rng.uniform(0.35, 0.8, 3))
        surf = np.broadcast_to(base, (H, W, 3)).copy()
    img[ty0:ty1, tx0:tx1] = img[ty0:ty1, tx0:tx1] * (1 - a) + surf.astype(np.float32) * a
    cv2.polylines(img, [_poly(tray, s)], True, tuple(float(v) for v in ink), max(1, int(round(1.2 * s))), cv2.LINE_AA, 3)
    mk = layout["markers"]
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, mk["dictionary"]))
    size = float(mk["size_mm"])
    for c in mk["corners"]:
        body = int(round(size * s))
        tag = cv2.aruco.generateImageMarker(d, int(c["id"]), body).astype(np.float32) / 255 * 0.92 + 0.04
        x0 = int(round((c["centre_mm"][0] - size / 2) * s))
        y0 = int(round((c["centre_mm"][1] - size / 2) * s))
        q = int(round(size * s / 8))
        img[y0 - q:y0 + body + q, x0 - q:x0 + body + q] = 0.96
        img[y0:y0 + body, x0:x0 + body] = tag[..., None]
    return np.clip(img, 0, 1), {"tray": style}
