"""vision/order_stats.py: numpy's medians and percentiles, the same values bit for bit."""

import numpy as np
import pytest

from vision.order_stats import column_medians, sorted_median, sorted_percentile, sorted_percentiles, whole_median

QUARTILES = np.array([25.0, 75.0], np.float32)


def _samples(rng, count):
    for i in range(count):
        n = int(rng.integers(1, 7000)) if i % 4 else int(rng.integers(1, 9))
        r = (rng.random(n) * rng.random() * 10.0 ** int(rng.integers(-3, 4))).astype(np.float32)
        if i % 3 == 0:
            r = np.round(r, 1).astype(np.float32)  # ties
        yield r


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def test_medians_and_percentiles_of_a_sorted_array_are_numpys():
    rng = np.random.default_rng(31)
    for r in _samples(rng, 1500):
        s = np.sort(r)
        assert _same(sorted_median(s), np.median(r))
        assert _same(sorted_percentiles(s, QUARTILES), np.percentile(r, QUARTILES))
        for q in (50, 30, 50.0, 90):
            assert _same(sorted_percentile(s, q), np.percentile(r, q))


def test_a_column_median_is_numpys_along_the_axis():
    rng = np.random.default_rng(32)
    for r in _samples(rng, 200):
        cols = np.stack([r, r[::-1] * np.float32(1.5), np.roll(r, 3)], axis=1)
        want = np.median(cols, axis=0)
        got = np.array([sorted_median(np.sort(c)) for c in cols.T], np.float32)
        assert _same(got, want)


def test_nan_is_numpys_nan():
    r = np.array([1.0, np.nan, 2.0, 3.0], np.float32)
    s = np.sort(r)
    assert np.isnan(sorted_median(s)) and np.isnan(np.median(r))
    assert np.isnan(sorted_percentiles(s, QUARTILES)).all() and np.isnan(np.percentile(r, QUARTILES)).all()


def test_whole_median_is_numpys():
    rng = np.random.default_rng(33)
    for i in range(600):
        n = int(rng.integers(1, 30000)) if i % 4 else int(rng.integers(1, 9))
        dtype = np.uint8 if i % 2 else np.uint16
        top = 256 if dtype == np.uint8 else int(rng.choice([40, 511, 65536]))
        v = rng.integers(0, top, (n,)).astype(dtype)
        if i % 5 == 0:
            v = v.reshape(1, -1)[:, ::1]
        want = float(np.median(v))
        got = whole_median(v)
        assert got == want and type(got) is float


def test_column_medians_are_numpys_along_the_first_axis():
    rng = np.random.default_rng(32)
    for r in _samples(rng, 600):
        k = 1 + len(r) % 3
        n = len(r) // k
        if n == 0:
            continue
        values = r[:n * k].reshape(n, k)
        assert _same(column_medians(values), np.median(values, axis=0))
        assert _same(column_medians(values.astype(np.float64)), np.median(values.astype(np.float64), axis=0))
    with pytest.raises(ValueError):
        column_medians(np.zeros((0, 3), np.float32))
