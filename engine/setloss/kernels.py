"""Compiled double sums for the losses without an O(n^2) path (AM, G-mean, H-mean, G-TP/PR, binary AUC).

For the top-k decision of a batch of n items, Algorithm 1 of Natarajan et al.
(ICML 2016) needs ``L_k = Σ_a Σ_b P(S1 = a) P(S2 = b) L(a, k - a, b, n - k - b)``
(``S1`` = positives among the top k, ``S2`` among the rest). For losses that are
not linear-fractional the sum runs over every (a, b) pair of the two supports;
numpy would allocate several temporaries per pair and per k, so this one loop is
compiled with Numba. The metrics follow :mod:`engine.setloss.losses` exactly,
including its convention that a rate whose denominator is 0 is perfect (1).

Without Numba (an import error) :data:`AVAILABLE` is False and callers use the
numpy path.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["AVAILABLE", "KERNEL_CODES", "expected_pair_loss", "reciprocals"]

#: the kernel name of a :class:`~engine.setloss.losses.SetLoss` -> the code the compiled loop switches on
KERNEL_CODES = {"am": 0, "gmean": 1, "hmean": 2, "gtppr": 3, "auc": 4}

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None

AVAILABLE = njit is not None


def _metric(code: int, tpr: float, tnr: float, precision: float) -> float:
    if code == 0:  # AM: (TPR + TNR) / 2
        return 0.5 * (tpr + tnr)
    if code == 1:  # G-mean: sqrt(TPR · TNR)
        return math.sqrt(tpr * tnr)
    if code == 2:  # H-mean: 2 / (1/TPR + 1/TNR), 0 when both are 0
        s = tpr + tnr
        return 0.0 if s == 0.0 else 2.0 * tpr * tnr / s
    if code == 3:  # G-TP/PR: sqrt(TPR · precision)
        return math.sqrt(tpr * precision)
    # binary AUC: 1 - (1 - TPR)(1 - TNR)
    return 1.0 - (1.0 - tpr) * (1.0 - tnr)


def _pair_sum(code: int, q: np.ndarray, q_start: int, r: np.ndarray, r_start: int, k: int, n: int,
              reciprocal: np.ndarray) -> float:
    # rates as count * reciprocal[denominator]; a zero denominator means a zero count, and the
    # rate is then 1 by convention: "+ (denominator == 0)" adds it without a branch
    total = 0.0
    for i in range(q.size):
        a = q_start + i
        precision = 1.0 if k == 0 else a * reciprocal[k]
        inner = 0.0
        for j in range(r.size):
            b = r_start + j
            positives = a + b
            negatives = n - positives
            tpr = a * reciprocal[positives] + (positives == 0)
            tnr = (n - k - b) * reciprocal[negatives] + (negatives == 0)
            inner += r[j] * (1.0 - _metric(code, tpr, tnr, precision))
        total += q[i] * inner
    return total


def reciprocals(n: int) -> np.ndarray:
    """1/m for m = 0..n, with 0 at m = 0 (only ever multiplied by a zero count)."""
    m = np.arange(n + 1, dtype=float)
    return np.divide(1.0, m, out=np.zeros_like(m), where=m > 0)


if AVAILABLE:
    _metric = njit(inline="always", cache=True)(_metric)
    _pair_sum = njit(cache=True, nogil=True)(_pair_sum)


def expected_pair_loss(kernel: str, q: np.ndarray, q_start: int, r: np.ndarray, r_start: int, k: int,
                       n: int, reciprocal: np.ndarray | None = None) -> float:
    """``Σ_i Σ_j q[i] r[j] L(a, k - a, b, n - k - b)`` with ``a = q_start + i``, ``b = r_start + j``.

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNEL_CODES` (the loss's ``kernel`` field).
    q, r : ndarray
        The supports of ``P(S1 = a)`` and ``P(S2 = b)`` (contiguous float64).
    q_start, r_start : int
        The values of a and b at ``q[0]`` and ``r[0]``.
    k, n : int
        Items flagged and batch size.
    reciprocal : ndarray, optional
        ``1/m`` for m = 0..n (0 at m = 0); pass it when calling for every k of one batch.

    Returns
    -------
    float
        The expected loss of the top-k decision restricted to the given supports.

    References
    ----------
    Natarajan, Koyejo, Ravikumar & Dhillon, ICML 2016, Algorithm 1 (the double sum for one k).
    """
    return float(_pair_sum(KERNEL_CODES[kernel], np.ascontiguousarray(q, dtype=float), int(q_start),
                           np.ascontiguousarray(r, dtype=float), int(r_start), int(k), int(n),
                           reciprocals(n) if reciprocal is None else reciprocal))
