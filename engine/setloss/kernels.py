"""Compiled double sums for the losses without an O(n^2) path (those registered with ``rates``).

For the top-k decision of a batch of n items, Algorithm 1 of Natarajan et al.
(ICML 2016) needs ``L_k = Σ_a Σ_b P(S1 = a) P(S2 = b) L(a, k - a, b, n - k - b)``
(``S1`` = positives among the top k, ``S2`` among the rest). For losses that are
not linear-fractional the sum runs over every (a, b) pair of the two supports;
numpy would allocate several temporaries per pair and per k, so this one loop is
compiled with Numba, once per loss of :data:`~engine.setloss._losses.LOSSES` that has
``rates``: the loop calls (inlined) the very function the numpy path uses, so each
metric is written once. Rates follow :mod:`engine.setloss._losses` exactly, including its
convention that a rate whose denominator is 0 is perfect (1).

Without Numba (an import error) :data:`AVAILABLE` is False and callers use the
numpy path.
"""

from __future__ import annotations

import hashlib
import types

import numpy as np

from ._losses import LOSSES

__all__ = ["AVAILABLE", "KERNELS", "expected_pair_loss", "reciprocals"]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None  # type: ignore[assignment]

AVAILABLE = njit is not None


def _metric(tpr: float, tnr: float, precision: float) -> float:  # pragma: no cover - replaced per loss
    raise NotImplementedError


def _pair_sum(
    q: np.ndarray, q_start: int, r: np.ndarray, r_start: int, k: int, n: int, reciprocal: np.ndarray
) -> float:
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
            inner += r[j] * (1.0 - _metric(tpr, tnr, precision))
        total += q[i] * inner
    return total


def _compiled(key: str, rates):
    """``_pair_sum`` with ``_metric`` bound to a loss's ``rates``, compiled and cached on disk.

    The copy is named after the key and a digest of the metric's code, so each loss has its
    own cache entry and editing a metric invalidates it (Numba's cache stamp sees only this file).
    """
    code = rates.__code__
    digest = hashlib.sha1(code.co_code + repr((code.co_consts, code.co_names)).encode()).hexdigest()[:10]
    name = f"_pair_sum_{key}_{digest}"
    scope = {**globals(), "_metric": njit(inline="always")(rates)}
    function = types.FunctionType(_pair_sum.__code__, scope, name)
    function.__qualname__ = name
    return njit(cache=True, nogil=True)(function)


def reciprocals(n: int) -> np.ndarray:
    """1/m for m = 0..n, with 0 at m = 0 (only ever multiplied by a zero count)."""
    m = np.arange(n + 1, dtype=float)
    return np.divide(1.0, m, out=np.zeros_like(m), where=m > 0)


#: the :data:`~engine.setloss._losses.LOSSES` key of each ``rates`` loss -> its compiled pair sum
#: (compiled on first call; empty without Numba)
KERNELS = {c.key: _compiled(c.key, c.rates) for c in LOSSES.values() if c.rates is not None} if AVAILABLE else {}


def expected_pair_loss(
    kernel: str,
    q: np.ndarray,
    q_start: int,
    r: np.ndarray,
    r_start: int,
    k: int,
    n: int,
    reciprocal: np.ndarray | None = None,
) -> float:
    """``Σ_i Σ_j q[i] r[j] L(a, k - a, b, n - k - b)`` with ``a = q_start + i``, ``b = r_start + j``.

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNELS` (the loss's ``kernel`` field).
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
    return float(
        KERNELS[kernel](
            np.ascontiguousarray(q, dtype=float),
            int(q_start),
            np.ascontiguousarray(r, dtype=float),
            int(r_start),
            int(k),
            int(n),
            reciprocals(n) if reciprocal is None else reciprocal,
        )
    )
