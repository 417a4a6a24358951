"""The audit's design: score strata below the review line, sample sizes per stratum, and planned precision.

**Strata** are intervals of score below the review threshold T whose bounds are order
statistics of the below-line scores at fixed quantile levels — ``numpy.quantile(...,
method="inverted_cdf")``, found on every backend at the same ranks (:func:`quantile_ranks`),
so the strata are identical whether the population is counted in memory, by DuckDB or by
Spark. ``"geometric"`` spacing (the default) halves the strata towards the line (the lowest
holds half the documents, the next a quarter ..., the top two ``2**-(K-1)`` each): missed
positives of a useful classifier crowd just below the line, and narrow strata there let the
allocation sample them more densely. ``"quantile"`` spacing makes K equal-count strata.

**Allocation** of a budget n (Cochran, *Sampling Techniques*, 1977, §5.5): proportional
(``n_h ∝ N_h``), Neyman (``n_h ∝ N_h S_h`` with ``S_h = sqrt(p_h (1 - p_h))`` from an
anticipated prevalence ``p_h``: a prior probability column or a pilot audit; Cochran eq. 5.26)
or equal. Every stratum gets at least :data:`MIN_PER_STRATUM` documents (never an empty
stratum) and at most all of its documents; the real-valued allocation is rounded by largest
remainders.

Neyman's rule here takes each stratum's anticipated prevalence as at least the below-line
average ``sum_h N_h p_h / N``. A model's probabilities far below the line are the least
trustworthy (on satimage-2, 6 of the 15 positives below the line sit among the lowest-scored
half, where a logistic model says ~1e-12), and plain Neyman then reviews 2 documents of a
stratum of thousands: the interval that stays honest about that stratum becomes 3–4 times wider
than simple random sampling's. With the floor, the simulations of ``benchmarks/bench_audit.py``
gave intervals as narrow as or narrower than proportional allocation's while finding 3–4 times
more positives.

**Planned precision**: the expected half-width of the interval of the positives below the
line is ``z sqrt(V)`` with Cochran's variance of a stratified proportion under simple random
sampling without replacement, ``V = sum_h N_h^2 (N_h - n_h) / (N_h - 1) p_h q_h / n_h``
(eq. 5.52, scaled to totals) — the normal approximation used for sample sizes (eq. 5.25).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from .._arguments import number_array, real_number, whole_number
from ..errors import InputError

__all__ = [
    "SPACINGS",
    "ALLOCATIONS",
    "MIN_PER_STRATUM",
    "MAX_STRATA",
    "stratum_levels",
    "quantile_ranks",
    "strata_bounds",
    "allocate",
    "expected_half_width",
    "budget_for_half_width",
    "pilot_prevalence",
]

SPACINGS = ("geometric", "quantile")
ALLOCATIONS = ("proportional", "neyman", "equal")
#: fewest documents reviewed in a stratum (two: a stratum's variance needs two)
MIN_PER_STRATUM = 2
#: most strata a plan has (geometric strata: the top two hold 2**-39 of the documents each)
MAX_STRATA = 40


def stratum_levels(strata: int, spacing: str = "geometric") -> np.ndarray:
    """The quantile levels (strictly between 0 and 1) whose scores separate the strata.

    Parameters
    ----------
    strata : int
        Number of strata K (>= 1).
    spacing : {"geometric", "quantile"}
        ``geometric``: levels ``1 - 2**-k`` (k = 1 .. K-1), strata halving towards the line;
        ``quantile``: levels ``k / K``, equal-count strata.

    Returns
    -------
    numpy.ndarray
        K - 1 ascending levels.

    Raises
    ------
    InputError
        K not a whole number from 1 to :data:`MAX_STRATA`, or an unknown spacing.
    """
    if spacing not in SPACINGS:
        raise InputError(f"unknown strata spacing {spacing!r}; choose one of {', '.join(SPACINGS)}")
    if isinstance(strata, bool) or not isinstance(strata, (int, np.integer)) or not 1 <= strata <= MAX_STRATA:
        raise InputError(f"--strata must be a whole number from 1 to {MAX_STRATA}, got {strata!r}")
    k = np.arange(1, int(strata))
    return 1.0 - 2.0**-k if spacing == "geometric" else k / int(strata)


def quantile_ranks(n: int, levels) -> np.ndarray:
    """0-based ranks of the sorted values that ``numpy.quantile(x, levels, method="inverted_cdf")`` reads.

    numpy's arithmetic: virtual index ``n * q - 1``, kept when integral, else rounded up; clipped at 0.

    Parameters
    ----------
    n : int
        Number of values.
    levels : array_like of float
        Quantile levels in [0, 1].

    Returns
    -------
    numpy.ndarray of int
        One rank in ``[0, n - 1]`` per level.

    References
    ----------
    Hyndman & Fan (1996), definition 1 (inverted CDF); :func:`engine.pn._grid.inverted_cdf_ranks`
    is the same rule for evenly spaced levels.
    """
    n = whole_number(n, "the number of values", 0)
    virtual = n * number_array(levels, "levels") - 1
    previous = np.floor(virtual)
    ranks = np.where(virtual - previous == 0, previous, previous + 1).astype(np.int64)
    return np.clip(ranks, 0, max(n - 1, 0))


def strata_bounds(
    order_statistics: Sequence[float] | np.ndarray, low: float, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the strata: ``[lower_h, upper_h)``, the top one ending at the line.

    Parameters
    ----------
    order_statistics : sequence of float
        The below-line scores at the levels' ranks (duplicates allowed: ties merge strata).
    low : float
        The lowest below-line score.
    threshold : float
        The review threshold T (documents with score >= T are above the line).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Ascending lowers (the first is ``low``) and uppers (the last is T); every stratum holds
        at least one document, the one at its lower bound.
    """
    lowers = np.unique(np.r_[float(low), np.asarray(order_statistics, dtype=np.float64)])
    return lowers, np.r_[lowers[1:], float(threshold)]


def _water_fill(budget: float, share: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Real allocation ``clip(lam * share, lo, hi)`` summing to ``budget`` (bisection on lam)."""
    if share.sum() <= 0:
        share = hi.astype(float)
    lam_lo, lam_hi = 0.0, 1.0
    while np.clip(lam_hi * share, lo, hi).sum() < budget and lam_hi < 1e300:
        lam_hi *= 2
    for _ in range(200):
        mid = (lam_lo + lam_hi) / 2
        lam_lo, lam_hi = (mid, lam_hi) if np.clip(mid * share, lo, hi).sum() < budget else (lam_lo, mid)
    return np.clip(lam_hi * share, lo, hi)


def allocate(
    budget: int,
    documents,
    allocation: str = "proportional",
    prevalence=None,
    *,
    minimum: int = MIN_PER_STRATUM,
    reviewed=None,
) -> np.ndarray:
    """Documents to review in each stratum.

    Parameters
    ----------
    budget : int
        Documents to review in all (at most every document below the line).
    documents : array_like of int
        ``N_h`` per stratum.
    allocation : {"proportional", "neyman", "equal"}
        Proportional to ``N_h``, to ``N_h S_h`` (Neyman; needs ``prevalence``), or equal.
    prevalence : array_like of float, optional
        Anticipated prevalence per stratum (for Neyman).
    minimum : int
        Fewest documents per stratum (all of a smaller stratum).
    reviewed : array_like of int, optional
        Documents already reviewed per stratum (a follow-up audit): each stratum keeps at least these.

    Returns
    -------
    numpy.ndarray of int64
        ``n_h``, summing to ``budget``, each within ``[max(min(minimum, N_h), reviewed_h), N_h]``.

    Raises
    ------
    InputError
        An unknown allocation, Neyman without a prevalence, or a budget outside
        ``[sum_h min(minimum, N_h), sum_h N_h]``.

    References
    ----------
    Cochran (1977), §5.5 (proportional), eq. 5.26 (Neyman); largest-remainder rounding.
    """
    big_n = number_array(documents, "documents", whole=True)
    if allocation not in ALLOCATIONS:
        raise InputError(f"unknown allocation {allocation!r}; choose one of {', '.join(ALLOCATIONS)}")
    lo, hi = np.minimum(big_n, minimum), big_n
    if reviewed is not None:
        lo = np.maximum(lo, np.asarray(reviewed, dtype=np.int64))
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or not lo.sum() <= budget <= hi.sum():
        raise InputError(
            f"--budget must be a whole number from {int(lo.sum()):,} (at least {minimum} per stratum, "
            f"{big_n.size} strata) to {int(hi.sum()):,} (every document below the line), got "
            f"{budget!r}; lower --strata for a smaller budget."
        )
    if allocation == "neyman":
        if prevalence is None:
            raise InputError(
                "Neyman allocation needs an anticipated prevalence: a prior probability column "
                "(--prior COL) or a pilot audit (--pilot FILE)."
            )
        p = np.clip(number_array(prevalence, "anticipated prevalences"), 0.0, 1.0)
        p = np.maximum(p, float(big_n @ p) / big_n.sum())  # no stratum below the average (module docstring)
        share = big_n * np.sqrt(p * (1 - p))
    else:
        share = big_n.astype(float) if allocation == "proportional" else np.ones(big_n.size)
    real = _water_fill(float(budget), share, lo.astype(float), hi.astype(float))
    out = np.clip(np.floor(real).astype(np.int64), lo, hi)  # lo <= real <= hi: at most K short
    short = int(budget - out.sum())
    for h in np.argsort(-(real - out), kind="stable"):  # largest remainders first
        if short <= 0:
            break
        if out[h] < hi[h]:
            out[h] += 1
            short -= 1
    return out


def expected_half_width(documents, sample, prevalence, *, level: float = 0.95) -> float:
    """The planned half-width of the interval of the positives below the line (normal approximation).

    Parameters
    ----------
    documents, sample : array_like of int
        ``N_h`` and ``n_h`` per stratum.
    prevalence : array_like of float
        Anticipated prevalence ``p_h`` per stratum.
    level : float
        Interval level.

    Returns
    -------
    float
        ``z sqrt(sum_h N_h^2 (N_h - n_h) / (N_h - 1) p_h q_h / n_h)``.

    References
    ----------
    Cochran (1977), eq. 5.52 (variance of a stratified proportion) and §5.9 (sample size).
    """
    big_n, n = number_array(documents, "documents"), number_array(sample, "sample sizes")
    p = np.clip(number_array(prevalence, "anticipated prevalences"), 0.0, 1.0)
    fpc = np.where(big_n > 1, (big_n - n) / np.maximum(big_n - 1, 1), 0.0)
    var = np.sum(big_n**2 * fpc * p * (1 - p) / np.maximum(n, 1))
    return float(stats.norm.ppf(0.5 + level / 2) * math.sqrt(var))


def budget_for_half_width(
    half_width: float,
    documents,
    allocation: str,
    prevalence,
    *,
    level: float = 0.95,
    minimum: int = MIN_PER_STRATUM,
    reviewed=None,
) -> int:
    """The smallest budget whose allocation has an expected half-width of at most ``half_width``.

    Parameters
    ----------
    half_width : float
        Wanted half-width W of the interval of the positives below the line (> 0).
    documents : array_like of int
        ``N_h`` per stratum.
    allocation : {"proportional", "neyman", "equal"}
    prevalence : array_like of float
        Anticipated prevalence per stratum.
    level : float
        Interval level.
    minimum : int
        Fewest documents per stratum.
    reviewed : array_like of int, optional
        Documents already reviewed per stratum (kept; the budget includes them).

    Returns
    -------
    int
        The budget (every document below the line when even that is needed: its half-width is 0).

    Raises
    ------
    InputError
        ``half_width`` not positive.

    References
    ----------
    Cochran (1977), §5.9: sample size for a specified variance in stratified sampling.
    """
    half_width = real_number(half_width, "--half-width", positive=True, what="missed positives")
    big_n = number_array(documents, "documents", whole=True)
    prevalence = number_array(prevalence, "anticipated prevalences")
    floor = np.minimum(big_n, minimum)
    if reviewed is not None:
        floor = np.maximum(floor, np.asarray(reviewed, dtype=np.int64))
    lo, hi = int(floor.sum()), int(big_n.sum())

    def width(budget: int) -> float:
        n = allocate(budget, big_n, allocation, prevalence, minimum=minimum, reviewed=reviewed)
        return expected_half_width(big_n, n, prevalence, level=level)

    if width(lo) <= half_width:
        return lo
    while hi - lo > 1:  # width(lo) > W >= width(hi)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if width(mid) <= half_width else (mid, hi)
    return hi


def pilot_prevalence(scores, labels, weights, lowers, uppers) -> np.ndarray:
    """Anticipated prevalence per stratum from a pilot audit: its reviewed documents within each stratum's bounds.

    Parameters
    ----------
    scores, labels, weights : array_like
        The pilot's reviewed documents: score, label (0/1) and design weight.
    lowers, uppers : array_like of float
        The new strata's bounds ``[lower_h, upper_h)``.

    Returns
    -------
    numpy.ndarray
        ``(sum w y + w_bar / 2) / (sum w + w_bar)`` per stratum (a Jeffreys-smoothed weighted
        prevalence: never 0 or 1); a stratum without pilot documents gets the pilot's overall one.

    References
    ----------
    Cochran (1977), §5.9: prevalences for planning come from earlier surveys or pilots.
    """
    s, y, w = (np.asarray(v, dtype=float) for v in (scores, labels, weights))

    def smoothed(mask):
        wm = w[mask]
        return (float(wm @ y[mask]) + wm.mean() / 2) / (wm.sum() + wm.mean())

    overall = smoothed(np.ones(s.size, dtype=bool))
    out = []
    for lo, hi in zip(lowers, uppers):
        inside = (s >= lo) & (s < hi)
        out.append(smoothed(inside) if inside.any() else overall)
    return np.asarray(out)
