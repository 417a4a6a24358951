"""The operating point over time: periods, intervals, anytime-valid alerts, money and reviewers."""

from .counts import PeriodCounts, counts_from_groups, period_counts
from .monitoring import DEFAULT_WINDOW, Estimate, Monitoring, PeriodResult, monitor
from .periods import PERIODS, Calendar, calendar, period_start

__all__ = ["PeriodCounts", "period_counts", "counts_from_groups", "Estimate", "PeriodResult", "Monitoring",
           "monitor", "DEFAULT_WINDOW", "PERIODS", "Calendar", "calendar", "period_start"]
