"""Dataset constraints (Table 2 of Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset Constraints*, NIPS 2016).

Each constraint turns into a :class:`~engine.constraints.rates.RateExpr` that must
be ``<= 0`` on the training rows: demographic parity (the 80 % rule), equal
opportunity, churn against a deployed model, recall, coverage and
egregious-example constraints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rates import RateExpr, churn, row_mask, sn, sp

__all__ = ["DemographicParity", "EqualOpportunity", "MaxChurn", "MinRecall", "MaxCoverage", "MinCoverage",
           "Egregious"]


@dataclass(frozen=True)
class DemographicParity:
    """sp(protected) >= kappa * sp(reference), e.g. the 80 % rule with kappa = 0.8."""

    protected: np.ndarray
    reference: np.ndarray
    kappa: float

    def expression(self, y: np.ndarray) -> RateExpr:
        n = y.size
        return self.kappa * sp(row_mask(self.reference, n, "reference")) - sp(row_mask(self.protected, n, "protected"))

    def describe(self) -> str:
        return f"positive rate(protected) >= {self.kappa:g} x positive rate(reference)"


@dataclass(frozen=True)
class EqualOpportunity:
    """The same ratio on the labelled positives only (true positive rates)."""

    protected: np.ndarray
    reference: np.ndarray
    kappa: float

    def expression(self, y: np.ndarray) -> RateExpr:
        n = y.size
        pos = y == 1
        return DemographicParity(row_mask(self.protected, n, "protected") & pos,
                                 row_mask(self.reference, n, "reference") & pos, self.kappa).expression(y)

    def describe(self) -> str:
        return f"true positive rate(protected) >= {self.kappa:g} x true positive rate(reference)"


@dataclass(frozen=True)
class MaxChurn:
    """Share of rows (labels not needed) whose decision differs from the deployed model's <= rate."""

    deployed_decisions: np.ndarray
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        return churn(self.deployed_decisions, row_mask(self.rows, y.size, "churn rows")) - self.rate

    def describe(self) -> str:
        return f"churn against the deployed model <= {self.rate:.2%}"


@dataclass(frozen=True)
class MinRecall:
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        pos = row_mask(self.rows, y.size, "recall rows") & (y == 1)
        if not pos.any():
            raise ValueError("recall constraint: the rows contain no labelled positive")
        return sn(pos) - (1.0 - self.rate)

    def describe(self) -> str:
        return f"recall >= {self.rate:.2%}"


@dataclass(frozen=True)
class MaxCoverage:
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        return sp(row_mask(self.rows, y.size, "coverage rows")) - self.rate

    def describe(self) -> str:
        return f"coverage <= {self.rate:.2%}"


@dataclass(frozen=True)
class MinCoverage:
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        return sn(row_mask(self.rows, y.size, "coverage rows")) - (1.0 - self.rate)

    def describe(self) -> str:
        return f"coverage >= {self.rate:.2%}"


@dataclass(frozen=True)
class Egregious:
    """At least ``min_correct`` of these (labelled) rows classified correctly."""

    rows: np.ndarray
    min_correct: float

    def expression(self, y: np.ndarray) -> RateExpr:
        rows = row_mask(self.rows, y.size, "egregious rows")
        if np.any(y[rows] < 0):
            raise ValueError("egregious-example constraint: every selected row needs a label")
        count = rows.sum()
        err = RateExpr((rows & (y == 0)) / count, (rows & (y == 1)) / count)
        return err - (1.0 - self.min_correct)

    def describe(self) -> str:
        return f"at least {self.min_correct:.0%} of the egregious examples correct"
