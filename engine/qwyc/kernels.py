"""Compiled loops of QWYC (Wang, Gupta & You, *Quit When You Can*, arXiv:1806.11202, 2018).

* :func:`candidate_exits`: QWYC*'s candidate scan. For every remaining model, the best
  number of exits of Algorithm 2 at this step. Algorithm 2 only ever looks at the
  ``budget + 1`` smallest running sums of the positives (the candidate negative
  thresholds) and the ``budget + 1`` largest of the negatives (the positive ones); every
  other value only needs to be *counted* against those thresholds. So instead of
  sorting every candidate's sums (NumPy's row-wise sort, O(n log n) per candidate) the
  kernel selects the few order statistics with a bounded heap and counts the rest
  with a binary search over them: O(n log budget) per candidate. The counts are
  exactly those of the sorted formulation (same ties: ``#values < x`` and
  ``#values > y``), so the chosen model is the same. Once the budget is spent (after
  the first steps at small α) a candidate's exits are the negatives below every
  positive and the positives above every negative: two passes, no selection. The
  caller packs the undecided rows' columns contiguously (the scan is memory-bound).
* :func:`sorted_exits`: the same count from already sorted sums (the formulation of
  :func:`~engine.qwyc.policy.step_thresholds`), an oracle for the tests.
* :func:`run_policy`: a policy on a contribution matrix, row by row, stopping at the
  first exit (no (N,) temporaries per step).

Numba is a dependency; without it (an import error) :data:`AVAILABLE` is False and the
same functions run as plain Python (slow, only for environments that cannot install it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["AVAILABLE", "candidate_exits", "sorted_exits", "run_policy"]

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


def _side_exits(x: np.ndarray, m: int, others: np.ndarray, n_others: int, sign: float, k: int, total: int,
                hist: np.ndarray, exits: np.ndarray) -> None:
    """``exits[b] = #{own < x[b]} + #{others < x[b]}`` (values times ``sign``) for b < k; ``total`` past m."""
    hist[: m + 1] = 0
    for i in range(n_others):
        hist[_count_below(x, m, sign * others[i])] += 1  # an other value v < x[b] exactly for b >= that count
    below = 0
    first = 0  # first index of x[b]'s value among the selected order statistics = #{own < x[b]}
    for b in range(k):
        if b < m:
            below += hist[b]
            if b > 0 and x[b] != x[b - 1]:
                first = b
            exits[b] = first + below
        else:
            exits[b] = total


def _no_mistake_exits(col: np.ndarray, g: np.ndarray, rows_pos: np.ndarray, rows_neg: np.ndarray,
                      neg_only: bool) -> int:
    """Budget 0 (most steps once the budget is spent): negatives below every positive, positives above every negative."""
    n_pos, n_neg = rows_pos.size, rows_neg.size
    total = n_pos + n_neg
    low = np.inf  # smallest positive sum
    for i in range(n_pos):
        low = min(low, g[rows_pos[i]] + col[rows_pos[i]])
    high = -np.inf  # largest negative sum
    for i in range(n_neg):
        high = max(high, g[rows_neg[i]] + col[rows_neg[i]])
    exits = 0
    for i in range(n_neg):
        exits += g[rows_neg[i]] + col[rows_neg[i]] < low
    if neg_only:
        return exits
    for i in range(n_pos):
        exits += g[rows_pos[i]] + col[rows_pos[i]] > high
    return min(exits, total)


def _one_candidate(col: np.ndarray, g: np.ndarray, rows_pos: np.ndarray, rows_neg: np.ndarray, budget: int,
                   neg_only: bool) -> int:
    n_pos, n_neg = rows_pos.size, rows_neg.size
    total = n_pos + n_neg
    if total == 0:
        return 0
    if budget == 0:
        return _no_mistake_exits(col, g, rows_pos, rows_neg, neg_only)
    k = budget + 1
    pos = np.empty(n_pos)
    neg = np.empty(n_neg)
    for i in range(n_pos):
        r = rows_pos[i]
        pos[i] = g[r] + col[r]
    for i in range(n_neg):
        r = rows_neg[i]
        neg[i] = g[r] + col[r]
    x = np.empty(k)
    hist = np.empty(k + 1, dtype=np.int64)
    neg_exits = np.empty(k, dtype=np.int64)
    # negative side: x[b] = (b+1)-th smallest positive; exits = #pos < x[b] + #neg < x[b]
    mx = _select(pos, n_pos, k, x, 1.0)
    _side_exits(x, mx, neg, n_neg, 1.0, k, total, hist, neg_exits)
    best = 0
    if neg_only:
        for b in range(k):
            best = max(best, neg_exits[b])
        return min(best, total)
    # positive side: y[c] = (c+1)-th largest negative; exits = #neg > y[c] + #pos > y[c] (negated: below)
    pos_exits = np.empty(k, dtype=np.int64)
    my = _select(neg, n_neg, k, x, -1.0)
    _side_exits(x, my, pos, n_pos, -1.0, k, total, hist, pos_exits)
    for b in range(k):
        best = max(best, neg_exits[b] + pos_exits[budget - b])
    return min(best, total)


def candidate_exits(f_t: np.ndarray, g: np.ndarray, rows_pos: np.ndarray, rows_neg: np.ndarray,
                    candidates: np.ndarray, budget: int, neg_only: bool) -> np.ndarray:
    """Best Algorithm 2 exits of every candidate model at one QWYC* step.

    Parameters
    ----------
    f_t : numpy.ndarray of float64, shape (T, N)
        Contributions, one contiguous row per model (``F.T``).
    g : numpy.ndarray of float64, shape (N,)
        Running sums before this step.
    rows_pos, rows_neg : numpy.ndarray of int64
        Undecided rows whose full decision is positive / negative.
    candidates : numpy.ndarray of int64
        Models not yet in the order.
    budget : int
        Mistakes still allowed (>= 0).
    neg_only : bool
        Only negative exits.

    Returns
    -------
    numpy.ndarray of int64, shape (len(candidates),)
        The most examples each candidate lets exit with its optimal thresholds.
    """
    out = np.zeros(candidates.size, dtype=np.int64)
    for j in range(candidates.size):
        out[j] = _one_candidate(f_t[candidates[j]], g, rows_pos, rows_neg, budget, neg_only)
    return out


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
    _side_exits = njit(cache=True)(_side_exits)
    _one_candidate = njit(cache=True)(_one_candidate)
    _no_mistake_exits = njit(cache=True)(_no_mistake_exits)
    candidate_exits = njit(cache=True, nogil=True)(candidate_exits)
    sorted_exits = njit(cache=True)(sorted_exits)
    run_policy = njit(cache=True, nogil=True)(run_policy)
