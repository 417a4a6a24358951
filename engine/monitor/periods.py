"""Calendar periods (day, ISO week starting Monday, month) of rated documents' dates.

Every period from the first to the last date is kept, also those without a rated
document (a silent week is a fact to report, not a gap to close). The first and last
periods are clipped to the days the data covers, so ``end - start + 1`` is the number
of days a period's counts stand for (flagged documents per day divide by it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = ["PERIODS", "Calendar", "period_start", "calendar"]

#: the period lengths monitoring offers
PERIODS = ("day", "week", "month")

_MONDAY = np.datetime64("1970-01-05", "D")  # the first Monday after the epoch


def check_period(period: str) -> str:
    """``period`` if it is one of :data:`PERIODS`, else an :class:`InputError`."""
    if period not in PERIODS:
        raise InputError(f"period must be one of {', '.join(PERIODS)}, got {period!r}")
    return period


def period_start(days: np.ndarray, period: str) -> np.ndarray:
    """First day of the period holding each day.

    Parameters
    ----------
    days : numpy.ndarray of datetime64[D]
        Calendar days (no NaT).
    period : {"day", "week", "month"}
        Weeks start on Monday (ISO 8601, as DuckDB's ``date_trunc('week', ...)``).

    Returns
    -------
    numpy.ndarray of datetime64[D]
        The period's first day, one per input day.

    Raises
    ------
    InputError
        An unknown period.
    """
    d = np.asarray(days, dtype="datetime64[D]")
    period = check_period(period)
    if period == "day":
        return d
    if period == "week":
        return d - ((d - _MONDAY).astype(np.int64) % 7).astype("timedelta64[D]")
    return d.astype("datetime64[M]").astype("datetime64[D]")


def _next_start(starts: np.ndarray, period: str) -> np.ndarray:
    if period == "day":
        return starts + np.timedelta64(1, "D")
    if period == "week":
        return starts + np.timedelta64(7, "D")
    return (starts.astype("datetime64[M]") + np.timedelta64(1, "M")).astype("datetime64[D]")


@dataclass(frozen=True)
class Calendar:
    """The periods from the first to the last day of the data.

    Attributes
    ----------
    period : str
        ``"day"``, ``"week"`` or ``"month"``.
    starts : numpy.ndarray of datetime64[D], shape (p,)
        Calendar start of each period (a Monday for weeks, the 1st for months).
    first, last : numpy.ndarray of datetime64[D], shape (p,)
        First and last day of each period that the data covers (clipped to the data's span).
    """

    period: str
    starts: np.ndarray
    first: np.ndarray
    last: np.ndarray

    @property
    def days(self) -> np.ndarray:
        """Days each period covers (int64)."""
        return (self.last - self.first).astype(np.int64) + 1

    def index_of(self, days: np.ndarray) -> np.ndarray:
        """Period index (0-based) of each day within the calendar's span.

        Parameters
        ----------
        days : numpy.ndarray of datetime64[D]
            Days between the first and the last day of the calendar.

        Returns
        -------
        numpy.ndarray of int64
        """
        return np.searchsorted(self.starts, period_start(days, self.period), side="left").astype(np.int64)


def calendar(first_day, last_day, period: str) -> Calendar:
    """Every period from ``first_day`` to ``last_day``, clipped to them.

    Parameters
    ----------
    first_day, last_day : numpy.datetime64 or str
        The first and last day of the data (``last_day >= first_day``).
    period : {"day", "week", "month"}

    Returns
    -------
    Calendar

    Raises
    ------
    InputError
        An unknown period or ``last_day < first_day``.
    """
    lo, hi = np.datetime64(first_day, "D"), np.datetime64(last_day, "D")
    if hi < lo:
        raise InputError(f"the last day ({hi}) is before the first ({lo})")
    start = period_start(np.array([lo]), period)[0]
    if period == "month":
        starts = np.arange(start.astype("datetime64[M]"), hi.astype("datetime64[M]") + 1).astype("datetime64[D]")
    else:
        starts = np.arange(start, hi + 1, np.timedelta64(1 if period == "day" else 7, "D"))
    ends = _next_start(starts, period) - np.timedelta64(1, "D")
    return Calendar(period, starts, np.maximum(starts, lo), np.minimum(ends, hi))
