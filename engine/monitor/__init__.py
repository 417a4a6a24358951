"""The operating point over time: periods, intervals, anytime-valid alerts, money and reviewers.

Robles et al. (AAAI-MAKE 2020) choose a threshold for a target marginal precision once;
this package follows it as rated documents keep arriving. :func:`load_dated` (or
:func:`dated_from_frame` after :func:`detect_dated`) reads rated data with a date column,
:func:`period_counts` (or DuckDB's :func:`engine.backends._duckdb_monitor.duckdb_period_counts`)
counts them per period and score, and :func:`monitor` returns every period's counts, precision
and marginal precision at the threshold with intervals, the re-solved operating point and
anytime-valid alerts (a mixture e-detector, Ville's inequality; :func:`simulate_alerts` measures
their false alarms). :func:`capacity_per_day`, :func:`flagged_per_day`, :func:`capacity_segments`,
:func:`backlog` and :func:`reviewer_plan` turn reviewers into a daily capacity and a backlog; money
lives in :mod:`engine.pn`. What is drawn or said for people is in :mod:`engine.monitor.display`.
"""

from ._counts import period_counts
from ._data import DatedMapping, DatedRated, baseline_threshold, dated_from_frame, detect_dated, load_dated
from ._monitoring import DEFAULT_WINDOW, Monitoring, monitor
from ._periods import PERIODS
from ._reviewers import backlog, capacity_per_day, capacity_segments, flagged_per_day, reviewer_plan
from ._simulation import simulate_alerts
from .display import (
    backlog_figure,
    flagged_per_day_figure,
    marginal_precision_over_time_figure,
    money_over_time_figure,
    monitoring_headline,
    monitoring_sentence,
    threshold_over_time_figure,
)

#: the package's public modules beside this front (every other module is private)
__public_modules__ = ("display",)

__all__ = [
    "monitor",
    "Monitoring",
    "DEFAULT_WINDOW",
    "PERIODS",
    "load_dated",
    "DatedRated",
    "DatedMapping",
    "detect_dated",
    "dated_from_frame",
    "baseline_threshold",
    "period_counts",
    "simulate_alerts",
    "capacity_per_day",
    "flagged_per_day",
    "capacity_segments",
    "backlog",
    "reviewer_plan",
    # what the pages, views and the CLI draw and say (defined in monitor.display)
    "backlog_figure",
    "flagged_per_day_figure",
    "marginal_precision_over_time_figure",
    "money_over_time_figure",
    "monitoring_headline",
    "monitoring_sentence",
    "threshold_over_time_figure",
]
