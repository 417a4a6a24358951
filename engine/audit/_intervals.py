"""Intervals for the number of positives in a stratified random sample without replacement.

An audit reviews ``n_h`` of the ``N_h`` documents of each score stratum h (simple random
sampling without replacement inside each stratum) and finds ``y_h`` positives. The number
of positives ``T = sum_h M_h`` is estimated by the stratified expansion estimator
``T_hat = sum_h N_h y_h / n_h`` (Cochran, *Sampling Techniques*, 3rd ed. 1977, eq. 5.1 and
5.6), and bracketed by one of five intervals:

``"score"`` (the default)
    The score (Wilson) interval of a stratified total: the totals ``T0`` not rejected by Rao's
    score test of ``sum_h (y_h + m_h p_h) = T0`` (``m_h = N_h - n_h`` unreviewed documents),
    i.e. ``(T_hat - T0)^2 <= z^2 V(p~)`` with Cochran's variance (eq. 5.52, finite-population
    correction) evaluated at the prevalences ``p~`` that maximise the audit's likelihood under
    that total, not at the estimates. A stratum where the audit found nothing thus still gets
    the prevalence the likelihood allows under ``T0``, and its unreviewed documents widen the
    interval: it stays honest with zero or few positives per stratum. With one stratum it is
    Wilson's interval (Wilson, *JASA* 22, 1927; with the finite-population correction, ``z^2``
    scaled by ``N^2 / (m (N - 1))``). Score intervals for weighted sums of proportions: Decrouez
    & Robinson, *Aust. N. Z. J. Stat.* 54 (2012); recommended over Wald and Jeffreys-type
    intervals for small counts: Brown, Cai & DasGupta, *Statistical Science* 16 (2001).
``"jeffreys"``
    Each stratum's prevalence gets the Jeffreys prior Beta(1/2, 1/2); the positives among its
    unreviewed documents follow the beta-binomial posterior predictive (Ericson, *JRSS B* 31,
    1969), and the equal-tailed quantiles of their sum (computed by convolution, no Monte Carlo)
    bound ``T``. Good for one stratum, but the half pseudo-positive each stratum's prior adds is
    scaled by its weight ``N_h / n_h``: with several strata that find nothing the interval
    drifts above the truth.
``"wilson"``
    Wilson's interval with the design's effective sample size ``n* = p_hat (1 - p_hat) / v_hat``
    (at most ``n``; ``n`` when ``v_hat = 0``): Korn & Graubard, *Survey Methodology* 24 (1998).
``"wald"``
    ``T_hat ± z sqrt(v_hat)`` with Cochran's variance (eq. 5.7): no width when no stratum finds
    a positive — the textbook baseline.
``"exact"``
    Conservative: per stratum the exact hypergeometric bounds at level ``1 - (1 - level) / H``
    (Bonferroni over the H strata), summed. Above :data:`HYPERGEOMETRIC_DOCUMENTS` documents in a
    stratum (where SciPy's hypergeometric tails lose accuracy and take seconds) the bounds are
    Clopper-Pearson's on the stratum's prevalence, scaled by its documents and rounded outwards:
    the hypergeometric's binomial limit, at most ``n_h / N_h`` apart.

Every count is a whole number with ``1 <= n_h <= N_h <= 2**53`` and ``0 <= y_h <= n_h``.

``benchmarks/bench_audit.py`` compares the five by simulation on public data with every label
known (coverage and width); :mod:`engine.audit` gives the results and why the score interval is
the default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats
from scipy.signal import fftconvolve

from .._arguments import number_array, real_number
from ..errors import InputError
from ..intervals import clopper_pearson

__all__ = [
    "Interval",
    "METHODS",
    "total_interval",
    "prevalence_intervals",
    "expansion_estimate",
    "stratified_variance",
    "sum_distribution",
    "check_level",
    "LATTICE_POINTS",
    "HYPERGEOMETRIC_DOCUMENTS",
]

#: the interval methods, the default first
METHODS = ("score", "jeffreys", "wilson", "wald", "exact")
#: most lattice points of the convolved distribution; above, counts are grouped into cells of equal width
LATTICE_POINTS = 1 << 16
#: probability left out of each stratum's posterior predictive (its far upper tail)
TAIL = 1e-12
#: the beta-binomial's exact probabilities are used up to this many unreviewed documents
EXACT_PMF = 1 << 16
#: the exact method's hypergeometric bounds are used up to this many documents in a stratum (binomial above)
HYPERGEOMETRIC_DOCUMENTS = 10**9


@dataclass(frozen=True)
class Interval:
    """A point estimate with an interval.

    Attributes
    ----------
    estimate : float
        The point estimate.
    lower, upper : float
        The interval's bounds.
    """

    estimate: float
    lower: float
    upper: float

    def as_dict(self) -> dict:
        """``{"estimate", "lower", "upper"}`` as plain floats."""
        return {"estimate": float(self.estimate), "lower": float(self.lower), "upper": float(self.upper)}

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.upper - self.lower) / 2

    def map(self, func) -> Interval:
        """The interval of ``func`` of the quantity, for a monotone ``func`` (bounds swapped when decreasing).

        Parameters
        ----------
        func : callable
            Monotone function of the quantity.

        Returns
        -------
        Interval
        """
        lo, hi = func(self.lower), func(self.upper)
        return Interval(func(self.estimate), min(lo, hi), max(lo, hi))


def check_level(level: float) -> float:
    """The interval level as a float in (0, 1).

    Parameters
    ----------
    level : float

    Returns
    -------
    float

    Raises
    ------
    InputError
        Not a number strictly between 0 and 1.
    """
    value = real_number(level, "--level", what="an interval level in (0, 1), e.g. 0.95")
    if not 0 < value < 1:
        raise InputError(f"level must be in (0, 1) (e.g. 0.95), got {level!r}")
    return value


def _counts(documents, audited, positives) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    big_n, n, y = (
        number_array(v, w, whole=True)
        for v, w in ((documents, "documents"), (audited, "audited"), (positives, "positives"))
    )
    if not (big_n.shape == n.shape == y.shape) or big_n.size == 0:
        raise InputError("documents, audited and positives need one value per stratum (at least one stratum)")
    if (n < 1).any() or (n > big_n).any() or (y < 0).any() or (y > n).any():
        raise InputError("every stratum needs 1 <= audited <= documents and 0 <= positives <= audited")
    return big_n, n, y


def expansion_estimate(documents, audited, positives) -> float:
    """The stratified expansion estimate of the number of positives, ``sum_h N_h y_h / n_h``.

    Parameters
    ----------
    documents, audited, positives : array_like of int
        Per stratum: documents ``N_h``, reviewed ``n_h``, positives found ``y_h``.

    Returns
    -------
    float

    References
    ----------
    Cochran (1977), *Sampling Techniques*, eq. 5.1 and Theorem 5.1 (unbiased).
    """
    big_n, n, y = _counts(documents, audited, positives)
    return float(np.sum(big_n * y / n))


def stratified_variance(documents, audited, positives) -> float:
    """Cochran's unbiased variance estimate of the expansion estimate (with finite-population correction).

    Parameters
    ----------
    documents, audited, positives : array_like of int
        Per stratum ``N_h``, ``n_h``, ``y_h``.

    Returns
    -------
    float
        ``sum_h N_h^2 (1 - n_h / N_h) s_h^2 / n_h`` with ``s_h^2 = n_h p_h (1 - p_h) / (n_h - 1)``
        (0 for a stratum with one reviewed document).

    References
    ----------
    Cochran (1977), eq. 5.7 and 5.53 (proportions).
    """
    big_n, n, y = _counts(documents, audited, positives)
    p = y / n
    s2 = np.where(n > 1, n * p * (1 - p) / np.maximum(n - 1, 1), 0.0)
    return float(np.sum(big_n.astype(float) ** 2 * (1 - n / big_n) * s2 / n))


def _z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + level / 2))


def _clip(found: float, most: float, lo: float, hi: float) -> tuple[float, float]:
    """Bounds kept within what is possible: at least the positives found, at most every candidate."""
    return float(min(max(lo, found), most)), float(min(max(hi, found), most))


def _wald(big_n, n, y, level: float) -> tuple[float, float]:
    t = float(np.sum(big_n * y / n))
    half = _z(level) * math.sqrt(stratified_variance(big_n, n, y))
    return t - half, t + half


def _wilson(big_n, n, y, level: float) -> tuple[float, float]:
    total = float(big_n.sum())
    p = float(np.sum(big_n * y / n)) / total
    v = stratified_variance(big_n, n, y) / total**2
    n_eff = float(n.sum()) if v <= 0 else min(float(n.sum()), p * (1 - p) / v)
    z = _z(level)
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2))
    return total * (centre - half), total * (centre + half)


def _constrained_prevalence(weight, n, y, lam) -> np.ndarray:
    """Per stratum, the p_h maximising the binomial log-likelihood minus ``lam * sum_h w_h p_h``.

    Stationarity ``y/p - (n - y)/(1 - p) = a`` (``a = lam w``; the left side decreases in p) is
    the quadratic ``a p^2 - (a + n) p + y = 0``; its root in [0, 1], written without cancellation
    for each sign of ``a``: a stratum with no positive stays at 0 until ``a < -n``, one with only
    positives at 1 until ``a > n``; a stratum of weight 0 stays at ``y / n``. ``lam`` is a scalar
    or a column of multipliers of one sign (broadcast against the strata).
    """
    lam = np.asarray(lam, dtype=float)
    if not lam.any():
        return np.broadcast_to(y / n, np.broadcast(lam, y).shape)
    a = lam * weight
    if (lam > 0).all():
        p = 2 * y / ((a + n) + np.sqrt(np.maximum((a + n) ** 2 - 4 * a * y, 0.0)))
    else:
        c = -a
        d = c - n
        r = np.sqrt(d * d + 4 * c * y)
        p = np.where(d > 0, (d + r) / np.where(d > 0, 2 * c, 1.0), 2 * y / np.where(d > 0, 1.0, r - d))
    return np.clip(p, 0.0, 1.0)  # rounding can step a hair outside


def _score(big_n, n, y, level: float) -> tuple[float, float]:
    """The score interval, traced along the Lagrange multiplier (no nested root finding).

    The positives are ``T = sum_h (y_h + U_h)`` with ``U_h`` those among the ``m_h = N_h - n_h``
    unreviewed documents of stratum h. For a multiplier ``lam`` the prevalences ``p(lam)``
    maximise the likelihood of the audit under ``sum_h m_h p_h = T0 - sum_h y_h``, so
    ``T0(lam) = sum_h (y_h + m_h p_h(lam))`` (decreasing in ``lam``; ``T0(0) = T_hat``); the
    score statistic is ``S = (T_hat - T0)^2 / V(p(lam))`` with Cochran's variance (finite
    population correction included: a fully reviewed stratum neither moves nor adds variance).
    Each bound is the ``T0`` where ``S`` reaches ``z^2`` (``lam > 0`` lower, ``lam < 0`` upper),
    found on ``log |lam|`` by seven rounds of a 129-point grid (each round keeps the cell where ``S``
    crosses ``z^2``: about 2e-12 of ``log |lam|`` in the end).
    """
    n_f, y_f, big_f = n.astype(float), y.astype(float), big_n.astype(float)
    m = big_f - n_f
    z2 = _z(level) ** 2
    found = float(y_f.sum())
    t_hat = found + float(np.sum(m * y_f / n_f))
    fpc = np.where(big_f > 1, m / np.maximum(big_f - 1, 1), 0.0)

    def at(lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # (T0, S) at each multiplier
        p = _constrained_prevalence(m, n_f, y_f, lam[:, None])
        total = found + p @ m
        var = (p * (1 - p)) @ (big_f**2 * fpc / n_f)
        gap = (t_hat - total) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where(var > 0, gap / var, np.inf)
        return total, np.where(np.abs(total - t_hat) <= 1e-12 * max(1.0, t_hat), 0.0, stat)

    def bound(sign: float) -> float:
        lo, hi = -745.0, 230.0  # log |lam|: from the smallest double to (lam m)^2 still finite
        for _ in range(7):
            grid = np.linspace(lo, hi, 129)
            _, stat = at(sign * np.exp(grid))
            over = np.flatnonzero(stat > z2)
            if over.size == 0:
                return float(at(np.array([sign * math.exp(hi)]))[0][0])
            k = max(int(over[0]), 1)  # the grid's first point (lo) is inside: S <= z^2 there
            lo, hi = grid[k - 1], grid[k]
        return float(at(np.array([sign * math.exp(lo)]))[0][0])

    return bound(1.0), bound(-1.0)


def _binomial_bounds(big_n: int, n: int, y: int, alpha: float) -> tuple[int, int]:
    """Clopper-Pearson bounds on the prevalence scaled by ``big_n``, rounded outwards (a large stratum)."""
    low, high = clopper_pearson(y, n, level=1 - alpha)
    most = big_n - (n - y)
    return max(y, min(math.floor(low * big_n), most)), max(y, min(math.ceil(high * big_n), most))


def _hypergeometric_bounds(big_n: int, n: int, y: int, alpha: float) -> tuple[int, int]:
    """Exact bounds on the positives M of one stratum: each tail at ``alpha / 2`` (binomial for a huge stratum)."""
    if big_n > HYPERGEOMETRIC_DOCUMENTS:
        return _binomial_bounds(big_n, n, y, alpha)

    def lower_ok(m):  # P(Y >= y | M = m) > alpha / 2: m not rejected from below
        return stats.hypergeom.sf(y - 1, big_n, m, n) > alpha / 2

    def upper_ok(m):
        return stats.hypergeom.cdf(y, big_n, m, n) > alpha / 2

    most = big_n - (n - y)
    lo, hi = y, most  # smallest m with lower_ok (monotone increasing in m)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if lower_ok(mid) else (mid + 1, hi)
    lower = lo
    lo, hi = y, most  # largest m with upper_ok (monotone decreasing in m)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if upper_ok(mid) else (lo, mid - 1)
    return lower, lo


def _exact(big_n, n, y, level: float) -> tuple[float, float]:
    alpha = (1 - level) / big_n.size
    bounds = [_hypergeometric_bounds(int(a), int(b), int(c), alpha) for a, b, c in zip(big_n, n, y)]
    return float(sum(b[0] for b in bounds)), float(sum(b[1] for b in bounds))


def _predictive_cdf(m: int, a: float, b: float, edges: np.ndarray) -> np.ndarray:
    """P(U <= edges) for U ~ BetaBin(m, a, b); exact up to :data:`EXACT_PMF` documents, else the Beta limit.

    Above :data:`EXACT_PMF` unreviewed documents the lattice groups at least two counts per cell, and
    ``U / m`` is within O(1/m) of Beta(a, b) (the beta-binomial's limit), far finer than a cell.
    """
    if m <= EXACT_PMF:
        top = int(min(m, max(edges.max(), 0)))
        cdf = np.cumsum(stats.betabinom.pmf(np.arange(top + 1), m, a, b))
        idx = np.clip(np.floor(edges).astype(np.int64), -1, top)
        out = np.where(idx < 0, 0.0, cdf[np.maximum(idx, 0)])
        return np.where(edges >= m, 1.0, np.minimum(out, 1.0))
    return special.betainc(a, b, np.clip((np.floor(edges) + 0.5) / m, 0.0, 1.0))


def sum_distribution(unreviewed, a, b, *, tail: float = TAIL, max_points: int = LATTICE_POINTS):
    """The distribution of a sum of independent beta-binomial counts, by convolution on a lattice.

    Parameters
    ----------
    unreviewed : array_like of int
        ``m_h``: each count's number of trials (a stratum's unreviewed documents).
    a, b : array_like of float
        Each count's beta parameters (``y_h + 1/2``, ``n_h - y_h + 1/2`` for Jeffreys).
    tail : float
        Upper-tail probability of each count left out of the support.
    max_points : int
        Most lattice points; above, counts are grouped into cells of ``step`` documents.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Values (ascending) and their probabilities (summing to 1): exact for step 1 (the
        support up to ``max_points``), else each value is a cell's middle, so quantiles are
        within ``H * step / 2`` of the exact ones (``step`` about ``support / max_points``).

    References
    ----------
    Ericson (1969): the beta-binomial posterior predictive of a finite population's positives.
    """
    m = np.asarray(unreviewed, dtype=np.int64)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    tops = np.where(m > 0, np.minimum(m, np.ceil(m * special.betaincinv(a, b, 1 - tail)) + 1), 0).astype(np.int64)
    step = max(1, int(math.ceil(tops.sum() / max_points)))
    pmf, offset = np.ones(1), 0.0
    for m_h, a_h, b_h, top in zip(m, a, b, tops):
        if m_h == 0:
            continue
        cells = int(top // step) + 1
        edges = np.arange(cells) * step + (step - 1)  # cell j holds the counts j*step .. j*step + step - 1
        cdf = _predictive_cdf(int(m_h), float(a_h), float(b_h), edges.astype(float))
        part = np.diff(np.r_[0.0, cdf])
        part[-1] += max(0.0, 1.0 - cdf[-1])  # the tail left out goes to the last cell
        pmf = fftconvolve(pmf, part) if min(pmf.size, part.size) > 64 else np.convolve(pmf, part)
        pmf = np.clip(pmf, 0.0, None)
        offset += (step - 1) / 2
    pmf /= pmf.sum()
    return np.arange(pmf.size) * float(step) + offset, pmf


def _quantiles(values: np.ndarray, pmf: np.ndarray, probs) -> np.ndarray:
    """``min{x : P(X <= x) >= p}`` for each p (float-safe: a hair of slack on the cumulative sums)."""
    cdf = np.cumsum(pmf)
    idx = np.searchsorted(cdf, np.asarray(probs) - 1e-12, side="left")
    return values[np.minimum(idx, values.size - 1)]


def _jeffreys(big_n, n, y, level: float) -> tuple[float, float]:
    values, pmf = sum_distribution(big_n - n, y + 0.5, n - y + 0.5)
    lo, hi = _quantiles(values, pmf, [(1 - level) / 2, (1 + level) / 2])
    # whole documents, rounded outwards (cell middles on a coarse lattice are not integers)
    return float(y.sum() + math.floor(lo)), float(y.sum() + math.ceil(hi))


_METHODS = {"jeffreys": _jeffreys, "score": _score, "wilson": _wilson, "wald": _wald, "exact": _exact}


def _method(method: str):
    if method not in _METHODS:
        raise InputError(f"unknown interval method {method!r}; choose one of {', '.join(METHODS)}")
    return _METHODS[method]


def total_interval(documents, audited, positives, *, level: float = 0.95, method: str = "score") -> Interval:
    """The number of positives in all strata: the expansion estimate and an interval.

    Parameters
    ----------
    documents, audited, positives : array_like of int
        Per stratum: documents ``N_h``, reviewed ``n_h`` (>= 1), positives found ``y_h``.
    level : float
        Interval level in (0, 1).
    method : {"jeffreys", "wilson", "wald", "exact"}
        See the module docstring.

    Returns
    -------
    Interval
        ``estimate = sum_h N_h y_h / n_h``; bounds within ``[sum_h y_h, sum_h (N_h - n_h + y_h)]``.

    Raises
    ------
    InputError
        Inconsistent counts, a level outside (0, 1) or an unknown method.

    References
    ----------
    Cochran (1977), ch. 5; Brown, Cai & DasGupta (2001); Korn & Graubard (1998); Ericson (1969).
    """
    level = check_level(level)
    big_n, n, y = _counts(documents, audited, positives)
    lo, hi = _method(method)(big_n, n, y, level)
    lo, hi = _clip(float(y.sum()), float(np.sum(big_n - n + y)), lo, hi)
    estimate = float(np.sum(big_n * y / n))
    # the interval holds its estimate: Jeffreys' equal tails can exclude it when no (or every) audited document
    # is positive, where Brown, Cai & DasGupta (2001) set the bound to the estimate itself
    return Interval(estimate, min(lo, estimate), max(hi, estimate))


def prevalence_intervals(
    documents, audited, positives, *, level: float = 0.95, method: str = "score"
) -> list[Interval]:
    """Each stratum's prevalence (its positives / its documents) with an interval.

    Parameters
    ----------
    documents, audited, positives : array_like of int
        Per stratum ``N_h``, ``n_h``, ``y_h``.
    level : float
        Interval level in (0, 1).
    method : {"jeffreys", "wilson", "wald", "exact"}
        As for :func:`total_interval`, applied to one stratum (``exact`` without the Bonferroni split).

    Returns
    -------
    list of Interval
        ``y_h / n_h`` and the bounds of the stratum's positives divided by ``N_h``.

    References
    ----------
    Brown, Cai & DasGupta (2001) (Jeffreys); Ericson (1969) (finite population).
    """
    big_n, n, y = _counts(documents, audited, positives)
    return [
        total_interval([a], [b], [c], level=level, method=method).map(lambda t, a=a: t / a)
        for a, b, c in zip(big_n, n, y)
    ]
