"""The operating point over time: periods, intervals, anytime-valid alerts, money and reviewers.

Robles et al. (AAAI-MAKE 2020) choose a threshold for a target marginal precision once;
this package follows it as rated documents keep arriving. :func:`load_dated` reads rated
data with a date column, :func:`period_counts` (or DuckDB's
:func:`engine.backends.duckdb_monitor.duckdb_period_counts`) counts them per period and
score, and :func:`monitor` returns every period's counts, precision and marginal precision at
the threshold with intervals, the re-solved operating point and anytime-valid alerts
(:mod:`.alerts`: a mixture e-detector, Ville's inequality). :mod:`.reviewers` turns
reviewers into a daily capacity and a backlog; money lives in :mod:`engine.pn.economics`.
"""

from .alerts import ODDS_RATIOS, Evidence, e_detector, naive_alarms
from .counts import PeriodCounts, counts_from_groups, period_counts
from .data import (
    BASELINE_DAYS,
    DatedMapping,
    DatedRated,
    baseline_threshold,
    dated_from_frame,
    detect_dated,
    load_dated,
)
from .figures import (
    backlog_figure,
    evidence_figure,
    flagged_per_day_figure,
    marginal_precision_over_time_figure,
    money_over_time_figure,
    threshold_over_time_figure,
)
from .monitoring import DEFAULT_WINDOW, Estimate, Monitoring, PeriodResult, monitor
from .periods import MAX_PERIODS, PERIODS, Calendar, calendar, period_start
from .report import monitoring_headline, monitoring_sentence
from .reviewers import (
    Backlog,
    FlaggedPerDay,
    ReviewerPlan,
    backlog,
    capacity_per_day,
    capacity_segments,
    capacity_threshold,
    daily_flagged,
    flagged_per_day,
    reviewer_plan,
)
from .simulation import AlertSimulation, simulate_alerts
from .windows import clopper_pearson

__all__ = [
    "DatedRated",
    "load_dated",
    "DatedMapping",
    "detect_dated",
    "dated_from_frame",
    "baseline_threshold",
    "BASELINE_DAYS",
    "PeriodCounts",
    "period_counts",
    "counts_from_groups",
    "PERIODS",
    "MAX_PERIODS",
    "Calendar",
    "calendar",
    "period_start",
    "Estimate",
    "PeriodResult",
    "Monitoring",
    "monitor",
    "DEFAULT_WINDOW",
    "Evidence",
    "e_detector",
    "naive_alarms",
    "ODDS_RATIOS",
    "clopper_pearson",
    "AlertSimulation",
    "simulate_alerts",
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
    "monitoring_sentence",
    "monitoring_headline",
    "marginal_precision_over_time_figure",
    "threshold_over_time_figure",
    "evidence_figure",
    "money_over_time_figure",
    "flagged_per_day_figure",
    "backlog_figure",
]
