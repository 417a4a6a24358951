"""Dataset constraints: Table 2 of Goh, Cotter, Gupta & Friedlander, *Satisfying
Real-world Goals with Dataset Constraints*, NIPS 2016.

Each constraint turns into a :class:`~engine.constraints._rates.RateExpr` that must
be ``<= 0`` on the training rows: demographic parity (the 80 % rule), equal
opportunity, churn against a deployed model, recall, coverage and
egregious-example constraints. Each has ``expression(y)`` (that rate expression) and
``describe()`` (the constraint in words); row masks are boolean arrays over the n
training rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._rates import RateExpr, churn, row_mask, sn, sp

__all__ = ["DemographicParity", "EqualOpportunity", "MaxChurn", "MinRecall", "MaxCoverage", "MinCoverage", "Egregious"]


@dataclass(frozen=True)
class DemographicParity:
    """Demographic parity: sp(protected) >= kappa * sp(reference), e.g. the 80 % rule with kappa = 0.8.

    Parameters
    ----------
    protected : numpy.ndarray of bool of shape (n,)
        The protected group D_A among the training rows (labels not needed).
    reference : numpy.ndarray of bool of shape (n,)
        The reference group D_B.
    kappa : float
        The required ratio of the two positive rates (> 0).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Fairness constraint"; Section 4.1.
    """

    protected: np.ndarray
    reference: np.ndarray
    kappa: float

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            ``kappa sp(reference) - sp(protected)``.

        Raises
        ------
        ValueError
            A row mask is not of shape (n,), or selects no row.
        """
        n = y.size
        return self.kappa * sp(row_mask(self.reference, n, "reference")) - sp(row_mask(self.protected, n, "protected"))

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"positive rate(protected) >= {self.kappa:g} x positive rate(reference)"


@dataclass(frozen=True)
class EqualOpportunity:
    """Equal opportunity: sp(protected ∩ D+) >= kappa * sp(reference ∩ D+) (true positive rates).

    Parameters
    ----------
    protected : numpy.ndarray of bool of shape (n,)
        The protected group D_A among the training rows.
    reference : numpy.ndarray of bool of shape (n,)
        The reference group D_B.
    kappa : float
        The required ratio of the two true positive rates (> 0).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Equal opportunity constraint".
    """

    protected: np.ndarray
    reference: np.ndarray
    kappa: float

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            ``kappa sp(reference ∩ D+) - sp(protected ∩ D+)``, D+ the rows labelled 1.

        Raises
        ------
        ValueError
            A row mask is not of shape (n,), or selects no row, or a group has no row labelled 1.
        """
        n = y.size
        pos = y == 1
        return DemographicParity(
            row_mask(self.protected, n, "protected") & pos, row_mask(self.reference, n, "reference") & pos, self.kappa
        ).expression(y)

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"true positive rate(protected) >= {self.kappa:g} x true positive rate(reference)"


@dataclass(frozen=True)
class MaxChurn:
    """Churn bound: the share of rows whose decision differs from the deployed model's is ``<= rate``.

    Labels are not needed, so unlabelled rows count.

    Parameters
    ----------
    deployed_decisions : numpy.ndarray of shape (n,)
        The deployed model's 0/1 decisions on the training rows.
    rate : float
        The largest churn allowed, in [0, 1].
    rows : numpy.ndarray of bool of shape (n,), optional
        The rows the churn is measured on (default: every row).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Churn rate"; Section 4.2.
    """

    deployed_decisions: np.ndarray
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            ``churn(deployed_decisions, rows) - rate``.

        Raises
        ------
        ValueError
            ``rows`` is not of shape (n,), or selects no row.
        """
        return churn(self.deployed_decisions, row_mask(self.rows, y.size, "churn rows")) - self.rate

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"churn against the deployed model <= {self.rate:.2%}"


@dataclass(frozen=True)
class MinRecall:
    """Recall bound: sp(D+) >= rate on the labelled positives D+ of the rows.

    Parameters
    ----------
    rate : float
        The smallest recall allowed, in [0, 1].
    rows : numpy.ndarray of bool of shape (n,), optional
        The rows the recall is measured on (default: every row).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Recall"; Section 4.2 (recall no
    worse than the deployed model's).
    """

    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            ``sn(D+) - (1 - rate)`` (sn = 1 - sp keeps the weights non-negative).

        Raises
        ------
        ValueError
            ``rows`` is not of shape (n,) or selects no row, or contains no row labelled 1.
        """
        pos = row_mask(self.rows, y.size, "recall rows") & (y == 1)
        if not pos.any():
            raise InputError("recall constraint: the rows contain no labelled positive")
        return sn(pos) - (1.0 - self.rate)

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"recall >= {self.rate:.2%}"


@dataclass(frozen=True)
class MaxCoverage:
    """Coverage upper bound: sp(D) <= rate, D the rows (labels not needed).

    Parameters
    ----------
    rate : float
        The largest share of rows predicted positive, in [0, 1].
    rows : numpy.ndarray of bool of shape (n,), optional
        The rows D (default: every row).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Coverage rate".
    """

    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            ``sp(D) - rate``.

        Raises
        ------
        ValueError
            ``rows`` is not of shape (n,), or selects no row.
        """
        return sp(row_mask(self.rows, y.size, "coverage rows")) - self.rate

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"coverage <= {self.rate:.2%}"


@dataclass(frozen=True)
class MinCoverage:
    """Coverage lower bound: sp(D) >= rate, D the rows (labels not needed).

    Parameters
    ----------
    rate : float
        The smallest share of rows predicted positive, in [0, 1].
    rows : numpy.ndarray of bool of shape (n,), optional
        The rows D (default: every row).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Coverage rate".
    """

    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            ``sn(D) - (1 - rate)`` (sn = 1 - sp keeps the weights non-negative).

        Raises
        ------
        ValueError
            ``rows`` is not of shape (n,), or selects no row.
        """
        return sn(row_mask(self.rows, y.size, "coverage rows")) - (1.0 - self.rate)

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"coverage >= {self.rate:.2%}"


@dataclass(frozen=True)
class Egregious:
    """Egregious examples: at least a share ``min_correct`` of these labelled rows classified correctly.

    One bound on all the egregious rows D together: ``(|D-| sp(D-) + |D+| sn(D+)) / |D| <=
    1 - min_correct``, D+ / D- the egregious rows labelled 1 / 0.

    Parameters
    ----------
    rows : numpy.ndarray of bool of shape (n,)
        The egregious rows D; each needs a label.
    min_correct : float
        The smallest share of D classified correctly, in [0, 1].

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Egregious example constraint".
    """

    rows: np.ndarray
    min_correct: float

    def expression(self, y: np.ndarray) -> RateExpr:
        """The constraint as a rate expression that must be ``<= 0``.

        Parameters
        ----------
        y : numpy.ndarray of shape (n,)
            Labels of the training rows: 1, 0, or -1 for an unlabelled row (n fixes the
            length of every row mask).

        Returns
        -------
        RateExpr
            The error rate on D minus ``1 - min_correct``.

        Raises
        ------
        ValueError
            ``rows`` is not of shape (n,) or selects no row, or a selected row is unlabelled.
        """
        rows = row_mask(self.rows, y.size, "egregious rows")
        if np.any(y[rows] < 0):
            raise InputError("egregious-example constraint: every selected row needs a label")
        count = rows.sum()
        err = RateExpr((rows & (y == 0)) / count, (rows & (y == 1)) / count)
        return err - (1.0 - self.min_correct)

    def describe(self) -> str:
        """The constraint in words.

        Returns
        -------
        str
        """
        return f"at least {self.min_correct:.0%} of the egregious examples correct"
