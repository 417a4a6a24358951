"""Exact expected set losses of top-k decisions, ``L_k = E[L(top-k, Y)]`` for every k.

Natarajan, Koyejo, Ravikumar & Dhillon (ICML 2016), Algorithm 1. Items carry
calibrated probabilities ``eta_i = P(Y_i = 1)``; labels are independent. For the
top-k decision (items sorted by eta, descending) ``S1`` = positives among the top
k (Poisson-binomial of eta_1..eta_k), ``S2`` = positives among the rest,
``S = S1 + S2``; then ``TP = S1, FP = k - S1, FN = S2, TN = n - k - S2``.

Three ways to compute ``L_k`` for all k = 0..n:

* **Reference** (:func:`expected_losses_reference`): Algorithm 1 as written: for
  each k build both distributions from scratch and sum over every (S1, S2) pair.
  O(n^3).
* **Generic** (any loss): prefix distributions by forward convolution, suffix
  distributions from checkpoints kept every ~sqrt(n) steps of a backward pass
  (memory O(n^1.5), never all n prefixes), and the double sum restricted to the
  support where both distributions exceed ``1e-30`` (the dropped mass bounds the
  error: < 1e-26 for losses in [0, 1]). O(n^3) worst case, far less in practice.
* **Linear-fractional, O(n^2)** (F-beta, Jaccard, user metrics
  ``(c0 + c·(TP, FP, FN, TN)) / (d0 + d·(TP, FP, FN, TN))``): for fixed k the
  numerator and denominator are affine in (S1, S2). When the denominator depends
  on a single one of S, S2 or S1 (F-beta: ``k + beta² S``; Jaccard: ``k + S2``;
  recall: ``S``; precision: ``k``) the expectation needs one-dimensional tables
  only (derivation in the style of Ye, Chai, Lee & Chieu 2012):

  - denominator in **S**: ``E[(A + B S1 + C S)/(D + F S)] = Σ_s [P(S=s)(A + C s)
    + B J_k(s)] / (D + F s)`` with ``J_k(s) = E[S1 1{S=s}] = Σ_{i<=k} eta_i
    P(S_{-i} = s-1)``. ``P(S_{-i})`` (the batch without item i) is obtained in
    O(n) by deconvolving item i from ``P(S)`` with a first-order recursive
    filter, run forwards when eta_i <= 1/2 and backwards otherwise so that the
    error is never amplified (factor ``min(eta, 1-eta)/max(eta, 1-eta) <= 1``).
    Each k then costs O(n); memory O(n).
  - denominator in **S2**: independence of S1 and S2 gives ``E[S1 f(S2)] =
    E[S1] E[f(S2)]``; the suffix distributions come from a backward pass. O(n^2)
    time, O(n) memory. Denominator in **S1**: the mirror image.

  Other linear-fractional metrics (denominator mixing S1 and S2 with different
  weights) use the generic path.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import lfilter

from ..errors import InputError
from . import kernels
from ._losses import LinearFractional, SetLoss, get_loss
from .kernels import expected_pair_loss, reciprocals

__all__ = [
    "check_probabilities",
    "poisson_binomial",
    "sorted_probabilities",
    "expected_losses",
    "expected_losses_reference",
]

_TRUNCATE = 1e-30
# The compiled losses lie in [0, 1], so cutting at most _TAIL_MASS of probability from each end of
# each distribution changes L_k by at most 4 * _TAIL_MASS: far below double-precision resolution.
_TAIL_MASS = 1e-17


def check_probabilities(eta) -> np.ndarray:
    """Validate calibrated probabilities: a 1-D array of finite numbers in [0, 1].

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Probabilities ``P(Y_i = 1)``.

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        The probabilities.

    Raises
    ------
    ValueError
        Not one-dimensional, or values not finite or outside [0, 1] (the message lists
        the first five items, 1-based).
    """
    e = np.asarray(eta, dtype=float)
    if e.ndim != 1:
        raise InputError(f"probabilities must be one-dimensional; got shape {e.shape}")
    bad = ~np.isfinite(e) | (e < 0) | (e > 1)
    if bad.any():
        rows = ", ".join(str(i + 1) for i in np.flatnonzero(bad)[:5])
        raise InputError(
            f"probabilities must be numbers in [0, 1]; {int(bad.sum())} are not (items {rows}"
            f"{' ...' if bad.sum() > 5 else ''}). Use calibrated probabilities, not raw scores."
        )
    return e


def poisson_binomial(eta) -> np.ndarray:
    """PMF of the number of successes of independent Bernoulli(eta_i) (length n + 1), by convolution.

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Success probabilities.

    Returns
    -------
    numpy.ndarray of float64, shape (n + 1,)
        ``P(S = s)`` for s = 0..n. O(n²).
    """
    e = np.asarray(eta, dtype=float)
    pmf = np.zeros(e.size + 1)
    pmf[0] = 1.0
    for i, p in enumerate(e):
        head = pmf[: i + 2]
        head[1:] = head[1:] * (1 - p) + head[:-1] * p
        head[0] *= 1 - p
    return pmf


def _add_item(pmf: np.ndarray, size: int, p: float) -> None:
    """In place: pmf (support 0..size) convolved with Bernoulli(p) -> support 0..size+1."""
    head = pmf[: size + 2]
    head[1:] = head[1:] * (1 - p) + head[:-1] * p
    head[0] *= 1 - p


def _support(pmf: np.ndarray) -> tuple[int, int]:
    idx = np.flatnonzero(pmf > _TRUNCATE)
    if idx.size == 0:
        return 0, 1
    return int(idx[0]), int(idx[-1]) + 1


def _support_by_mass(pmf: np.ndarray) -> tuple[int, int]:
    """[lo, hi) keeping all but at most ``_TAIL_MASS`` of probability on each side."""
    cum = np.cumsum(pmf)
    lo = int(np.searchsorted(cum, _TAIL_MASS, side="right"))
    tail = np.cumsum(pmf[::-1])
    hi = pmf.size - int(np.searchsorted(tail, _TAIL_MASS, side="right"))
    return (lo, hi) if lo < hi else _support(pmf)


def sorted_probabilities(eta):
    e = check_probabilities(eta)
    order = np.argsort(-e, kind="stable")
    return e[order], order


def expected_losses_reference(eta, loss: str | SetLoss) -> np.ndarray:
    """Algorithm 1 of the paper as written: O(n^3). For tests and benchmarks.

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Calibrated probabilities in [0, 1].
    loss : str or SetLoss
        The set loss (a name accepted by :func:`~engine.setloss._losses.get_loss`).

    Returns
    -------
    numpy.ndarray of float64, shape (n + 1,)
        ``L_k``, the expected loss of flagging the k most probable items, k = 0..n.

    Raises
    ------
    ValueError
        Invalid probabilities or an unknown loss name.

    References
    ----------
    .. [1] Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
       Classification with Multivariate Losses.* ICML 2016, PMLR 48: Algorithm 1.
    """
    loss = get_loss(loss)
    e, _ = sorted_probabilities(eta)
    n = e.size
    out = np.empty(n + 1)
    for k in range(n + 1):
        q = poisson_binomial(e[:k])
        r = poisson_binomial(e[k:])
        a = np.arange(k + 1)[:, None]
        b = np.arange(n - k + 1)[None, :]
        out[k] = q @ loss(a, k - a, b, n - k - b) @ r
    return out


def _generic(e: np.ndarray, loss: SetLoss) -> np.ndarray:
    """Any loss: forward prefix PMFs, suffix PMFs regenerated from sqrt(n) checkpoints."""
    n = e.size
    compiled = loss.kernel in kernels.KERNELS
    reciprocal = reciprocals(n)
    step = max(1, int(math.ceil(math.sqrt(n + 1))))
    # backward pass: suffix PMF r_k (items k..n-1) kept at every step-th k
    checkpoints = {}
    r = np.zeros(n + 1)
    r[0] = 1.0
    for k in range(n, -1, -1):
        if k % step == 0 or k == n:
            checkpoints[k] = r.copy()
        if k > 0:
            _add_item(r, n - k, e[k - 1])
    out = np.empty(n + 1)
    q = np.zeros(n + 1)
    q[0] = 1.0
    for start in range(0, n + 1, step):
        stop = min(start + step, n + 1)
        # regenerate r_start .. r_{stop-1} from the checkpoint at `stop` (or n)
        anchor = stop if stop <= n and stop in checkpoints else n
        r = checkpoints[anchor].copy()
        block = {}
        for k in range(anchor, start - 1, -1):
            if k < stop:
                block[k] = r.copy()
            if k > start:
                _add_item(r, n - k, e[k - 1])
        for k in range(start, stop):
            support = _support_by_mass if compiled else _support
            qa, qb = support(q[: k + 1])
            ra, rb = support(block[k][: n - k + 1])
            a = np.arange(qa, qb)[:, None]
            b = np.arange(ra, rb)[None, :]
            if compiled:
                out[k] = expected_pair_loss(loss.kernel, q[qa:qb], qa, block[k][ra:rb], ra, k, n, reciprocal)
            else:
                out[k] = q[qa:qb] @ loss(a, k - a, b, n - k - b) @ block[k][ra:rb]
            if k < n:
                _add_item(q, k, e[k])
    return out


def _fractional_path(lf: LinearFractional, n: int) -> str | None:
    """Which one-dimensional table suffices: 's', 's2', 's1', or None (generic)."""
    d = lf.denominator
    e_coef = d[1] - d[2] - d[3] + d[4]  # coefficient of S1 with S held fixed
    f_coef = d[3] - d[4]  # coefficient of S
    if e_coef == 0:
        return "s"
    if f_coef == 0:
        return "s1"
    if e_coef + f_coef == 0:
        return "s2"
    return None


def _metric_terms(num, den):
    """num/den elementwise with the 0-denominator convention (metric 1)."""
    safe = np.where(den == 0, 1.0, den)
    return np.where(den == 0, 1.0, num / safe)


def _shifted_without_item(window: np.ndarray, p: float) -> np.ndarray:
    """``P(S_{-i} = s - 1)`` for the window's s values, given ``P(S = s)`` on that window.

    The window holds every s with probability above the truncation level, so the
    recursion may start at either edge with the outside taken as 0.
    """
    if p <= 0.5:  # forwards: q(s) on the window, then shift by one
        q = lfilter([1.0 / (1.0 - p)], [1.0, p / (1.0 - p)], window)
        return np.r_[0.0, q[:-1]]
    # backwards: q(s - 1) = (P(s) - (1 - p) q(s)) / p, starting above the window
    return lfilter([1.0 / p], [1.0, (1.0 - p) / p], window[::-1])[::-1]


def _fractional_s(e: np.ndarray, lf: LinearFractional) -> np.ndarray:
    """Denominator D + F·S: tables P(S=s) and J_k(s) = E[S1 1{S=s}], O(width) per k.

    Work is restricted to the window of s where P(S = s) > 1e-30 (the dropped
    mass changes no printed digit: < n·1e-30 for metrics in [0, 1]).
    """
    n = e.size
    p_full = poisson_binomial(e)
    lo, hi = _support(p_full)
    p_s = p_full[lo:hi]
    s = np.arange(lo, hi, dtype=float)
    j = np.zeros(hi - lo)
    out = np.empty(n + 1)
    for k in range(n + 1):
        if k > 0:
            # E[Y_k 1{S = s}] = eta_k P(S without item k = s - 1)
            j += e[k - 1] * _shifted_without_item(p_s, e[k - 1])
        a, b, c, d, _, f = lf.affine_in_s1_s(n, k)
        den = d + f * s
        zero = den == 0
        safe = np.where(zero, 1.0, den)
        out[k] = np.where(zero, p_s, (p_s * (a + c * s) + b * j) / safe).sum()
    return out


def _fractional_s2(e: np.ndarray, lf: LinearFractional) -> np.ndarray:
    """Denominator D + F·S2 (depends on the suffix only): E[S1 f(S2)] = E[S1] E[f(S2)]."""
    n = e.size
    out = np.empty(n + 1)
    r = np.zeros(n + 1)
    r[0] = 1.0
    mean_s1 = np.r_[0.0, np.cumsum(e)]
    for k in range(n, -1, -1):
        a, b, c, d, _, f = lf.affine_in_s1_s(n, k)
        # in (S1, S2): numerator a + (b + c) S1 + c S2, denominator d + f S2
        s2 = np.arange(n - k + 1, dtype=float)
        den = d + f * s2
        zero = den == 0
        safe = np.where(zero, 1.0, den)
        pmf = r[: n - k + 1]
        out[k] = np.where(zero, pmf, pmf * (a + c * s2 + (b + c) * mean_s1[k]) / safe).sum()
        if k > 0:
            _add_item(r, n - k, e[k - 1])
    return out


def _fractional_s1(e: np.ndarray, lf: LinearFractional) -> np.ndarray:
    """Denominator D + (E+F)·S1 (depends on the prefix only): E[S2 f(S1)] = E[S2] E[f(S1)]."""
    n = e.size
    out = np.empty(n + 1)
    q = np.zeros(n + 1)
    q[0] = 1.0
    mean_s2 = np.r_[np.cumsum(e[::-1])[::-1], 0.0]
    for k in range(n + 1):
        a, b, c, d, ee, f = lf.affine_in_s1_s(n, k)
        s1 = np.arange(k + 1, dtype=float)
        den = d + (ee + f) * s1
        zero = den == 0
        safe = np.where(zero, 1.0, den)
        pmf = q[: k + 1]
        out[k] = np.where(zero, pmf, pmf * (a + (b + c) * s1 + c * mean_s2[k]) / safe).sum()
        if k < n:
            _add_item(q, k, e[k])
    return out


def expected_losses(eta, loss: str | SetLoss, *, method: str = "auto") -> np.ndarray:
    """Exact ``E[L(top-k, Y)]`` for k = 0..n, ``Y_i ~ Bernoulli(eta_i)`` independent.

    ``top-k`` are the k items with the largest eta (stable order among ties; ties
    do not change the expectation).

    Parameters
    ----------
    eta : array_like of float, shape (n,)
        Calibrated probabilities ``eta_i = P(Y_i = 1)`` in [0, 1].
    loss : str or SetLoss
        The set loss (a name accepted by :func:`~engine.setloss._losses.get_loss`).
    method : {"auto", "fractional", "generic", "reference"}, optional
        ``auto``: the O(n²) linear-fractional path when it applies, else generic;
        ``fractional`` insists on the O(n²) path; ``reference`` is Algorithm 1 as written.

    Returns
    -------
    numpy.ndarray of float64, shape (n + 1,)
        ``L_k`` for k = 0..n.

    Raises
    ------
    ValueError
        Invalid probabilities, an unknown loss or method, or ``fractional`` for a loss
        whose denominator mixes S1 and S2.

    References
    ----------
    .. [1] Natarajan, N., Koyejo, O., Ravikumar, P. & Dhillon, I. S. (2016). *Optimal
       Classification with Multivariate Losses.* ICML 2016, PMLR 48: Algorithm 1 (the expected loss of every top-k decision).

    Examples
    --------
    >>> from engine import expected_losses
    >>> expected_losses([0.9, 0.6, 0.3, 0.1], "f1").round(4).tolist()  # E[1 - F1] of flagging the top k, k = 0..4
    [0.9748, 0.3611, 0.2493, 0.2939, 0.3815]
    """
    loss = get_loss(loss)
    e, _ = sorted_probabilities(eta)
    if method == "reference":
        return expected_losses_reference(e, loss)
    path = _fractional_path(loss.fractional, e.size) if loss.fractional is not None else None
    if method == "fractional" and path is None:
        raise InputError(f"{loss.name} has no O(n^2) path: its denominator mixes S1 and S2")
    if method in ("auto", "fractional") and path is not None:
        fn = {"s": _fractional_s, "s2": _fractional_s2, "s1": _fractional_s1}[path]
        return 1.0 - fn(e, loss.fractional)  # type: ignore[arg-type]
    if method not in ("auto", "generic"):
        raise InputError("method must be auto, fractional, generic or reference")
    return _generic(e, loss)
