"""Training linear classifiers under rate constraints on several data sets (fairness, churn, coverage, recall).

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset
Constraints* (NIPS 2016). Every goal is a positive linear combination of the
positive / negative prediction rates ``sp(D)``, ``sn(D)`` on (possibly
unlabelled) row subsets D (Table 2). The classifier ``f(x) = <w, x> - b``
predicts positive with probability ``sigma(f)``, the ramp
``sigma(z) = clip(1/2 + z, 0, 1)`` (Problem 2), and

* **Algorithm 1 (majorization-minimization)**: at the current iterate each ramp
  term is bounded by the hinge ``max(0, 1/2 + z)`` (if its argument is <= 1/2
  there) or by the constant 1, giving a convex problem (Problem 3) that is tight
  at the iterate; its solution is the next iterate. An iterate is only accepted
  when it keeps every ramp constraint and does not raise the ramp objective, so
  the objective never increases.
* **Inner convex problem** through its Lagrangian: for fixed multipliers ``v``
  it is a weighted hinge SVM, solved in the primal with scipy's L-BFGS-B on a
  hinge smoothed within 1e-3 of its kink (an upper bound; liblinear's
  ``LinearSVC`` was tried first, but its dual solver stalls on rows that carry
  both hinges, which Problem 3 produces for every row whose two ramp terms are
  active, and it regularises the intercept).
  The multipliers are found by bisection for one constraint and by a Kelley
  cutting plane (``scipy.optimize.linprog``, HiGHS) for several.

Constraints are built from :class:`DemographicParity`, :class:`EqualOpportunity`,
:class:`MaxChurn`, :class:`MinRecall`, :class:`MaxCoverage`,
:class:`MinCoverage` and :class:`Egregious`; :func:`fit_constrained` is the
entry point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

__all__ = [
    "RateExpr",
    "sp",
    "sn",
    "DemographicParity",
    "EqualOpportunity",
    "MaxChurn",
    "MinRecall",
    "MaxCoverage",
    "MinCoverage",
    "Egregious",
    "ConstrainedModel",
    "InfeasibleConstraintsError",
    "fit_constrained",
    "ramp",
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
    """sigma(z) = max(0, min(1, 1/2 + z)): the probability of a positive prediction."""
    return np.clip(0.5 + np.asarray(z, dtype=float), 0.0, 1.0)


# --------------------------------------------------------------------------- rate expressions
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


def _mask(rows, n: int, what: str) -> np.ndarray:
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


# --------------------------------------------------------------------------- Table 2 expressions
def _count_expr(y, rows, label: int, predicted_positive: bool) -> RateExpr:
    """Number of labelled rows with ``label`` predicted positive (or negative)."""
    y = np.asarray(y)
    m = (_mask(rows, y.size, "rows") & (y == label)).astype(float)
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
    m = _mask(rows, y.size, "rows") & (y >= 0)
    return (false_positives(y, m) + false_negatives(y, m)) * (1.0 / m.sum())


def recall(y, rows=None) -> RateExpr:
    """sp(D+) on the rows."""
    y = np.asarray(y)
    return sp(_mask(rows, y.size, "rows") & (y == 1))


def churn(deployed, rows=None) -> RateExpr:
    """Share of the rows whose decision differs from the deployed model's (labels not needed)."""
    dep = np.asarray(deployed).astype(bool)
    m = _mask(rows, dep.size, "rows")
    return RateExpr((m & ~dep) / m.sum(), (m & dep) / m.sum())


# --------------------------------------------------------------------------- constraints (Table 2)
@dataclass(frozen=True)
class DemographicParity:
    """sp(protected) >= kappa * sp(reference), e.g. the 80 % rule with kappa = 0.8."""

    protected: np.ndarray
    reference: np.ndarray
    kappa: float

    def expression(self, y: np.ndarray) -> RateExpr:
        n = y.size
        return self.kappa * sp(_mask(self.reference, n, "reference")) - sp(_mask(self.protected, n, "protected"))

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
        return DemographicParity(_mask(self.protected, n, "protected") & pos,
                                 _mask(self.reference, n, "reference") & pos, self.kappa).expression(y)

    def describe(self) -> str:
        return f"true positive rate(protected) >= {self.kappa:g} x true positive rate(reference)"


@dataclass(frozen=True)
class MaxChurn:
    """Share of rows (labels not needed) whose decision differs from the deployed model's <= rate."""

    deployed_decisions: np.ndarray
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        return churn(self.deployed_decisions, _mask(self.rows, y.size, "churn rows")) - self.rate

    def describe(self) -> str:
        return f"churn against the deployed model <= {self.rate:.2%}"


@dataclass(frozen=True)
class MinRecall:
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        pos = _mask(self.rows, y.size, "recall rows") & (y == 1)
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
        return sp(_mask(self.rows, y.size, "coverage rows")) - self.rate

    def describe(self) -> str:
        return f"coverage <= {self.rate:.2%}"


@dataclass(frozen=True)
class MinCoverage:
    rate: float
    rows: np.ndarray | None = None

    def expression(self, y: np.ndarray) -> RateExpr:
        return sn(_mask(self.rows, y.size, "coverage rows")) - (1.0 - self.rate)

    def describe(self) -> str:
        return f"coverage >= {self.rate:.2%}"


@dataclass(frozen=True)
class Egregious:
    """At least ``min_correct`` of these (labelled) rows classified correctly."""

    rows: np.ndarray
    min_correct: float

    def expression(self, y: np.ndarray) -> RateExpr:
        rows = _mask(self.rows, y.size, "egregious rows")
        if np.any(y[rows] < 0):
            raise ValueError("egregious-example constraint: every selected row needs a label")
        count = rows.sum()
        err = RateExpr((rows & (y == 0)) / count, (rows & (y == 1)) / count)
        return err - (1.0 - self.min_correct)

    def describe(self) -> str:
        return f"at least {self.min_correct:.0%} of the egregious examples correct"


# --------------------------------------------------------------------------- rates on predictions
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


# --------------------------------------------------------------------------- the solver
class InfeasibleConstraintsError(ValueError):
    """No feasible starting point was found for the constraints."""


@dataclass(frozen=True)
class ConstrainedModel:
    """A fitted linear classifier: ``decision_function(x) = x @ coef_ + intercept_`` (= <w, x> - b).

    ``trace_`` holds one row per majorization-minimization iteration: ramp
    objective, deterministic error, each constraint's ramp and deterministic value
    (<= 0 means met), the multipliers and whether the step was accepted.
    """

    coef_: np.ndarray
    intercept_: float
    trace_: tuple
    constraint_names: tuple
    lam: float
    fit_seconds: float

    def decision_function(self, x) -> np.ndarray:
        return np.asarray(x, dtype=float) @ self.coef_ + self.intercept_

    def predict(self, x) -> np.ndarray:
        """Deterministic decisions: f(x) >= 0."""
        return (self.decision_function(x) >= 0).astype(int)

    def predict_proba_positive(self, x) -> np.ndarray:
        return ramp(self.decision_function(x))

    def predict_randomized(self, x, seed: int = 0) -> np.ndarray:
        """Positive with probability sigma(f(x)) (the classifier the constraints are stated for)."""
        rng = np.random.default_rng(seed)
        return (rng.random(np.asarray(x).shape[0]) < self.predict_proba_positive(x)).astype(int)


@dataclass
class _Problem:
    x: np.ndarray               # standardised features with a column of ones appended? no: plain
    objective: RateExpr
    constraints: list           # list of RateExpr, each <= 0
    lam: float
    tol: float
    svm_tol: float
    max_svm_iter: int
    stats: dict = field(default_factory=lambda: {"svm_solves": 0})
    active_slack: float = 2e-3   # stop the multiplier search once the bound constraint is this close to active
    max_bisect: int = 6
    smoothing: float = 1e-3      # width of the smoothed hinge kink in the inner solver


def _majorize(expr: RateExpr, z_now: np.ndarray):
    """Hinge weights (on max(0, 1/2 + z), on max(0, 1/2 - z)) and constant of the bound tight at z_now."""
    hinge_pos = z_now <= 0.5       # sigma(z) <= hinge(1/2 + z), tight where z <= 1/2
    hinge_neg = -z_now <= 0.5
    hp = np.where(hinge_pos, expr.pos, 0.0)
    hn = np.where(hinge_neg, expr.neg, 0.0)
    const = expr.const + float(expr.pos[~hinge_pos].sum() + expr.neg[~hinge_neg].sum())
    return hp, hn, const


def _bound_value(hp, hn, const, z) -> float:
    return float(hp @ np.maximum(0.0, 0.5 + z) + hn @ np.maximum(0.0, 0.5 - z) + const)


def _smooth_hinge(t: np.ndarray, delta: float):
    """Quadratically smoothed hinge shifted to lie above max(0, t): value and derivative.

    phi(t) = 0 for t <= -delta/2, (t + delta/2)^2 / (2 delta) up to t = delta/2, t beyond;
    phi >= max(0, t) everywhere and equal to it for |t| >= delta/2.
    """
    u = t + delta / 2
    value = np.where(u <= 0, 0.0, np.where(u <= delta, u * u / (2 * delta), t))
    grad = np.where(u <= 0, 0.0, np.where(u <= delta, u / delta, 1.0))
    return value, grad


def _weighted_svm(x: np.ndarray, hp: np.ndarray, hn: np.ndarray, lam: float, prob: "_Problem", start=None):
    """argmin_{w,b} sum hp_i max(0, 1/2 + z_i) + hn_i max(0, 1/2 - z_i) + lam/2 ||w||^2, z = x w - b.

    The weighted hinge SVM of a fixed multiplier vector. Rows can carry both hinges
    (liblinear's dual solver stalls on such duplicated, opposite-label rows), so it is
    solved in the primal: L-BFGS-B on the hinge smoothed within ``prob.smoothing``
    of its kink (an upper bound, exact away from the kink), warm-started. The
    intercept b is not regularised.
    """
    from scipy.optimize import minimize

    prob.stats["svm_solves"] += 1
    rows = np.flatnonzero((hp > 0) | (hn > 0))
    d = x.shape[1]
    if rows.size == 0:
        return np.zeros(d), 0.0
    xr, wp, wn = x[rows], hp[rows], hn[rows]
    delta = prob.smoothing

    def objective(theta):
        w, b = theta[:d], theta[d]
        z = xr @ w - b
        vp, gp = _smooth_hinge(0.5 + z, delta)
        vn, gn = _smooth_hinge(0.5 - z, delta)
        dz = wp * gp - wn * gn
        value = float(wp @ vp + wn @ vn) + 0.5 * lam * float(w @ w)
        return value, np.r_[xr.T @ dz + lam * w, -dz.sum()]

    theta0 = np.zeros(d + 1) if start is None else np.r_[start[0], start[1]]
    res = minimize(objective, theta0, jac=True, method="L-BFGS-B",
                   options={"maxiter": prob.max_svm_iter, "gtol": prob.svm_tol, "ftol": 1e-12})
    return res.x[:d], float(res.x[d])


def _solve_convex(prob: _Problem, z_now: np.ndarray, v_prev=None, start=None):
    """Problem 3 at the current iterate via the Lagrangian; returns (w, b, multipliers)."""
    from scipy.optimize import linprog

    x = prob.x
    obj = _majorize(prob.objective, z_now)
    cons = [_majorize(c, z_now) for c in prob.constraints]
    m = len(cons)

    last = [start]

    def inner(v):
        hp = obj[0] + sum(vj * c[0] for vj, c in zip(v, cons))
        hn = obj[1] + sum(vj * c[1] for vj, c in zip(v, cons))
        w, b = _weighted_svm(x, hp, hn, prob.lam, prob, last[0])
        last[0] = (w, b)
        z = x @ w - b
        g = np.array([_bound_value(*c, z) for c in cons])
        primal = _bound_value(*obj, z) + 0.5 * prob.lam * float(w @ w)
        return w, b, z, g, primal + float(np.dot(v, g))

    if m == 0:
        w, b, _, _, _ = inner(np.zeros(0))
        return [(w, b, np.zeros(0))]
    candidates = []
    if m == 1:
        # bracket the multiplier around the previous iteration's (warm start), then bisect
        v0 = float(v_prev[0]) if v_prev is not None and len(v_prev) == 1 else 0.0
        w, b, z, g, _ = inner(np.array([v0]))
        candidates.append((w, b, np.array([v0])))
        if g[0] > prob.tol:
            lo, hi = v0, max(2.0 * v0, 1.0 if v0 == 0 else 0.0)
            while True:  # grow until the bound constraint holds
                w, b, z, g, _ = inner(np.array([hi]))
                candidates.append((w, b, np.array([hi])))
                if g[0] <= 0 or hi > 1e8:
                    break
                lo, hi = hi, hi * 4.0
        elif v0 > 0 and g[0] < -prob.active_slack:
            hi, lo = v0, v0 / 2
            while lo > 1e-6:  # shrink while the bound constraint still holds with slack
                w, b, z, g, _ = inner(np.array([lo]))
                candidates.append((w, b, np.array([lo])))
                if g[0] > 0:
                    break
                hi, lo = lo, lo / 4
            else:
                lo = 0.0
        else:
            return candidates
        for _ in range(prob.max_bisect):  # bisection (geometric) on the monotone constraint value
            mid = np.sqrt(lo * hi) if lo > 0 else hi / 2
            w, b, z, g, _ = inner(np.array([mid]))
            candidates.append((w, b, np.array([mid])))
            if g[0] > 0:
                lo = mid
            else:
                hi = mid
                if g[0] > -prob.active_slack:  # the bound constraint is (nearly) active: close enough
                    break
            if hi - lo <= 1e-2 * prob.active_slack * hi / 2e-3:
                break
        return candidates
    # several constraints: Kelley's cutting plane on the concave dual over a box
    v_max = 1e4
    cuts = []
    best_lower = -np.inf
    v = np.zeros(m) if v_prev is None or len(v_prev) != m else np.asarray(v_prev, float).copy()
    for _ in range(40):
        w, b, z, g, dual = inner(v)
        candidates.append((w, b, v.copy()))
        best_lower = max(best_lower, dual)
        cuts.append((dual, g.copy(), v.copy()))
        # maximise theta s.t. theta <= dual_s + g_s . (v - v_s), 0 <= v <= v_max
        a_ub = np.array([np.r_[-gs, 1.0] for _, gs, _ in cuts])
        b_ub = np.array([ds - gs @ vs for ds, gs, vs in cuts])
        res = linprog(np.r_[np.zeros(m), -1.0], A_ub=a_ub, b_ub=b_ub,
                      bounds=[(0, v_max)] * m + [(None, None)], method="highs")
        if not res.success:
            break
        upper = -res.fun
        v = res.x[:m]
        if upper - best_lower <= prob.tol * max(1.0, abs(best_lower)):
            break
    return candidates


def _ramp_values(prob: _Problem, w, b):
    z = prob.x @ w - b
    objective = prob.objective.value(z) + 0.5 * prob.lam * float(w @ w)
    return z, objective, np.array([c.value(z) for c in prob.constraints])


def fit_constrained(x, y, constraints: Sequence = (), *, lam: float | None = None, max_iter: int = 10,
                    tol: float = 1e-4, svm_tol: float = 1e-6, max_svm_iter: int = 50, standardize: bool = True,
                    rel_improvement: float = 1e-3, progress=None) -> ConstrainedModel:
    """Minimise the error rate on the labelled rows + lam/2 ||w||^2 subject to rate constraints.

    ``y`` holds 0/1 labels and -1 for unlabelled rows (used only by constraints such
    as churn and coverage). Constraints hold for the randomised (ramp) classifier on
    these rows at every accepted iterate. The inner solves are capped at
    ``max_svm_iter`` L-BFGS iterations: an approximate solve still yields a valid MM
    step because a step is only accepted when it is feasible and not worse (on
    Adult, 50 iterations reach the same error as 500 in a quarter of the time); the trace records both the ramp and the
    deterministic (``f >= 0``) values. Raises :class:`InfeasibleConstraintsError`
    when no feasible start is found.
    """
    t0 = time.perf_counter()
    x = np.asarray(x, dtype=float)
    y = np.asarray(y).astype(int)
    if x.ndim != 2 or x.shape[0] != y.size:
        raise ValueError("x must be (n, d) with one label per row")
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinite values; impute or drop them first")
    if not np.isin(y, (-1, 0, 1)).all():
        raise ValueError("labels must be 0, 1, or -1 for unlabelled rows")
    labelled = y >= 0
    if not labelled.any():
        raise ValueError("at least one labelled row is needed for the error-rate objective")
    # lam = 0.01 on standardised features: on Adult the error moves < 0.1 % between 1e-2 and 3e-4
    lam = 0.01 if lam is None else float(lam)
    mean = x.mean(axis=0) if standardize else np.zeros(x.shape[1])
    scale = x.std(axis=0) if standardize else np.ones(x.shape[1])
    scale = np.where(scale > 0, scale, 1.0)
    xs = (x - mean) / scale
    objective = error_rate(y)
    exprs = [c.expression(y) for c in constraints]
    names = tuple(c.describe() for c in constraints)
    prob = _Problem(xs, objective, exprs, lam, tol, svm_tol, max_svm_iter)

    # ---- a feasible start: constant classifiers, then the unconstrained fit, then phase 1
    def feasible(w, b):
        _, obj, vals = _ramp_values(prob, w, b)
        return bool(np.all(vals <= tol)), obj, vals

    starts = [(np.zeros(xs.shape[1]), 0.5 - p) for p in np.linspace(0, 1, 21)]
    w0, b0 = _solve_convex(_Problem(xs, objective, [], lam, tol, svm_tol, max_svm_iter, prob.stats),
                           np.zeros(xs.shape[0]))[0][:2]
    starts.append((w0, b0))
    # the unconstrained direction with shifted intercepts and softer / sharper ramps (bias shifting)
    z0 = xs @ w0
    for factor in (0.25, 0.5, 1.0, 2.0):
        for q in np.linspace(0.0, 1.0, 41):
            starts.append((w0 * factor, float(np.quantile(z0 * factor, q))))
    best = None
    for w, b in starts:
        ok, obj, _ = feasible(w, b)
        if ok and (best is None or obj < best[2]):
            best = (w, b, obj)
    if best is None:
        # phase 1: minimise the sum of the constraint expressions (a positive combination of rates),
        # lightly regularised, trying sharper ramps (w, b scaled up) after each step
        phase = _Problem(xs, sum(exprs[1:], exprs[0]), [], lam * 1e-2, tol, svm_tol, max_svm_iter, prob.stats)
        w, b = starts[-1]
        worst = None
        for _ in range(max_iter):
            z = xs @ w - b
            w, b = _solve_convex(phase, z, None, (w, b))[0][:2]
            for factor in (1.0, 2.0, 4.0, 8.0, 16.0):
                ok, obj, vals = feasible(w * factor, b * factor)
                worst = vals if worst is None else np.minimum(worst, vals)
                if ok:
                    best = (w * factor, b * factor, obj)
                    break
            if best is not None:
                break
        if best is None:
            detail = "; ".join(f"{name}: exceeded by {max(v, 0):.4f}" for name, v in zip(names, worst))
            raise InfeasibleConstraintsError(
                "No feasible starting point: the constraints could not all be met on the training rows "
                f"({detail}). Loosen a bound, drop a constraint, or check that the row selectors are right.")
    w, b, obj = best
    trace = []
    z, obj, vals = _ramp_values(prob, w, b)
    trace.append(_trace_row(0, prob, w, b, z, obj, vals, np.zeros(len(exprs)), True))
    v_prev = None
    for it in range(1, max_iter + 1):
        candidates = _solve_convex(prob, z, v_prev, (w, b))
        chosen = None
        for cw, cb, v in candidates:  # the best candidate that keeps every ramp constraint
            cz, cobj, cvals = _ramp_values(prob, cw, cb)
            if np.all(cvals <= tol) and cobj <= obj + 1e-12 and (chosen is None or cobj < chosen[3]):
                chosen = (cw, cb, cz, cobj, cvals, v)
        accepted = chosen is not None
        if accepted:
            improvement = obj - chosen[3]
            w, b, z, obj, vals, v = chosen
            v_prev = v
        else:
            improvement, v = 0.0, candidates[-1][2]
        trace.append(_trace_row(it, prob, w, b, z, obj, vals, v, accepted))
        if progress is not None:
            progress(it, max_iter)
        if not accepted or improvement <= rel_improvement * max(1.0, abs(obj)):
            break
    coef = w / scale
    intercept = -b - float(mean @ coef)
    return ConstrainedModel(coef, intercept, tuple(trace), names, lam, time.perf_counter() - t0)


def _trace_row(it, prob, w, b, z, obj, vals, v, accepted) -> dict:
    return {"iteration": it, "objective": obj, "ramp_error": prob.objective.value(z),
            "error": prob.objective.value(z, deterministic=True),
            "constraints": [float(c) for c in vals],
            "constraints_deterministic": [c.value(z, deterministic=True) for c in prob.constraints],
            "multipliers": [float(m) for m in np.ravel(v)], "accepted": bool(accepted),
            "svm_solves": prob.stats["svm_solves"]}
