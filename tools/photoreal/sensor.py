"""Camera/sensor post-processing in numpy/OpenCV applied to the linear Cycles render.

Order: lens distortion (remap) -> light-gain gradient + vignetting -> white balance with a
residual error -> auto exposure -> motion blur -> optical blur -> Bayer mosaic with shot +
read noise (12-bit) -> demosaic -> tone curve/gamma -> JPEG.
"""
import math

import cv2
import numpy as np


def sample_params(rng, calm=False):
    if calm:
        return dict(gain_lo=rng.uniform(0.92, 1.0), gain_dir=rng.uniform(0, 2 * math.pi), vignette=rng.uniform(0.0, 0.15),
                    wb_err=rng.uniform(-0.05, 0.05, 3), exposure=rng.uniform(0.85, 0.95), motion=0.0, motion_ang=0.0,
                    blur=rng.uniform(0.0, 0.5), noise=rng.uniform(0.5, 2.5), shot_frac=0.7, gamma=rng.uniform(2.0, 2.4),
                    contrast=rng.uniform(0.0, 0.15), jpeg=90)
    return dict(gain_lo=rng.uniform(0.6, 1.0), gain_dir=rng.uniform(0, 2 * math.pi), vignette=rng.uniform(0.0, 0.35),
                wb_err=rng.uniform(-0.15, 0.15, 3), exposure=rng.uniform(0.7, 1.0),
                motion=float(rng.uniform(3, 15)) if rng.random() < 0.15 else 0.0, motion_ang=rng.uniform(0, math.pi),
                blur=rng.uniform(0.0, 2.0), noise=rng.uniform(0.0, 12.0), shot_frac=rng.uniform(0.3, 0.9),
                gamma=rng.uniform(1.8, 2.6), contrast=rng.uniform(0.0, 0.3), jpeg=int(round(40 + 55 * rng.beta(1.6, 1.6))))


def _motion_kernel(length, ang):
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(ang), math.sin(ang)
    for t in np.linspace(-length / 2, length / 2, 4 * n):
        x, y = c + t * dx, c + t * dy
        xi, yi = int(round(x)), int(round(y))
        if 0 <= xi < n and 0 <= yi < n:
            k[yi, xi] += 1
    return k / k.sum()


def process(lin_rgb, maps, light_rgb, p, rng):
    """lin_rgb: HxWx3 float32 linear scene RGB. Returns uint8 BGR image (before JPEG)."""
    img = cv2.remap(lin_rgb.astype(np.float32), maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # smooth light gain across the frame, from gain_lo to 1.3 (or 1.0) along a random direction
    u = ((xx - w / 2) * math.cos(p["gain_dir"]) + (yy - h / 2) * math.sin(p["gain_dir"])) / (0.5 * math.hypot(w, h))
    hi = min(1.3, p["gain_lo"] + 0.7)
    gain = p["gain_lo"] + (hi - p["gain_lo"]) * (0.5 + 0.5 * np.clip(u, -1, 1))
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    gain = gain * (1 - p["vignette"] * r2)
    img = img * gain[..., None]
    # white balance: divide out the light colour, leave a residual error per channel
    wb = (1.0 / np.maximum(np.asarray(light_rgb, np.float32), 1e-3)) * (1 + np.asarray(p["wb_err"], np.float32))
    img = img * wb[None, None, :]
    # auto exposure on a high percentile
    lum = img.mean(axis=2)
    ref = float(np.percentile(lum, 99.0))
    img = img * (p["exposure"] / max(ref, 1e-6))
    # motion blur / optical blur
    if p["motion"] > 0:
        img = cv2.filter2D(img, -1, _motion_kernel(p["motion"], p["motion_ang"]), borderType=cv2.BORDER_REFLECT)
    if p["blur"] > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), p["blur"])
    img = np.clip(img, 0, 1)
    # Bayer mosaic (BGGR as seen by cv2 "BayerBG") with noise in the linear domain
    rgb = img
    mosaic = np.empty((h, w), np.float32)
    mosaic[0::2, 0::2] = rgb[0::2, 0::2, 2]  # B
    mosaic[0::2, 1::2] = rgb[0::2, 1::2, 1]  # G
    mosaic[1::2, 0::2] = rgb[1::2, 0::2, 1]  # G
    mosaic[1::2, 1::2] = rgb[1::2, 1::2, 0]  # R
    # noise target p["noise"] grey levels (8-bit, after gamma) at mid grey (linear ~0.2)
    slope = (1 / p["gamma"]) * 0.2 ** (1 / p["gamma"] - 1)
    sig = p["noise"] / 255.0 / slope
    read = sig * math.sqrt(1 - p["shot_frac"])
    shot_a = (sig ** 2 * p["shot_frac"]) / 0.2
    std = np.sqrt(read ** 2 + shot_a * np.maximum(mosaic, 0))
    mosaic = mosaic + rng.standard_normal(mosaic.shape).astype(np.float32) * std
    raw = np.clip(mosaic * 4095, 0, 4095).astype(np.uint16)
    bgr = cv2.cvtColor(raw, cv2.COLOR_BayerRG2BGR).astype(np.float32) / 4095.0
    # tone curve: gamma + mild S-curve
    out = np.power(np.clip(bgr, 0, 1), 1.0 / p["gamma"])
    c = p["contrast"]
    out = out + c * (out - 0.5) * (1 - np.abs(2 * out - 1))
    return np.clip(out * 255 + 0.5, 0, 255).astype(np.uint8)


def write_jpeg(path, bgr, quality):
    ok = cv2.imwrite(str(path), bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise IOError(path)
