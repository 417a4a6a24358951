"""The audit in words and tables: sentences for the decision record, the plan's and the estimate's tables, recall cards."""

from __future__ import annotations

import math

import pandas as pd

from ..pn import Card
from ..presentation import format_value
from .audit_file import AuditSample
from .estimate import AuditEstimate, at_thresholds
from .intervals import Interval
from .plan import AuditPlan

__all__ = [
    "audit_sentence",
    "strata_table",
    "plan_table",
    "thresholds_table",
    "recall_at",
    "recall_card",
    "recall_sentence",
    "plan_matches",
    "audit_settings",
]


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
    text = (
        f"An audit of {result.audited:,} of the {result.documents_below:,} unflagged documents found {what}: "
        f"between {_count(below.lower)} and {_count(below.upper)} positives ({level}) are missed below the line"
    )
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
        With ``thresholds`` (:func:`engine.audit.estimate` with ``thresholds=``).

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
    return Card(
        "Recall (audit)",
        _share(r.estimate),
        f"{result.level * 100:g} %: {_share(r.lower)} – {_share(r.upper)}",
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
    r = recall_at(result, threshold)
    where = "flagging nothing" if math.isinf(threshold) else f"threshold {threshold:.6g}"
    return (
        f"Recall at {where} is between {_share(r.lower)} and {_share(r.upper)} ({result.level * 100:g} %; audit of "
        f"{result.audited:,} of the {result.documents_below:,} documents below the review line "
        f"{result.review_threshold:.6g})."
    )


def plan_matches(result: AuditPlan, audit: AuditSample) -> bool:
    """Whether an audit was drawn by this plan: the same review line, strata bounds and sizes.

    Parameters
    ----------
    result : AuditPlan
    audit : AuditSample

    Returns
    -------
    bool
    """
    mine = [(s.lower, s.upper, s.documents, s.sample) for s in result.strata]
    theirs = list(zip(audit.lowers.tolist(), audit.uppers.tolist(), audit.documents.tolist(), audit.planned.tolist()))
    return result.review_threshold == audit.review_threshold and mine == theirs


def audit_settings(
    result: AuditEstimate,
    *,
    rated_sha256: str = "",
    plan: AuditPlan | None = None,
    population: str = "",
    population_sha256: str = "",
) -> dict:
    """The audit's design and provenance for the decision record.

    Parameters
    ----------
    result : AuditEstimate
    rated_sha256 : str
        SHA-256 of the rated data above the line.
    plan : AuditPlan, optional
        The plan made in this session; its seed, allocation and population are recorded when
        the audit was drawn by it (:func:`plan_matches`).
    population : str
        The population's name (a file) or connection (a path on the server).
    population_sha256 : str
        SHA-256 of the population's bytes (empty for a connection).

    Returns
    -------
    dict
        JSON-ready: review threshold, level, method, classifier, the audit file and its SHA-256,
        the rated data's SHA-256, per stratum bounds / documents / planned / reviewed / positives
        found, and with a matching plan ``seed``, ``allocation``, ``spacing``, ``population``,
        ``population_rows`` and ``population_sha256``.
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
    if plan is not None and plan_matches(plan, audit):
        settings.update(
            {
                "seed": plan.seed,
                "allocation": plan.allocation,
                "spacing": plan.spacing,
                "population": population,
                "population_rows": plan.population,
                "population_sha256": population_sha256,
            }
        )
    return settings
