"""Pinhole camera geometry shared by the renderer (to make images) and the reader (to undo
parallax): a board lies in the plane z = 0 (x right, y down, mm), pieces rise towards -z, the
camera looks down from negative z.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Camera:
    """Intrinsics ``K`` and pose (``R``, ``t``: world -> camera) of an ideal pinhole camera."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]  # (width, height) in pixels

    @property
    def centre(self) -> np.ndarray:
        """Camera position in board coordinates (mm); its z is negative (above the board)."""
        return -self.R.T @ self.t

    def project(self, pts: np.ndarray, z: float | np.ndarray = 0.0) -> np.ndarray:
        """Board points (N, 2) at height ``-z`` ... given as z (negative = above board) -> pixels."""
        pts = np.asarray(pts, float).reshape(-1, 2)
        zz = np.broadcast_to(np.asarray(z, float), (pts.shape[0],))
        world = np.column_stack([pts, zz])
        cam = world @ self.R.T + self.t
        img = cam @ self.K.T
        return img[:, :2] / img[:, 2:3]

    def homography(self) -> np.ndarray:
        """Board mm (z = 0) -> image pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]


def intrinsics(size: tuple[int, int], fov_deg: float) -> np.ndarray:
    w, h = size
    f = (w / 2) / math.tan(math.radians(fov_deg) / 2)
    return np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], float)


def look_at_camera(
    size: tuple[int, int],
    fov_deg: float,
    target: tuple[float, float],
    distance: float,
    tilt_deg: float,
    tilt_azimuth_deg: float,
    roll_deg: float,
) -> Camera:
    """A camera ``distance`` mm from ``target`` on the board, its axis ``tilt_deg`` off vertical."""
    tilt, az, roll = (math.radians(v) for v in (tilt_deg, tilt_azimuth_deg, roll_deg))
    forward = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
    centre = np.array([target[0], target[1], 0.0]) - distance * forward
    y_hint = np.array([0.0, 1.0, 0.0])
    x_c = np.cross(y_hint, forward)
    x_c /= np.linalg.norm(x_c)
    y_c = np.cross(forward, x_c)
    c, s = math.cos(roll), math.sin(roll)
    x_r, y_r = c * x_c + s * y_c, -s * x_c + c * y_c
    R = np.vstack([x_r, y_r, forward])
    t = -R @ centre
    return Camera(intrinsics(size, fov_deg), R, t, size)


def focal_from_homography(H: np.ndarray, size: tuple[int, int]) -> tuple[float | None, float]:
    """Focal length (px) of an ideal camera (square pixels, principal point at the image centre)
    from a plane's homography, and the tilt (degrees) under which it was measured.

    The two rotation columns must be orthogonal and of equal length: two equations in 1/f^2
    (Zhang's plane calibration with one unknown), solved by least squares. Returns ``None`` for
    the focal length when they do not give a positive solution. With the camera nearly straight
    above the plane the perspective terms vanish and the estimate is unreliable: callers weigh it
    by the returned tilt.
    """
    w, h = size
    T = np.array([[1.0, 0.0, -w / 2], [0.0, 1.0, -h / 2], [0.0, 0.0, 1.0]])
    G = T @ np.asarray(H, float)
    G = G / np.linalg.norm(G[:2, :2])
    h1, h2 = G[:, 0], G[:, 1]
    a1, b1 = h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2]
    a2, b2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h1[2] ** 2 - h2[2] ** 2
    den = a1 * a1 + a2 * a2
    u = -(a1 * b1 + a2 * b2) / den if den > 0 else -1.0
    f = 1.0 / math.sqrt(u) if u > 0 else None
    # tilt of the optical axis, measured with the estimate (or a nominal 66 degree lens)
    fx = f if f is not None else (w / 2) / math.tan(math.radians(33))
    M = np.linalg.inv(np.array([[fx, 0, 0], [0, fx, 0], [0, 0, 1.0]])) @ G
    r1, r2 = M[:, 0] / np.linalg.norm(M[:, 0]), M[:, 1] / np.linalg.norm(M[:, 1])
    n = np.cross(r1, r2)
    tilt = math.degrees(math.acos(min(1.0, abs(float(n[2])) / max(1e-12, float(np.linalg.norm(n))))))
    return f, tilt


def estimate_fov(H: np.ndarray, size: tuple[int, int], prior_deg: float, *, full_tilt_deg: float = 8.0,
                 min_tilt_deg: float = 4.0, clamp: float = 0.6) -> float:
    """Horizontal field of view for ``camera_from_homography``: the one measured from the
    homography's perspective (``focal_from_homography``) when the camera is tilted enough for it
    to be well conditioned (>= ``full_tilt_deg``), the prior when it looks straight down
    (< ``min_tilt_deg``; there the prior matters least: parallax is then radial and small), a blend
    in between. The measured focal length is kept within ``clamp`` (relative) of the prior's."""
    w = size[0]
    f_prior = (w / 2) / math.tan(math.radians(prior_deg) / 2)
    f, tilt = focal_from_homography(H, size)
    if f is None or tilt < min_tilt_deg:
        return prior_deg
    f = min(max(f, f_prior * (1 - clamp)), f_prior / (1 - clamp))
    wgt = min(1.0, (tilt - min_tilt_deg) / (full_tilt_deg - min_tilt_deg))
    # blend in 1/f (proportional to tan(fov/2))
    inv = wgt / f + (1 - wgt) / f_prior
    return math.degrees(2 * math.atan((w / 2) * inv))


def camera_from_homography(H: np.ndarray, size: tuple[int, int], fov_deg: float) -> np.ndarray | None:
    """Estimate the camera centre (board mm, z < 0) from a board->image homography, assuming an
    ideal camera with the given horizontal field of view. Used only to predict parallax (how far
    a piece's top is displaced from its footprint), so a field of view off by 10-20% is harmless.
    """
    K = intrinsics(size, fov_deg)
    M = np.linalg.inv(K) @ H
    n1, n2 = np.linalg.norm(M[:, 0]), np.linalg.norm(M[:, 1])
    if n1 < 1e-12 or n2 < 1e-12:
        return None
    lam = 2.0 / (n1 + n2)
    if (M[2, 2] * lam) < 0:  # the board must lie in front of the camera
        lam = -lam
    r1, r2, t = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
    r1 /= np.linalg.norm(r1)
    r2 = r2 - r1 * (r1 @ r2)
    r2 /= np.linalg.norm(r2)
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    C = -R.T @ t
    if C[2] > 0:
        C = C * np.array([1, 1, -1.0])
    return C


def parallax(points: np.ndarray, cam_centre: np.ndarray | None, height: float) -> np.ndarray:
    """Displacement (mm, in the board plane) of a point ``height`` mm above each board point."""
    pts = np.asarray(points, float).reshape(-1, 2)
    if cam_centre is None:
        return np.zeros_like(pts)
    ch = -float(cam_centre[2])
    if ch <= height + 1:
        return np.zeros_like(pts)
    return (pts - cam_centre[:2]) * (height / (ch - height))
