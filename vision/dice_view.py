"""The dice tray seen from the plane of a die's top face (pure geometry, no I/O).

A die is as tall as it is wide, so its top face floats a die's height above the board and the
camera sees it displaced from its footprint (parallax) and enlarged. Rather than search for it
near the tray, the reader looks at the tray through the homography of the plane at that height:
in that view the top face is an undistorted square of its true size at its true position, and the
die's walls stretch from it towards the point under the camera (``TopView.nadir``).

The plane's homography comes from the board's (``Registration.homography``) and a camera pose
decomposed from it: focal length measured from the homography's perspective when the camera is
tilted enough, else the prior (``vision.geometry.estimate_fov``). A pose a little off only scales
and shifts the view slightly: projection between parallel planes is a central similarity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import estimate_fov, intrinsics

DEFAULT_FOV_DEG = 66.0  # the prior of the board reader (vision.enrolment), for a camera straight above


@dataclass(frozen=True)
class Pose:
    """A camera decomposed from a board homography: ``K``, the rotation's columns and the
    translation, in the homography's own scale (``M = K^-1 H = [m1 m2 m3]``)."""

    K: np.ndarray
    M: np.ndarray
    r3: np.ndarray  # the board normal in camera coordinates, pointing away from the camera (up the pieces)
    scale: float  # |m1|, |m2| average: mm of translation per unit of m3
    centre: np.ndarray  # camera centre in board mm (z < 0: above the board)

    @property
    def height(self) -> float:
        """The camera's height above the board (mm)."""
        return -float(self.centre[2])

    def plane(self, height: float) -> np.ndarray:
        """Homography from board mm at ``height`` mm above the board to frame pixels."""
        m = self.M.copy()
        m[:, 2] = m[:, 2] + self.r3 * (height * self.scale)
        return self.K @ m


def camera_pose(H: np.ndarray, frame_size: tuple[int, int], fov_prior_deg: float = DEFAULT_FOV_DEG) -> Pose | None:
    """The pose of an ideal camera (square pixels, principal point at the centre of the frame of
    ``frame_size``) that sees the board through ``H`` (board mm -> frame px). None when ``H``
    does not describe a board in front of a camera."""
    H = np.asarray(H, float)
    K = intrinsics(frame_size, estimate_fov(H, frame_size, fov_prior_deg))
    M = np.linalg.inv(K) @ H
    n1, n2 = np.linalg.norm(M[:, 0]), np.linalg.norm(M[:, 1])
    if n1 < 1e-12 or n2 < 1e-12:
        return None
    if M[2, 2] < 0:  # the board lies in front of the camera: positive depth at its origin
        M = -M
    scale = (n1 + n2) / 2
    r1, r2 = M[:, 0] / n1, M[:, 1] / n1
    r2 = r2 - r1 * (r1 @ r2)
    r2 /= np.linalg.norm(r2)
    r3 = np.cross(r1, r2)
    R = np.column_stack([r1, r2, r3])
    t = M[:, 2] / scale
    centre = -R.T @ t
    if centre[2] > 0:  # the camera must be above the board (z < 0 in board coordinates)
        return None
    # a point at height h is (x, y, -h): camera coordinates x r1 + y r2 - h r3 + t
    return Pose(K, M, -r3, scale, centre)


@dataclass(frozen=True)
class TopView:
    """The tray region rectified on the plane ``height`` mm above the board, ``px_per_mm``
    pixels per mm; ``origin_mm`` is the board position of the view's pixel (0, 0)."""

    image: np.ndarray  # BGR uint8
    origin_mm: tuple[float, float]
    px_per_mm: float
    height: float
    to_frame: np.ndarray  # view px -> frame px
    nadir_mm: tuple[float, float]  # the board point under the camera
    camera_height: float
    frame_px_per_mm: float  # the frame's own resolution at the tray (its pixels per mm of the view)

    def mm(self, px: np.ndarray) -> np.ndarray:
        return np.asarray(px, float) / self.px_per_mm + np.asarray(self.origin_mm)

    def px(self, mm: np.ndarray) -> np.ndarray:
        return (np.asarray(mm, float) - np.asarray(self.origin_mm)) * self.px_per_mm

    def parallax(self, at_mm: np.ndarray, height: float) -> np.ndarray:
        """Where, in this view, a point ``height`` mm lower than the view's plane appears relative
        to the point above it: towards the nadir (the walls of a die lean that way)."""
        at = np.asarray(at_mm, float)
        nadir = np.asarray(self.nadir_mm)
        above = self.camera_height - self.height
        return -(at - nadir) * (height / max(above, 1.0))


def view_matrix(origin_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """View px -> board mm."""
    return np.array([[1 / px_per_mm, 0, origin_mm[0]], [0, 1 / px_per_mm, origin_mm[1]], [0, 0, 1.0]])


def top_view(frame: np.ndarray, pose: Pose, box_mm: tuple[float, float, float, float], height: float,
             px_per_mm: float, origin_px: tuple[int, int] = (0, 0)) -> TopView:
    """Rectify ``box_mm`` (x0, y0, x1, y1 on the board) of ``frame`` on the plane ``height`` mm
    up. ``origin_px``: where ``frame`` starts in the frame the pose belongs to (a crop)."""
    x0, y0, x1, y1 = box_mm
    shift = np.array([[1, 0, -origin_px[0]], [0, 1, -origin_px[1]], [0, 0, 1.0]])
    to_frame = shift @ pose.plane(height) @ view_matrix((x0, y0), px_per_mm)
    w, h = int(math.ceil((x1 - x0) * px_per_mm)), int(math.ceil((y1 - y0) * px_per_mm))
    image = cv2.warpPerspective(frame, to_frame, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    J = _jacobian(to_frame, c)
    frame_res = math.sqrt(abs(np.linalg.det(J))) * px_per_mm  # frame px per mm around the tray
    nadir = (float(pose.centre[0]), float(pose.centre[1]))
    return TopView(image, (x0, y0), px_per_mm, height, to_frame, nadir, pose.height, frame_res)


def frame_resolution(pose: Pose, height: float, at_mm: tuple[float, float]) -> float:
    """The frame's pixels per mm on the plane ``height`` mm up, around ``at_mm``."""
    return math.sqrt(abs(np.linalg.det(_jacobian(pose.plane(height), np.asarray(at_mm, float)))))


def _jacobian(H: np.ndarray, p: np.ndarray) -> np.ndarray:
    x, y = float(p[0]), float(p[1])
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    u = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
    v = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
    return np.array([[(H[0, 0] - u * H[2, 0]) / w, (H[0, 1] - u * H[2, 1]) / w],
                     [(H[1, 0] - v * H[2, 0]) / w, (H[1, 1] - v * H[2, 1]) / w]])


def reference_view(reference: np.ndarray, ref_px_per_mm: float, view: TopView, shape: tuple[int, int]) -> np.ndarray:
    """The empty board (rectified at ``ref_px_per_mm``, board plane) as the top view would show it
    (``reference_seen``)."""
    return reference_seen(reference, ref_px_per_mm, view.nadir_mm, view.camera_height, view.height,
                          view_matrix(view.origin_mm, view.px_per_mm), shape)


def reference_seen(reference: np.ndarray, ref_px_per_mm: float, nadir_mm, camera_height: float, height: float,
                   to_mm: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The empty board as a view of the plane ``height`` mm up shows it (``to_mm``: view px -> that plane's
    mm, 3×3 affine): each view pixel looks along the ray that meets the board at the nadir-centred
    enlargement of its position (``camera height / (camera height - height)``)."""
    k = camera_height / max(camera_height - height, 1.0)
    n = np.asarray(nadir_mm, float)
    # view px -> top-plane mm -> board mm (enlarged about the nadir) -> reference px
    E = np.array([[k, 0, n[0] * (1 - k)], [0, k, n[1] * (1 - k)], [0, 0, 1.0]])
    R = np.diag([ref_px_per_mm, ref_px_per_mm, 1.0])
    M = (R @ E @ to_mm)[:2]
    return cv2.warpAffine(reference, M, (shape[1], shape[0]), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
