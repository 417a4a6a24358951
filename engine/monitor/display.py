"""What the Monitoring page, the CLI and the record show of monitoring: figures over time and sentences for people."""

from ._figures import (
    backlog_figure,
    evidence_figure,
    flagged_per_day_figure,
    marginal_precision_over_time_figure,
    money_over_time_figure,
    threshold_over_time_figure,
)
from ._report import monitoring_headline, monitoring_sentence

__all__ = [
    "monitoring_sentence",
    "monitoring_headline",
    "marginal_precision_over_time_figure",
    "threshold_over_time_figure",
    "evidence_figure",
    "money_over_time_figure",
    "flagged_per_day_figure",
    "backlog_figure",
]
