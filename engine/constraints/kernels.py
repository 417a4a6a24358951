"""Compiled kernels of the constrained training's inner Newton solver.

The sparse products and the weighted sums of the Hessian of
:class:`~engine.constraints._design.SplitDesign` (dense standardised columns, whose products
stay with BLAS, beside raw CSR columns), and the smoothed hinges' slopes, each one pass over
the rows without temporaries or SciPy's per-call overhead. The elementwise arithmetic is the
numpy reference's, operation for operation; sums run row by row (numpy sums pairwise and BLAS
in blocks), so results differ from the reference by rounding only
(tests/engine/constraints/test_kernels.py).

Without Numba (an import error) :data:`AVAILABLE` is False and callers use numpy and SciPy.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "AVAILABLE",
    "csr_matvec_add",
    "csr_rmatvec",
    "split_hessian_sums",
    "hinge_slopes",
    "line_slope",
    "hinge_curvature",
]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None  # type: ignore[assignment]

AVAILABLE = njit is not None


def csr_matvec_add(indptr, indices, data, ws, shift, out):  # pragma: no cover - compiled
    """``out += A @ ws - shift`` in place, A in CSR arrays (row i adds ``(a_i . ws) - shift``)."""
    n = indptr.size - 1
    for i in range(n):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += data[k] * ws[indices[k]]
        out[i] += acc - shift


def csr_rmatvec(indptr, indices, data, v, ds):  # pragma: no cover - compiled
    """``(A.T @ v, sum(v))`` with A in CSR arrays of ``ds`` columns."""
    n = indptr.size - 1
    out = np.zeros(ds)
    total = 0.0
    for i in range(n):
        vi = v[i]
        total += vi
        for k in range(indptr[i], indptr[i + 1]):
            out[indices[k]] += data[k] * vi
    return out, total


def split_hessian_sums(dense, indptr, indices, data, rows, c, ds):  # pragma: no cover - compiled
    """Weighted raw sums over ``rows`` (weights ``c``, zero weights skipped).

    Returns ``(N^T C N, N^T C A, A^T C A, N^T c, A^T c, sum c)`` over the rows, N the dense
    columns and A the CSR columns (only the upper triangle of the first is filled, then mirrored).
    """
    dd = dense.shape[1]
    nn = np.zeros((dd, dd))
    na = np.zeros((dd, ds))
    aa = np.zeros((ds, ds))
    nc = np.zeros(dd)
    ac = np.zeros(ds)
    total = 0.0
    for r in range(rows.size):
        i = rows[r]
        ci = c[i]
        if ci == 0.0:
            continue
        total += ci
        for j in range(dd):
            xj = dense[i, j] * ci
            nc[j] += xj
            for m in range(j, dd):
                nn[j, m] += xj * dense[i, m]
            for k in range(indptr[i], indptr[i + 1]):
                na[j, indices[k]] += xj * data[k]
        for k in range(indptr[i], indptr[i + 1]):
            ak = data[k] * ci
            ac[indices[k]] += ak
            for q in range(indptr[i], indptr[i + 1]):
                aa[indices[k], indices[q]] += ak * data[q]
    for j in range(dd):
        for m in range(j + 1, dd):
            nn[m, j] = nn[j, m]
    return nn, na, aa, nc, ac, total


def hinge_slopes(z, hp, hn, inv):  # pragma: no cover - compiled
    """``hp clip((1/2 + z) inv + 1/2, 0, 1) - hn clip((1/2 - z) inv + 1/2, 0, 1)`` per row."""
    out = np.empty(z.size)
    for i in range(z.size):
        pos = min(max((0.5 + z[i]) * inv + 0.5, 0.0), 1.0)
        neg = min(max((0.5 - z[i]) * inv + 0.5, 0.0), 1.0)
        out[i] = hp[i] * pos - hn[i] * neg
    return out


def line_slope(z, dz, s, hp, hn, inv):  # pragma: no cover - compiled
    """``hinge_slopes(z + s dz) @ dz``: the data part of the slope along a line."""
    acc = 0.0
    for i in range(z.size):
        t = z[i] + s * dz[i]
        pos = min(max((0.5 + t) * inv + 0.5, 0.0), 1.0)
        neg = min(max((0.5 - t) * inv + 0.5, 0.0), 1.0)
        acc += (hp[i] * pos - hn[i] * neg) * dz[i]
    return acc


def hinge_curvature(z, hp, hn, smoothing):  # pragma: no cover - compiled
    """``(hp [|1/2 + z| < delta/2] + hn [|1/2 - z| < delta/2]) / delta`` per row."""
    half = smoothing / 2
    out = np.empty(z.size)
    for i in range(z.size):
        in_pos = 1.0 if abs(0.5 + z[i]) < half else 0.0
        in_neg = 1.0 if abs(0.5 - z[i]) < half else 0.0
        out[i] = (hp[i] * in_pos + hn[i] * in_neg) / smoothing
    return out


if njit is not None:
    csr_matvec_add = njit(cache=True, nogil=True)(csr_matvec_add)
    csr_rmatvec = njit(cache=True, nogil=True)(csr_rmatvec)
    split_hessian_sums = njit(cache=True, nogil=True)(split_hessian_sums)
    hinge_slopes = njit(cache=True, nogil=True)(hinge_slopes)
    line_slope = njit(cache=True, nogil=True)(line_slope)
    hinge_curvature = njit(cache=True, nogil=True)(hinge_curvature)
