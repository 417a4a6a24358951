"""The rated documents nearest a threshold in each period, and exact binomial bounds on their share of positives.

**Marginal precision at T.** The engine's marginal precision is the share of positives
among the documents added by lowering the threshold (the slope of the PN curve, its hull
being the isotonic fit of label on score). With ``m(s) = P(positive | score s)``
non-decreasing — the assumption under which the hull's slope *is* the marginal precision —
every document just above T has ``m(s) >= m(T)`` and every document just below has
``m(s) <= m(T)``. So, per period, with the window ``A`` of the ``k`` rated documents with
the lowest scores at or above T and the window ``B`` of the ``k`` with the highest scores
below T (whole score levels, so a window may hold more than k documents):

* a one-sided Clopper–Pearson **upper** bound at ``α/2`` on A's share of positives is an
  upper bound on ``m(T)``, and a one-sided **lower** bound on B's share a lower bound, so
  ``[lower_B, upper_A]`` covers ``m(T)`` with probability at least ``1 − α`` (for
  independent labels with unequal probabilities the binomial tails stay conservative far
  from the mean: Hoeffding 1956). The point estimate is the period's isotonic fit at T
  (the engine's own definition); the interval is widened to hold it if noise puts it
  outside. Without rated documents below T (only flagged documents rated) the lower bound is 0.
* The same bounds at every score of a period give the **confidence set of the re-solved
  threshold** for a target M by test inversion: threshold t stays in the set unless
  ``upper_A(t) < M`` (the documents it admits last are worse than M) or ``lower_B(t) > M``
  (the ones it leaves out are better). At the true crossing both hold with probability
  at least ``1 − α``. The interval is the set's span, widened to hold the period's own
  operating point.

The bootstrap is not used here: it is inconsistent for isotonic estimators at a point
(Sen, Banerjee & Woodroofe 2010), and these bounds need only counts.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in
the case of the binomial. *Biometrika* 26(4):404-413.
Hoeffding, W. (1956). On the distribution of the number of successes in independent trials.
*Annals of Mathematical Statistics* 27(3):713-721.
Sen, B., Banerjee, M. & Woodroofe, M. (2010). Inconsistency of bootstrap: the Grenander estimator.
*Annals of Statistics* 38(4):1953-1977.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = [
    "upper_bound_reaches",
    "lower_bound_reaches",
    "cumulative",
    "above_window",
    "below_window",
]


def _ppf(alpha: float, n: np.ndarray, p: float) -> np.ndarray:
    """``binom.ppf(alpha, n, p)`` computed once per distinct n."""
    values, inverse = np.unique(n.astype(np.int64), return_inverse=True)
    return stats.binom.ppf(alpha, values, p)[inverse.reshape(n.shape)]


def upper_bound_reaches(x, n, target: float, alpha: float) -> np.ndarray:
    """Whether the one-sided Clopper–Pearson upper bound at ``alpha`` reaches ``target`` (True where n = 0).

    ``upper(x, n) >= M`` iff ``P(Bin(n, M) <= x) >= alpha``, i.e. ``x >= binom.ppf(alpha, n, M)``:
    the exact binomial test of "share >= M" does not reject.

    Parameters
    ----------
    x, n : array_like of int
        Positives and documents.
    target : float
        M in (0, 1).
    alpha : float
        One-sided error.

    Returns
    -------
    numpy.ndarray of bool
    """
    x, n = np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64)
    return (n <= 0) | (x >= _ppf(alpha, n, target))


def lower_bound_reaches(x, n, target: float, alpha: float) -> np.ndarray:
    """Whether the one-sided Clopper–Pearson lower bound at ``alpha`` is at most ``target`` (True where n = 0).

    ``lower(x, n) <= M`` iff ``P(Bin(n, M) >= x) >= alpha``, i.e. ``n − x >= binom.ppf(alpha, n, 1 − M)``.

    Parameters
    ----------
    x, n : array_like of int
        Positives and documents.
    target : float
        M in (0, 1).
    alpha : float
        One-sided error.

    Returns
    -------
    numpy.ndarray of bool
    """
    x, n = np.asarray(x, dtype=np.float64), np.asarray(n, dtype=np.float64)
    return (n <= 0) | (n - x >= _ppf(alpha, n, 1.0 - target))


def cumulative(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Documents and positives through each level, with a leading 0: ``C[i]`` counts levels ``< i``.

    Parameters
    ----------
    pos, neg : numpy.ndarray
        Positives and negatives of each level (periods one after the other).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        C (documents) and P (positives), each of length L + 1.
    """
    return np.r_[0.0, np.cumsum(pos + neg)], np.r_[0.0, np.cumsum(pos)]


def above_window(C: np.ndarray, P: np.ndarray, cut: np.ndarray, lo: np.ndarray, k: int):
    """Positives and documents of the fewest whole levels just above ``cut`` holding at least k documents.

    Parameters
    ----------
    C, P : numpy.ndarray
        :func:`cumulative` counts.
    cut : numpy.ndarray of int
        First level *not* flagged (levels ``< cut`` are at or above the threshold).
    lo : numpy.ndarray of int
        First level of the period (the window stops there).
    k : int
        Documents wanted.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Positives and documents in the window (fewer than k documents when the period has fewer).
    """
    start = np.searchsorted(C, C[cut] - k, side="right") - 1
    start = np.clip(start, lo, cut)
    return P[cut] - P[start], C[cut] - C[start]


def below_window(C: np.ndarray, P: np.ndarray, cut: np.ndarray, hi: np.ndarray, k: int):
    """Positives and documents of the fewest whole levels from ``cut`` down holding at least k documents.

    Parameters
    ----------
    C, P : numpy.ndarray
        :func:`cumulative` counts.
    cut : numpy.ndarray of int
        First level below the threshold.
    hi : numpy.ndarray of int
        One past the period's last level (the window stops there).
    k : int
        Documents wanted.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Positives and documents in the window.
    """
    stop = np.searchsorted(C, C[cut] + k, side="left")
    stop = np.clip(stop, cut, hi)
    return P[stop] - P[cut], C[stop] - C[cut]
