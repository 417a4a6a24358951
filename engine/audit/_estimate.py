"""How many positives are missed below the review line: the estimate from rated data and a reviewed audit.

Above the line the rated data count true and false positives exactly (Robles et al.,
AAAI-MAKE 2020). Below it, the audit's stratified random sample estimates the positives with
the stratified expansion estimator and an interval (:mod:`engine.audit._intervals`, Jeffreys by
default). Recall at the review line is ``TP / (TP + positives below)``, a decreasing function
of the positives below, so its interval is their interval mapped. At any other threshold t:
above the line everything is known but recall's denominator; below it the positives at or
above t (A), the positives under t (B) and the negatives at or above t (C) are stratified totals
of binary indicators with the same interval as the headline: TP(t) = TP + A and FP(t) = FP + C
directly, precision ``(TP + A) / (TP + A + FP + C)`` and recall ``(TP + A) / (TP + A + B)`` —
monotone in each total — from the two totals' intervals at level ``1 - (1 - level) / 2``
(Bonferroni: the pair holds both totals with probability at least ``level``, so the ratio's
interval does too).

**Bound to its design.** :func:`estimate` needs the audit's design record (``plan.json``,
:func:`engine.audit.designs.design_record`): the reviewed plan must be the plan it describes
(:func:`engine.audit.designs.check_design`) and the rated data's documents at or above the line must be
the population's documents there (:func:`engine.audit.designs.check_rated`) — otherwise an
:class:`~engine.errors.InputError` says which row or stratum differs, and nothing is estimated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .._arguments import real_numbers
from ..errors import InputError
from ..io._rated import RatedData
from ._audit_file import AuditSample
from ._design_records import check_design, check_rated
from ._intervals import METHODS, Interval, check_level, prevalence_intervals, total_interval

__all__ = ["AboveLine", "StratumEstimate", "ThresholdEstimate", "AuditEstimate", "estimate", "at_thresholds"]


@dataclass(frozen=True)
class AboveLine:
    """The rated documents at or above the review line (one classifier's scores), as cumulative counts.

    Attributes
    ----------
    scores : numpy.ndarray
        Their distinct scores, descending.
    cum_tp, cum_fp : numpy.ndarray
        Weighted true and false positives at or above each of those scores.
    classifier : str
        The score column.
    """

    scores: np.ndarray
    cum_tp: np.ndarray
    cum_fp: np.ndarray
    classifier: str

    @classmethod
    def from_rated(cls, scores: np.ndarray, labels: np.ndarray, weights: np.ndarray, classifier: str) -> AboveLine:
        """Group rated rows by score (descending) and accumulate their weighted labels.

        Parameters
        ----------
        scores, labels, weights : numpy.ndarray
            The rated rows at or above the line.
        classifier : str

        Returns
        -------
        AboveLine
        """
        distinct, index = np.unique(-np.asarray(scores, dtype=float), return_inverse=True)
        w = np.asarray(weights, dtype=float)
        tp = np.bincount(index, weights=w * labels, minlength=distinct.size)
        fp = np.bincount(index, weights=w * (1 - labels), minlength=distinct.size)
        return cls(-distinct, np.cumsum(tp), np.cumsum(fp), classifier)

    @property
    def tp(self) -> float:
        """Weighted true positives at or above the line."""
        return float(self.cum_tp[-1]) if self.cum_tp.size else 0.0

    @property
    def fp(self) -> float:
        """Weighted false positives at or above the line."""
        return float(self.cum_fp[-1]) if self.cum_fp.size else 0.0

    def counts_at(self, threshold: float) -> tuple[float, float]:
        """(TP, FP) of the rated documents with score >= ``threshold``.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        (float, float)
        """
        k = int(np.searchsorted(-self.scores, -threshold, side="right"))  # scores >= threshold
        return (float(self.cum_tp[k - 1]), float(self.cum_fp[k - 1])) if k else (0.0, 0.0)


@dataclass(frozen=True)
class StratumEstimate:
    """One stratum of the audit.

    Attributes
    ----------
    lower, upper : float
        Score bounds ``[lower, upper)``.
    documents : int
        Documents in it.
    audited : int
        Documents reviewed.
    positives_found : int
        Positives among them.
    prevalence : Interval
        Its prevalence with an interval.
    """

    lower: float
    upper: float
    documents: int
    audited: int
    positives_found: int
    prevalence: Interval

    def as_dict(self) -> dict:
        """JSON-ready values."""
        return {
            "lower": self.lower,
            "upper": self.upper,
            "documents": self.documents,
            "audited": self.audited,
            "positives_found": self.positives_found,
            "prevalence": self.prevalence.as_dict(),
        }


@dataclass(frozen=True)
class ThresholdEstimate:
    """What flagging ``score >= threshold`` would give, with intervals.

    Attributes
    ----------
    threshold : float
    tp, fp : Interval
        True and false positives flagged (the rated ones above the line plus the estimated ones below).
    precision : Interval
        TP / (TP + FP).
    recall : Interval
        TP / all positives (flagged or not).
    """

    threshold: float
    tp: Interval
    fp: Interval
    precision: Interval
    recall: Interval

    def as_dict(self) -> dict:
        """JSON-ready values."""
        return {
            "threshold": self.threshold,
            "tp": self.tp.as_dict(),
            "fp": self.fp.as_dict(),
            "precision": self.precision.as_dict(),
            "recall": self.recall.as_dict(),
        }


@dataclass(frozen=True)
class AuditEstimate:
    """The estimate of the positives below the line, the total and recall, with intervals.

    Attributes
    ----------
    review_threshold : float
        The review line.
    level : float
        Interval level.
    method : str
        Interval method of :mod:`engine.audit._intervals`.
    above : AboveLine
        The rated documents at or above the line.
    unrated : int
        Rows of the rated data without a label.
    strata : tuple of StratumEstimate
        The audit's strata, ascending by score.
    positives : Interval
        Positives below the line.
    total_positives : Interval
        All positives: TP above the line plus the positives below.
    recall : Interval
        Recall at the review line.
    thresholds : tuple of ThresholdEstimate
        The thresholds asked for.
    audit : AuditSample
        The reviewed audit.
    warnings : tuple of str
        Unreviewed documents, rated rows below the line, and the like.
    """

    review_threshold: float
    level: float
    method: str
    above: AboveLine
    unrated: int
    strata: tuple[StratumEstimate, ...]
    positives: Interval
    total_positives: Interval
    recall: Interval
    thresholds: tuple[ThresholdEstimate, ...]
    audit: AuditSample
    warnings: tuple[str, ...] = field(default=())

    @property
    def documents_below(self) -> int:
        """Documents below the line."""
        return int(sum(s.documents for s in self.strata))

    @property
    def audited(self) -> int:
        """Documents reviewed."""
        return int(sum(s.audited for s in self.strata))

    @property
    def positives_found(self) -> int:
        """Positives the audit found."""
        return int(sum(s.positives_found for s in self.strata))

    def as_dict(self) -> dict:
        """The estimate as ``opstudio audit estimate --json`` prints it."""
        return {
            "review_threshold": self.review_threshold,
            "level": self.level,
            "above": {"tp": self.above.tp, "fp": self.above.fp, "unrated": self.unrated},
            "below": {
                "documents": self.documents_below,
                "audited": self.audited,
                "positives_found": self.positives_found,
                "positives": self.positives.as_dict(),
                "strata": [s.as_dict() for s in self.strata],
            },
            "total_positives": self.total_positives.as_dict(),
            "recall": self.recall.as_dict(),
            "thresholds": [t.as_dict() for t in self.thresholds],
        }


def _above_line(rated: RatedData, name: str, threshold: float) -> tuple[AboveLine, list[str]]:
    scores = rated.column(name)
    at = scores >= threshold
    warnings = []
    if (~at).any():
        warnings.append(
            f"{int((~at).sum()):,} rated rows score below the review threshold {threshold:.6g} on "
            f"'{name}': left out (the audit estimates everything below the line)."
        )
    if not at.any():
        raise InputError(
            f"No rated row of '{rated.name}' scores at or above the review threshold {threshold:.6g} on "
            f"'{name}'. Check --classifier: the audit's scores must be this classifier's."
        )
    if rated.n_unrated:
        warnings.append(
            f"{rated.n_unrated:,} rows of the rated data are unrated: their positives are counted "
            "neither above nor below the line."
        )
    return AboveLine.from_rated(scores[at], rated.labels[at], rated.weights[at], name), warnings


def _recall(tp: float, below: Interval) -> Interval:
    """Recall TP / (TP + positives below): decreasing in the positives below (NaN when there are no positives)."""
    return below.map(lambda x: tp / (tp + x) if tp + x > 0 else math.nan)


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else math.nan


def _domain_total(audit: AuditSample, strata: np.ndarray, hits: np.ndarray, level: float, method: str) -> Interval:
    """A stratified total of a 0/1 indicator over the given strata (0 with no stratum)."""
    if not strata.any():
        return Interval(0.0, 0.0, 0.0)
    counts = np.bincount(audit.strata[hits], minlength=audit.documents.size)
    return total_interval(audit.documents[strata], audit.reviewed[strata], counts[strata], level=level, method=method)


def _below_line_threshold(result: AuditEstimate, t: float) -> ThresholdEstimate:
    """TP, FP, precision and recall at a threshold below the line (see the module docstring)."""
    audit, level, method = result.audit, result.level, result.method
    reviewed, high = audit.labels >= 0, audit.scores >= t
    reaches, under = audit.uppers > t, audit.lowers < t  # strata holding documents >= t, < t
    pos, neg = reviewed & (audit.labels == 1), reviewed & (audit.labels == 0)
    tp, fp = result.above.tp, result.above.fp
    joint = 1 - (1 - level) / 2
    a, c = (_domain_total(audit, reaches, hits, level, method) for hits in (pos & high, neg & high))
    a2, c2, b2 = (
        _domain_total(audit, s, hits, joint, method)
        for s, hits in ((reaches, pos & high), (reaches, neg & high), (under, pos & ~high))
    )
    precision = Interval(
        _ratio(tp + a.estimate, tp + a.estimate + fp + c.estimate),
        _ratio(tp + a2.lower, tp + a2.lower + fp + c2.upper),
        _ratio(tp + a2.upper, tp + a2.upper + fp + c2.lower),
    )
    recall = Interval(
        _ratio(tp + a.estimate, tp + a.estimate + b2.estimate),
        _ratio(tp + a2.lower, tp + a2.lower + b2.upper),
        _ratio(tp + a2.upper, tp + a2.upper + b2.lower),
    )
    return ThresholdEstimate(float(t), a.map(lambda x: tp + x), c.map(lambda x: fp + x), precision, recall)


def _above_line_threshold(above: AboveLine, below: Interval, t: float) -> ThresholdEstimate:
    """At or above the line TP, FP and precision are known; recall's denominator holds the positives below."""
    tp, fp = above.counts_at(t)
    return ThresholdEstimate(
        float(t),
        Interval(tp, tp, tp),
        Interval(fp, fp, fp),
        Interval(*(3 * [_ratio(tp, tp + fp)])),
        below.map(lambda x: above.tp + x).map(lambda x: _ratio(tp, x)),
    )


def at_thresholds(result: AuditEstimate, thresholds: Sequence[float] | np.ndarray) -> tuple[ThresholdEstimate, ...]:
    """TP, FP, precision and recall with intervals at any thresholds (above or below the line).

    Parameters
    ----------
    result : AuditEstimate
        An estimate (its audit, rated counts, level and method are reused).
    thresholds : sequence of float
        Finite thresholds.

    Returns
    -------
    tuple of ThresholdEstimate
        At or above the line TP, FP and precision are exact (degenerate intervals) and recall's
        interval is the positives-below interval mapped; below it every interval comes from the
        audit (see the module docstring).

    Raises
    ------
    InputError
        Thresholds that are not a list of finite numbers.
    """
    values = real_numbers(thresholds, "--threshold")
    return tuple(
        _above_line_threshold(result.above, result.positives, t)
        if t >= result.review_threshold
        else _below_line_threshold(result, t)
        for t in values
    )


def _classifier(rated: RatedData, classifier, design: dict | None) -> str:
    """The score column: as given, else the design's score column when the rated data have it, else the first."""
    if classifier is not None:
        if not isinstance(classifier, str):
            raise InputError(f"--classifier must be a column name, got {classifier!r}")
        return classifier
    if design is not None and design["score_column"] in rated.score_names:
        return design["score_column"]
    return rated.score_names[0]


def estimate(
    rated: RatedData,
    audit: AuditSample,
    *,
    design: dict | None = None,
    classifier: str | None = None,
    level: float = 0.95,
    thresholds: Sequence[float] = (),
    method: str = "score",
) -> AuditEstimate:
    """Positives missed below the review line, all positives and recall, with intervals.

    Parameters
    ----------
    rated : RatedData
        The rated documents (at or above the line; rows below it are left out with a warning).
    audit : AuditSample
        The reviewed audit plan (:func:`engine.audit.load_audit`).
    design : dict, optional
        The plan's design record (``plan.json``: :func:`engine.audit.designs.design_record` or
        :func:`engine.audit.designs.load_design`); default: the one ``audit`` carries (:func:`engine.audit.designs.check_design`).
    classifier : str, optional
        The rated data's score column the audit was planned on (default: the design's score
        column when the rated data have it, else the first).
    level : float
        Interval level in (0, 1).
    thresholds : sequence of float
        Thresholds (above or below the line) at which to estimate TP, FP, precision and recall.
    method : {"score", "jeffreys", "wilson", "wald", "exact"}
        Interval of every stratified total (:mod:`engine.audit._intervals`; the score interval by
        default).

    Returns
    -------
    AuditEstimate

    Raises
    ------
    InputError
        No design record; a reviewed plan that is not the one the design describes (edited sizes,
        bounds, weights, deleted rows or strata, another review line, edited ids or scores); rated
        data whose documents at or above the line are not the population's documents there; no
        rated row at or above the line, an unknown classifier, a bad level, method or threshold.

    References
    ----------
    Cochran (1977), ch. 5; Brown, Cai & DasGupta (2001); Ericson (1969); Robles et al.,
    AAAI-MAKE 2020 (rated data above the line).

    Examples
    --------
    The shipped audit of 300 documents below the line 0.9, reviewed:

    >>> from engine.audit import estimate, load_audit
    >>> from engine.audit.display import audit_sentence
    >>> from engine.io import load_rated
    >>> result = estimate(load_rated("sample_data/satimage_rated.csv.gz"), load_audit("sample_data/satimage_audit.csv"))
    >>> print(audit_sentence(result))
    An audit of 300 of the 5,747 unflagged documents found 1 positive: between 1 and 87 positives (95 %) are missed
    below the line; recall at the review line is between 39 % and 97 %.
    """
    if not isinstance(rated, RatedData):
        raise InputError(f"The rated data are a RatedData (engine.io.load_rated), not {type(rated).__name__}.")
    level = check_level(level)
    if method not in METHODS:
        raise InputError(f"unknown interval method {method!r}; choose one of {', '.join(METHODS)}")
    asked = real_numbers(thresholds, "--threshold")
    audit = check_design(audit, design if design is not None else getattr(audit, "design", None))
    threshold = audit.review_threshold
    name = _classifier(rated, classifier, audit.design)
    checked = check_rated(rated, audit.design, name)
    above, warnings = _above_line(rated, name, threshold)
    big_n, n, y = audit.documents, audit.reviewed, audit.positives
    positives = total_interval(big_n, n, y, level=level, method=method)
    strata = tuple(
        StratumEstimate(float(audit.lowers[h]), float(audit.uppers[h]), int(big_n[h]), int(n[h]), int(y[h]), p)
        for h, p in enumerate(prevalence_intervals(big_n, n, y, level=level, method=method))
    )
    result = AuditEstimate(
        threshold,
        level,
        method,
        above,
        int(rated.n_unrated),
        strata,
        positives,
        positives.map(lambda x: above.tp + x),
        _recall(above.tp, positives),
        (),
        audit,
        tuple(list(audit.warnings) + checked + warnings),
    )
    return replace(result, thresholds=at_thresholds(result, asked)) if asked else result
