"""Camera model: pose sampling, pinhole projection (render) and radial distortion (output).

Conventions (OpenCV style): R maps world -> camera, camera x right, y down, z forward.
The Blender render is an ideal pinhole with focal `f_r` (pixels); the output photo is the
render remapped through radial distortion k1 with focal `f_out` chosen so every output
pixel samples inside the render.
"""
import math

import numpy as np

BASE_W = 1280  # the watched frame's width: pose margins are given in its pixels
W, H = 1280, 720  # the output frame (``set_size``): 1280 x 720, or a detail still of the same view


def set_size(width):
    """Render ``width`` px wide (16:9): the same field of view and poses, more pixels (a camera's
    detail still beside its 1280 x 720 watched stream). Set before any camera is made."""
    global W, H
    W, H = int(width), int(round(width * 9 / 16))


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rvec(v):
    th = np.linalg.norm(v)
    if th < 1e-12:
        return np.eye(3)
    k = v / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


class Camera:
    def __init__(self, hfov_deg, R_c2w, C, k1):
        self.hfov = hfov_deg
        self.f_r = (W / 2) / math.tan(math.radians(hfov_deg) / 2)
        self.R_c2w = np.array(R_c2w, float)
        self.C = np.array(C, float)
        self.k1 = float(k1)
        self.cx, self.cy = W / 2 - 0.5, H / 2 - 0.5
        ru = math.hypot(W / 2, H / 2) / self.f_r
        self.f_out = self.f_r / (1 + self.k1 * ru * ru)

    @property
    def R(self):
        return self.R_c2w.T

    def cam_coords(self, Xw):
        return (np.atleast_2d(Xw) - self.C) @ self.R_c2w

    def project_render(self, Xw):
        Xc = self.cam_coords(Xw)
        z = Xc[:, 2:3]
        return np.hstack([self.f_r * Xc[:, :1] / z + self.cx, self.f_r * Xc[:, 1:2] / z + self.cy]), Xc[:, 2]

    def project_output(self, Xw):
        Xc = self.cam_coords(Xw)
        x, y = Xc[:, 0] / Xc[:, 2], Xc[:, 1] / Xc[:, 2]
        r2 = x * x + y * y
        d = 1 + self.k1 * r2
        return np.stack([self.f_out * x * d + self.cx, self.f_out * y * d + self.cy], 1)

    def distortion_maps(self):
        """cv2.remap maps: for each output pixel, the render pixel it samples."""
        u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
        xd, yd = (u - self.cx) / self.f_out, (v - self.cy) / self.f_out
        rd = np.sqrt(xd * xd + yd * yd)
        ru = rd.copy()
        for _ in range(12):  # solve rd = ru (1 + k1 ru^2)
            ru = rd / (1 + self.k1 * ru * ru)
        s = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
        mx = (xd * s * self.f_r + self.cx).astype(np.float32)
        my = (yd * s * self.f_r + self.cy).astype(np.float32)
        return mx, my

    def blender_matrix(self):
        """4x4 camera matrix_world for Blender (local X right, Y up, Z backward)."""
        M = np.eye(4)
        M[:3, 0] = self.R_c2w[:, 0]
        M[:3, 1] = -self.R_c2w[:, 1]
        M[:3, 2] = -self.R_c2w[:, 2]
        M[:3, 3] = self.C
        return M

    def perturbed(self, rng, max_mm, max_deg):
        dC = rng.uniform(-1, 1, 3) * max_mm / 1000.0
        rv = rng.uniform(-1, 1, 3)
        rv = rv / (np.linalg.norm(rv) + 1e-12) * math.radians(rng.uniform(0, max_deg))
        return Camera(self.hfov, _rvec(rv) @ self.R_c2w, self.C + dC, self.k1)


def _orientation(yaw, tilt, roll):
    base = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], float)  # columns: x, y, z of camera in world
    return _rz(yaw) @ base @ _rx(tilt) @ _rz(roll)


def fill_and_inside(cam, pts, margin=6):
    margin = margin * W / BASE_W  # (in the watched frame's pixels: the same poses at every size)
    p = cam.project_output(pts)
    w = p[:, 0].max() - p[:, 0].min(); h = p[:, 1].max() - p[:, 1].min()
    inside = (p[:, 0].min() >= margin and p[:, 0].max() <= W - 1 - margin and
              p[:, 1].min() >= margin and p[:, 1].max() <= H - 1 - margin)
    return max(w / W, h / H), inside, p


def sample_table_camera(rng, layout, fill_range=(0.5, 0.95), tilt_range=(0.0, 35.0)):
    """A mounted camera: hfov 50-75, tilt 0-35, any yaw, roll +-4, board fills 50-95 %."""
    corners = layout.board_corners_world()
    for _ in range(200):
        hfov = rng.uniform(50, 75)
        tilt = math.radians(rng.uniform(*tilt_range))
        yaw = rng.uniform(0, 2 * math.pi)
        roll = math.radians(rng.uniform(-4, 4))
        k1 = rng.uniform(-0.10, 0.03)
        fill_goal = rng.uniform(*fill_range)
        Rc = _orientation(yaw, tilt, roll)
        fwd = Rc[:, 2]
        target = np.array([rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), 0.0])
        cam = None
        for _it in range(4):
            lo, hi = 0.15, 6.0
            for _b in range(40):
                d = 0.5 * (lo + hi)
                cam = Camera(hfov, Rc, target - fwd * d, k1)
                if np.any(cam.cam_coords(corners)[:, 2] <= 0.05):
                    lo = d; continue
                fill, _, _ = fill_and_inside(cam, corners)
                if fill > fill_goal:
                    lo = d
                else:
                    hi = d
            # re-centre the board's projected bbox on the image centre
            _, _, p = fill_and_inside(cam, corners)
            du = 0.5 * (p[:, 0].min() + p[:, 0].max()) - cam.cx
            dv = 0.5 * (p[:, 1].min() + p[:, 1].max()) - cam.cy
            zc = cam.cam_coords(target)[0, 2]
            target = target + (Rc[:, 0] * du + Rc[:, 1] * dv) * zc / cam.f_out
            target[2] = 0.0
        fill, inside, _ = fill_and_inside(cam, corners, margin=12)
        if inside and 0.48 <= fill <= 0.96 and cam.C[2] > 0.25:
            return cam, dict(hfov=hfov, tilt_deg=math.degrees(tilt), yaw_deg=math.degrees(yaw),
                             roll_deg=math.degrees(roll), k1=k1, fill=fill, height_m=float(cam.C[2]))
    raise RuntimeError("no camera pose found")


def bumped_camera(rng, base, layout):
    corners = layout.board_corners_world()
    small = rng.random() < 0.5
    amp_mm, amp_deg = (1.0, 0.3) if small else (5.0, 2.0)
    for _ in range(30):
        cam = base.perturbed(rng, amp_mm, amp_deg)
        _, inside, _ = fill_and_inside(cam, corners, margin=4)
        if inside:
            return cam
        amp_mm *= 0.7; amp_deg *= 0.7
    return base
