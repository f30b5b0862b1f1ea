"""A pinhole camera of its own (shares nothing with vision/geometry.py).

World: the board lies in the plane h = 0, x to the right and y down in board millimetres (as the
layout file writes them), h is the height above the board. The camera looks down from h > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PinholeCamera:
    focal: float  # pixels
    principal: tuple[float, float]
    rows: np.ndarray  # 3x3: the camera's right, down and forward axes in world coordinates
    centre: np.ndarray  # world position (x, y, h)
    size: tuple[int, int]

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> pixels (N, 2)."""
        rel = np.asarray(pts, float).reshape(-1, 3) - self.centre
        cam = rel @ self.rows.T
        z = cam[:, 2:3]
        return cam[:, :2] / z * self.focal + np.asarray(self.principal)

    def project_board(self, xy: np.ndarray, h: float = 0.0) -> np.ndarray:
        xy = np.asarray(xy, float).reshape(-1, 2)
        return self.project(np.column_stack([xy, np.full(len(xy), h)]))

    def rays(self, px: np.ndarray) -> np.ndarray:
        """Unit world directions of the rays through pixels (N, 2)."""
        px = np.asarray(px, float).reshape(-1, 2)
        v = np.column_stack([(px - np.asarray(self.principal)) / self.focal, np.ones(len(px))])
        d = v @ self.rows
        return d / np.linalg.norm(d, axis=1, keepdims=True)

    def board_homography(self) -> np.ndarray:
        """Board mm (h = 0) -> pixels, for the truth file."""
        src = np.array([[0, 0], [500, 0], [500, 500], [0, 500]], float)
        dst = self.project_board(src)
        A = []
        for (x, y), (u, v) in zip(src, dst):
            A.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
            A.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
        _, _, vt = np.linalg.svd(np.asarray(A))
        H = vt[-1].reshape(3, 3)
        return H / H[2, 2]


def aim(size: tuple[int, int], hfov_deg: float, target: tuple[float, float], distance: float, tilt_deg: float,
        azimuth_deg: float, roll_deg: float) -> PinholeCamera:
    """A level camera (up to ``roll_deg``) ``distance`` mm from ``target``, tilted ``tilt_deg`` off
    the vertical towards ``azimuth_deg``."""
    w, h = size
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    t, a, r = (math.radians(v) for v in (tilt_deg, azimuth_deg, roll_deg))
    fwd = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
    right = np.array([-math.sin(a), math.cos(a), 0.0])
    down = -np.cross(fwd, right)
    right, down = math.cos(r) * right + math.sin(r) * down, -math.sin(r) * right + math.cos(r) * down
    centre = np.array([target[0], target[1], 0.0]) - distance * fwd
    return PinholeCamera(f, (w / 2, h / 2), np.vstack([right, down, fwd]), centre, size)


def framed(size: tuple[int, int], hfov_deg: float, board: tuple[float, float], fill: float, tilt_deg: float,
           azimuth_deg: float, roll_deg: float, offset: tuple[float, float] = (0.0, 0.0)) -> PinholeCamera:
    """The camera at the distance where the board spans ``fill`` of the frame (the larger of its
    share of the width and of the height)."""
    bw, bh = board
    target = (bw / 2 + offset[0] * bw, bh / 2 + offset[1] * bh)
    corners = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], float)
    dist = 1500.0
    for _ in range(6):
        cam = aim(size, hfov_deg, target, dist, tilt_deg, azimuth_deg, roll_deg)
        p = cam.project_board(corners) - np.asarray(cam.principal)
        share = max(np.abs(p[:, 0]).max() / (size[0] / 2), np.abs(p[:, 1]).max() / (size[1] / 2))
        dist *= share / fill
    return aim(size, hfov_deg, target, dist, tilt_deg, azimuth_deg, roll_deg)
