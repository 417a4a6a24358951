"""Operating points chosen by a review budget instead of a target marginal precision.

Robles, Zaidouni, Mavromoustaki & Refael (AAAI-MAKE 2020) choose the threshold by
the PN curve's slope. A review team instead states a **capacity**: at most N
(weighted) rated documents flagged, ``flagged(t) = TP(t) + FP(t)`` at threshold t.
Because TP and flagged both grow as the threshold falls, the best threshold under
the budget is read off the PN curve directly: the most true positives among the
curve's thresholds whose flagged volume fits, and among equal TP the fewest false
positives (the highest such threshold).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._curve import PNCurve, pn_curve

__all__ = ["FlaggedCounts", "BudgetPoint", "check_capacity", "max_flagged_point"]


class FlaggedCounts:
    """Reviews spent and precision of a point with ``tp`` and ``fp`` (weighted rated documents flagged)."""

    tp: float
    fp: float

    @property
    def flagged(self) -> float:
        return self.tp + self.fp

    @property
    def precision(self) -> float:
        return self.tp / self.flagged if self.flagged > 0 else math.nan


@dataclass(frozen=True)
class BudgetPoint(FlaggedCounts):
    """The threshold that spends at most ``capacity`` reviews best (``threshold = inf``: flag nothing)."""

    capacity: float
    threshold: float
    tp: float
    fp: float

    def as_dict(self) -> dict:
        return {
            "capacity": self.capacity,
            "threshold": self.threshold,
            "tp": self.tp,
            "fp": self.fp,
            "flagged": self.flagged,
            "precision": self.precision,
        }


def check_capacity(capacity) -> float:
    """A capacity is a finite number of reviews >= 0."""
    try:
        value = float(capacity)
    except (TypeError, ValueError):
        raise InputError(f"capacity must be a number of reviews, got {capacity!r}") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"capacity must be a finite number of reviews >= 0, got {capacity!r}")
    return value


def max_flagged_point(
    scores=None, labels=None, weights=None, *, capacity: float, curve: PNCurve | None = None
) -> BudgetPoint:
    """The threshold with the most true positives among those flagging at most ``capacity`` documents.

    Parameters
    ----------
    scores, labels, weights : array-like, optional
        Rated documents (or pass ``curve``).
    capacity : float
        Review budget N: the weighted count of rated documents with score >= threshold may not exceed it.
    curve : PNCurve, optional
        A precomputed PN curve.

    Returns
    -------
    BudgetPoint
        ``threshold = inf`` when not even the highest score fits.

    References
    ----------
    Robles et al., AAAI-MAKE 2020, the PN curve (raw TP against raw FP); the budget replaces
    the target slope by a bound on TP + FP.
    """
    n = check_capacity(capacity)
    if curve is None:
        curve = pn_curve(scores, labels, weights)
    flagged = curve.tp + curve.fp
    # flagged never decreases down the curve: the feasible thresholds are a prefix
    fits = int(np.searchsorted(flagged, n * (1 + 1e-12) + 1e-9, side="right"))
    best_tp = curve.tp[fits - 1] if fits else 0.0
    if best_tp <= 0:  # no true positive fits: flagging nothing is best (no false positives)
        return BudgetPoint(n, math.inf, 0.0, 0.0)
    # the highest threshold reaching that TP flags the fewest false positives
    first = int(np.searchsorted(curve.tp[:fits], best_tp - 1e-12 * max(1.0, abs(best_tp)), side="left"))
    return BudgetPoint(n, float(curve.thresholds[first]), float(curve.tp[first]), float(curve.fp[first]))
