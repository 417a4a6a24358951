"""The audit in words and tables: sentences for the decision record, the plan's and the estimate's tables, recall cards.

**Headlines are intervals** where the data cannot pin a point down: the missed positives, all
positives and recall are headlined as their interval ("0 – 736", "54 % – 100 %") and the point
estimate goes to the caption; only a degenerate interval (every document below the line
reviewed) is headlined as a number. An audit that found no positive therefore never headlines
"0 missed, recall 100 %" — its point estimate is merely the interval's end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..pn.display import Card
from ..presentation import format_value
from ._estimate import AuditEstimate, at_thresholds
from ._intervals import Interval
from ._plan import AuditPlan

__all__ = [
    "Headline",
    "audit_headlines",
    "audit_sentence",
    "strata_table",
    "plan_table",
    "thresholds_table",
    "recall_at",
    "recall_card",
    "recall_sentence",
    "audit_settings",
]


def _count(x: float) -> str:
    return f"{x:,.0f}"


def _share(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{x * 100:.0f} %"


def _pinned(interval: Interval) -> bool:
    """Whether the data pin the quantity down: a degenerate interval (every document reviewed)."""
    return interval.lower == interval.upper


@dataclass(frozen=True)
class Headline:
    """One headline figure of an audit, as a dashboard metric shows it.

    Attributes
    ----------
    label : str
        What it is ("Missed positives").
    value : str
        The interval ("2 – 87", "39 % – 97 %"), or the number when the interval is degenerate.
    caption : str
        The level and the point estimate.
    help : str
        What the figure means.
    """

    label: str
    value: str
    caption: str
    help: str


def _headline(label: str, interval: Interval, fmt, level: str, help: str, found: int) -> Headline:
    if _pinned(interval):
        return Headline(label, fmt(interval.estimate), f"{level}: exact (every document reviewed)", help)
    point = f"point estimate {fmt(interval.estimate)}"
    if found == 0:
        point += " (no positive found: the interval's end, not a likely value)"
    return Headline(label, f"{fmt(interval.lower)} – {fmt(interval.upper)}", f"{level} interval; {point}", help)


def audit_headlines(result: AuditEstimate) -> tuple[Headline, ...]:
    """The audit's headline figures: missed positives, all positives, recall at the line, positives found.

    Parameters
    ----------
    result : AuditEstimate

    Returns
    -------
    tuple of Headline
        Intervals as values (the point estimate in the caption) unless the interval is degenerate;
        the positives found, a count, as a number.
    """
    level, found = f"{result.level * 100:g} %", result.positives_found
    return (
        _headline("Missed positives", result.positives, _count, level, "Positives below the review line.", found),
        _headline(
            "All positives", result.total_positives, _count, level, "Above the line (rated) and below it.", found
        ),
        _headline("Recall at the review line", result.recall, _share, level, "Share of all positives flagged.", found),
        Headline(
            "Positives found",
            f"{found:,}",
            f"in {result.audited:,} reviewed",
            f"{result.audited:,} of {result.documents_below:,} documents below the line reviewed ({result.method} "
            "interval).",
        ),
    )


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
    head = f"An audit of {result.audited:,} of the {result.documents_below:,} unflagged documents found {what}: "
    if _pinned(below):
        text = head + f"exactly {_count(below.estimate)} positives are missed below the line (every document reviewed)"
    else:
        text = (
            head + f"between {_count(below.lower)} and {_count(below.upper)} positives ({level}) are missed below the "
            "line"
        )
    if math.isnan(recall.lower):
        return text + "."
    if _pinned(recall):
        return text + f"; recall at the review line is {_share(recall.estimate)}."
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
        rows.append(
            {
                "scores": f"{format_value(s.lower, 'threshold')} – {format_value(s.upper, 'threshold')}",
                "documents": f"{s.documents:,}",
                "reviewed": f"{s.audited:,}",
                "positives found": f"{s.positives_found:,}",
                "estimated positives": _count(p.estimate * s.documents),
                f"{result.level * 100:g} % interval": f"{_count(p.lower * s.documents)} – "
                f"{_count(p.upper * s.documents)}",
            }
        )
    return pd.DataFrame(rows)


def plan_table(result: AuditPlan) -> pd.DataFrame:
    """The plan's design for people: one row per stratum, highest scores first.

    Parameters
    ----------
    result : AuditPlan

    Returns
    -------
    pandas.DataFrame
        ``stratum``, ``scores from``, ``scores below``, ``documents``, ``to review``,
        ``inclusion probability`` and ``anticipated prevalence`` (NaN without a prior or pilot).
    """
    strata = list(reversed(result.strata))
    return pd.DataFrame(
        {
            "stratum": [s.stratum for s in strata],
            "scores from": [s.lower for s in strata],
            "scores below": [s.upper for s in strata],
            "documents": [s.documents for s in strata],
            "to review": [s.sample for s in strata],
            "inclusion probability": [s.sample / s.documents for s in strata],
            "anticipated prevalence": [s.prevalence for s in strata],
        }
    )


def thresholds_table(result: AuditEstimate) -> pd.DataFrame:
    """TP, FP, precision and recall with their intervals at the estimate's thresholds.

    Parameters
    ----------
    result : AuditEstimate
        With ``thresholds`` (:func:`engine.audit._estimate` with ``thresholds=``).

    Returns
    -------
    pandas.DataFrame
        One row per threshold, in the order asked: ``threshold``, ``side`` (above / below the
        line) and estimate, lower and upper of each quantity.
    """
    rows = []
    for t in result.thresholds:
        row = {
            "threshold": t.threshold,
            "side": "at or above the line" if t.threshold >= result.review_threshold else "below the line",
        }
        for name in ("tp", "fp", "precision", "recall"):
            q = getattr(t, name)
            label = name.upper() if name in ("tp", "fp") else name
            row.update({label: q.estimate, f"{label} lower": q.lower, f"{label} upper": q.upper})
        rows.append(row)
    return pd.DataFrame(rows)


def recall_at(result: AuditEstimate, threshold: float) -> Interval:
    """Recall of flagging ``score >= threshold`` with its interval; 0 for "flag nothing" (an infinite threshold).

    Parameters
    ----------
    result : AuditEstimate
    threshold : float

    Returns
    -------
    Interval
    """
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer, np.floating)):
        raise InputError(f"the threshold must be a number (or inf: flag nothing), got {threshold!r}")
    if math.isinf(threshold) and threshold > 0:
        return Interval(0.0, 0.0, 0.0)
    return at_thresholds(result, [threshold])[0].recall


def recall_card(result: AuditEstimate, threshold: float) -> Card:
    """Recall at a threshold as a dashboard card: the estimate, its interval in the caption.

    Parameters
    ----------
    result : AuditEstimate
    threshold : float
        The operating point's threshold (``inf``: flag nothing).

    Returns
    -------
    Card
    """
    r = recall_at(result, threshold)
    pinned = _pinned(r)
    return Card(
        "Recall (audit)",
        _share(r.estimate) if pinned else f"{_share(r.lower)} – {_share(r.upper)}",
        f"{result.level * 100:g} %: exact"
        if pinned
        else f"{result.level * 100:g} % interval; point estimate {_share(r.estimate)}",
        f"Share of all positives flagged at this threshold. The positives below the review line "
        f"{result.review_threshold:.6g} are estimated from the audit '{result.audit.name}' ({result.audited:,} "
        f"of {result.documents_below:,} documents reviewed, {result.method} interval).",
    )


def recall_sentence(result: AuditEstimate, threshold: float) -> str:
    """Recall at a threshold in one sentence, for the decision record.

    Parameters
    ----------
    result : AuditEstimate
    threshold : float

    Returns
    -------
    str
        E.g. "Recall at threshold 0.93 is between 72 % and 86 % (95 %; audit of 300 of the
        5,747 documents below the review line 0.9)."
    """
    r = recall_at(result, threshold)  # refuses a threshold that is not a number
    where = "flagging nothing" if math.isinf(threshold) else f"threshold {threshold:.6g}"
    return (
        f"Recall at {where} is between {_share(r.lower)} and {_share(r.upper)} ({result.level * 100:g} %; audit of "
        f"{result.audited:,} of the {result.documents_below:,} documents below the review line "
        f"{result.review_threshold:.6g})."
    )


def audit_settings(result: AuditEstimate, *, rated_sha256: str = "") -> dict:
    """The audit's design and provenance for the decision record.

    Parameters
    ----------
    result : AuditEstimate
        An estimate (its audit carries the checked design record).
    rated_sha256 : str
        SHA-256 of the rated data above the line.

    Returns
    -------
    dict
        JSON-ready: review threshold, level, method, classifier, the audit file and its SHA-256,
        the rated data's SHA-256, per stratum bounds / documents / planned / reviewed / positives
        found, and from the design record ``seed``, ``allocation``, ``spacing``, ``population``,
        ``population_rows``, ``population_sha256`` (its fingerprint), ``plan_rows_sha256`` and
        ``above_line`` (documents and their scores' SHA-256).
    """
    audit = result.audit
    settings = {
        "review_threshold": result.review_threshold,
        "level": result.level,
        "method": result.method,
        "classifier": result.above.classifier,
        "audit_file": audit.name,
        "audit_sha256": audit.fingerprint,
        "rated_sha256": rated_sha256,
        "documents_below": result.documents_below,
        "audited": result.audited,
        "positives_found": result.positives_found,
        "strata": [
            {
                "lower": float(audit.lowers[h]),
                "upper": float(audit.uppers[h]),
                "documents": int(audit.documents[h]),
                "planned": int(audit.planned[h]),
                "reviewed": int(audit.reviewed[h]),
                "positives_found": int(audit.positives[h]),
            }
            for h in range(audit.documents.size)
        ],
    }
    design = audit.design
    if design is not None:
        population = design["population"]
        settings.update(
            {
                "seed": design["seed"],
                "allocation": design["allocation"],
                "spacing": design["spacing"],
                "population": population["name"],
                "population_rows": population["documents"],
                "population_sha256": population["fingerprint"]["sha256"],
                "population_fingerprint": population["fingerprint"]["kind"],
                "plan_rows_sha256": design["rows_sha256"],
                "above_line": {k: design["above"][k] for k in ("documents", "scores_sha256")},
            }
        )
    return settings
