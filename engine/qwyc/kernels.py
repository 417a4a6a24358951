"""Compiled loops of QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018).

* the pieces of QWYC*'s candidate scan (:mod:`engine.qwyc.scan`): Algorithm 2 only ever looks
  at the ``budget + 1`` smallest running sums of the positives (the candidate negative
  thresholds) and the ``budget + 1`` largest of the negatives (the positive ones); every other
  value only needs to be *counted* against those thresholds. So instead of sorting every
  candidate's sums the order statistics are selected with a bounded heap (:func:`_select`) and
  the rest counted with a binary search over them (:func:`_count_below`): O(n log budget)
  per candidate, with the counts of the sorted formulation (same ties: ``#values < x``).
* :func:`sorted_exits`: the same count from already sorted sums (the formulation of
  :func:`~engine.qwyc.policy.step_thresholds`), an oracle for the tests.
* :func:`run_policy`: a policy on a contribution matrix, row by row, stopping at the
  first exit (no (N,) temporaries per step).

Numba is a dependency; without it (an import error) :data:`AVAILABLE` is False and the
same functions run as plain Python (slow, only for environments that cannot install it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["AVAILABLE", "sorted_exits", "run_policy"]

try:  # Numba is a dependency; the fallback keeps the engine importable where it cannot be installed
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without numba
    njit = None

AVAILABLE = njit is not None


def _heap_push_max(heap: np.ndarray, size: int, value: float) -> None:
    """Sift ``value`` up a max-heap of ``size`` elements (``heap[size]`` is free)."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] >= value:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = value


def _heap_replace_max(heap: np.ndarray, size: int, value: float) -> None:
    """Replace the top of a max-heap of ``size`` elements by a smaller ``value``."""
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] > heap[child]:
            child += 1
        if heap[child] <= value:
            break
        heap[i] = heap[child]
        i = child
    heap[i] = value


def _select(values: np.ndarray, n: int, k: int, heap: np.ndarray, sign: float) -> int:
    """The min(k, n) smallest of ``sign * values[:n]``, ascending into ``heap[:m]``; returns m."""
    size = 0
    for i in range(n):
        v = sign * values[i]
        if size < k:
            _heap_push_max(heap, size, v)
            size += 1
        elif v < heap[0]:
            _heap_replace_max(heap, size, v)
    heap[:size].sort()
    return size


def _count_below(x: np.ndarray, m: int, v: float) -> int:
    """``#{j < m : x[j] <= v}`` for ascending ``x`` (``searchsorted(x[:m], v, 'right')``)."""
    if m == 0 or v < x[0]:
        return 0
    if v >= x[m - 1]:
        return m
    base, size = 0, m  # branch-free binary search (the comparison becomes a conditional move)
    while size > 1:
        half = size >> 1
        base = base + half if x[base + half] <= v else base
        size -= half
    return base + (x[base] <= v)


def sorted_exits(pos: np.ndarray, neg: np.ndarray, budget: int, neg_only: bool) -> int:
    """Algorithm 2's best number of exits from ascending positive and negative sums.

    Parameters
    ----------
    pos, neg : numpy.ndarray of float64
        Running sums of the undecided positives / negatives, ascending.
    budget : int
        Mistakes allowed.
    neg_only : bool
        Only negative exits.

    Returns
    -------
    int
        The most examples that can exit.
    """
    n_pos, n_neg = pos.size, neg.size
    total = n_pos + n_neg
    best = 0
    for b in range(budget + 1):
        if b < n_pos:
            x = pos[b]
            ne = np.searchsorted(pos, x) + np.searchsorted(neg, x)
        else:
            ne = total
        if neg_only:
            pe = 0
        else:
            c = budget - b
            if c < n_neg:
                yv = neg[n_neg - 1 - c]
                pe = (n_neg - np.searchsorted(neg, yv, side="right")) + (n_pos - np.searchsorted(pos, yv, side="right"))
            else:
                pe = total
        if ne + pe > best:
            best = ne + pe
    return min(best, total)


def run_policy(f: np.ndarray, order: np.ndarray, eps_minus: np.ndarray, eps_plus: np.ndarray, bias: float,
               threshold: float):
    """A policy on a contribution matrix, row by row: (decisions, models evaluated).

    Parameters
    ----------
    f : numpy.ndarray of float64, shape (N, T)
        Contributions.
    order, eps_minus, eps_plus : numpy.ndarray, shape (T,)
        The policy's order and thresholds.
    bias, threshold : float
        Constant of the score and β.

    Returns
    -------
    (numpy.ndarray of bool, numpy.ndarray of int64)
        Decisions and models evaluated, shape (N,) each.
    """
    n, steps = f.shape[0], order.size
    decision = np.zeros(n, dtype=np.bool_)
    n_eval = np.full(n, steps, dtype=np.int64)
    for i in range(n):
        g = bias
        for r in range(steps):
            g += f[i, order[r]]
            if r == steps - 1:
                decision[i] = g >= threshold
                n_eval[i] = steps
            elif g > eps_plus[r]:
                decision[i] = True
                n_eval[i] = r + 1
                break
            elif g < eps_minus[r]:
                n_eval[i] = r + 1
                break
    return decision, n_eval


if AVAILABLE:
    _heap_push_max = njit(inline="always", cache=True)(_heap_push_max)
    _heap_replace_max = njit(inline="always", cache=True)(_heap_replace_max)
    _select = njit(cache=True)(_select)
    _count_below = njit(inline="always", cache=True)(_count_below)
    sorted_exits = njit(cache=True)(sorted_exits)
    run_policy = njit(cache=True, nogil=True)(run_policy)
