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

__all__ = ["AVAILABLE", "replicate_hull_band"]

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


if AVAILABLE:
    _pava_increasing = njit(nogil=True, cache=True)(_pava_increasing)
    _replicate_hull_band = njit(nogil=True, cache=True)(_replicate_hull_band)


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
