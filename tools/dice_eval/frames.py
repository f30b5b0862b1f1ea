"""Tables and rolls: camera frames of a dice tray with a known roll, drawn by this package alone.

A *table* is one board (its own artwork), one mounted camera (pose drawn over issue 12's ranges),
one die (a style and size of its own), one lamp, and a calm photo of the empty board taken
before play (what a user gives the reader as the table's reference). A *roll* is one frame of
that table: the die somewhere in the tray, turned any way, showing 1-6 (or the tray empty), under
the frame's own light, blur, noise, colour cast and JPEG, with a hand in 30 % of frames.

Ranges (issue 12, as ``vision/render_set.py`` lists them; drawn here independently):
tilt 0-35 deg, any yaw, roll +-4 deg, horizontal FOV 50-75 deg, board filling 50-95 % of the frame,
Gaussian blur sigma 0-2 px (at 1280x720; scaled with the frame), sensor noise 0-12 grey levels,
light gain 0.6-1.3 with vignetting 0-0.4 and an uneven field 0-0.3, colour cast +-15 % per
channel, JPEG quality 40-95, hands in 30 % of frames; dice +-25 % of the layout's size.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tools.dice_eval.board import draw_board, tray_polygon
from tools.dice_eval.camera import PinholeCamera, framed
from tools.dice_eval.die import DieStyle, face_values, random_style, shade_die

TEXTURE_PX_PER_MM = 2.5
BASE_WIDTH = 1280  # blur is given in pixels of a 1280-wide frame and scaled with the frame
SKIN = ((0.62, 0.72, 0.9), (0.5, 0.62, 0.82), (0.38, 0.48, 0.68), (0.24, 0.32, 0.48), (0.7, 0.78, 0.93))  # BGR
EMPTY_SHARE = 0.04
HAND_SHARE = 0.3

# seeds of tables: the tuning range may be looked at; the held-out range is read only for figures
TUNE_SEEDS = range(0, 1_000_000)
HELDOUT_SEEDS = range(10_000_000, 11_000_000)


def load_layout_json(path: str | Path) -> dict:
    return json.loads(Path(path).read_text("utf-8"))


def die_spec(layout: dict) -> tuple[float, tuple[int, int, int], float]:
    kinds = [k for sp_kind, ks in layout.get("holds", {}).items() if sp_kind == "dice" for k in ks]
    spec = layout["pieces"][kinds[0] if kinds else "die"]
    return float(spec["size_mm"][0]), tuple(spec.get("rgb", (245, 245, 240))), float(spec["height_mm"])


@dataclass
class Table:
    seed: int
    layout: dict
    camera: PinholeCamera
    base: np.ndarray  # the board in the frame: albedo x light, float32 BGR
    style: DieStyle
    light: np.ndarray  # unit vector towards the lamp
    ambient: float
    diffuse: float
    info: dict = field(default_factory=dict)

    @property
    def size(self) -> tuple[int, int]:
        return self.camera.size


def make_table(layout: dict, seed: int, size: tuple[int, int] = (1280, 720)) -> Table:
    rng = np.random.default_rng([seed, 1])
    tex, board_style = draw_board(layout, rng, TEXTURE_PX_PER_MM)
    bw, bh = (float(v) for v in layout["size_mm"])
    cam = framed(size, float(rng.uniform(50, 75)), (bw, bh), float(rng.uniform(0.5, 0.95)), float(rng.uniform(0, 35)),
                 float(rng.uniform(0, 360)), float(rng.uniform(-4, 4)),
                 (float(rng.uniform(-0.03, 0.03)), float(rng.uniform(-0.03, 0.03))))
    H = cam.board_homography() @ np.diag([1 / TEXTURE_PX_PER_MM, 1 / TEXTURE_PX_PER_MM, 1.0])
    W, Hh = size
    table_rgb = np.array([rng.uniform(0.15, 0.5), rng.uniform(0.2, 0.5), rng.uniform(0.25, 0.6)], np.float32)
    back = np.empty((Hh, W, 3), np.float32)
    back[:] = table_rgb
    back *= 1 + cv2.resize(rng.normal(0, 0.1, (Hh // 32 + 1, W // 32 + 1)).astype(np.float32), (W, Hh))[..., None]
    base = cv2.warpPerspective(tex, H, size, dst=back, flags=cv2.INTER_AREA if size[0] < 2000 else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_TRANSPARENT)
    elev = math.radians(float(rng.uniform(35, 80)))
    az = float(rng.uniform(0, 2 * math.pi))
    light = np.array([math.cos(elev) * math.cos(az), math.cos(elev) * math.sin(az), math.sin(elev)])
    ambient = float(rng.uniform(0.3, 0.55))
    diffuse = 1 - ambient
    flat = ambient + diffuse * light[2]  # how bright the board is lit
    base = base * flat
    nominal, rgb, _ = die_spec(layout)
    style = random_style(rng, nominal, rgb)
    info = {"board": board_style, "hfov": None, "die": style.describe()}
    return Table(seed, layout, cam, base.astype(np.float32), style, light, ambient, diffuse, info)


@dataclass(frozen=True)
class Window:
    """The part of the frame drawn: (x0, y0, x1, y1) in frame pixels."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def shape(self) -> tuple[int, int]:
        return self.y1 - self.y0, self.x1 - self.x0


def tray_window(table: Table, margin_mm: float = 45.0) -> Window:
    """The tray and ``margin_mm`` around it, in frame pixels (aligned to JPEG blocks): all a read
    of a mounted camera's tray needs once the board is registered."""
    tray = tray_polygon(table.layout)
    c = tray.mean(axis=0)
    grown = c + (tray - c) * 1.0 + np.sign(tray - c) * margin_mm
    p = np.vstack([table.camera.project_board(grown), table.camera.project_board(grown, 40.0)])
    W, H = table.size
    x0, y0 = (np.floor(p.min(axis=0) / 16) * 16).astype(int)
    x1, y1 = (np.ceil(p.max(axis=0) / 16) * 16).astype(int)
    return Window(max(0, int(x0)), max(0, int(y0)), min(W, int(x1)), min(H, int(y1)))


def full_window(table: Table) -> Window:
    return Window(0, 0, table.size[0], table.size[1])


def _sensor(img: np.ndarray, rng: np.random.Generator, calm: bool, size: tuple[int, int], win: Window,
            blur_scale: float = 1.0) -> tuple[np.ndarray, dict]:
    """Light field, colour cast, blur, noise and JPEG on a linear window of the frame (0..1)."""
    W, H = size
    gain = float(rng.uniform(0.85, 1.1) if calm else rng.uniform(0.6, 1.3))
    vig = float(rng.uniform(0, 0.2 if calm else 0.4))
    uneven = float(rng.uniform(0, 0.1 if calm else 0.3))
    ang = rng.uniform(0, 2 * math.pi)
    h, w = win.shape
    q = 8
    yy, xx = np.mgrid[0:h // q + 2, 0:w // q + 2].astype(np.float32) * q
    xx += win.x0
    yy += win.y0
    r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    ramp = ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / max(W, H) + 0.5
    field_ = (gain * 255) * (1 - vig * r2) * (1 - uneven * ramp)
    field_ = cv2.resize(field_, ((w // q + 2) * q, (h // q + 2) * q), interpolation=cv2.INTER_LINEAR)[:h, :w]
    cast = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    out = img * field_[..., None]
    out *= cast
    blur = float(rng.uniform(0, 0.5) if calm else rng.uniform(0, 2.0))
    if blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), blur * blur_scale)
    noise = float(rng.uniform(0, 3) if calm else rng.uniform(0, 12))
    if noise > 0:
        # grey-level noise with a shot part: brighter pixels a little noisier
        sig = cv2.sqrt(np.clip(out, 0, 255) * (1 / 180.0)) * (0.4 * noise) + 0.6 * noise
        n = np.empty(out.shape, np.float32)
        cv2.setRNGSeed(int(rng.integers(2**31)))
        cv2.randn(n, 0.0, 1.0)
        out += n * sig
    out = np.clip(out, 0, 255).astype(np.uint8)
    jq = 92 if calm else int(rng.integers(40, 96))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jq])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), {"gain": round(gain, 2), "vignette": round(vig, 2),
                                                  "uneven": round(uneven, 2), "blur": round(blur, 2),
                                                  "noise": round(noise, 1), "jpeg": jq,
                                                  "cast": [round(float(v), 3) for v in cast]}


def empty_photo(table: Table) -> np.ndarray:
    """The calm photo of the empty board (the table's reference), whole."""
    rng = np.random.default_rng([table.seed, 2])
    img, _ = _sensor(table.base.copy(), rng, True, table.size, full_window(table))
    return img


def _place_die(tray: np.ndarray, size: float, rng: np.random.Generator) -> tuple[float, float, float]:
    x0, y0 = tray.min(axis=0)
    x1, y1 = tray.max(axis=0)
    margin = size * 0.75 + 2
    poly = tray.astype(np.float32)
    for _ in range(200):
        x, y = rng.uniform(x0 + margin, x1 - margin), rng.uniform(y0 + margin, y1 - margin)
        if cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= margin:
            break
    return float(x), float(y), float(rng.uniform(0, 2 * math.pi))


def _draw_die(img: np.ndarray, win: Window, table: Table, x: float, y: float, yaw: float, faces, turns) -> np.ndarray:
    """The die drawn into the window ``img`` (in place, with its soft shadow); returns its
    silhouette mask (window pixels)."""
    cam, st = table.camera, table.style
    s = st.size
    H, W = img.shape[:2]
    o = np.array([win.x0, win.y0], float)
    L = table.light
    reach = s * math.sqrt(L[0] ** 2 + L[1] ** 2) / max(L[2], 0.2)
    c, sn = math.cos(yaw), math.sin(yaw)
    corners = np.array([[-s / 2, -s / 2], [s / 2, -s / 2], [s / 2, s / 2], [-s / 2, s / 2]]) @ np.array([[c, sn], [-sn, c]])
    foot = corners + [x, y]
    away = -L[:2] / (np.linalg.norm(L[:2]) + 1e-9) * reach
    shadow = cv2.convexHull(np.vstack([foot, foot + away]).astype(np.float32)).reshape(-1, 2)
    sp = cam.project_board(shadow) - o
    box = np.vstack([sp, cam.project_board(foot) - o, cam.project_board(foot, s * 1.05) - o])
    bx0, by0 = np.floor(box.min(axis=0)).astype(int) - 6
    bx1, by1 = np.ceil(box.max(axis=0)).astype(int) + 7
    bx0, by0, bx1, by1 = max(0, bx0), max(0, by0), min(W, bx1), min(H, by1)
    mask = np.zeros((H, W), bool)
    if bx1 <= bx0 or by1 <= by0:
        return mask
    sm = np.zeros((by1 - by0, bx1 - bx0), np.float32)
    cv2.fillConvexPoly(sm, np.round((sp - [bx0, by0]) * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
    px_per_mm = np.linalg.norm(cam.project_board([[x + 1, y]]) - cam.project_board([[x, y]]))
    sm = cv2.GaussianBlur(sm, (0, 0), max(0.5, 0.12 * s * px_per_mm))
    dark = table.diffuse * L[2] / (table.ambient + table.diffuse * L[2]) * 0.85
    img[by0:by1, bx0:bx1] *= (1 - dark * sm)[..., None]
    # the die itself, ray-marched with supersampling, in the box around its silhouette
    top = np.vstack([cam.project_board(foot) - o, cam.project_board(foot, s) - o])
    dx0, dy0 = np.maximum(np.floor(top.min(axis=0)).astype(int) - 2, [bx0, by0])
    dx1, dy1 = np.minimum(np.ceil(top.max(axis=0)).astype(int) + 3, [bx1, by1])
    ss = 3 if px_per_mm < 1.5 else 2
    ys, xs = np.mgrid[dy0:dy1, dx0:dx1].astype(np.float64)
    offs = (np.arange(ss) + 0.5) / ss - 0.5
    oy, ox = np.meshgrid(offs, offs, indexing="ij")
    px = np.stack([xs[..., None, None] + ox + o[0], ys[..., None, None] + oy + o[1]], axis=-1).reshape(-1, 2)
    dirs = cam.rays(px)
    origins = np.broadcast_to(cam.centre, dirs.shape)
    col, hit = shade_die(origins, dirs, np.array([x, y, 0.0]), yaw, st, faces, turns, L, table.ambient, table.diffuse)
    n = ss * ss
    roi = img[dy0:dy1, dx0:dx1]
    bg = np.repeat(roi.reshape(-1, 3), n, axis=0)
    mixed = np.where(hit[:, None], col, bg).reshape(-1, n, 3).mean(axis=1)
    roi[:] = mixed.reshape(roi.shape)
    mask[dy0:dy1, dx0:dx1] = hit.reshape(-1, n).mean(axis=1).reshape(dy1 - dy0, dx1 - dx0) > 0.2
    return mask


def _hand(img: np.ndarray, win: Window, table: Table, rng: np.random.Generator, near_tray: bool) -> np.ndarray:
    """A hand and forearm at some height over the board (with its shadow); returns its mask in the window."""
    cam = table.camera
    H, W = img.shape[:2]
    o = np.array([win.x0, win.y0], float)
    tray = tray_polygon(table.layout)
    if near_tray:
        cx, cy = tray.mean(axis=0) + rng.uniform(-1, 1, 2) * (tray.max(axis=0) - tray.min(axis=0)) * 0.6
    else:
        bw, bh = table.layout["size_mm"]
        cx, cy = rng.uniform(80, bw - 80), rng.uniform(80, bh - 200)
    height = float(rng.uniform(25, 150))
    scale = float(rng.uniform(0.85, 1.15))
    ang = rng.uniform(0, 2 * math.pi)
    d = np.array([math.cos(ang), math.sin(ang)])  # towards the shoulder
    n = np.array([-d[1], d[0]])
    t = np.array([cx, cy])
    polys = []
    e = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    polys.append(t + (np.stack([np.cos(e) * 42, np.sin(e) * 50], axis=1) * scale) @ np.column_stack([n, d]).T)
    for k, off in enumerate((-27, -9, 9, 26)):
        base = t + n * off * scale - d * 35 * scale
        tip = base - d * (48 + 10 * (k in (1, 2))) * scale
        w = 8 * scale
        polys.append(np.array([base + n * w, tip + n * w * 0.8, tip - d * 4 * scale, tip - n * w * 0.8, base - n * w]))
    thumb = t + n * 38 * scale
    polys.append(np.array([thumb + d * 10 * scale, thumb + n * 36 * scale - d * 20 * scale,
                           thumb + n * 40 * scale - d * 28 * scale, thumb - d * 8 * scale]))
    arm_w = 36 * scale
    far = t + d * 1200
    polys.append(np.array([t + d * 40 * scale + n * arm_w, far + n * arm_w * 1.3, far - n * arm_w * 1.3,
                           t + d * 40 * scale - n * arm_w]))
    # the shadow first, on the board (at half resolution, soft)
    L = table.light
    shift = -L[:2] / max(L[2], 0.2) * height
    sh = np.zeros((H // 2 + 1, W // 2 + 1), np.float32)
    for p in polys:
        q = (cam.project_board(p + shift) - o) / 2
        cv2.fillPoly(sh, [np.round(np.clip(q, -4000, 8000) * 8).astype(np.int32)], 1.0, cv2.LINE_AA, 3)
    if sh.any():
        sh = cv2.resize(cv2.GaussianBlur(sh, (0, 0), 3 + height / 25), ((W // 2 + 1) * 2, (H // 2 + 1) * 2))[:H, :W]
        img *= (1 - 0.45 * sh)[..., None]
    mask = np.zeros((H, W), np.float32)
    for p in polys:
        q = cam.project_board(p, height) - o
        cv2.fillPoly(mask, [np.round(np.clip(q, -4000, 8000) * 8).astype(np.int32)], 1.0, cv2.LINE_AA, 3)
    if not mask.any():
        return mask > 0
    skin = np.asarray(SKIN[int(rng.integers(len(SKIN)))], np.float32) * float(rng.uniform(0.9, 1.1))
    tex = cv2.resize(cv2.GaussianBlur(rng.normal(0, 1, (H // 6 + 1, W // 6 + 1)).astype(np.float32), (0, 0), 1.2),
                     (W, H)) * 0.05
    lit = table.ambient + table.diffuse * L[2]
    colour = skin[None, None, :] * (lit + tex[..., None])
    img[:] = img * (1 - mask[..., None]) + colour * mask[..., None]
    return mask > 0.3


def make_roll(table: Table, seed: int, *, empty: bool | None = None, hand: bool | None = None,
              value: int | None = None, window: Window | None = None,
              blur_scale: float = 1.0) -> tuple[np.ndarray, dict]:
    """One frame of ``table`` (only ``window`` of it, default the whole frame) and its truth.
    ``blur_scale`` multiplies the blur (sigma 0-2 px is in the frame's own pixels)."""
    rng = np.random.default_rng([table.seed, 3, seed])
    win = window or full_window(table)
    img = table.base[win.y0:win.y1, win.x0:win.x1].copy()
    tray = tray_polygon(table.layout)
    empty = bool(rng.random() < EMPTY_SHARE) if empty is None else empty
    truth: dict = {"table": table.seed, "roll": seed, "value": None, "empty": empty,
                   "window": [win.x0, win.y0, win.x1, win.y1]}
    die_mask = np.zeros(img.shape[:2], bool)
    if not empty:
        v = int(rng.integers(1, 7)) if value is None else int(value)
        x, y, yaw = _place_die(tray, table.style.size, rng)
        faces = face_values(v, rng)
        turns = {k: int(rng.integers(4)) for k in faces}
        die_mask = _draw_die(img, win, table, x, y, yaw, faces, turns)
        truth.update(value=v, centre_mm=[round(x, 2), round(y, 2)], yaw_deg=round(math.degrees(yaw) % 360, 1))
    has_hand = bool(rng.random() < HAND_SHARE) if hand is None else hand
    covered = False
    in_tray = False
    if has_hand:
        hm = _hand(img, win, table, rng, near_tray=bool(rng.random() < 0.7))
        grow = cv2.dilate(die_mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        covered = bool((hm & grow).any())
        tm = np.zeros(img.shape[:2], np.uint8)
        cv2.fillPoly(tm, [np.round(table.camera.project_board(tray) - [win.x0, win.y0]).astype(np.int32)], 1)
        in_tray = bool((hm & (tm > 0)).any())
    out, cond = _sensor(img, rng, False, table.size, win, blur_scale)
    truth.update(hand=has_hand, die_covered=covered, hand_in_tray=in_tray, conditions=cond, style=table.info["die"],
                 tray=table.info["board"]["tray"])
    return out, truth


def rolls(layout: dict, split: str, n: int, *, per_table: int = 25, size: tuple[int, int] = (1280, 720), first: int = 0,
          crop: bool = True):
    """``n`` rolls of the ``split`` ("tune" or "heldout"): yields (table, empty photo or None, frame, truth); the
    empty photo (whole) comes with a table's first roll; a frame is the tray's window of the frame
    (``crop``; its origin in ``truth["window"]``) or the whole frame."""
    seeds = TUNE_SEEDS if split == "tune" else HELDOUT_SEEDS
    k = first
    made = 0
    while made < n:
        table = make_table(layout, seeds[k], size)
        photo = empty_photo(table)
        for r in range(min(per_table, n - made)):
            frame, truth = make_roll(table, r, window=tray_window(table) if crop else None)
            yield table, (photo if r == 0 else None), frame, truth
            made += 1
        k += 1
