"""Colours of light, without Blender: the scene (``scene.py``) and the scene drawing that needs no
rendering (``render_set.py --hand-masks-only``) share them."""
import math

import numpy as np


def srgb_to_linear(c):
    c = np.asarray(c, float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def kelvin_rgb(k):
    """Approximate (linear, normalised to G=1) RGB of a black body at k kelvin."""
    t = k / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    rgb = srgb_to_linear(np.clip([r, g, b], 1, 255))
    return rgb / rgb[1]
