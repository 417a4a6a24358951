"""Rate expressions: positive / negative prediction rates on row subsets and the goals built from them.

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset
Constraints*, NIPS 2016, Table 2. Every goal is a positive linear combination of the
positive and negative prediction rates ``sp(D)``, ``sn(D)`` on (possibly unlabelled)
row subsets D. The classifier ``f(x) = <w, x> - b`` predicts positive with
probability ``sigma(f)``, the ramp ``sigma(z) = clip(1/2 + z, 0, 1)``
(Problem 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = [
    "ramp",
    "RateExpr",
    "row_mask",
    "sp",
    "sn",
    "coverage",
    "true_positives",
    "false_positives",
    "false_negatives",
    "true_negatives",
    "error_rate",
    "recall",
    "churn",
    "positive_rate",
    "demographic_parity_ratio",
    "equal_opportunity_ratio",
    "churn_rate",
]


def ramp(z):
    """The ramp sigma(z) = max(0, min(1, 1/2 + z)): the probability of a positive prediction.

    The randomised classifier predicts positive on x with probability sigma(f(x)); its
    expected positive rate on D is ``r_p(D) = mean over D of sigma(f(x))``.

    Parameters
    ----------
    z : array-like of float, any shape
        Decision values f(x) = <w, x> - b.

    Returns
    -------
    numpy.ndarray of float, the shape of ``z``
        sigma(z), in [0, 1]; sigma(z) + sigma(-z) = 1.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), eq. (2) (the ramp), eq. (3) (the expected
    rates r_p, r_n) and Problem 2.
    """
    return np.clip(0.5 + np.asarray(z, dtype=float), 0.0, 1.0)


@dataclass(frozen=True)
class RateExpr:
    """``sum_i pos_i sigma(z_i) + sum_i neg_i sigma(-z_i) + const`` with non-negative weights.

    Arithmetic keeps the weights non-negative: a negative multiple of sigma(z) is
    rewritten with ``sigma(z) = 1 - sigma(-z)`` (so ``-a sigma(z) = a sigma(-z) - a``).
    ``value(z)`` uses the ramp (randomised predictions); ``value(z, deterministic=True)``
    the indicators ``z >= 0``.

    Parameters
    ----------
    pos : numpy.ndarray of float of shape (n,)
        Non-negative weight of each training row's positive prediction, sigma(z_i) (the
        coefficients alpha of Problem 1, spread over the rows of each dataset ``D_i``).
    neg : numpy.ndarray of float of shape (n,)
        Non-negative weight of each training row's negative prediction, sigma(-z_i) (the
        coefficients beta of Problem 1).
    const : float, optional
        The constant term (default 0).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Problem 1 (positive linear combinations of
    sp and sn; sp + sn = 1 turns any linear combination into one plus a constant) and
    Problem 2 (the same with the ramp).
    """

    pos: np.ndarray
    neg: np.ndarray
    const: float = 0.0

    def value(self, z, deterministic: bool = False) -> float:
        """The expression's value at decision values ``z``.

        Parameters
        ----------
        z : array-like of float of shape (n,)
            Decision values f(x_i) of the n training rows, in the order of ``pos`` / ``neg``.
        deterministic : bool, optional
            False (default): expected value for the randomised classifier, sigma(z) for a
            positive prediction. True: the decisions ``z >= 0`` (1 positive, 0 negative).

        Returns
        -------
        float
            ``pos @ p + neg @ (1 - p) + const`` with p = sigma(z), or p = 1[z >= 0] when
            ``deterministic``.
        """
        z = np.asarray(z, dtype=float)
        if deterministic:
            p = (z >= 0).astype(float)
            return float(self.pos @ p + self.neg @ (1.0 - p) + self.const)
        return float(self.pos @ ramp(z) + self.neg @ ramp(-z) + self.const)

    def _normalise(self, pos, neg, const):
        move = np.minimum(pos, 0.0)  # negative weight on sigma(z): becomes weight on sigma(-z)
        neg = neg - move
        const = const + float(move.sum())
        pos = pos - move
        move = np.minimum(neg, 0.0)
        pos = pos - move
        const = const + float(move.sum())
        neg = neg - move
        return RateExpr(pos, neg, const)

    def __add__(self, other):
        if isinstance(other, RateExpr):
            return self._normalise(self.pos + other.pos, self.neg + other.neg, self.const + other.const)
        return RateExpr(self.pos, self.neg, self.const + float(other))

    __radd__ = __add__

    def __mul__(self, k: float):
        k = float(k)
        return self._normalise(self.pos * k, self.neg * k, self.const * k)

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-other if isinstance(other, RateExpr) else -float(other))

    def __rsub__(self, other):
        return (-self) + other


def row_mask(rows, n: int, what: str) -> np.ndarray:
    """A row selector checked as a non-empty boolean mask of length ``n``.

    Parameters
    ----------
    rows : array-like of bool of shape (n,) or None
        The selected rows; None selects every row.
    n : int
        Number of training rows.
    what : str
        What the rows are for, at the start of an error message.

    Returns
    -------
    numpy.ndarray of bool of shape (n,)

    Raises
    ------
    ValueError
        ``rows`` is not of shape (n,), or selects no row.
    """
    m = np.ones(n, dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    if m.shape != (n,):
        raise InputError(f"{what}: row selector must be a boolean mask of length {n}")
    if not m.any():
        raise InputError(f"{what}: the row selector selects no rows")
    return m


def sp(rows: np.ndarray) -> RateExpr:
    """Positive prediction rate sp(D) on the rows D of a boolean mask.

    Parameters
    ----------
    rows : array-like of bool of shape (n,)
        The rows D (non-negative weights are accepted too: each row counts by its weight).

    Returns
    -------
    RateExpr
        ``pos = rows / |D|``, ``neg = 0``: ``sp(D) = (1 / |D|) sum over D of 1[f(x) >= 0]``,
        or its ramp version r_p(D).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), eq. (1) (sp) and eq. (3) (r_p); Table 2.
    """
    w = np.asarray(rows, dtype=float)
    w = w / w.sum()
    return RateExpr(w, np.zeros_like(w))


def sn(rows: np.ndarray) -> RateExpr:
    """Negative prediction rate sn(D) on the rows D of a boolean mask.

    Parameters
    ----------
    rows : array-like of bool of shape (n,)
        The rows D (non-negative weights are accepted too: each row counts by its weight).

    Returns
    -------
    RateExpr
        ``pos = 0``, ``neg = rows / |D|``: sn(D) = 1 - sp(D), or its ramp version r_n(D).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), eq. (1) (sn) and eq. (3) (r_n); Table 2.
    """
    w = np.asarray(rows, dtype=float)
    w = w / w.sum()
    return RateExpr(np.zeros_like(w), w)


def _count_expr(y, rows, label: int, predicted_positive: bool) -> RateExpr:
    """Number of labelled rows with ``label`` predicted positive (or negative)."""
    y = np.asarray(y)
    m = (row_mask(rows, y.size, "rows") & (y == label)).astype(float)
    zero = np.zeros(y.size)
    return RateExpr(m, zero) if predicted_positive else RateExpr(zero, m)


def coverage(rows) -> RateExpr:
    """Coverage: the share of the rows predicted positive, sp(D).

    Parameters
    ----------
    rows : array-like of bool of shape (n,)
        The rows D (labels are not needed).

    Returns
    -------
    RateExpr
        sp(D), as :func:`sp`.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Coverage rate".
    """
    return sp(rows)


def true_positives(y, rows=None) -> RateExpr:
    """#TP on the rows: ``|D+| sp(D+)``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of the training rows: 1, 0, or -1 for an unlabelled row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    RateExpr
        The number of true positives, weight 1 per row (a count, not a rate): ``|D+| sp(D+)``,
        where D+ / D- are the rows of ``rows`` labelled 1 / 0.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "#TP".
    """
    return _count_expr(y, rows, 1, True)


def false_positives(y, rows=None) -> RateExpr:
    """#FP on the rows: ``|D-| sp(D-)``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of the training rows: 1, 0, or -1 for an unlabelled row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    RateExpr
        The number of false positives, weight 1 per row (a count, not a rate): ``|D-| sp(D-)``,
        where D+ / D- are the rows of ``rows`` labelled 1 / 0.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "#FP".
    """
    return _count_expr(y, rows, 0, True)


def false_negatives(y, rows=None) -> RateExpr:
    """#FN on the rows: ``|D+| sn(D+)``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of the training rows: 1, 0, or -1 for an unlabelled row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    RateExpr
        The number of false negatives, weight 1 per row (a count, not a rate): ``|D+| sn(D+)``,
        where D+ / D- are the rows of ``rows`` labelled 1 / 0.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "#FN".
    """
    return _count_expr(y, rows, 1, False)


def true_negatives(y, rows=None) -> RateExpr:
    """#TN on the rows: ``|D-| sn(D-)``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of the training rows: 1, 0, or -1 for an unlabelled row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    RateExpr
        The number of true negatives, weight 1 per row (a count, not a rate): ``|D-| sn(D-)``,
        where D+ / D- are the rows of ``rows`` labelled 1 / 0.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "#TN".
    """
    return _count_expr(y, rows, 0, False)


def error_rate(y, rows=None) -> RateExpr:
    """Error rate ``(#FP + #FN) / (|D+| + |D-|)`` on the labelled rows: the objective of :func:`fit_constrained`.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of the training rows: 1, 0, or -1 for an unlabelled row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).
        Unlabelled rows (-1) among them are left out; at least one labelled row is expected.

    Returns
    -------
    RateExpr
        ``(|D-| sp(D-) + |D+| sn(D+)) / (|D+| + |D-|)`` over the labelled rows of ``rows``.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "#Errors" and "Error rate"; the objective of Problem 1.
    """
    y = np.asarray(y)
    m = row_mask(rows, y.size, "rows") & (y >= 0)
    return (false_positives(y, m) + false_negatives(y, m)) * (1.0 / m.sum())


def recall(y, rows=None) -> RateExpr:
    """Recall ``#TP / |D+| = sp(D+)`` on the rows.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels of the training rows: 1, 0, or -1 for an unlabelled row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).
        At least one of them is expected to be labelled 1.

    Returns
    -------
    RateExpr
        sp(D+), D+ the rows of ``rows`` labelled 1.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Recall".
    """
    y = np.asarray(y)
    return sp(row_mask(rows, y.size, "rows") & (y == 1))


def churn(deployed, rows=None) -> RateExpr:
    """Churn rate: the share of the rows whose decision differs from the deployed model's.

    Labels are not needed: D is split by the deployed decisions into ``D_+`` (deployed positive)
    and ``D_-`` (deployed negative), and a change is a negative prediction on ``D_+`` or a positive
    one on ``D_-``.

    Parameters
    ----------
    deployed : array-like of shape (n,)
        The deployed model's decisions, 0/1 (or bool), one per training row.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    RateExpr
        ``(|D_-| sp(D_-) + |D_+| sn(D_+)) / |D|``.

    Raises
    ------
    ValueError
        ``rows`` is not a boolean mask of length n, or selects no row.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "#Changes" and "Churn rate".
    """
    dep = np.asarray(deployed).astype(bool)
    m = row_mask(rows, dep.size, "rows")
    return RateExpr((m & ~dep) / m.sum(), (m & dep) / m.sum())


def positive_rate(decisions, rows=None) -> float:
    """Measured share of positive decisions on the rows (sp(D) of given decisions).

    Parameters
    ----------
    decisions : array-like of shape (n,)
        0/1 decisions, or probabilities of a positive prediction (then the expected rate).
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    float
        The mean of ``decisions`` over D (NaN when D is empty).

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), eq. (1) (sp) and eq. (3) (r_p).
    """
    d = np.asarray(decisions, dtype=float)
    m = np.ones(d.size, bool) if rows is None else np.asarray(rows, bool)
    return float(d[m].mean())


def demographic_parity_ratio(decisions, protected, reference) -> float:
    """Demographic parity ratio sp(protected) / sp(reference) of given decisions.

    The largest kappa for which the fairness constraint ``sp(D_A)`` >= kappa ``sp(D_B)`` holds
    (0.8 is the 80 % rule).

    Parameters
    ----------
    decisions : array-like of shape (n,)
        0/1 decisions (or probabilities of a positive prediction).
    protected : array-like of bool of shape (n,)
        The protected group ``D_A``.
    reference : array-like of bool of shape (n,)
        The reference group ``D_B``.

    Returns
    -------
    float
        The ratio of the two positive rates; NaN when the reference group has none.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Fairness constraint"; Section 4.1
    (the fairness ratio of Figure 2).
    """
    ref = positive_rate(decisions, reference)
    return positive_rate(decisions, protected) / ref if ref > 0 else float("nan")


def equal_opportunity_ratio(decisions, y, protected, reference) -> float:
    """Equal opportunity ratio: true positive rate(protected) / true positive rate(reference).

    The largest kappa for which ``sp(D_A ∩ D+)`` >= kappa ``sp(D_B ∩ D+)`` holds.

    Parameters
    ----------
    decisions : array-like of shape (n,)
        0/1 decisions (or probabilities of a positive prediction).
    y : array-like of shape (n,)
        Labels: 1, 0, or -1 for unlabelled (only the rows labelled 1 count).
    protected : array-like of bool of shape (n,)
        The protected group ``D_A``.
    reference : array-like of bool of shape (n,)
        The reference group ``D_B``.

    Returns
    -------
    float
        The ratio of the two recalls; NaN when the reference group's recall is 0.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Equal opportunity constraint".
    """
    y = np.asarray(y)
    return demographic_parity_ratio(
        decisions, np.asarray(protected, bool) & (y == 1), np.asarray(reference, bool) & (y == 1)
    )


def churn_rate(decisions, deployed, rows=None) -> float:
    """Measured churn: the share of the rows where ``decisions`` and ``deployed`` differ.

    Parameters
    ----------
    decisions : array-like of shape (n,)
        The new model's 0/1 decisions.
    deployed : array-like of shape (n,)
        The deployed model's 0/1 decisions.
    rows : array-like of bool of shape (n,), optional
        The rows D (default: every row).

    Returns
    -------
    float
        ``#Changes / |D|``.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Table 2, "Churn rate"; Section 4.2.
    """
    d = np.asarray(decisions).astype(bool)
    m = np.ones(d.size, bool) if rows is None else np.asarray(rows, bool)
    return float(np.mean(d[m] != np.asarray(deployed).astype(bool)[m]))
