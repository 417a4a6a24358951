"""Review capacity in reviewers: flagged documents per day, the threshold a team can keep up with, the backlog.

With the day each document was rated, a threshold's volume becomes **flagged documents
per day** (flagged rated documents over the calendar days the data spans, days without
ratings included). R reviewers each doing Q reviews a day give a capacity of ``R·Q``
per day, i.e. ``R·Q·D`` reviews over the D days of the data — the budget of the existing
capacity allocation (:func:`engine.pn.max_flagged_point` for one threshold,
:func:`engine.pn.allocate_capacity` for one threshold per segment), so the
reviewer options give exactly the points of the equivalent capacity.

A threshold that flags more than the team reviews builds a **backlog**. With ``a_d``
flagged on day d and capacity c, the queue at the end of the day is Lindley's recursion
``q_d = max(0, q_{d−1} + a_d − c)``, computed at once as ``S_d − min(0, min_{k<=d} S_k)``
with ``S_d = Σ_{i<=d} (a_i − c)`` (Lindley 1952).

References
----------
Lindley, D. V. (1952). The theory of queues with a single server. *Mathematical Proceedings of
the Cambridge Philosophical Society* 48(2):277-289.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._arguments import number
from ..errors import InputError
from ..pn._budget import BudgetPoint, max_flagged_point
from ..pn._segments import Allocation, allocate_capacity, segment_curves

__all__ = [
    "capacity_per_day",
    "FlaggedPerDay",
    "flagged_per_day",
    "daily_flagged",
    "capacity_threshold",
    "capacity_segments",
    "Backlog",
    "backlog",
    "ReviewerPlan",
    "reviewer_plan",
]


def _positive(value, name: str) -> float:
    return number(value, name, low=0, low_open=True)


def capacity_per_day(reviewers: float, reviews_per_day: float) -> float:
    """``R·Q``: reviews the team does in a day.

    Parameters
    ----------
    reviewers : float
        R, reviewers (fractions allowed: 2.5 = two full-time and one half-time).
    reviews_per_day : float
        Q, reviews one reviewer does in a day.

    Returns
    -------
    float

    Raises
    ------
    InputError
        Either is not a finite number > 0.
    """
    capacity = _positive(reviewers, "reviewers") * _positive(reviews_per_day, "reviews per day")
    if not math.isfinite(capacity) or capacity == 0:
        raise InputError(
            f"{reviewers!r} reviewers × {reviews_per_day!r} reviews a day is not a capacity a team has "
            f"({capacity:g} reviews a day); give the number of reviewers and the reviews each does in a day"
        )
    return capacity


def _days(dates) -> tuple[np.ndarray, int]:
    try:
        d = np.asarray(dates, dtype="datetime64[D]")
    except (TypeError, ValueError):
        raise InputError("dates must be calendar days (numpy datetime64 or YYYY-MM-DD text)") from None
    if d.ndim != 1 or d.size == 0 or np.isnat(d).any():
        raise InputError("every rated document needs a date (none may be missing)")
    return d, int((d.max() - d.min()).astype(np.int64)) + 1


def _scores_and_days(scores, dates) -> tuple[np.ndarray, np.ndarray, int]:
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("scores must be numbers (one per rated document)") from None
    d, days = _days(dates)
    if s.shape != d.shape:
        raise InputError(f"scores and dates differ in length ({s.size} vs {d.size})")
    return s, d, days


@dataclass(frozen=True)
class FlaggedPerDay:
    """Flagged documents per day at every threshold.

    Attributes
    ----------
    thresholds : numpy.ndarray, shape (n,)
        Distinct rated scores, descending.
    per_day : numpy.ndarray, shape (n,)
        Rated documents with score >= each threshold, per calendar day of the data.
    days : int
        Calendar days from the first to the last date.
    """

    thresholds: np.ndarray
    per_day: np.ndarray
    days: int

    def at(self, threshold: float) -> float:
        """Flagged per day at any threshold (documents with score >= it).

        Parameters
        ----------
        threshold : float

        Returns
        -------
        float
        """
        i = int(np.searchsorted(-self.thresholds, -float(threshold), side="right"))
        return float(self.per_day[i - 1]) if i else 0.0


def flagged_per_day(scores, dates) -> FlaggedPerDay:
    """Flagged documents per day at every threshold.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        Scores of the rated documents.
    dates : array_like of datetime64[D], shape (n,)
        The day each was rated.

    Returns
    -------
    FlaggedPerDay

    Raises
    ------
    InputError
        Missing dates or lengths that differ.
    """
    s, d, days = _scores_and_days(scores, dates)
    th, counts = np.unique(-s, return_counts=True)
    return FlaggedPerDay(-th, np.cumsum(counts) / days, days)


def daily_flagged(scores, dates, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Documents flagged on each calendar day at a threshold (days without ratings included, as 0).

    Parameters
    ----------
    scores : array_like of float, shape (n,)
    dates : array_like of datetime64[D], shape (n,)
    threshold : float
        Flag score >= threshold.

    Returns
    -------
    (numpy.ndarray of datetime64[D], numpy.ndarray of float)
        Every day from the first to the last date, and the documents flagged on it.
    """
    s, d, days = _scores_and_days(scores, dates)
    threshold = number(threshold, "threshold")
    first = d.min()
    flagged = np.bincount((d - first).astype(np.int64), weights=(s >= threshold).astype(np.float64), minlength=days)
    return first + np.arange(days).astype("timedelta64[D]"), flagged


def capacity_threshold(scores, labels, dates, *, reviewers: float, reviews_per_day: float) -> BudgetPoint:
    """The threshold with the most true positives that the team can review: capacity ``R·Q·D``.

    Parameters
    ----------
    scores, labels : array_like, shape (n,)
        Rated documents of one classifier.
    dates : array_like of datetime64[D], shape (n,)
        The day each was rated (D = days from the first to the last).
    reviewers, reviews_per_day : float
        R and Q.

    Returns
    -------
    BudgetPoint
        :func:`engine.pn.max_flagged_point` at capacity ``R·Q·D`` (its flagged / D is per day).

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (the PN curve); the budget bounds TP + FP.
    """
    _, days = _days(dates)
    return max_flagged_point(scores, labels, capacity=capacity_per_day(reviewers, reviews_per_day) * days)


def capacity_segments(
    scores, labels, dates, groups, *, reviewers: float, reviews_per_day: float, unrated_groups=None
) -> Allocation:
    """Per-segment thresholds that fill the team's capacity ``R·Q·D`` best.

    Parameters
    ----------
    scores, labels : array_like, shape (n,)
        Rated documents of one classifier.
    dates : array_like of datetime64[D], shape (n,)
        The day each was rated.
    groups : array_like, shape (n,)
        The segment of each document.
    reviewers, reviews_per_day : float
        R and Q.
    unrated_groups : array_like, optional
        The segment of every unrated document: a segment only they have is reported (no threshold, its
        unrated count), not left out.

    Returns
    -------
    Allocation
        :func:`engine.pn.allocate_capacity` at capacity ``R·Q·D``.
    """
    _, days = _days(dates)
    return allocate_capacity(
        segment_curves(scores, labels, groups, unrated_groups=unrated_groups),
        capacity_per_day(reviewers, reviews_per_day) * days,
    )


@dataclass(frozen=True)
class Backlog:
    """The review queue a threshold builds at a daily capacity.

    Attributes
    ----------
    days : numpy.ndarray of datetime64[D]
        Every day of the data.
    flagged : numpy.ndarray
        Documents flagged each day.
    capacity : float
        Reviews per day.
    queue : numpy.ndarray
        Documents waiting at the end of each day.
    """

    days: np.ndarray
    flagged: np.ndarray
    capacity: float
    queue: np.ndarray

    @property
    def peak(self) -> float:
        return float(self.queue.max())

    @property
    def final(self) -> float:
        return float(self.queue[-1])

    @property
    def days_over_capacity(self) -> int:
        return int((self.flagged > self.capacity).sum())

    @property
    def growth_per_day(self) -> float:
        """Average flagged per day minus the capacity (> 0: the queue grows without end)."""
        return float(self.flagged.mean() - self.capacity)

    def sentence(self) -> str:
        """The backlog in one sentence."""
        mean = self.flagged.mean()
        if self.peak <= 0:
            return (
                f"{mean:,.1f} documents are flagged per day on average and the team reviews {self.capacity:,.0f}: "
                "no backlog builds."
            )
        trend = (
            f"it grows by {self.growth_per_day:,.1f} a day" if self.growth_per_day > 0 else "it clears on quieter days"
        )
        return (
            f"{mean:,.1f} documents are flagged per day on average against a capacity of {self.capacity:,.0f}: "
            f"{self.days_over_capacity} of {self.days.size} days exceed it, the backlog peaks at {self.peak:,.0f} "
            f"documents and ends at {self.final:,.0f} ({trend})."
        )


def backlog(scores, dates, threshold: float, capacity: float) -> Backlog:
    """The queue of flagged documents at a daily capacity (Lindley's recursion).

    Parameters
    ----------
    scores : array_like of float, shape (n,)
    dates : array_like of datetime64[D], shape (n,)
    threshold : float
        Flag score >= threshold.
    capacity : float
        Reviews per day (> 0), e.g. :func:`capacity_per_day`.

    Returns
    -------
    Backlog

    References
    ----------
    Lindley (1952).
    """
    c = _positive(capacity, "capacity per day")
    days, flagged = daily_flagged(scores, dates, threshold)
    s = np.cumsum(flagged - c)
    queue = s - np.minimum(np.minimum.accumulate(s), 0.0)
    return Backlog(days, flagged, c, np.maximum(queue, 0.0))


@dataclass(frozen=True)
class ReviewerPlan:
    """A team of reviewers against a deployed threshold: capacity, load, backlog and the threshold that fits.

    Attributes
    ----------
    reviewers, reviews_per_day : float
        R reviewers, each doing Q reviews a day.
    capacity : float
        ``R·Q`` reviews per day.
    days : int
        Calendar days the data spans.
    flagged_at_threshold : float
        Documents the deployed threshold flags per day.
    queue : Backlog
        The queue the deployed threshold builds at this capacity.
    fitting : BudgetPoint
        The threshold with the most true positives that flags at most ``R·Q·D`` documents.
    """

    reviewers: float
    reviews_per_day: float
    capacity: float
    days: int
    flagged_at_threshold: float
    queue: Backlog
    fitting: BudgetPoint

    def as_dict(self) -> dict:
        """The plan as ``opstudio monitor --json`` prints it (``"reviewers"``)."""
        return {
            "reviewers": self.reviewers,
            "reviews_per_day": self.reviews_per_day,
            "capacity_per_day": self.capacity,
            "days": self.days,
            "flagged_per_day_at_threshold": self.flagged_at_threshold,
            "backlog_peak": self.queue.peak,
            "backlog_final": self.queue.final,
            "days_over_capacity": self.queue.days_over_capacity,
            "fitting_threshold": self.fitting.threshold,
            "fitting_tp": self.fitting.tp,
            "fitting_flagged_per_day": self.fitting.flagged / self.days,
        }

    def sentence(self) -> str:
        """The plan in words: the capacity, the backlog and the threshold that fits it."""
        r, q = self.reviewers, self.reviews_per_day
        return (
            f"{r:g} reviewer{'' if r == 1 else 's'} × {q:g} reviews a day = {self.capacity:,.0f} reviews per day "
            f"over {self.days:,} days; the deployed threshold flags {self.flagged_at_threshold:,.1f} a day. "
            f"{self.queue.sentence()} The threshold that fits this capacity with the most true positives is "
            f"{self.fitting.threshold:.4g} ({self.fitting.flagged / self.days:,.1f} flagged a day, "
            f"{self.fitting.tp:,.0f} true positives)."
        )


def reviewer_plan(scores, labels, dates, threshold: float, *, reviewers: float, reviews_per_day: float) -> ReviewerPlan:
    """What R reviewers doing Q reviews a day make of a deployed threshold.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        Scores of the rated documents.
    labels : array_like of {0, 1}, shape (n,)
        Their ratings.
    dates : array_like of datetime64[D], shape (n,)
        The day each was rated.
    threshold : float
        The deployed threshold (flag score >= threshold).
    reviewers, reviews_per_day : float
        R > 0 and Q > 0.

    Returns
    -------
    ReviewerPlan
        :func:`capacity_per_day`, :func:`flagged_per_day` at the threshold, :func:`backlog` and
        :func:`capacity_threshold` on the same rows.

    Raises
    ------
    InputError
        R or Q not a positive number.

    References
    ----------
    Lindley (1952) for the backlog; the capacity point is :func:`engine.pn.max_flagged_point`.
    """
    capacity = capacity_per_day(reviewers, reviews_per_day)
    threshold = number(threshold, "threshold")
    load = flagged_per_day(scores, dates)
    return ReviewerPlan(
        float(reviewers),
        float(reviews_per_day),
        capacity,
        load.days,
        load.at(threshold),
        backlog(scores, dates, threshold, capacity),
        capacity_threshold(scores, labels, dates, reviewers=reviewers, reviews_per_day=reviews_per_day),
    )
