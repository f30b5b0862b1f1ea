"""The printed board as the project's renderer (``vision.render``) lays it on the table: a
texture with parchment grain, tinted provinces, roads, spaces and the four corner markers with
their quiet zones. Deterministic (its grain has a fixed seed), and cached per layout because
every frame of a board starts from the same print.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

import cv2
import numpy as np

from vision.layout import Layout
from vision.markers import dictionary, marker_bits

TEXTURE_PX_PER_MM = 2.0


@lru_cache(maxsize=8)
def cached_board_texture(layout_key: int, layout: Layout) -> np.ndarray:
    """``board_texture`` at the default scale, drawn once per layout (``layout_key``: its id)."""
    return board_texture(layout)


def board_texture(layout: Layout, px_per_mm: float = TEXTURE_PX_PER_MM) -> np.ndarray:
    """The printed board (BGR) at ``px_per_mm``: parchment, tinted provinces, roads, spaces and
    the four corner markers with their white quiet zones."""
    W, H = int(round(layout.size[0] * px_per_mm)), int(round(layout.size[1] * px_per_mm))
    bg = layout.background_rgb[::-1]
    img = np.empty((H, W, 3), np.uint8)
    img[:] = bg
    rng = np.random.default_rng(12345)
    grain = cv2.GaussianBlur(rng.normal(0, 6, (H, W)).astype(np.float32), (0, 0), 3)
    for y0 in range(0, H, 256):  # in bands: two board-sized float copies added to the start-up peak
        band = img[y0:y0 + 256].astype(np.float32)
        band += grain[y0:y0 + 256, :, None]
        img[y0:y0 + 256] = np.clip(band, 0, 255, out=band).astype(np.uint8)
    del grain
    s = px_per_mm

    def pts(poly: Iterable[Sequence[float]]) -> np.ndarray:
        return (np.asarray(list(poly), np.float64) * s * 16).astype(np.int32)

    for reg in layout.regions:
        tint = reg.get("tint_rgb")
        if tint:
            cv2.fillPoly(img, [pts(reg["polygon"])], tuple(int(v) for v in tint[::-1]), cv2.LINE_AA, 4)
        cv2.polylines(img, [pts(reg["polygon"])], True, (70, 80, 95), max(1, int(s)), cv2.LINE_AA, 4)
        label = reg.get("label") or reg["id"]
        x0, y0 = np.min(np.asarray(reg["polygon"]), axis=0)
        cv2.putText(img, label.upper(), (int((x0 + 5) * s), int((y0 + 14) * s)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.22 * s, (80, 90, 110), max(1, int(s)), cv2.LINE_AA)
    centres = {sp.id: sp.centre for sp in layout.spaces}
    for a, b in layout.roads:
        pa, pb = np.asarray(centres[a]), np.asarray(centres[b])
        cv2.line(img, tuple(int(v) for v in pa * s * 16), tuple(int(v) for v in pb * s * 16), (60, 100, 150),
                 max(1, int(3 * s)), cv2.LINE_AA, 4)
    for sp in layout.spaces:
        fill = (238, 242, 244) if sp.kind != "dragon" else (200, 210, 225)
        if sp.kind in layout.source.get("space_fill", {}):  # the layout's own print (BGR here)
            fill = tuple(int(v) for v in layout.source["space_fill"][sp.kind][::-1])
        cv2.fillPoly(img, [pts(sp.polygon)], fill, cv2.LINE_AA, 4)
        cv2.polylines(img, [pts(sp.polygon)], True, (50, 60, 70), max(1, int(1.2 * s)), cv2.LINE_AA, 4)
        if sp.kind == "dragon":
            cx, cy = sp.centre
            r = (sp.radius or 20) * 0.55
            cv2.ellipse(img, (int(cx * s * 16), int(cy * s * 16)), (int(r * s * 16), int(r * 0.6 * s * 16)), 20, 0, 300,
                        (90, 110, 160), max(1, int(s)), cv2.LINE_AA, 4)
    d = dictionary(layout.dictionary)
    cells = marker_bits(layout.dictionary)
    for m in layout.markers:
        body = int(round(layout.marker_size * s))
        q = body / cells
        x0 = int(round((m.centre[0] - layout.marker_size / 2) * s))
        y0 = int(round((m.centre[1] - layout.marker_size / 2) * s))
        qi = int(round(q))
        img[y0 - qi:y0 + body + qi, x0 - qi:x0 + body + qi] = 255
        tag = cv2.aruco.generateImageMarker(d, m.id, body)
        img[y0:y0 + body, x0:x0 + body] = tag[..., None]
    return img
