"""Medians and linear percentiles with numpy's exact values, cheaper when several are taken of one array.

``np.median`` and ``np.percentile`` partition their input anew at every call, and their Python set-up
costs tens of microseconds: the print watcher took ten of them per frame over the same few thousand
block ratios (~1 ms of a full read). Here the array is sorted once and each statistic read off it with
the arithmetic numpy uses (its float32 mean of the two middle values, its ``_lerp``), so the values are
the same bit for bit (``tests/vision/test_order_stats.py`` compares them with numpy's).
"""

from __future__ import annotations

import numpy as np


def sorted_median(s: np.ndarray) -> np.floating:
    """``np.median`` of a float array, given sorted (``np.sort``: NaNs last, as numpy's partition puts them)."""
    n = len(s)
    if n == 0:
        raise ValueError("the median of nothing")
    if np.isnan(s[-1]):
        return s.dtype.type(np.nan)
    h = n // 2
    if n % 2:
        return s[h]
    return (s[h - 1] + s[h]) / s.dtype.type(2)  # numpy's mean of the two, in the array's type


def sorted_percentiles(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.percentile(a, q)`` (method "linear", ``q`` an array of the data's float type, as ``PrintWatcher``
    passes its quartiles) of a float array ``a`` given sorted."""
    n = len(s)
    virtual = (n - 1) * np.true_divide(q, 100)
    return np.array([_lerp_at(s, float(v), np.floor(v), v - np.floor(v)) for v in virtual], s.dtype)


def sorted_percentile(s: np.ndarray, q: float) -> np.floating:
    """``np.percentile(a, q)`` for a Python number ``q`` (numpy then takes its weight as a Python float)."""
    v = (len(s) - 1) * np.true_divide(q, 100)
    return _lerp_at(s, float(v), np.floor(v), float(v - np.floor(v)))


def _lerp_at(s: np.ndarray, v: float, below: float, t) -> np.floating:
    """numpy's ``_lerp`` between the order statistics around virtual index ``v`` (``below`` its floor, ``t``
    the weight, typed as numpy has it); past the last one both are the last (and NaN wins, as in numpy)."""
    n = len(s)
    if np.isnan(s[-1]):
        return s.dtype.type(np.nan)
    if v >= n - 1:
        i = j = n - 1
    elif v < 0:
        i = j = 0
    else:
        i = int(below)
        j = i + 1
    a, b = s[i], s[j]
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t


def whole_median(values: np.ndarray) -> float:
    """``float(np.median(values))`` of non-negative whole numbers (uint8 or uint16), by counting them:
    the mean of the two middle values (or the middle one), as numpy gives it in float64."""
    n = values.size
    if n == 0:
        raise ValueError("the median of nothing")
    cum = np.cumsum(np.bincount(values.ravel()))
    lo = int(np.searchsorted(cum, (n - 1) // 2 + 1))
    hi = int(np.searchsorted(cum, n // 2 + 1))
    return (float(lo) + float(hi)) / 2.0


def column_medians(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=0)`` of a float (n >= 1, k) array without NaNs, the same values: each column
    partitioned once around its middle (numpy's median along the short axis of a tall array costs ~10x more:
    a space's box, thousands of pixels by 3 channels)."""
    n = values.shape[0]
    if n == 0:
        raise ValueError("the median of nothing")
    columns = np.ascontiguousarray(values.T)
    h = n // 2
    if n % 2:
        return np.partition(columns, h, axis=1)[:, h]
    two = np.partition(columns, (h - 1, h), axis=1)
    return (two[:, h - 1] + two[:, h]) / values.dtype.type(2)  # numpy's mean of the two, in the array's type
