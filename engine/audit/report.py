"""The audit in words: one sentence for the decision record, and the strata as a table for people."""

from __future__ import annotations

import math

import pandas as pd

from .estimate import AuditEstimate

__all__ = ["audit_sentence", "strata_table"]


def _count(x: float) -> str:
    return f"{x:,.0f}"


def _share(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{x * 100:.0f} %"


def audit_sentence(result: AuditEstimate) -> str:
    """What the audit found and what it means, in one sentence.

    Parameters
    ----------
    result : AuditEstimate

    Returns
    -------
    str
        E.g. "An audit of 1,000 of the 140,212 unflagged documents found 12 positives: between 180
        and 420 positives (95 %) are missed below the line; recall at the review line is between
        72 % and 86 %."
    """
    found = result.positives_found
    what = "no positives" if found == 0 else ("1 positive" if found == 1 else f"{found:,} positives")
    below, recall = result.positives, result.recall
    level = f"{result.level * 100:g} %"
    text = (f"An audit of {result.audited:,} of the {result.documents_below:,} unflagged documents found {what}: "
            f"between {_count(below.lower)} and {_count(below.upper)} positives ({level}) are missed below the line")
    if math.isnan(recall.lower):
        return text + "."
    return text + f"; recall at the review line is between {_share(recall.lower)} and {_share(recall.upper)}."


def strata_table(result: AuditEstimate) -> pd.DataFrame:
    """The strata for people: bounds, documents, reviewed, positives found, estimated positives with interval.

    Parameters
    ----------
    result : AuditEstimate

    Returns
    -------
    pandas.DataFrame
        One row per stratum, highest scores first, numbers formatted with separators.
    """
    rows = []
    for s in reversed(result.strata):
        p = s.prevalence
        rows.append({"scores": f"{s.lower:.4g} – {s.upper:.4g}", "documents": f"{s.documents:,}",
                     "reviewed": f"{s.audited:,}", "positives found": f"{s.positives_found:,}",
                     "estimated positives": _count(p.estimate * s.documents),
                     f"{result.level * 100:g} % interval": f"{_count(p.lower * s.documents)} – "
                                                            f"{_count(p.upper * s.documents)}"})
    return pd.DataFrame(rows)
