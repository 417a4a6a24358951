"""The deployed operating point period by period: counts, intervals, the re-solved point and anytime-valid alerts.

An operating point is chosen once and then lives for months while score distributions
drift. :func:`monitor` takes the counts of every (period, score) (:mod:`.counts`, from any
backend), the deployed threshold T and the target marginal precision M (or the money that
implies it, :class:`engine.pn.Economics`) and returns per period: rated documents, TP and FP
at or above T, precision and marginal precision at T with intervals (:mod:`.windows`), the
re-solved operating point for M with its interval, flagged documents per day, and whether
the evidence so far says T no longer meets M (:mod:`.alerts`: false alarms in at most a
share ``1 − level`` of runs, however many periods are checked).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._arguments import instance, number, whole
from ..errors import InputError
from ..intervals import clopper_pearson
from ..pn._bootstrap import replicate_hull
from ..pn._curve import check_target, target_slope
from ..pn._economics import Economics, MoneyStatement, money_statement, target_text
from ..pn._operating_point import optimal_vertex
from ._alerts import BAND_SIZES, Evidence, e_detector, naive_alarms
from ._counts import PeriodCounts, check_threshold
from ._windows import (
    above_window,
    below_window,
    cumulative,
    lower_bound_reaches,
    upper_bound_reaches,
)

__all__ = ["Estimate", "PeriodResult", "Monitoring", "monitor", "DEFAULT_WINDOW"]

#: documents on each side of the threshold whose labels estimate the marginal precision at it, per period
DEFAULT_WINDOW = 50


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its interval.

    Attributes
    ----------
    estimate, lower, upper : float
        NaN when the period has no data for it; +inf for a threshold means "flag nothing".
    """

    estimate: float
    lower: float
    upper: float


@dataclass(frozen=True)
class PeriodResult:
    """One period of the deployed threshold.

    Attributes
    ----------
    start, end : str
        First and last day of the period that the data covers (ISO dates).
    days : int
        Days covered.
    rated : int
        Rated documents.
    tp, fp : float
        Rated positives / negatives at or above the deployed threshold.
    flagged_per_day : float
        ``(tp + fp) / days``.
    precision : Estimate
        ``tp / (tp + fp)`` with its Clopper–Pearson interval.
    marginal_precision : Estimate
        At the threshold: the period's isotonic fit there, interval from the windows around it.
    operating_point : Estimate
        The period's own operating point for the target, with the span of its confidence set.
    window_above, window_below : tuple of (float, float)
        (positives, documents) of the windows just above and just below the threshold.
    log_evidence : float
        log of the detector after this period.
    naive_alert : bool
        Whether a per-period test at the same level alone would flag this period.
    alert : bool
        Whether the sequential detector flags it.
    reason : str or None
        Why, in one sentence (None when no alert).
    """

    start: str
    end: str
    days: int
    rated: int
    tp: float
    fp: float
    flagged_per_day: float
    precision: Estimate
    marginal_precision: Estimate
    operating_point: Estimate
    window_above: tuple[float, float]
    window_below: tuple[float, float]
    log_evidence: float
    naive_alert: bool
    alert: bool
    reason: str | None

    def as_dict(self) -> dict:
        """The period as ``opstudio monitor --json`` prints it."""

        def est(e: Estimate, first: str = "estimate") -> dict:
            return {first: e.estimate, "lower": e.lower, "upper": e.upper}

        return {
            "start": self.start,
            "end": self.end,
            "rated": self.rated,
            "tp": self.tp,
            "fp": self.fp,
            "flagged_per_day": self.flagged_per_day,
            "precision": est(self.precision),
            "marginal_precision": est(self.marginal_precision),
            "operating_point": est(self.operating_point, "threshold"),
            "alert": self.alert,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Monitoring:
    """The deployed threshold through every period, with alerts.

    Attributes
    ----------
    threshold : float
        Deployed threshold T (flag score >= T).
    target : float
        Target marginal precision M.
    level : float
        1 − the probability of any false alarm (and the level of every interval).
    period : str
        ``"day"``, ``"week"`` or ``"month"``.
    window : int
        Documents on each side of T per period for the marginal precision.
    periods : tuple of PeriodResult
        First to last.
    economics : Economics or None
        Costs and values, when the target was derived from money.
    binned : bool
        Levels were score bins (thresholds between bin edges not seen).
    rows_scanned, unrated : int
        Rows read and rows without a label.
    """

    threshold: float
    target: float
    level: float
    period: str
    window: int
    periods: tuple[PeriodResult, ...]
    economics: Economics | None = None
    binned: bool = False
    rows_scanned: int = 0
    unrated: int = 0

    @property
    def alerts(self) -> list[dict]:
        """``[{"period": start, "reason": ...}]`` for every flagged period."""
        return [{"period": p.start, "reason": p.reason} for p in self.periods if p.alert]

    @property
    def first_alert(self) -> PeriodResult | None:
        return next((p for p in self.periods if p.alert), None)

    def alerts_record(self, file: str) -> dict:
        """The run as a decision keeps it (``opstudio monitor --decision``, the Monitoring page following a deployed
        decision): the file's name, threshold, target, period, number of periods, level and the alerts.

        Parameters
        ----------
        file : str
            The name of the data monitored.

        Returns
        -------
        dict
            JSON values (non-finite numbers as None).
        """
        from ..reporting import json_safe

        return json_safe(
            {
                "file": file,
                "threshold": self.threshold,
                "target": self.target,
                "period": self.period,
                "periods": len(self.periods),
                "level": self.level,
                "alerts": self.alerts,
            }
        )

    def as_dict(self) -> dict:
        """Exactly the ``opstudio monitor --json`` record."""
        return {
            "threshold": self.threshold,
            "target": self.target,
            "level": self.level,
            "periods": [p.as_dict() for p in self.periods],
            "alerts": self.alerts,
        }

    def money(self) -> list[MoneyStatement]:
        """Every period in money (value caught, review cost, net value per day, last document's value).

        Returns
        -------
        list of MoneyStatement
            One per period; empty without :attr:`economics`.
        """
        if self.economics is None:
            return []
        return [
            money_statement(p.tp, p.fp, self.economics, days=p.days, marginal_precision=p.marginal_precision.estimate)
            for p in self.periods
        ]

    def table(self) -> pd.DataFrame:
        """One row per period, columns in words (money columns when :attr:`economics` is set)."""
        rows = []
        for p, m in zip(self.periods, self.money() or [None] * len(self.periods)):  # type: ignore[list-item]
            row = {
                "period start": p.start,
                "period end": p.end,
                "rated": p.rated,
                "true positives": p.tp,
                "false positives": p.fp,
                "flagged per day": p.flagged_per_day,
                "precision": p.precision.estimate,
                "marginal precision at T": p.marginal_precision.estimate,
                "marginal precision low": p.marginal_precision.lower,
                "marginal precision high": p.marginal_precision.upper,
                "re-solved threshold": p.operating_point.estimate,
                "re-solved threshold low": p.operating_point.lower,
                "re-solved threshold high": p.operating_point.upper,
                "evidence (e-value)": math.exp(min(p.log_evidence, 700.0)),
                "alert": p.alert,
                "per-period test alone": p.naive_alert,
            }
            if m is not None:
                row.update(
                    {
                        "net value": m.net_value,
                        "net value per day": m.net_per_day,
                        "last document value": m.last_document_value,
                    }
                )
            rows.append(row)
        return pd.DataFrame(rows)


def _check(counts, threshold, target, economics, level, window) -> tuple[float, float, float, int]:
    instance(counts, "counts", PeriodCounts, "from period_counts(...) or engine.backends.dated_counts(...)")
    t = check_threshold(threshold)
    if (target is None) == (economics is None):
        raise InputError(
            "give either a target marginal precision or the money (review cost and value per "
            "positive) that implies it, not both and not neither"
        )
    if economics is not None:
        m = instance(
            economics, "economics", Economics, "review cost and value per positive, engine.pn.Economics"
        ).target
    else:
        m = float(check_target(number(target, "target"))[0])
    level = number(level, "level", low=0, high=1, low_open=True, high_open=True)
    return t, m, level, whole(window, "window", low=1)


def _period_hulls(counts: PeriodCounts, cut: np.ndarray, target: float) -> tuple[np.ndarray, np.ndarray]:
    """Per period: the isotonic fit at the lowest level at or above T, and the operating point for the target."""
    fit_at_t = np.full(counts.n_periods, np.nan)
    point = np.full(counts.n_periods, np.nan)
    lam = target_slope(target)
    for j in range(counts.n_periods):
        lo, hi = counts.offsets[j], counts.offsets[j + 1]
        if hi == lo:
            continue
        (edge_mp, tp, fp, th), fit = replicate_hull(counts.scores[lo:hi], counts.pos[lo:hi], counts.neg[lo:hi])
        if cut[j] > lo:
            fit_at_t[j] = fit[cut[j] - 1 - lo]
        point[j] = th[optimal_vertex(edge_mp, tp, fp, target, lam)]
    return fit_at_t, point


def _threshold_sets(counts: PeriodCounts, C, P, target: float, alpha: float, window: int):
    """Span (lowest, highest threshold) of each period's confidence set of the re-solved threshold."""
    lo, hi = counts.offsets[:-1], counts.offsets[1:]
    period = np.r_[counts.level_period, np.arange(counts.n_periods)]
    cut = np.r_[np.arange(1, counts.scores.size + 1), lo]  # below each level; "flag nothing" of each period
    value = np.r_[counts.scores, np.full(counts.n_periods, np.inf)]
    xa, na = above_window(C, P, cut, lo[period], window)
    xb, nb = below_window(C, P, cut, hi[period], window)
    kept = upper_bound_reaches(xa, na, target, alpha / 2) & lower_bound_reaches(xb, nb, target, alpha / 2)
    low = np.full(counts.n_periods, np.inf)
    high = np.full(counts.n_periods, -np.inf)
    np.minimum.at(low, period[kept], value[kept])
    np.maximum.at(high, period[kept], value[kept])
    return low, high


def _bands(window_of, C, P, cut, bound) -> tuple[np.ndarray, np.ndarray]:
    """(positives, documents) of every band of :data:`BAND_SIZES` next to the threshold, shape (periods, bands)."""
    counted = [window_of(C, P, cut, bound, k) for k in BAND_SIZES]
    return np.stack([c[0] for c in counted], axis=-1), np.stack([c[1] for c in counted], axis=-1)


def monitor(
    counts: PeriodCounts,
    threshold: float,
    target: float | None = None,
    *,
    economics: Economics | None = None,
    level: float = 0.95,
    window: int = DEFAULT_WINDOW,
) -> Monitoring:
    """The deployed threshold period by period, with intervals and anytime-valid alerts.

    Parameters
    ----------
    counts : PeriodCounts
        Rated documents counted per period and score (:func:`~engine.monitor.period_counts`,
        :func:`~engine.backends._duckdb_monitor.duckdb_period_counts`).
    threshold : float
        Deployed threshold T: documents with score >= T are flagged.
    target : float, optional
        Target marginal precision M in (0, 1); or give ``economics``.
    economics : Economics, optional
        Review cost and value per positive; the target is their break-even marginal precision.
    level : float, optional
        Level of every interval; ``1 − level`` bounds the probability of any false alarm over all periods.
    window : int, optional
        Documents on each side of T (whole score levels) whose labels estimate the marginal precision at T.

    Returns
    -------
    Monitoring

    Raises
    ------
    InputError
        A threshold that is not finite, both or neither of target and economics, a target outside
        (0, 1), a level outside (0, 1) or a window below 1.

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (operating point, marginal precision); Clopper & Pearson (1934);
    Ville (1939); Ramdas, Grünwald, Vovk & Shafer (2023); Shin, Ramdas & Rinaldo (2024).

    Examples
    --------
    The shipped year of ratings, whose scores are worth less from 2025-07-07 on:

    >>> from engine.monitor import load_dated, monitor
    >>> ratings = load_dated("sample_data/monitoring_rated.csv.gz")
    >>> result = monitor(ratings.counts("week"), threshold=0.568, target=0.3)
    >>> len(result.periods), result.alerts[0]["period"]  # the first alert, three weeks after the drift
    (52, '2025-07-28')
    """
    t, m, level, window = _check(counts, threshold, target, economics, level, window)
    alpha = 1.0 - level
    C, P = cumulative(counts.pos, counts.neg)
    lo, hi = counts.offsets[:-1], counts.offsets[1:]
    cut = lo + np.bincount(counts.level_period, weights=counts.scores >= t, minlength=counts.n_periods).astype(np.int64)
    tp, flagged = P[cut] - P[lo], C[cut] - C[lo]
    xa, na = above_window(C, P, cut, lo, window)
    xb, nb = below_window(C, P, cut, hi, window)
    fit_at_t, point = _period_hulls(counts, cut, m)
    # one-sided bounds each at (1 - level) / 2: [lower_B, upper_A] covers m(T) at level (none: [0, 1])
    mp_low, mp_high = clopper_pearson(xb, nb, level)[0], clopper_pearson(xa, na, level)[1]
    th_low, th_high = _threshold_sets(counts, C, P, m, alpha, window)
    ba, bb = _bands(above_window, C, P, cut, lo), _bands(below_window, C, P, cut, hi)
    evidence = e_detector(*ba, *bb, m, alpha)
    naive = naive_alarms(xa, na, xb, nb, m, alpha)
    p_low, p_high = np.where(flagged > 0, clopper_pearson(tp, flagged, level), np.nan)  # nothing flagged: none
    cal = counts.calendar
    days = cal.days
    rated = C[hi] - C[lo]
    results = []
    for j in range(counts.n_periods):
        empty = rated[j] == 0
        mp = Estimate(
            fit_at_t[j],
            *(
                (math.nan, math.nan)
                if empty or na[j] == 0
                else (min(mp_low[j], fit_at_t[j]), max(mp_high[j], fit_at_t[j]))
            ),
        )
        op = Estimate(*((math.nan,) * 3 if empty else (point[j], min(th_low[j], point[j]), max(th_high[j], point[j]))))
        alert = bool(evidence.alarms[j])
        results.append(
            PeriodResult(
                str(cal.first[j]),
                str(cal.last[j]),
                int(days[j]),
                int(rated[j]),
                float(tp[j]),
                float(flagged[j] - tp[j]),
                float(flagged[j] / days[j]),
                Estimate(tp[j] / flagged[j] if flagged[j] else math.nan, float(p_low[j]), float(p_high[j])),
                mp,
                op,
                (float(xa[j]), float(na[j])),
                (float(xb[j]), float(nb[j])),
                float(evidence.log_e[j]),
                bool(naive[j]),
                alert,
                _reason(j, evidence, cal, t, m, ba, bb, alpha) if alert else None,
            )
        )
    return Monitoring(
        t, m, level, cal.period, window, tuple(results), economics, counts.binned, counts.rows_scanned, counts.unrated
    )


def _evidence_text(log_e: float) -> str:
    """An e-value for people: ``1,096``; past a million in powers of ten (``4.0 × 10^64``, not 65 digits)."""
    if log_e < math.log(1e6):
        return f"{math.exp(log_e):,.0f}"
    exponent = math.floor(log_e / math.log(10))
    return f"{10 ** (log_e / math.log(10) - exponent):.1f} × 10^{exponent}"


def _reason(j: int, evidence: Evidence, cal, t: float, m: float, above, below, alpha: float) -> str:
    """The alert of period j in one sentence: since when, which side, the band's pooled share against the target."""
    since, band = int(evidence.since[j]), int(evidence.band[j])
    starts, period = cal.first, cal.period
    strength = (
        f"evidence {_evidence_text(evidence.log_e[j])} against a bar of {1 / alpha:,.0f}, so "
        f"false alarms stay below {alpha:.0%} however many periods are checked"
    )
    target = target_text(m, percent=True)
    x_all, n_all = above if evidence.side[j] == "low" else below
    x, n = x_all[since : j + 1, band].sum(), n_all[since : j + 1, band].sum()
    if evidence.side[j] == "low":
        return (
            f"Since {starts[since]} the {BAND_SIZES[band]} documents flagged last each {period} (scores at or "
            f"just above {t:.4g}) were positive {x / n:.1%} of the time ({x:,.0f} of {n:,.0f}), below the target "
            f"marginal precision {target}: the threshold is too low ({strength})."
        )
    return (
        f"Since {starts[since]} the {BAND_SIZES[band]} documents just below {t:.4g} each {period} were positive "
        f"{x / n:.1%} of the time ({x:,.0f} of {n:,.0f}), above the target marginal precision {target}: the "
        f"threshold is too high and leaves documents worth reviewing unflagged ({strength})."
    )
