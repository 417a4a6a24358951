"""Rate expressions: positive / negative prediction rates on row subsets and the goals built from them.

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset Constraints*, NIPS 2016, Table 2. Every goal is a positive linear combination of the positive and
negative prediction rates ``sp(D)``, ``sn(D)`` on (possibly unlabelled) row
subsets D. The classifier ``f(x) = <w, x> - b`` predicts positive with
probability ``sigma(f)``, the ramp ``sigma(z) = clip(1/2 + z, 0, 1)``
(Problem 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ramp", "RateExpr", "row_mask", "sp", "sn", "coverage", "true_positives", "false_positives",
           "false_negatives", "true_negatives", "error_rate", "recall", "churn", "positive_rate",
           "demographic_parity_ratio", "equal_opportunity_ratio", "churn_rate"]


def ramp(z):
    """sigma(z) = max(0, min(1, 1/2 + z)): the probability of a positive prediction."""
    return np.clip(0.5 + np.asarray(z, dtype=float), 0.0, 1.0)


@dataclass(frozen=True)
class RateExpr:
    """``sum_i pos_i sigma(z_i) + sum_i neg_i sigma(-z_i) + const`` with non-negative weights.

    Arithmetic keeps the weights non-negative: a negative multiple of sigma(z) is
    rewritten with ``sigma(z) = 1 - sigma(-z)`` (so ``-a sigma(z) = a sigma(-z) - a``).
    ``value(z)`` uses the ramp (randomised predictions); ``value(z, deterministic=True)``
    the indicators ``z >= 0``.
    """

    pos: np.ndarray
    neg: np.ndarray
    const: float = 0.0

    def value(self, z, deterministic: bool = False) -> float:
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
    m = np.ones(n, dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    if m.shape != (n,):
        raise ValueError(f"{what}: row selector must be a boolean mask of length {n}")
    if not m.any():
        raise ValueError(f"{what}: the row selector selects no rows")
    return m


def sp(rows: np.ndarray) -> RateExpr:
    """Positive prediction rate on the rows of a boolean mask."""
    w = np.asarray(rows, dtype=float)
    w = w / w.sum()
    return RateExpr(w, np.zeros_like(w))


def sn(rows: np.ndarray) -> RateExpr:
    """Negative prediction rate on the rows of a boolean mask."""
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
    """Share of the rows predicted positive: sp(D)."""
    return sp(rows)


def true_positives(y, rows=None) -> RateExpr:
    """#TP on the rows: |D+| sp(D+)."""
    return _count_expr(y, rows, 1, True)


def false_positives(y, rows=None) -> RateExpr:
    """#FP on the rows: |D-| sp(D-)."""
    return _count_expr(y, rows, 0, True)


def false_negatives(y, rows=None) -> RateExpr:
    """#FN on the rows: |D+| sn(D+)."""
    return _count_expr(y, rows, 1, False)


def true_negatives(y, rows=None) -> RateExpr:
    """#TN on the rows: |D-| sn(D-)."""
    return _count_expr(y, rows, 0, False)


def error_rate(y, rows=None) -> RateExpr:
    """(#FP + #FN) / labelled rows: the objective of :func:`fit_constrained`."""
    y = np.asarray(y)
    m = row_mask(rows, y.size, "rows") & (y >= 0)
    return (false_positives(y, m) + false_negatives(y, m)) * (1.0 / m.sum())


def recall(y, rows=None) -> RateExpr:
    """sp(D+) on the rows."""
    y = np.asarray(y)
    return sp(row_mask(rows, y.size, "rows") & (y == 1))


def churn(deployed, rows=None) -> RateExpr:
    """Share of the rows whose decision differs from the deployed model's (labels not needed)."""
    dep = np.asarray(deployed).astype(bool)
    m = row_mask(rows, dep.size, "rows")
    return RateExpr((m & ~dep) / m.sum(), (m & dep) / m.sum())


def positive_rate(decisions, rows=None) -> float:
    d = np.asarray(decisions, dtype=float)
    m = np.ones(d.size, bool) if rows is None else np.asarray(rows, bool)
    return float(d[m].mean())


def demographic_parity_ratio(decisions, protected, reference) -> float:
    """sp(protected) / sp(reference)."""
    ref = positive_rate(decisions, reference)
    return positive_rate(decisions, protected) / ref if ref > 0 else float("nan")


def equal_opportunity_ratio(decisions, y, protected, reference) -> float:
    """True positive rate(protected) / true positive rate(reference)."""
    y = np.asarray(y)
    return demographic_parity_ratio(decisions, np.asarray(protected, bool) & (y == 1),
                                    np.asarray(reference, bool) & (y == 1))


def churn_rate(decisions, deployed, rows=None) -> float:
    d = np.asarray(decisions).astype(bool)
    m = np.ones(d.size, bool) if rows is None else np.asarray(rows, bool)
    return float(np.mean(d[m] != np.asarray(deployed).astype(bool)[m]))
