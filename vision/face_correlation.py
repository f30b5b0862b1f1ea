"""OpenCV's ``TM_CCOEFF_NORMED`` for many templates of one size against one window, at once.

``FaceBook.match`` compares a space's window with every candidate face in every turn: on a Cheops
pyramid that is 20 templates per space, ~1 900 ``cv2.matchTemplate`` calls a photoreal frame and
the largest cost of its read. Those calls each redo the window's sums and each pay OpenCV's
per-call overhead on a tiny image; here the numerators of all templates are one matrix product
(the window's patches times the zero-mean templates) and the window's sums come from one
integral image. The result is OpenCV's formula, its degenerate cases included (see
``ccoeff_normed``), equal to it up to OpenCV's own float rounding (~1e-5; this one's is ~1e-7).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController


@dataclass(frozen=True)
class TemplateStack:
    """Templates of one shape (h, w, channels), ready for ``ccoeff_normed``."""

    shape: tuple[int, ...]
    centred: np.ndarray  # (n, h * w * channels) float32: each template minus its mean per channel
    norms: np.ndarray  # (n,) float64: each centred template's Euclidean norm

    @classmethod
    def of(cls, templates: Sequence[np.ndarray]) -> "TemplateStack":
        shape = templates[0].shape
        if any(t.shape != shape for t in templates):
            raise ValueError("a TemplateStack holds templates of one shape")
        channels = shape[2] if len(shape) == 3 else 1
        t = np.stack([np.asarray(x, np.float64) for x in templates]).reshape(len(templates), -1, channels)
        flat = (t - t.mean(axis=1, keepdims=True)).reshape(len(templates), -1)  # OpenCV: the mean per channel
        return cls(shape, np.ascontiguousarray(flat, np.float32), np.sqrt((flat * flat).sum(axis=1)))

    def __len__(self) -> int:
        return len(self.norms)


def ccoeff_normed(window: np.ndarray, stack: TemplateStack) -> np.ndarray:
    """``cv2.matchTemplate(window, t, cv2.TM_CCOEFF_NORMED)`` for each template ``t`` of ``stack``:
    (n, H - h + 1, W - w + 1) float32. As OpenCV: a score whose denominator is zero, or that the
    rounding pushed more than 1/8 past +-1, is 0; one pushed less than that is +-1. A flat template
    (no face learned from a photo is one) scores 0 here; OpenCV 5 says 1, or ~0, depending on the window."""
    h, w = stack.shape[:2]
    if window.shape[2:] != stack.shape[2:] or window.shape[0] < h or window.shape[1] < w:
        raise ValueError(f"window {window.shape} does not fit templates {stack.shape}")
    win = np.asarray(window, np.float32)
    oh, ow = win.shape[0] - h + 1, win.shape[1] - w + 1
    # the window's mean taken off: the same numerator (each template sums to 0 per channel), less float rounding
    level = win.reshape(-1, win.shape[2] if win.ndim == 3 else 1).mean(axis=0)  # per channel; broadcasts either way
    patches = sliding_window_view(win - level, stack.shape, axis=tuple(range(win.ndim))).reshape(oh * ow, -1)
    num = _product(patches, stack.centred).astype(np.float64)  # (positions, n)
    total, squares = cv2.integral2(win, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
    total = total.reshape(total.shape[0], total.shape[1], -1)
    squares = squares.reshape(squares.shape[0], squares.shape[1], -1)

    def box(a: np.ndarray) -> np.ndarray:
        return a[h:h + oh, w:w + ow] - a[:oh, w:w + ow] - a[h:h + oh, :ow] + a[:oh, :ow]

    s, s2 = box(total), box(squares)
    spread = np.sqrt(np.maximum((s2 - s * s / (h * w)).sum(axis=2), 0.0)).reshape(-1, 1)
    t = spread * stack.norms.reshape(1, -1)
    a = np.abs(num)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(a < t, num / np.where(t > 0, t, 1.0), np.where(a < 1.125 * t, np.sign(num), 0.0))
    return out.T.reshape(len(stack), oh, ow).astype(np.float32)


def _product(patches: np.ndarray, centred: np.ndarray) -> np.ndarray:
    """``patches @ centred.T`` by the BLAS on one thread. A BLAS spreads a product this size (a
    Cheops tile: 81 positions x 20 templates x 2 700 values) over threads, ~10x slower than one
    thread while the other cores are busy (as on a Pi reading, serving and publishing at once);
    on one thread it is ~5x faster than ``np.einsum``, which this replaced (0.19 against 0.94 ms
    here, idle; 0.35 against 1.42 ms with both cores busy). The limit holds process-wide while it
    lasts: readers in two threads at once may leave the BLAS on one thread, which costs this project
    nothing (its other products are small)."""
    with _blas().limit(limits=1, user_api="blas"):
        return np.dot(patches, centred.T)


@functools.cache
def _blas() -> "ThreadpoolController":
    """The BLAS libraries numpy loaded (none found: limiting them does nothing); looked for at the first
    product, not at import (~13 ms here)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()
