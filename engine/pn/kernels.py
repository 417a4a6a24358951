"""Compiled per-replicate hull of the bootstrap (:func:`engine.pn.bootstrap.bootstrap`).

One replicate's hull is a weighted PAV over its per-threshold label means, the
cumulative TP/FP at the hull's vertices and the fitted marginal precision at the
band's thresholds. :func:`engine.pn.bootstrap.replicate_hull` does it with numpy
and SciPy (several passes and temporaries over every threshold); here it is one
compiled pass that releases the GIL, so a bootstrap in a worker thread does not
hold the server's interpreter. The arithmetic is the reference's, operation for
operation (the same divisions, SciPy's PAV — Busing 2022, Algorithm 1 — with its
merge order, sequential cumulative sums), so the results are equal bit for bit
(tests/engine/pn/test_kernels.py compares them).

Without Numba (an import error) :data:`AVAILABLE` is False and callers use the
numpy path.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AVAILABLE", "poisson_group_sums", "replicate_hull_band"]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None

AVAILABLE = njit is not None


def _pava_increasing(x: np.ndarray, w: np.ndarray) -> None:  # pragma: no cover - compiled
    """SciPy's ``pava`` (Busing 2022, Algorithm 1) in place: x becomes the increasing fit."""
    n = x.size
    r = np.empty(n + 1, dtype=np.int64)
    r[0] = 0
    r[1] = 1
    b = 0
    xb_prev = x[0]
    wb_prev = w[0]
    i = 1
    while i < n:
        b += 1
        xb = x[i]
        wb = w[i]
        if xb_prev >= xb:
            b -= 1
            sb = wb_prev * xb_prev + wb * xb
            wb += wb_prev
            xb = sb / wb
            while i < n - 1 and xb >= x[i + 1]:
                i += 1
                sb += w[i] * x[i]
                wb += w[i]
                xb = sb / wb
            while b > 0 and x[b - 1] >= xb:
                b -= 1
                sb += w[b] * x[b]
                wb += w[b]
                xb = sb / wb
        x[b] = xb
        xb_prev = xb
        w[b] = wb
        wb_prev = wb
        r[b + 1] = i + 1
        i += 1
    f = n - 1
    for k in range(b, -1, -1):
        t = r[k]
        xk = x[k]
        for j in range(f, t - 1, -1):
            x[j] = xk
        f = t - 1


def _replicate_hull_band(thresholds, d_tp, d_fp, band_index):  # pragma: no cover - compiled
    m = d_tp.size
    kept = 0
    for i in range(m):
        if d_tp[i] + d_fp[i] > 0:
            kept += 1
    band = np.empty(band_index.size)
    if kept == 0:
        band[:] = np.nan
        th = np.empty(1)
        th[0] = np.inf
        return np.zeros(0), np.zeros(1), np.zeros(1), th, band
    # PAV of the decreasing fit = SciPy's increasing PAV on the reversed arrays
    idx = np.empty(kept, dtype=np.int64)
    x = np.empty(kept)
    wx = np.empty(kept)
    rank = np.empty(m, dtype=np.int64)  # position in idx of the last kept threshold at or before i (0 before)
    k = 0
    for i in range(m):
        mass = d_tp[i] + d_fp[i]
        if mass > 0:
            idx[k] = i
            x[kept - 1 - k] = d_tp[i] / mass
            wx[kept - 1 - k] = mass
            k += 1
        rank[i] = k - 1 if k > 0 else 0
    _pava_increasing(x, wx)
    fit = x[::-1]
    n_v = 0
    for j in range(kept):
        if j == kept - 1 or fit[j + 1] != fit[j]:
            n_v += 1
    edge_mp = np.empty(n_v)
    tp = np.empty(n_v + 1)
    fp = np.empty(n_v + 1)
    th = np.empty(n_v + 1)
    tp[0] = 0.0
    fp[0] = 0.0
    th[0] = np.inf
    v = 0
    tp_c = 0.0
    fp_c = 0.0
    j = 0
    for i in range(m):
        tp_c += d_tp[i]
        fp_c += d_fp[i]
        if j < kept and idx[j] == i:
            if j == kept - 1 or fit[j + 1] != fit[j]:
                edge_mp[v] = fit[j]
                v += 1
                tp[v] = tp_c
                fp[v] = fp_c
                th[v] = thresholds[i]
            j += 1
    for q in range(band_index.size):
        band[q] = fit[rank[band_index[q]]]
    return edge_mp, tp, fp, th, band


def _pairwise_sum(a, lo, n):  # pragma: no cover - compiled
    """numpy's pairwise summation of ``a[lo:lo + n]`` (8 accumulators, blocks of 128), as ``np.add.reduce``."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        stop = n - n % 8
        while i < stop:
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(a, lo, n2) + _pairwise_sum(a, lo + n2, n - n2)


def _poisson_count(row_id, key, cdf):  # pragma: no cover - compiled
    """Poisson(1) count of one row in one replicate (engine.pn.replicates: splitmix64, inverse CDF)."""
    z = (row_id + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15) + key
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    # branch-free over the 4 likeliest counts, a loop beyond (probability 1.9 %)
    c = np.int64(z >= cdf[0]) + np.int64(z >= cdf[1]) + np.int64(z >= cdf[2]) + np.int64(z >= cdf[3])
    if c == 4:
        while c < cdf.size and cdf[c] <= z:
            c += 1
    return float(c)


def _poisson_group_sums(ids, keys, cdf, wy, wn, group_start, tp_g, fp_g):  # pragma: no cover - compiled
    n = ids.size
    n_groups = group_start.size
    big = 0
    for g in range(n_groups):
        hi = group_start[g + 1] if g + 1 < n_groups else n
        big = max(big, hi - group_start[g])
    tp_rows = np.empty(big)  # one group's rows, for numpy's pairwise summation of groups of 9 rows or more
    fp_rows = np.empty(big)
    for r in range(keys.size):
        key = keys[r]
        for g in range(n_groups):
            lo = group_start[g]
            hi = group_start[g + 1] if g + 1 < n_groups else n
            # np.add.reduceat: the first element, plus numpy's pairwise sum of the others (one after
            # another below 8 of them)
            if hi - lo <= 8:
                count = _poisson_count(ids[lo], key, cdf)
                tp_first = count * wy[lo]
                fp_first = count * wn[lo]
                tp_rest = -0.0
                fp_rest = -0.0
                for k in range(lo + 1, hi):
                    count = _poisson_count(ids[k], key, cdf)
                    tp_rest += count * wy[k]
                    fp_rest += count * wn[k]
                tp_g[r, g] = tp_first + tp_rest
                fp_g[r, g] = fp_first + fp_rest
            else:
                for k in range(lo, hi):
                    count = _poisson_count(ids[k], key, cdf)
                    tp_rows[k - lo] = count * wy[k]
                    fp_rows[k - lo] = count * wn[k]
                tp_g[r, g] = tp_rows[0] + _pairwise_sum(tp_rows, 1, hi - lo - 1)
                fp_g[r, g] = fp_rows[0] + _pairwise_sum(fp_rows, 1, hi - lo - 1)


if AVAILABLE:
    _pava_increasing = njit(nogil=True, cache=True)(_pava_increasing)
    _replicate_hull_band = njit(nogil=True, cache=True)(_replicate_hull_band)
    # not cached: Numba's cache does not reload a recursive function safely (it crashed here)
    _poisson_count = njit(nogil=True, inline="always")(_poisson_count)
    _pairwise_sum = njit(nogil=True)(_pairwise_sum)
    _poisson_group_sums = njit(nogil=True)(_poisson_group_sums)


def poisson_group_sums(ids_sorted: np.ndarray, wy_sorted: np.ndarray, wn_sorted: np.ndarray, keys: np.ndarray,
                       group_start: np.ndarray):
    """Per-threshold weighted positives and negatives of Poisson replicates, hashed and summed in one pass.

    The compiled form of ``poisson_counts(ids, replicates, seed)[:, order] * (w * y)[order]`` followed by
    ``np.add.reduceat(..., group_start, axis=1)`` (and the same for ``w * (1 - y)``): the counts are
    :mod:`engine.pn.replicates`'s (splitmix64 hash, Poisson(1) inverse CDF), the sums numpy's order
    (first element plus the pairwise sum of the rest), without the replicates x rows matrices.

    Parameters
    ----------
    ids_sorted : numpy.ndarray of int
        Row ids in score order (descending).
    wy_sorted, wn_sorted : numpy.ndarray of float64
        ``w * y`` and ``w * (1 - y)`` in score order.
    keys : numpy.ndarray of uint64
        :func:`engine.pn.replicates.replicate_key` of each replicate.
    group_start : numpy.ndarray of int
        First sorted row of each distinct score.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``(len(keys), len(group_start))`` weighted positives and negatives.

    References
    ----------
    Steele, Lea & Flood (2014) (splitmix64); Hanley & MacGibbon (2006) (Poisson bootstrap).
    """
    from .replicates import POISSON1_THRESHOLDS

    tp_g = np.empty((keys.size, group_start.size))
    fp_g = np.empty((keys.size, group_start.size))
    _poisson_group_sums(np.ascontiguousarray(ids_sorted).astype(np.uint64), np.asarray(keys, dtype=np.uint64),
                        np.array(POISSON1_THRESHOLDS, dtype=np.uint64), np.ascontiguousarray(wy_sorted, dtype=np.float64),
                        np.ascontiguousarray(wn_sorted, dtype=np.float64), np.asarray(group_start, dtype=np.int64),
                        tp_g, fp_g)
    return tp_g, fp_g


def replicate_hull_band(thresholds: np.ndarray, d_tp: np.ndarray, d_fp: np.ndarray, band_index: np.ndarray):
    """One replicate's hull vertices and its marginal-precision fit at the band's thresholds (compiled).

    Parameters
    ----------
    thresholds : numpy.ndarray of float64, shape (m,)
        The original curve's thresholds (descending).
    d_tp, d_fp : numpy.ndarray of float64, shape (m,)
        The replicate's weighted positives / negatives at each threshold.
    band_index : numpy.ndarray of int64
        Thresholds at which the fit is kept.

    Returns
    -------
    (tuple, numpy.ndarray)
        ``(edge_mp, tp, fp, thresholds)`` of the hull vertices and the fit at ``band_index``: equal to
        :func:`engine.pn.bootstrap.replicate_hull`'s (its fit indexed by ``band_index``).

    References
    ----------
    Busing, F. M. T. A. (2022). Monotone regression: a simple and fast O(n) PAVA implementation.
    Journal of Statistical Software 102 (Code Snippet 1) — the PAV SciPy implements.
    """
    edge_mp, tp, fp, th, band = _replicate_hull_band(
        np.ascontiguousarray(thresholds, dtype=np.float64), np.ascontiguousarray(d_tp, dtype=np.float64),
        np.ascontiguousarray(d_fp, dtype=np.float64), np.ascontiguousarray(band_index, dtype=np.int64))
    return (edge_mp, tp, fp, th), band
