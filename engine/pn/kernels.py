"""Compiled replicate hulls of the bootstrap (:func:`engine.pn.bootstrap`).

One replicate's hull is a weighted PAV over its per-threshold label means, the
cumulative TP/FP at the hull's vertices and the fitted marginal precision at the
band's thresholds. :func:`engine.pn._bootstrap.replicate_hull` does it with numpy
and SciPy (several passes and temporaries over every threshold); here it is one
compiled pass that releases the GIL, so a bootstrap in a worker thread does not
hold the server's interpreter. The arithmetic is the reference's, operation for
operation (the same divisions, SciPy's PAV — Busing 2022, Algorithm 1 — with its
merge order, sequential cumulative sums), so the results are equal bit for bit
(tests/engine/pn/test_kernels.py compares them).

The hashed Poisson bootstrap (the page's and every backend's) is one compiled pass per block of replicates
(:func:`poisson_hulls`): each row's Poisson(1) count hashed from its id (:mod:`engine.pn._replicates`), summed
per distinct score and streamed into each replicate's PAV from the lowest score up, with no replicates x rows
or replicates x scores matrix.

Without Numba (an import error) :data:`AVAILABLE` is False and callers use the
numpy path.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np

__all__ = ["AVAILABLE", "poisson_hulls", "replicate_hull_band"]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None  # type: ignore[assignment]

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


def _block_sum(a, lo, n):  # pragma: no cover - compiled
    """numpy's pairwise summation of at most 128 values: one after another below 8, else 8 accumulators."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
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


def _pairwise_sum(a, lo, n):  # pragma: no cover - compiled
    """numpy's pairwise summation of ``a[lo:lo + n]`` (as ``np.add.reduce``): blocks of at most 128 values, halves
    (a multiple of 8 on the left) added left + right; its recursion unrolled on a stack (Numba caches it)."""
    if n <= 128:
        return _block_sum(a, lo, n)
    todo = np.empty((192, 3), dtype=np.int64)  # (first, count, 1 = add the two values on top)
    values = np.empty(192)
    n_todo = 1
    n_values = 0
    todo[0, 0] = lo
    todo[0, 1] = n
    todo[0, 2] = 0
    while n_todo > 0:
        n_todo -= 1
        first, count, combine = todo[n_todo, 0], todo[n_todo, 1], todo[n_todo, 2]
        if combine:
            n_values -= 1
            values[n_values - 1] = values[n_values - 1] + values[n_values]
        elif count <= 128:
            values[n_values] = _block_sum(a, first, count)
            n_values += 1
        else:
            half = count // 2
            half -= half % 8
            todo[n_todo, 0], todo[n_todo, 1], todo[n_todo, 2] = first, count, 1
            todo[n_todo + 1, 0], todo[n_todo + 1, 1], todo[n_todo + 1, 2] = first + half, count - half, 0
            todo[n_todo + 2, 0], todo[n_todo + 2, 1], todo[n_todo + 2, 2] = first, half, 0
            n_todo += 3
    return values[0]


def _poisson_count(row_id, key, cdf):  # pragma: no cover - compiled
    """Poisson(1) count of one row in one replicate (engine.pn._replicates: splitmix64, inverse CDF)."""
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


def _chunk_counts(ids, lo, hi, key, cdf, counts):  # pragma: no cover - compiled
    """Poisson(1) counts of rows ``lo .. hi - 1`` into ``counts[0 .. hi - lo - 1]`` (as :func:`_poisson_count`):
    four comparisons without a branch (the loop vectorises), the larger counts (probability 1.9 %) after."""
    c0, c1, c2, c3 = cdf[0], cdf[1], cdf[2], cdf[3]
    beyond = False
    for i in range(lo, hi):
        z = (ids[i] + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15) + key
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        c = np.int64(z >= c0) + np.int64(z >= c1) + np.int64(z >= c2) + np.int64(z >= c3)
        counts[i - lo] = c
        beyond |= c == 4
    if beyond:
        for i in range(lo, hi):
            if counts[i - lo] == 4:
                counts[i - lo] = np.int64(_poisson_count(ids[i], key, cdf))


# stack of each replicate's PAV: sf[r, j] = (block value, weight, TP below its first score, FP below it),
# si[r, j] = (its first element in PAV order, its first score); state of each replicate between chunks:
# st_f[r] = (open block's sum, weight, value, TP below, FP below), st_i[r] = (top of the stack, open, kept)
_X, _W, _TP, _FP = 0, 1, 2, 3


def _close(sf, r, b, s_, w_, x_):  # pragma: no cover - compiled
    """The open merged block meets the blocks above it (SciPy's backward merges); returns the new top."""
    while b > 0 and sf[r, b - 1, _X] >= x_:
        b -= 1
        s_ += sf[r, b, _W] * sf[r, b, _X]
        w_ += sf[r, b, _W]
        x_ = s_ / w_
    sf[r, b, _X] = x_
    sf[r, b, _W] = w_
    return b


def _pav_step(sf, si, r, b, open_, s_, w_, x_, xn, mass, k, g, u_tp, u_fp):  # pragma: no cover - compiled
    """One score (mean ``xn``, mass) into replicate r's PAV, SciPy's order streamed: a merged block stays open
    while the next values join it (SciPy's forward loop), then meets the blocks above it. Room for one push."""
    if b >= 0 and open_ and x_ >= xn:
        s_ += mass * xn
        w_ += mass
        return b, open_, s_, w_, s_ / w_
    if b >= 0:
        if open_:
            b = _close(sf, r, b, s_, w_, x_)
            open_ = False
        if sf[r, b, _X] >= xn:  # violates the order: merge into the top block
            s_ = sf[r, b, _W] * sf[r, b, _X] + mass * xn
            w_ = mass + sf[r, b, _W]
            return b, True, s_, w_, s_ / w_
    b += 1
    sf[r, b, _X] = xn
    sf[r, b, _W] = mass
    sf[r, b, _TP] = u_tp
    sf[r, b, _FP] = u_fp
    si[r, b, 0] = k
    si[r, b, 1] = g
    return b, open_, s_, w_, x_


def _score_sums(counts, row0, data, lo, hi, exact, rows):  # pragma: no cover - compiled
    """Weighted positives and negatives of rows ``lo .. hi - 1`` (one score) from their counts, in
    np.add.reduceat's order (the first row plus the pairwise sum of the others; any order when exact)."""
    if exact or hi - lo <= 8:
        count = float(counts[lo - row0])
        d_tp = count * data[0, lo]
        d_fp = count * data[1, lo]
        tp_rest = -0.0
        fp_rest = -0.0
        for j in range(lo + 1, hi):
            count = float(counts[j - row0])
            tp_rest += count * data[0, j]
            fp_rest += count * data[1, j]
        return d_tp + tp_rest, d_fp + fp_rest
    for j in range(lo, hi):
        count = float(counts[j - row0])
        rows[0, j - lo] = count * data[0, j]
        rows[1, j - lo] = count * data[1, j]
    return rows[0, 0] + _pairwise_sum(rows[0], 1, hi - lo - 1), rows[1, 0] + _pairwise_sum(rows[1], 1, hi - lo - 1)


def _negatives_run(counts, row0, wn_int, last, lo, hi):  # pragma: no cover - compiled
    """Mass of rows ``lo .. hi - 1`` (scores with negatives only, integer weights) and how many scores have any."""
    total = 0
    seen = 0
    n_kept = 0
    for i in range(lo, hi):
        d = counts[i - row0] * wn_int[i]
        total += d
        seen |= d > 0
        end = last[i]
        n_kept += end & seen
        seen &= end ^ 1
    return total, n_kept


def _replicate_chunk(
    r,
    s_lo,
    s_hi,
    q,
    row0,
    counts,
    data,
    wn_int,
    last,
    group_start,
    seg_start,
    seg_fast,
    band_index,
    exact,
    sf,
    si,
    st_f,
    st_i,
    band_below,
    d_all,
    rows,
):  # pragma: no cover - compiled
    """Segments ``s_lo .. s_hi - 1`` of replicate r, from the lowest score up; returns the band position left."""
    n, m = data.shape[1], group_start.size
    s_, w_, x_, u_tp, u_fp = st_f[r, 0], st_f[r, 1], st_f[r, 2], st_f[r, 3], st_f[r, 4]
    b, open_, k = st_i[r, 0], st_i[r, 1] != 0, st_i[r, 2]
    for seg in range(s_hi - 1, s_lo - 1, -1):
        g_lo, g_hi = seg_start[seg], seg_start[seg + 1]
        if q >= 0 and band_index[q] == g_hi - 1:
            band_below[r, q] = k
            q -= 1
        if seg_fast[seg] and b >= 0:  # negatives only, exact sums: the PAV only adds their mass to the open block
            total, n_kept = _negatives_run(
                counts, row0, wn_int, last, group_start[g_lo], group_start[g_hi] if g_hi < m else n
            )
            if n_kept > 0:
                if not open_:
                    s_, w_, open_ = sf[r, b, _W] * sf[r, b, _X] + 0.0, sf[r, b, _W], True
                w_ += float(total)
                x_ = s_ / w_
            k += n_kept
            u_fp += float(total)
            continue
        for g in range(g_hi - 1, g_lo - 1, -1):
            d_tp, d_fp = _score_sums(
                counts, row0, data, group_start[g], group_start[g + 1] if g + 1 < m else n, exact, rows
            )
            if not exact:
                d_all[r, g, 0], d_all[r, g, 1] = d_tp, d_fp
            mass = d_tp + d_fp
            if mass > 0:
                b, open_, s_, w_, x_ = _pav_step(sf, si, r, b, open_, s_, w_, x_, d_tp / mass, mass, k, g, u_tp, u_fp)
                k += 1
            u_tp += d_tp
            u_fp += d_fp
    st_f[r, 0], st_f[r, 1], st_f[r, 2], st_f[r, 3], st_f[r, 4] = s_, w_, x_, u_tp, u_fp
    st_i[r, 0], st_i[r, 1], st_i[r, 2] = b, 1 if open_ else 0, k
    return q


def _grow(a, size):  # pragma: no cover - compiled
    """``a`` (replicates x stack x fields) with room for ``size`` blocks."""
    out = np.empty((a.shape[0], size, a.shape[2]), dtype=a.dtype)
    for r in range(a.shape[0]):
        for j in range(a.shape[1]):
            for f in range(a.shape[2]):
                out[r, j, f] = a[r, j, f]
    return out


def _poisson_hulls(
    ids, data, wn_int, last, group_start, seg_start, seg_fast, chunk_start, keys, cdf, thresholds, band_index, exact
):  # pragma: no cover - compiled
    """Hashed Poisson replicates' hulls in one pass over the scores, from the lowest up (see poisson_hulls)."""
    n, m, n_rep = ids.size, group_start.size, keys.size
    big = 1
    for g in range(0 if exact else m):
        big = max(big, (group_start[g + 1] if g + 1 < m else n) - group_start[g])
    rows = np.empty((2, big))  # one score's rows, for numpy's pairwise summation
    most = 1
    for c in range(chunk_start.size - 1):
        g_lo, g_hi = seg_start[chunk_start[c]], seg_start[chunk_start[c + 1]]
        most = max(most, (group_start[g_hi] if g_hi < m else n) - group_start[g_lo])
    counts = np.empty(most, dtype=np.int64)
    sf = np.empty((n_rep, 64, 4))
    si = np.empty((n_rep, 64, 2), dtype=np.int64)
    st_f = np.zeros((n_rep, 5))
    st_i = np.zeros((n_rep, 3), dtype=np.int64)
    st_i[:, 0] = -1
    band_below = np.empty((n_rep, band_index.size), dtype=np.int64)
    # without exact sums the cumulative counts are summed from the top as numpy does: the per-score sums are kept
    d_all = np.empty((0 if exact else n_rep, 0 if exact else m, 2))
    q = band_index.size - 1
    for c in range(chunk_start.size - 2, -1, -1):
        s_lo, s_hi = chunk_start[c], chunk_start[c + 1]
        need = 2  # room for every block this chunk can push
        for seg in range(s_lo, s_hi):
            need += 0 if seg_fast[seg] else seg_start[seg + 1] - seg_start[seg]
        if np.max(st_i[:, 0]) + need >= sf.shape[1]:
            size = max(2 * sf.shape[1], np.max(st_i[:, 0]) + need + 1)
            sf, si = _grow(sf, size), _grow(si, size)
        row0 = group_start[seg_start[s_lo]]
        row_end = group_start[seg_start[s_hi]] if seg_start[s_hi] < m else n
        q_chunk = q
        for r in range(n_rep):
            _chunk_counts(ids, row0, row_end, keys[r], cdf, counts)
            q = _replicate_chunk(
                r,
                s_lo,
                s_hi,
                q_chunk,
                row0,
                counts,
                data,
                wn_int,
                last,
                group_start,
                seg_start,
                seg_fast,
                band_index,
                exact,
                sf,
                si,
                st_f,
                st_i,
                band_below,
                d_all,
                rows,
            )
    for r in range(n_rep):
        if st_i[r, 1]:
            st_i[r, 0] = _close(sf, r, st_i[r, 0], st_f[r, 0], st_f[r, 1], st_f[r, 2])
    return _vertices(sf, si, st_f, st_i, band_below, d_all, thresholds, exact)


def _vertices(sf, si, st_f, st_i, band_below, d_all, thresholds, exact):  # pragma: no cover - compiled
    """Each replicate's hull vertices (flat, with offsets) and its fit at the band, from its PAV stack."""
    n_rep, nb = st_i.shape[0], band_below.shape[1]
    offsets = np.zeros(n_rep + 1, dtype=np.int64)
    for r in range(n_rep):
        offsets[r + 1] = offsets[r] + st_i[r, 0] + 2
    edge_mp, tp, fp, th = (
        np.empty(offsets[-1] - n_rep),
        np.empty(offsets[-1]),
        np.empty(offsets[-1]),
        np.empty(offsets[-1]),
    )
    band = np.empty((n_rep, nb))
    for r in range(n_rep):
        at, top, kept = offsets[r], st_i[r, 0], st_i[r, 2]
        tp[at], fp[at], th[at] = 0.0, 0.0, np.inf
        for v in range(top + 1):  # the vertex of a block is its lowest score
            blk = top - v
            edge_mp[at - r + v] = sf[r, blk, _X]
            th[at + 1 + v] = thresholds[si[r, blk, 1]]
            if exact:  # integers below 2**53: the sum from the top is the total less the sum below
                tp[at + 1 + v] = st_f[r, 3] - sf[r, blk, _TP]
                fp[at + 1 + v] = st_f[r, 4] - sf[r, blk, _FP]
        if not exact and top >= 0:  # summed from the top, in numpy's order
            tp_c, fp_c, v = 0.0, 0.0, 0
            for i in range(si[r, 0, 1] + 1):
                tp_c += d_all[r, i, 0]
                fp_c += d_all[r, i, 1]
                if i == si[r, top - v, 1]:
                    tp[at + 1 + v], fp[at + 1 + v] = tp_c, fp_c
                    v += 1
        for q in range(nb):  # the fit at the last kept score at or above the band's: the block holding it
            lo_b, hi_b, p = 0, top, min(band_below[r, q], kept - 1)
            while lo_b < hi_b:
                mid = (lo_b + hi_b + 1) // 2
                if si[r, mid, 0] <= p:
                    lo_b = mid
                else:
                    hi_b = mid - 1
            band[r, q] = np.nan if kept == 0 else sf[r, lo_b, _X]
    return edge_mp, tp, fp, th, offsets, band


if AVAILABLE:
    _pava_increasing = njit(nogil=True, cache=True)(_pava_increasing)
    _replicate_hull_band = njit(nogil=True, cache=True)(_replicate_hull_band)
    _poisson_count = njit(nogil=True, cache=True)(_poisson_count)
    _block_sum = njit(nogil=True, cache=True)(_block_sum)
    _pairwise_sum = njit(nogil=True, cache=True)(_pairwise_sum)
    _chunk_counts = njit(nogil=True, cache=True)(_chunk_counts)
    _close = njit(nogil=True, cache=True)(_close)
    _pav_step = njit(nogil=True, cache=True, inline="always")(_pav_step)
    _score_sums = njit(nogil=True, cache=True, inline="always")(_score_sums)
    _negatives_run = njit(nogil=True, cache=True, inline="always")(_negatives_run)
    _replicate_chunk = njit(nogil=True, cache=True)(_replicate_chunk)
    _grow = njit(nogil=True, cache=True)(_grow)
    _vertices = njit(nogil=True, cache=True)(_vertices)
    _poisson_hulls = njit(nogil=True, cache=True)(_poisson_hulls)


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
        :func:`engine.pn._bootstrap.replicate_hull`'s (its fit indexed by ``band_index``).

    References
    ----------
    Busing, F. M. T. A. (2022). Monotone regression: a simple and fast O(n) PAVA implementation.
    Journal of Statistical Software 102 (Code Snippet 1) — the PAV SciPy implements.
    """
    edge_mp, tp, fp, th, band = _replicate_hull_band(
        np.ascontiguousarray(thresholds, dtype=np.float64),
        np.ascontiguousarray(d_tp, dtype=np.float64),
        np.ascontiguousarray(d_fp, dtype=np.float64),
        np.ascontiguousarray(band_index, dtype=np.int64),
    )
    return (edge_mp, tp, fp, th), band


def _stacked(wy: np.ndarray, wn: np.ndarray) -> np.ndarray:
    """``np.vstack([wy, wn])``, without the copy when they are already the two rows of one array.

    Parameters
    ----------
    wy, wn : numpy.ndarray of float64, shape (n,)
        Positive and negative masses in score order (:func:`engine.pn._curve.sorted_masses` gives them as the rows
        of one C-ordered ``(2, n)`` array).

    Returns
    -------
    numpy.ndarray of float64, shape (2, n)
        The two rows, C-ordered: their common array when it is exactly that (a 10^6-row bootstrap then holds 16 MB
        less beside the server's sessions, issue 34), else a new one. The kernel only reads it.
    """
    base = wy.base
    if (
        isinstance(base, np.ndarray)
        and base is wn.base
        and base.shape == (2, wy.size)
        and base.dtype == np.float64
        and base.flags.c_contiguous
        and wy.ctypes.data == base.ctypes.data
        and wn.ctypes.data == base.ctypes.data + wy.nbytes
        and wy.flags.c_contiguous
        and wn.flags.c_contiguous
    ):
        return base
    return np.vstack([wy, wn])


def poisson_hulls(
    ids_sorted: np.ndarray,
    wy_sorted: np.ndarray,
    wn_sorted: np.ndarray,
    keys: np.ndarray,
    group_start: np.ndarray,
    thresholds: np.ndarray,
    band_index: np.ndarray,
    *,
    exact: bool | None = None,
    chunk: int = 16384,
    block: int = 10,
    workers: int = 1,
    progress=None,
):
    """Hulls of hashed Poisson replicates, drawn, summed per score and fitted in one compiled pass (nogil).

    Equal bit for bit to the numpy reference — :func:`engine.pn._replicates.poisson_counts` summed per score
    with ``np.add.reduceat``, then :func:`engine.pn._bootstrap.replicate_hull` on every replicate — without
    the replicates x rows or replicates x scores matrices. The scores are walked once per block of replicates, from the
    lowest up, in cache-sized chunks of about ``chunk`` rows; each replicate's PAV (SciPy's, Busing 2022, with
    its merge order) is fed one score at a time. When every sum is exact (integer weights), a run of scores
    with negatives only is one step of the PAV (it only adds its mass to the open block), so those rows cost
    a hash and an integer addition each.

    Parameters
    ----------
    ids_sorted : numpy.ndarray of int
        Row ids in score order (descending).
    wy_sorted, wn_sorted : numpy.ndarray of float64
        ``w * y`` and ``w * (1 - y)`` in score order.
    keys : numpy.ndarray of uint64
        :func:`engine.pn._replicates.replicate_key` of each replicate.
    group_start : numpy.ndarray of int
        First sorted row of each distinct score.
    thresholds : numpy.ndarray of float64
        The distinct scores (descending).
    band_index : numpy.ndarray of int
        Ascending distinct-score positions at which the marginal-precision fit is kept.
    exact : bool, optional
        Whether every ``w * y`` and ``w * (1 - y)`` is an integer and 20 times their total is below 2**53 (every
        sum exact: the cumulative counts are read from the bottom); found from the weights when None. False
        always gives the same numbers, more slowly.
    chunk : int, optional
        Rows per cache chunk.
    block : int, optional
        Replicates per pass over the rows (``progress`` is called after each). 10 costs no more than 25 at 10^6
        rows and gives a caller that pauses the work (below) a pause within ~0.1 s.
    workers : int, optional
        Threads computing blocks side by side (the same numbers whatever their number).
    progress : callable, optional
        ``progress(done)`` with the number of replicates done, called in the caller's thread. With one worker the
        next block starts when it returns, so a caller pauses the work by not returning (the dashboard does while a
        user moves a slider: ``views.state.hold_background``).

    Returns
    -------
    (list, numpy.ndarray)
        Per replicate ``(edge_mp, tp, fp, thresholds)`` of its hull vertices (as
        :func:`engine.pn._bootstrap.replicate_hull`), and the ``(len(keys), len(band_index))`` fits at the band.

    References
    ----------
    Busing (2022), the PAV; Steele, Lea & Flood (2014) (splitmix64); Hanley & MacGibbon (2006) (Poisson bootstrap).
    """
    from ._replicates import POISSON1_THRESHOLDS

    group_start = np.asarray(group_start, dtype=np.int64)
    band_index = np.ascontiguousarray(band_index, dtype=np.int64)
    ids = np.ascontiguousarray(ids_sorted)
    wy = np.ascontiguousarray(wy_sorted, dtype=np.float64)
    wn = np.ascontiguousarray(wn_sorted, dtype=np.float64)
    n, m = wy.size, group_start.size
    if exact is None:
        exact = bool(np.all(wy == np.floor(wy)) and np.all(wn == np.floor(wn)) and 20 * (wy.sum() + wn.sum()) < 2.0**53)
    last = np.zeros(n, dtype=np.int64)
    last[np.r_[group_start[1:], n] - 1] = 1
    # segments: runs of scores with negatives only (fast when exact), cut after every band score and about every
    # `chunk` rows; a cache chunk is a run of segments
    fast = np.add.reduceat(wy > 0, group_start) == 0 if exact else np.zeros(m, dtype=bool)
    by_rows = np.searchsorted(group_start, np.arange(0, n, max(1, int(chunk))), side="left")
    seg_start = np.unique(np.r_[0, np.flatnonzero(fast[1:] != fast[:-1]) + 1, band_index + 1, by_rows, m])
    seg_start = seg_start[seg_start <= m].astype(np.int64)
    seg_fast = fast[seg_start[:-1]]
    chunk_start = np.unique(np.r_[np.searchsorted(seg_start, by_rows), seg_fast.size]).astype(np.int64)
    args = (
        ids.view(np.uint64) if ids.dtype == np.int64 else ids.astype(np.uint64),  # int64: astype's values, uncopied
        _stacked(wy, wn),
        wn.astype(np.int64) if exact else np.zeros(n, np.int64),
        last,
        group_start,
        seg_start,
        seg_fast,
        chunk_start,
    )
    cdf = np.array(POISSON1_THRESHOLDS, dtype=np.uint64)
    thresholds = np.ascontiguousarray(thresholds, dtype=np.float64)
    keys = np.asarray(keys, dtype=np.uint64)
    starts = range(0, keys.size, max(1, int(block)))

    def hulls(start):
        return _poisson_hulls(*args, keys[start : start + block], cdf, thresholds, band_index, bool(exact))

    done, blocks = 0, {}
    if workers <= 1:  # in the caller's thread
        for start in starts:
            blocks[start] = hulls(start)
            done += min(block, keys.size - start)
            if progress is not None:
                progress(done)
    else:  # blocks in threads of their own (the kernel releases the GIL; threads inherit the caller's niceness)
        with ThreadPoolExecutor(max_workers=min(int(workers), len(starts))) as pool:
            futures = {pool.submit(hulls, start): start for start in starts}
            for future in as_completed(futures):
                blocks[futures[future]] = future.result()
                done += min(block, keys.size - futures[future])
                if progress is not None:
                    progress(done)
    replicates, bands = [], []
    for start in starts:
        edge_mp, tp, fp, th, offsets, band = blocks[start]
        replicates += [
            (edge_mp[a - r : b - r - 1], tp[a:b], fp[a:b], th[a:b])
            for r, (a, b) in enumerate(zip(offsets[:-1], offsets[1:]))
        ]
        bands.append(band)
    return replicates, np.vstack(bands) if bands else np.empty((0, band_index.size))
