"""How many more audited documents would narrow the interval, and to what.

A follow-up audit keeps the documents already reviewed and adds ``extra`` more, allocated by
Neyman's rule (Cochran 1977, eq. 5.26) on the audit's own Jeffreys-smoothed prevalences
``(y_h + 1/2) / (n_h + 1)`` (never 0, so a stratum with no positive found still gets some).
The planned half-width is the normal approximation of :func:`engine.audit._design.expected_half_width`,
rescaled by the ratio of the interval actually found to that approximation at today's sizes —
so "0 more documents" gives today's half-width, and the prediction keeps the actual interval's
asymmetry and method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import real_number, whole_number
from ..errors import InputError
from ._design import allocate, budget_for_half_width, expected_half_width
from ._estimate import AuditEstimate

__all__ = ["FollowUp", "half_width_after", "audits_for_half_width"]


@dataclass(frozen=True)
class FollowUp:
    """A follow-up audit: how many more documents, where, and the half-width expected after it.

    Attributes
    ----------
    extra : int
        More documents to review.
    sample : tuple of int
        Reviewed documents per stratum after the follow-up.
    half_width : float
        Expected half-width of the interval of the missed positives after it.
    current_half_width : float
        Today's half-width.
    level : float
        Interval level.
    """

    extra: int
    sample: tuple[int, ...]
    half_width: float
    current_half_width: float
    level: float

    def sentence(self) -> str:
        """``"N more audited documents would shrink the interval to ±W."``"""
        if self.extra == 0:
            return f"The interval is already about ±{self.current_half_width:,.0f} positives."
        return (
            f"{self.extra:,} more audited documents would shrink the {self.level * 100:g} % interval of the missed "
            f"positives from about ±{self.current_half_width:,.0f} to about ±{self.half_width:,.0f}."
        )


def _smoothed(result: AuditEstimate) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    audit = result.audit
    n, y = audit.reviewed, audit.positives
    return audit.documents, n, (y + 0.5) / (n + 1)


def _scale(result: AuditEstimate) -> float:
    """Actual half-width over the normal approximation at today's sizes (1 when the approximation is 0)."""
    docs, n, p = _smoothed(result)
    approx = expected_half_width(docs, n, p, level=result.level)
    return result.positives.half_width / approx if approx > 0 else 1.0


def half_width_after(result: AuditEstimate, extra: int) -> FollowUp:
    """The expected half-width after ``extra`` more audited documents.

    Parameters
    ----------
    result : AuditEstimate
        Today's estimate.
    extra : int
        More documents to review (at most the unreviewed documents below the line).

    Returns
    -------
    FollowUp

    Raises
    ------
    InputError
        ``extra`` negative or more than the unreviewed documents.

    References
    ----------
    Cochran (1977), eq. 5.26 (Neyman allocation) and 5.52 (variance of a stratified proportion).
    """
    if not isinstance(result, AuditEstimate):
        raise InputError(
            f"A follow-up needs an audit's estimate (engine.audit._estimate), not {type(result).__name__}."
        )
    docs, n, p = _smoothed(result)
    left = int(docs.sum() - n.sum())
    extra = whole_number(
        extra, "--more", 0, left, what="(more audited documents: at most the unreviewed ones below the line)"
    )
    sizes = allocate(int(n.sum() + extra), docs, "neyman", p, minimum=0, reviewed=n)
    width = expected_half_width(docs, sizes, p, level=result.level) * _scale(result)
    return FollowUp(int(extra), tuple(int(v) for v in sizes), float(width), result.positives.half_width, result.level)


def audits_for_half_width(result: AuditEstimate, half_width: float) -> FollowUp:
    """The fewest more audited documents expected to bring the half-width down to ``half_width``.

    Parameters
    ----------
    result : AuditEstimate
        Today's estimate.
    half_width : float
        Wanted half-width of the interval of the missed positives (> 0).

    Returns
    -------
    FollowUp
        ``extra`` = 0 when today's interval is already that narrow; every unreviewed document
        when nothing less is expected to do.

    Raises
    ------
    InputError
        ``half_width`` not positive.

    References
    ----------
    Cochran (1977), §5.9 (sample size for a given precision).
    """
    if not isinstance(result, AuditEstimate):
        raise InputError(
            f"A follow-up needs an audit's estimate (engine.audit._estimate), not {type(result).__name__}."
        )
    half_width = real_number(half_width, "--want-half-width", positive=True, what="the wanted half-width in documents")
    if result.positives.half_width <= half_width:
        return half_width_after(result, 0)
    docs, n, p = _smoothed(result)
    budget = budget_for_half_width(
        half_width / _scale(result), docs, "neyman", p, level=result.level, minimum=0, reviewed=n
    )
    return half_width_after(result, int(budget - n.sum()))
