"""Rated documents counted per period and score level: all that monitoring needs from the rows.

Every backend produces the same :class:`PeriodCounts` (the in-memory engine with numpy,
DuckDB with one ``GROUP BY`` over period and score), and everything after it — the
windows around the threshold, the re-solved operating points, the alerts — is computed
from these counts alone, so the backends agree exactly.

A **level** is a distinct rated score within a period (or, for binned counts, the lower
edge of a score bin); within each period levels are in descending score order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import number
from ..errors import InputError, RatedDataError
from ._periods import Calendar, calendar

__all__ = ["PeriodCounts", "period_counts", "counts_from_groups"]


@dataclass(frozen=True)
class PeriodCounts:
    """Positives and negatives of every (period, score level).

    Attributes
    ----------
    calendar : Calendar
        The periods, first to last.
    offsets : numpy.ndarray of int64, shape (p + 1,)
        Levels of period j are ``offsets[j]:offsets[j + 1]``.
    scores : numpy.ndarray of float64, shape (L,)
        Score of each level (descending within a period).
    pos, neg : numpy.ndarray of float64, shape (L,)
        Rated positives / negatives at each level.
    binned : bool
        True when levels are lower edges of score bins (a threshold between edges is not seen).
    rows_scanned : int
        Rows read, rated or not.
    unrated : int
        Rows without a label (left out).
    """

    calendar: Calendar
    offsets: np.ndarray
    scores: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    binned: bool = False
    rows_scanned: int = 0
    unrated: int = 0

    @property
    def n_periods(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def level_period(self) -> np.ndarray:
        """Period index of each level."""
        return np.repeat(np.arange(self.n_periods), np.diff(self.offsets))

    @property
    def rated(self) -> np.ndarray:
        """Rated documents per period."""
        return np.bincount(self.level_period, weights=self.pos + self.neg, minlength=self.n_periods)


def counts_from_groups(
    cal: Calendar,
    period_index: np.ndarray,
    scores: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    *,
    binned: bool = False,
    rows_scanned: int = 0,
    unrated: int = 0,
) -> PeriodCounts:
    """Counts of distinct (period, score) groups in any order, sorted into :class:`PeriodCounts`.

    Parameters
    ----------
    cal : Calendar
        The periods.
    period_index : numpy.ndarray of int, shape (g,)
        Period of each group (0-based into ``cal``).
    scores, pos, neg : numpy.ndarray, shape (g,)
        Score level and its positives / negatives; each (period, score) at most once.
    binned, rows_scanned, unrated
        See :class:`PeriodCounts`.

    Returns
    -------
    PeriodCounts
    """
    order = np.lexsort((-np.asarray(scores, dtype=np.float64), period_index))
    period_index = np.asarray(period_index, dtype=np.int64)[order]
    offsets = np.searchsorted(period_index, np.arange(cal.starts.size + 1), side="left").astype(np.int64)
    return PeriodCounts(
        cal,
        offsets,
        np.asarray(scores, dtype=np.float64)[order],
        np.asarray(pos, dtype=np.float64)[order],
        np.asarray(neg, dtype=np.float64)[order],
        binned,
        int(rows_scanned),
        int(unrated),
    )


def period_counts(
    scores, labels, dates, period: str = "week", *, rows_scanned: int | None = None, unrated: int = 0
) -> PeriodCounts:
    """Count rated documents per (period, distinct score) in memory.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One classifier's scores of the rated documents (finite).
    labels : array_like of {0, 1}, shape (n,)
        The raters' verdicts.
    dates : array_like of datetime64[D], shape (n,)
        The day each document was rated (no NaT).
    period : {"day", "week", "month"}, optional
        Period length (weeks start on Monday).
    rows_scanned : int, optional
        Rows read (default n).
    unrated : int, optional
        Rows without a label, for the record.

    Returns
    -------
    PeriodCounts

    Raises
    ------
    RatedDataError
        Empty input, lengths that differ, scores not finite, labels not 0/1, or missing dates.
    InputError
        An unknown period.
    """
    try:
        s = np.asarray(scores, dtype=np.float64)
        y = np.asarray(labels)
        d = np.asarray(dates, dtype="datetime64[D]")
    except (TypeError, ValueError):
        raise InputError(
            "scores must be numbers, labels 0/1 and dates calendar days (numpy datetime64 or YYYY-MM-DD text)"
        ) from None
    if s.ndim != 1 or s.shape != y.shape or s.shape != d.shape:
        raise RatedDataError(
            f"scores, labels and dates must be 1-D of one length; got {s.shape}, {y.shape}, {d.shape}."
        )
    if s.size == 0:
        raise RatedDataError("No rated documents to monitor.")
    if not np.all(np.isfinite(s)):
        raise RatedDataError(
            f"scores must be finite (rows {', '.join(map(str, np.flatnonzero(~np.isfinite(s))[:5] + 1))})."
        )
    if not np.all((y == 0) | (y == 1)):
        raise RatedDataError("labels must be 0/1.")
    if np.isnat(d).any():
        raise RatedDataError(
            f"{int(np.isnat(d).sum()):,} rated documents have no date (rows "
            f"{', '.join(map(str, np.flatnonzero(np.isnat(d))[:5] + 1))}); every rated document "
            "needs the day it was rated."
        )
    cal = calendar(d.min(), d.max(), period)
    p = cal.index_of(d)
    # scores descending (ties in any order: they are summed), then a stable sort by period: a radix sort on
    # small integers, far faster than a lexsort of 10^6 rows
    by_score = np.argsort(-s)
    small = p.astype(np.int16 if cal.starts.size < 2**15 else np.int64)
    order = by_score[np.argsort(small[by_score], kind="stable")]
    p_s, s_s, y_s = p[order], s[order], y[order].astype(np.float64)
    first = np.flatnonzero(np.r_[True, (p_s[1:] != p_s[:-1]) | (s_s[1:] != s_s[:-1])])
    pos = np.add.reduceat(y_s, first)
    total = np.diff(np.r_[first, s_s.size]).astype(np.float64)
    offsets = np.searchsorted(p_s[first], np.arange(cal.starts.size + 1), side="left").astype(np.int64)
    return PeriodCounts(
        cal,
        offsets,
        s_s[first],
        pos,
        total - pos,
        False,
        s.size if rows_scanned is None else int(rows_scanned),
        int(unrated),
    )


def check_threshold(threshold) -> float:
    """A deployed threshold is a finite number (documents with score >= threshold are flagged)."""
    return number(threshold, "threshold")
