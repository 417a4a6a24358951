"""Calendar periods (day, ISO week starting Monday, month) of rated documents' dates.

Every period from the first to the last date is kept, also those without a rated
document (a silent week is a fact to report, not a gap to close). The first and last
periods are clipped to the days the data covers, so ``end - start + 1`` is the number
of days a period's counts stand for (flagged documents per day divide by it).

At most :data:`MAX_PERIODS` periods are monitored at once: each is a row of the report, a
point of every chart and a start of the alert mixture; a date range that needs more (one
mistyped year among a year of ratings makes 105,000 weeks) is refused before anything is
counted, naming the range and a coarser period that fits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import choice
from ..errors import InputError

__all__ = ["PERIODS", "MAX_PERIODS", "Calendar", "period_start", "calendar", "period_count", "check_span"]

#: the period lengths monitoring offers
PERIODS = ("day", "week", "month")
#: most periods monitored at once: 27 years of days, 191 years of weeks, 833 years of months. Every period is a
#: row of the report and a point of every chart (beyond a few thousand neither can be read), and the alerts, the
#: intervals and the re-solved points are computed per period (about 0.15 ms each: 1.5 s at the limit)
MAX_PERIODS = 10_000

_MONDAY = np.datetime64("1970-01-05", "D")  # the first Monday after the epoch


def check_period(period: str) -> str:
    """``period`` if it is one of :data:`PERIODS`, else an :class:`InputError`."""
    return choice(period, "period", PERIODS)


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


def _day(value, name: str) -> np.datetime64:
    try:
        day = np.datetime64(value, "D")
    except (TypeError, ValueError):
        day = np.datetime64("NaT")
    if isinstance(value, bool) or np.isnat(day):
        raise InputError(f"{name} must be a calendar day (numpy datetime64 or YYYY-MM-DD text), got {value!r}")
    return day


def period_count(first_day, last_day, period: str) -> int:
    """How many periods run from ``first_day`` to ``last_day`` (both included), without listing them.

    Parameters
    ----------
    first_day, last_day : numpy.datetime64 or str
        First and last day (``last_day >= first_day``).
    period : {"day", "week", "month"}

    Returns
    -------
    int
    """
    lo, hi = _day(first_day, "first_day"), _day(last_day, "last_day")
    period = check_period(period)
    if period == "month":
        return int((hi.astype("datetime64[M]") - lo.astype("datetime64[M]")).astype(np.int64)) + 1
    starts = period_start(np.array([lo, hi]), period)
    return int((starts[1] - starts[0]).astype(np.int64)) // (1 if period == "day" else 7) + 1


def check_span(first_day, last_day, period: str) -> int:
    """The number of periods from ``first_day`` to ``last_day``, refused above :data:`MAX_PERIODS`.

    Parameters
    ----------
    first_day, last_day : numpy.datetime64 or str
        First and last day of the data.
    period : {"day", "week", "month"}

    Returns
    -------
    int
        The number of periods.

    Raises
    ------
    InputError
        More than :data:`MAX_PERIODS` periods: the message names the date range, how many periods it
        makes, and the coarser periods that fit (or, when none does, filtering the dates).
    """
    n = period_count(first_day, last_day, period)
    if n <= MAX_PERIODS:
        return n
    fits = [(p, period_count(first_day, last_day, p)) for p in PERIODS[PERIODS.index(period) + 1 :]]
    fits = [(p, k) for p, k in fits if k <= MAX_PERIODS]
    coarser = f"Choose a coarser period ({fits[0][0]}: {fits[0][1]:,} {fits[0][0]}s) or keep" if fits else "Keep"
    raise InputError(
        f"The dates run from {np.datetime64(first_day, 'D')} to {np.datetime64(last_day, 'D')}: {n:,} {period}s, "
        f"more than the {MAX_PERIODS:,} periods monitored at once. {coarser} only the dates you want to monitor "
        "(filter the rows by date: a single mistyped year stretches the range)."
    )


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
        An unknown period, ``last_day < first_day``, or more than :data:`MAX_PERIODS` periods.
    """
    lo, hi = _day(first_day, "first_day"), _day(last_day, "last_day")
    if hi < lo:
        raise InputError(f"the last day ({hi}) is before the first ({lo})")
    check_span(lo, hi, period)
    start = period_start(np.array([lo]), period)[0]
    if period == "month":
        starts = np.arange(start.astype("datetime64[M]"), hi.astype("datetime64[M]") + 1).astype("datetime64[D]")
    else:
        starts = np.arange(start, hi + 1, np.timedelta64(1 if period == "day" else 7, "D"))
    ends = _next_start(starts, period) - np.timedelta64(1, "D")
    return Calendar(period, starts, np.maximum(starts, lo), np.minimum(ends, hi))
