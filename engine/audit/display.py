"""What the Below-the-line page, the Operating point page and the record show of an audit: its sentence, headlines,
tables and figures (the PN and precision-recall curves extended below the line)."""

from ._figures import audit_pn_figure, audit_pr_figure, extended_curve, strata_figure
from ._report import (
    audit_headlines,
    audit_sentence,
    audit_settings,
    plan_table,
    recall_card,
    recall_sentence,
    strata_table,
    thresholds_table,
)

__all__ = [
    "audit_sentence",
    "audit_headlines",
    "recall_card",
    "recall_sentence",
    "audit_settings",
    "plan_table",
    "strata_table",
    "thresholds_table",
    "extended_curve",
    "audit_pn_figure",
    "audit_pr_figure",
    "strata_figure",
]
