"""What the project's renderer (``vision.render``) is told about a frame besides the pieces:
camera pose, light, shadows, a reaching hand, blur, noise and JPEG; and ``random_conditions``,
which draws them from a generator. Apart from the drawing so that tests, tools and the camera's
fake twin can describe a frame without caring how it is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.layout import Layout

SKIN_TONES = ((232, 190, 160), (210, 160, 120), (170, 120, 90), (120, 80, 55), (245, 205, 180))


@dataclass(frozen=True, slots=True)
class Hand:
    """An arm reaching over the board: the hand centred at ``target`` (board mm), the arm coming
    from direction ``from_deg``, ``height`` mm above the board."""

    target: tuple[float, float]
    from_deg: float
    height: float = 60.0
    scale: float = 1.0
    rgb: tuple[int, int, int] = SKIN_TONES[0]
    shadow: float = 0.6  # darkening factor of its shadow (1 = none)


@dataclass(frozen=True, slots=True)
class Shadow:
    """A soft shadow (e.g. of a person) over a convex polygon of the board, in board mm."""

    polygon: tuple[tuple[float, float], ...]
    factor: float = 0.7
    softness_px: float = 25.0


@dataclass(frozen=True, slots=True)
class Conditions:
    """Everything about one frame except the pieces. ``random_conditions`` draws these."""

    size: tuple[int, int] = (1280, 720)
    fov_deg: float = 66.0
    fill: float = 0.85
    tilt_deg: float = 0.0
    tilt_azimuth_deg: float = 0.0
    roll_deg: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)  # shift of the aim point, fraction of the board size
    brightness: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # multipliers on R, G, B
    gradient: float = 0.0  # light falls off by this fraction across the board
    gradient_deg: float = 0.0
    vignette: float = 0.0
    shadows: tuple[Shadow, ...] = ()
    hand: Hand | None = None
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    jitter_mm: float = 2.0
    light_deg: float = 225.0  # light azimuth (for piece shading and shadows)
    seed: int = 0

    def describe(self) -> dict[str, object]:
        return {
            "tilt_deg": round(self.tilt_deg, 1), "roll_deg": round(self.roll_deg, 1), "fill": round(self.fill, 2),
            "fov_deg": round(self.fov_deg, 1), "blur": round(self.blur_sigma, 2), "noise": round(self.noise_sigma, 1),
            "jpeg": self.jpeg_quality, "gradient": round(self.gradient, 2), "vignette": round(self.vignette, 2),
            "brightness": round(self.brightness, 2), "shadows": len(self.shadows), "hand": self.hand is not None,
        }


def random_conditions(layout: Layout, rng: np.random.Generator, *, size: tuple[int, int] = (1280, 720),
                      hand_probability: float = 0.3, strength: float = 1.0) -> Conditions:
    """Draw a frame's conditions: camera pose, light, shadows, hand, blur, noise, JPEG.
    ``strength`` 0 gives a clean frontal view, 1 the full range used by the benchmark."""
    s = strength
    w, h = layout.size
    shadows = []
    if rng.random() < 0.35 * s:
        # a person's shadow falling in from one edge
        edge = rng.integers(4)
        depth = rng.uniform(0.15, 0.45)
        x0, x1 = sorted(rng.uniform(0, w, 2))
        y0, y1 = sorted(rng.uniform(0, h, 2))
        poly = {0: [(x0, -50), (x1, -50), (x1, depth * h), (x0, depth * h)],
                1: [(w + 50, y0), (w + 50, y1), (w * (1 - depth), y1), (w * (1 - depth), y0)],
                2: [(x0, h + 50), (x1, h + 50), (x1, h * (1 - depth)), (x0, h * (1 - depth))],
                3: [(-50, y0), (-50, y1), (depth * w, y1), (depth * w, y0)]}[int(edge)]
        shadows.append(Shadow(tuple(poly), float(rng.uniform(0.55, 0.85)), float(rng.uniform(15, 45))))
    hand = None
    if rng.random() < hand_probability:
        spaces = layout.spaces
        target = spaces[int(rng.integers(len(spaces)))].centre
        target = (target[0] + rng.uniform(-30, 30), target[1] + rng.uniform(-30, 30))
        # the arm comes from the nearest long edge's side, roughly
        from_deg = float(rng.uniform(0, 360))
        hand = Hand(target, from_deg, float(rng.uniform(30, 150)), float(rng.uniform(0.85, 1.15)),
                    SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], float(rng.uniform(0.5, 0.85)))
    return Conditions(
        size=size,
        fov_deg=float(rng.uniform(55, 75)),
        fill=float(rng.uniform(0.78, 0.95)) if s else 0.88,
        tilt_deg=float(rng.uniform(0, 22 * s)),
        tilt_azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-180, 180) * s if rng.random() < 0.3 * s else rng.uniform(-8, 8) * s),
        offset=(float(rng.uniform(-0.04, 0.04) * s), float(rng.uniform(-0.04, 0.04) * s)),
        brightness=float(rng.uniform(1 - 0.35 * s, 1 + 0.12 * s)),
        white_balance=tuple(float(v) for v in rng.uniform(1 - 0.12 * s, 1 + 0.12 * s, 3)),
        gradient=float(rng.uniform(0, 0.35 * s)),
        gradient_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0, 0.3 * s)),
        shadows=tuple(shadows),
        hand=hand,
        blur_sigma=float(rng.uniform(0, 1.3 * s)),
        noise_sigma=float(rng.uniform(0, 6 * s)),
        jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.8 * s else None,
        jitter_mm=2.0,
        light_deg=float(rng.uniform(0, 360)),
        seed=int(rng.integers(2**31)),
    )
