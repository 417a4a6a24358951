"""Training a linear classifier under rate constraints: ramp loss and majorization-minimization.

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset Constraints*, NIPS 2016.

* **Algorithm 1 (majorization-minimization)**: at the current iterate each ramp
  term is bounded by the hinge ``max(0, 1/2 + z)`` (if its argument is <= 1/2
  there) or by the constant 1, giving a convex problem (Problem 3) that is tight
  at the iterate; its solution is the next iterate. An iterate is only accepted
  when it keeps every ramp constraint and does not raise the ramp objective, so
  the objective never increases.
* **Inner convex problem** through its Lagrangian: for fixed multipliers ``v``
  it is a weighted hinge SVM (rows may carry both hinges, the intercept is not
  regularised), solved in the primal by Newton's method on the hinge smoothed
  within 0.2 of its kink (:mod:`~engine.constraints._weighted_hinge`), with the
  standardised features kept sparse where the raw columns are, e.g. one-hot
  indicators (:mod:`~engine.constraints._design`). The
  multiplier of one constraint is found by regula falsi on the monotone
  constraint value, several by a Kelley cutting plane (``scipy.optimize.linprog``,
  HiGHS) on the concave dual.
* **Starts**: constant classifiers, the unconstrained fit with shifted intercepts,
  and Problem 3 majorized at the unconstrained fit (every solution meeting its
  majorized constraints is feasible); else a phase-1 search. A warm start (a model
  fitted at a neighbouring bound) replaces them when it gives a feasible start.
"""

from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import InfeasibleConstraintsError, InputError
from ._design import as_design, standardised_design
from ._goals import DemographicParity, Egregious, EqualOpportunity, MaxChurn, MaxCoverage, MinCoverage, MinRecall
from ._rates import RateExpr, error_rate, ramp
from ._weighted_hinge import HingeSolution, solve_weighted_hinge

__all__ = [
    "ConstrainedModel",
    "InfeasibleConstraintsError",
    "ConstraintsMissedWarning",
    "fit_constrained",
    "fit_sweep",
    "one_blas_thread",
    "linear_svm",
    "DETERMINISTIC_REFITS",
    "TIGHTEN_SLACK",
]


class ConstraintsMissedWarning(UserWarning):
    """The deterministic decisions of a fitted model miss a bound on its training rows (listed in ``unmet_``)."""


@dataclass(frozen=True)
class ConstrainedModel:
    """A fitted linear classifier ``f(x) = x @ coef_ + intercept_`` (= <w, x> - b in the paper).

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
        Weights on the raw (not standardised) features.
    intercept_ : float
        The intercept.
    trace_ : tuple of dict
        One row per majorization-minimization iteration: ramp objective, ramp and
        deterministic error, each constraint's ramp and deterministic value (<= 0 means
        met), the multipliers, whether the step was accepted, inner solves so far.
    constraint_names : tuple of str
        ``describe()`` of each constraint asked for.
    lam : float
        The regulariser's weight.
    fit_seconds : float
        Wall time of the fit (of every refit, when bounds were tightened).
    unmet_ : tuple of str
        The constraints asked for that the deterministic decisions ``f(x) >= 0`` still miss on
        the training rows, each as ``"<constraint>: missed by <excess>"`` (empty when every bound
        is met, or when the fit was asked for the randomised classifier only).
    fitted_bounds_ : tuple of str
        ``describe()`` of the constraints of the last fit: the bounds asked for, or the tightened
        bounds the deterministic decisions needed (``trace_`` is that fit's).
    """

    coef_: np.ndarray
    intercept_: float
    trace_: tuple
    constraint_names: tuple
    lam: float
    fit_seconds: float
    unmet_: tuple = ()
    fitted_bounds_: tuple = ()

    @property
    def multipliers_(self) -> tuple:
        """Lagrange multipliers of the last accepted MM step (one per constraint; a warm start's first guess)."""
        for row in reversed(self.trace_):
            if row["accepted"]:
                return tuple(row["multipliers"])
        return ()

    def decision_function(self, x) -> np.ndarray:
        """The score f(x).

        Parameters
        ----------
        x : array-like of shape (n, d)
            Raw features, in the training columns' order.

        Returns
        -------
        ndarray of shape (n,)
        """
        return np.asarray(x, dtype=float) @ self.coef_ + self.intercept_

    def predict(self, x) -> np.ndarray:
        """Deterministic decisions f(x) >= 0.

        Parameters
        ----------
        x : array-like of shape (n, d)
            Raw features.

        Returns
        -------
        ndarray of int (0/1), shape (n,)
        """
        return (self.decision_function(x) >= 0).astype(int)

    def predict_proba_positive(self, x) -> np.ndarray:
        """P(positive) = sigma(f(x)) = clip(1/2 + f(x), 0, 1) of the randomised classifier (Problem 2).

        Parameters
        ----------
        x : array-like of shape (n, d)
            Raw features.

        Returns
        -------
        ndarray of shape (n,)
        """
        return ramp(self.decision_function(x))

    def predict_randomized(self, x, seed: int = 0) -> np.ndarray:
        """Positive with probability sigma(f(x)): the classifier the constraints are guaranteed for.

        Parameters
        ----------
        x : array-like of shape (n, d)
            Raw features.
        seed : int
            Seed of the draws.

        Returns
        -------
        ndarray of int (0/1), shape (n,)
        """
        rng = np.random.default_rng(seed)
        return (rng.random(np.asarray(x).shape[0]) < self.predict_proba_positive(x)).astype(int)


@dataclass
class _Problem:
    x: Any  # standardised features: a design (engine.constraints._design); a matrix is wrapped
    objective: RateExpr
    constraints: list  # list of RateExpr, each <= 0
    lam: float
    tol: float
    max_svm_iter: int
    stats: dict = field(default_factory=lambda: {"svm_solves": 0})
    active_slack: float = 2e-3  # stop the multiplier search once the bound constraint is this close to active
    max_bisect: int = 6
    # width of the smoothed hinge kink in the inner solver: a wide kink gives Newton curvature on many
    # rows (few steps); the MM step is still exact, as candidates are judged by the ramp values
    smoothing: float = 0.2

    def __post_init__(self):
        self.x = as_design(self.x)


def _majorize(expr: RateExpr, z_now: np.ndarray):
    """Hinge weights (on max(0, 1/2 + z), on max(0, 1/2 - z)) and constant of the bound tight at z_now."""
    hinge_pos = z_now <= 0.5  # sigma(z) <= hinge(1/2 + z), tight where z <= 1/2
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


def _weighted_svm(
    x: np.ndarray, hp: np.ndarray, hn: np.ndarray, lam: float, prob: _Problem, start=None
) -> HingeSolution:
    """argmin_{w,b} sum hp_i max(0, 1/2 + z_i) + hn_i max(0, 1/2 - z_i) + lam/2 ||w||^2, z = x w - b.

    The weighted hinge SVM of a fixed multiplier vector (Problem 3's Lagrangian),
    smoothed within ``prob.smoothing`` of its kink and solved by Newton's method
    (:func:`~engine.constraints._weighted_hinge.solve_weighted_hinge`), warm-started.

    Within a sweep (``prob.stats["solved"]``, kept by :func:`fit_sweep`) a solve whose inputs
    are equal bit for bit to an earlier one's returns that solution: the same problem from the
    same start. Fits at different bounds meet such solves: the first multiplier search starts
    from the same multipliers, and a churn bound's weights do not depend on the target.
    """
    solved = prob.stats.get("solved")
    key = None
    if solved is not None:
        digest = hashlib.blake2b(np.ascontiguousarray(hp).tobytes(), digest_size=16)
        digest.update(np.ascontiguousarray(hn).tobytes())
        if start is not None:
            digest.update(np.ascontiguousarray(start[0], dtype=float).tobytes())
            digest.update(np.float64(start[1]).tobytes())
        key = (id(x), digest.hexdigest(), start is None, float(lam), prob.smoothing, prob.max_svm_iter)
        if key in solved:
            return solved[key]
    prob.stats["svm_solves"] += 1
    solution = solve_weighted_hinge(x, hp, hn, lam, smoothing=prob.smoothing, start=start, max_steps=prob.max_svm_iter)
    if solved is not None:
        if len(solved) >= SOLVED_KEPT:
            del solved[next(iter(solved))]
        solved[key] = solution
    return solution


#: inner solutions a sweep keeps for reuse (each holds its n margins)
SOLVED_KEPT = 64


#: multiplier search: growth factor of the bracket, largest multiplier tried, smallest before it counts as 0
MULTIPLIER_GROWTH = 4.0
#: first step away from the previous MM iteration's multiplier (it moves little between iterations)
FIRST_STEP = 1.5
MULTIPLIER_CAP = 1e8
MULTIPLIER_FLOOR = 1e-6
#: several constraints: Kelley's cutting plane over the box [0, box]^m, at most DUAL_CUTS cuts; the box
#: starts at DUAL_BOX_START (or DUAL_BOX_GROWTH x the previous multipliers) and grows up to DUAL_BOX
DUAL_BOX = 1e4
DUAL_BOX_START = 1.0
DUAL_BOX_GROWTH = 4.0
DUAL_CUTS = 40


def _inner_solver(prob: _Problem, obj, cons, start):
    """The Lagrangian's inner problem for a multiplier vector: (w, b, z, constraint bounds, dual value)."""
    last = [start]  # warm start each weighted SVM from the previous solution

    def inner(v):
        hp = obj[0] + sum(vj * c[0] for vj, c in zip(v, cons))
        hn = obj[1] + sum(vj * c[1] for vj, c in zip(v, cons))
        solution = _weighted_svm(prob.x, hp, hn, prob.lam, prob, last[0])
        w, b, z = solution.w, solution.b, solution.z
        last[0] = (w, b)
        g = np.array([_bound_value(*c, z) for c in cons])
        primal = _bound_value(*obj, z) + 0.5 * prob.lam * float(w @ w)
        return w, b, z, g, primal + float(np.dot(v, g))

    return inner


def _bracket_multiplier(evaluate, v0: float, g0: float):
    """Multipliers (lo, g(lo)), (hi, g(hi)) with g(lo) > 0 >= g(hi), searched outward from v0; None if v = 0 is optimal."""
    if g0 > 0:
        lo, hi = (v0, g0), None
        v = v0 * FIRST_STEP if v0 > 0 else 1.0
        while hi is None:
            g = evaluate(v)
            if g <= 0 or v > MULTIPLIER_CAP:
                hi = (v, g)
            else:
                lo, v = (v, g), v * MULTIPLIER_GROWTH
        return lo, hi
    hi, lo = (v0, g0), None
    v = v0 / FIRST_STEP
    while lo is None:
        g = evaluate(v)
        if g > 0:
            lo = (v, g)
        elif v < MULTIPLIER_FLOOR:
            g = evaluate(0.0)
            if g <= 0:
                return None
            lo = (0.0, g)
        else:
            hi, v = (v, g), v / MULTIPLIER_GROWTH
    return lo, hi


def _one_multiplier(prob: _Problem, inner, v_prev) -> list:
    """One constraint: the multiplier v >= 0 whose subproblem solution makes the (majorized) constraint active.

    g(v), the constraint's bound at the minimiser of the Lagrangian, is non-increasing in v.
    Starting from the previous iteration's multiplier, v is bracketed and then found by
    regula falsi (Illinois): the first v with -``active_slack`` <= g(v) <= 0 ends the search.
    Every solve is a candidate (w, b, v) for the MM step.
    """
    candidates = []

    def evaluate(v):
        w, b, _, g, _ = inner(np.array([v]))
        candidates.append((w, b, np.array([v])))
        return float(g[0])

    v0 = float(v_prev[0]) if v_prev is not None and len(v_prev) == 1 else 0.0
    g0 = evaluate(v0)
    if (g0 <= prob.tol and (v0 == 0 or g0 >= -prob.active_slack)) or (g0 > 0 and v0 > MULTIPLIER_CAP):
        return candidates
    bracket = _bracket_multiplier(evaluate, v0, g0)
    if bracket is None or not bracket[1][1] < -prob.active_slack:  # v = 0, close enough, or infeasible at the cap
        return candidates
    (lo, g_lo), (hi, g_hi) = bracket
    side = 0
    for _ in range(prob.max_bisect):
        v = hi - g_hi * (hi - lo) / (g_hi - g_lo)
        if not lo < v < hi:  # rounding: fall back to the midpoint
            v = 0.5 * (lo + hi)
        g = evaluate(v)
        if -prob.active_slack <= g <= 0:
            break
        if g > 0:
            lo, g_lo = v, g
            g_hi = g_hi / 2 if side == 1 else g_hi
            side = 1
        else:
            hi, g_hi = v, g
            g_lo = g_lo / 2 if side == -1 else g_lo
            side = -1
    return candidates


def _cutting_plane(prob: _Problem, inner, m: int, v_prev) -> list:
    """Several constraints: Kelley's cutting plane on the concave dual over a box that grows when hit."""
    from scipy.optimize import linprog

    candidates, cuts = [], []
    best_lower = -np.inf
    v = np.zeros(m) if v_prev is None or len(v_prev) != m else np.asarray(v_prev, float).copy()
    box = max(DUAL_BOX_START, DUAL_BOX_GROWTH * float(v.max()))
    for _ in range(DUAL_CUTS):
        w, b, z, g, dual = inner(v)
        candidates.append((w, b, v.copy()))
        best_lower = max(best_lower, dual)
        cuts.append((dual, g.copy(), v.copy()))
        # maximise theta s.t. theta <= dual_s + g_s . (v - v_s), 0 <= v <= box
        a_ub = np.array([np.r_[-gs, 1.0] for _, gs, _ in cuts])
        b_ub = np.array([ds - gs @ vs for ds, gs, vs in cuts])
        res = linprog(
            np.r_[np.zeros(m), -1.0], A_ub=a_ub, b_ub=b_ub, bounds=[(0, box)] * m + [(None, None)], method="highs"
        )
        if not res.success:
            break
        upper = -res.fun
        v = res.x[:m]
        if np.any(v >= box * (1 - 1e-9)) and box < DUAL_BOX:  # the box binds: the optimum may lie beyond
            box = min(DUAL_BOX, box * DUAL_BOX_GROWTH)
        elif upper - best_lower <= prob.tol * max(1.0, abs(best_lower)):
            break
    return candidates


def _solve_convex(prob: _Problem, z_now: np.ndarray, v_prev=None, start=None):
    """Problem 3 at the current iterate via the Lagrangian; returns candidate (w, b, multipliers)."""
    obj = _majorize(prob.objective, z_now)
    cons = [_majorize(c, z_now) for c in prob.constraints]
    inner = _inner_solver(prob, obj, cons, start)
    if not cons:
        w, b, _, _, _ = inner(np.zeros(0))
        return [(w, b, np.zeros(0))]
    if len(cons) == 1:
        return _one_multiplier(prob, inner, v_prev)
    return _cutting_plane(prob, inner, len(cons), v_prev)


def _ramp_values(prob: _Problem, w, b, z=None):
    """Margins, ramp objective (with the regulariser) and ramp constraint values of (w, b); z = x w - b if given."""
    z = prob.x.matvec(w) - b if z is None else z
    objective = prob.objective.value(z) + 0.5 * prob.lam * float(w @ w)
    return z, objective, np.array([c.value(z) for c in prob.constraints])


#: constant-classifier starts (intercepts), and intercept quantiles x ramp sharpness around the unconstrained fit
CONSTANT_STARTS = 21
SHIFT_QUANTILES = 41
RAMP_FACTORS = (0.25, 0.5, 1.0, 2.0)
#: phase 1: sharper ramps tried after each step, and its lighter regularisation (a fraction of lam)
PHASE1_FACTORS = (1.0, 2.0, 4.0, 8.0, 16.0)
PHASE1_LAM_SHARE = 1e-2
#: phase 1: iterations at least, and the exponent of the multiplicative reweighting of exceeded constraints
PHASE1_ITERATIONS = 20
PHASE1_REWEIGHT = 1.0


def _check_training_data(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y).astype(int)
    if x.ndim != 2 or x.shape[0] != y.size:
        raise InputError("x must be (n, d) with one label per row")
    if not np.all(np.isfinite(x)):
        raise InputError("x contains NaN or infinite values; impute or drop them first")
    if not np.isin(y, (-1, 0, 1)).all():
        raise InputError("labels must be 0, 1, or -1 for unlabelled rows")
    if not (y >= 0).any():
        raise InputError("at least one labelled row is needed for the error-rate objective")
    return x, y


def _feasible(prob: _Problem, w, b, z=None):
    _, obj, vals = _ramp_values(prob, w, b, z)
    return bool(np.all(vals <= prob.tol)), obj, vals


def _base_starts(prob: _Problem) -> list:
    """The starts that do not depend on the constraints, each as (w, b, z, ramp objective).

    Constant classifiers, the unconstrained fit, and its direction with shifted intercepts and
    ramps (the shifted starts share one product x w). They depend only on the rows, the
    objective and lambda, so a sweep over bounds computes them once (:func:`fit_sweep`).
    """
    xs = prob.x
    n = xs.shape[0]
    starts = [(np.zeros(xs.shape[1]), 0.5 - p, np.full(n, p - 0.5)) for p in np.linspace(0, 1, CONSTANT_STARTS)]
    free = _Problem(xs, prob.objective, [], prob.lam, prob.tol, prob.max_svm_iter, prob.stats)
    w0, b0 = _solve_convex(free, np.zeros(n))[0][:2]
    z0 = xs.matvec(w0)
    starts.append((w0, b0, z0 - b0))
    for factor in RAMP_FACTORS:  # bias shifting along the unconstrained direction
        for q in np.quantile(z0 * factor, np.linspace(0.0, 1.0, SHIFT_QUANTILES)):
            starts.append((w0 * factor, float(q), z0 * factor - q))
    return [(w, b, z, _ramp_values(free, w, b, z)[1]) for w, b, z in starts]


def _starts(prob: _Problem, base: list | None = None) -> list:
    """:func:`_base_starts` (computed unless given) and Problem 3 majorized at the unconstrained fit.

    Each start is (w, b, z or None, ramp objective or None).
    """
    base = _base_starts(prob) if base is None else base
    starts = list(base)
    if prob.constraints:
        # Problem 3 majorized at the unconstrained fit: its majorizers bound the ramps everywhere, so
        # every solution that meets them is feasible, and it stays close to the unconstrained optimum
        # (constant or shifted starts can be feasible only as a classifier that flags nobody)
        w0, b0, z0b, _ = base[CONSTANT_STARTS]
        starts += [(w, b, None, None) for w, b, _ in _solve_convex(prob, z0b, None, (w0, b0))]
    return starts


def _phase_one(prob: _Problem, names, max_iter: int):
    """Minimise the constraints' weighted violation (lightly regularised) until a sharpened ramp meets them all.

    Starts from w = 0, where Problem 3 majorizes every ramp by its hinge: the first
    solve is the hinge SVM of the constraints alone (for a churn constraint: a linear
    model imitating the deployed decisions). Each iteration re-majorizes at the last
    solution (MM) and moves weight onto the constraints still exceeded (multiplicative
    weights), so no constraint is traded away for another.
    """
    m = len(prob.constraints)
    weights = np.ones(m)
    w, b = np.zeros(prob.x.shape[1]), 0.0
    worst = np.full(m, np.inf)
    for _ in range(max(max_iter, PHASE1_ITERATIONS)):
        violation = sum((wj * c for wj, c in zip(weights[1:], prob.constraints[1:])), prob.constraints[0] * weights[0])
        phase = _Problem(prob.x, violation, [], prob.lam * PHASE1_LAM_SHARE, prob.tol, prob.max_svm_iter, prob.stats)
        w, b = _solve_convex(phase, prob.x.matvec(w) - b, None, (w, b))[0][:2]
        for factor in PHASE1_FACTORS:
            ok, obj, vals = _feasible(prob, w * factor, b * factor)
            worst = np.minimum(worst, vals)
            if ok:
                return w * factor, b * factor, obj
        excess = np.maximum(vals, 0.0)
        weights = weights * np.exp(PHASE1_REWEIGHT * excess / max(float(excess.max()), 1e-12))
        weights = weights / weights.sum() * m
    detail = "; ".join(f"{name}: exceeded by {max(v, 0):.4f}" for name, v in zip(names, worst))
    raise InfeasibleConstraintsError(
        "No feasible starting point: the constraints could not all be met on the training rows "
        f"(smallest excess reached: {detail}). Tried: {CONSTANT_STARTS} constant classifiers, the unconstrained "
        f"fit with {len(RAMP_FACTORS) * SHIFT_QUANTILES} shifted intercepts and ramp scales, the convex "
        "subproblem majorized at the unconstrained fit, and a phase-1 search minimising the weighted "
        "violation from each constraint's own best linear fit (for churn: imitating the deployed decisions). "
        "Loosen a bound, drop a constraint, or check that the row selectors are right."
    )


def _best_feasible(prob: _Problem, starts):
    """The feasible start with the lowest ramp objective, as (w, b, objective); None if none is.

    Each start is (w, b, z or None, objective or None); a given objective is not recomputed.
    """
    best = None
    for w, b, z, obj in starts:
        if obj is None:
            ok, obj, _ = _feasible(prob, w, b, z)
        else:
            ok = all(c.value(z) <= prob.tol for c in prob.constraints)
        if ok and (best is None or obj < best[2]):
            best = (w, b, obj)
    return best


def _warm_starts(prob: _Problem, warm) -> list:
    """From a previous solution (w, b, multipliers): itself if it meets the constraints, else Problem 3 majorized there."""
    w, b, v = warm
    z = prob.x.matvec(w) - b
    if _feasible(prob, w, b, z)[0]:
        return [(w, b, z, None)]
    v = np.asarray(v, float) if v is not None and len(v) == len(prob.constraints) else None
    return [(cw, cb, None, None) for cw, cb, _ in _solve_convex(prob, z, v, (w, b))]


def _feasible_start(prob: _Problem, names, max_iter: int, warm=None, shared: dict | None = None):
    """The best feasible start (w, b, objective): from the warm start if it gives one, else :func:`_starts`, else phase 1.

    ``shared``: a dict kept across fits on the same rows, objective and options; it holds the
    constraint-free starts once computed.
    """
    if warm is not None:
        best = _best_feasible(prob, _warm_starts(prob, warm))
        if best is not None:
            return best
    if shared is not None and "base_starts" not in shared:
        shared["base_starts"] = _base_starts(prob)
    starts = _starts(prob, None if shared is None else shared["base_starts"])
    best = _best_feasible(prob, starts)
    return best if best is not None else _phase_one(prob, names, max_iter)


def _mm_iterations(prob: _Problem, w, b, max_iter: int, rel_improvement: float, progress, v_prev=None):
    """Majorization-minimization from a feasible (w, b): accept only feasible, not-worse steps.

    ``v_prev``: multipliers to start the first multiplier search from (a warm start's).
    """
    trace = []
    z, obj, vals = _ramp_values(prob, w, b)
    trace.append(_trace_row(0, prob, w, b, z, obj, vals, np.zeros(len(prob.constraints)), True))
    for it in range(1, max_iter + 1):
        candidates = _solve_convex(prob, z, v_prev, (w, b))
        chosen = None
        for cw, cb, v in candidates:  # the best candidate that keeps every ramp constraint
            cz, cobj, cvals = _ramp_values(prob, cw, cb)
            if np.all(cvals <= prob.tol) and cobj <= obj + 1e-12 and (chosen is None or cobj < chosen[3]):
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
    return w, b, trace


def fit_constrained(
    x,
    y,
    constraints: Sequence = (),
    *,
    lam: float | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    max_svm_iter: int = 50,
    standardize: bool = True,
    rel_improvement: float = 1e-3,
    progress=None,
    warm_start: ConstrainedModel | None = None,
    deterministic: bool = True,
) -> ConstrainedModel:
    """Minimise the error rate on the labelled rows + lam/2 ||w||^2 subject to rate constraints.

    The paper's constraints hold for the randomised (ramp) classifier on the training rows
    at every accepted iterate. A model is usually applied deterministically (flag when
    ``f(x) >= 0``), and those decisions can miss a bound the ramp meets; so by default a
    bound the deterministic decisions miss is tightened by the excess (plus
    :data:`TIGHTEN_SLACK`) and the model refitted from the previous fit, at most
    :data:`DETERMINISTIC_REFITS` times. What is still missed is listed in ``unmet_`` and
    announced by a :class:`ConstraintsMissedWarning`.

    Parameters
    ----------
    x : array-like of shape (n, d)
        Features (finite).
    y : array-like of shape (n,)
        0/1 labels, -1 for unlabelled rows (used only by constraints such as churn and coverage).
    constraints : sequence of constraint objects
        Each has ``expression(y)`` (a :class:`~engine.constraints._rates.RateExpr` that must be <= 0)
        and ``describe()``.
    lam : float, optional
        Weight of ``||w||^2 / 2`` on standardised features (default 0.01: on Adult the error moves
        by less than 0.1 % between 1e-2 and 3e-4).
    max_iter : int
        Majorization-minimization iterations at most.
    tol : float
        A ramp constraint value <= tol counts as met.
    max_svm_iter : int
        Newton steps at most per inner solve: an approximate solve still yields a valid MM step,
        because a step is only accepted when it is feasible and not worse.
    standardize : bool
        Centre and scale the features before fitting (the model is returned on the raw scale).
    rel_improvement : float
        Stop when an MM step lowers the objective by less than this share.
    progress : callable(iteration, max_iter), optional
        Called after every MM iteration (of every refit).
    warm_start : ConstrainedModel, optional
        A model fitted on the same rows (for example at a neighbouring bound): it is the start
        when it meets the constraints, and otherwise Problem 3 is majorized at it, from its
        multipliers; only when neither yields a feasible start are the cold starts searched.
    deterministic : bool
        True (default): the bounds are for the deterministic decisions ``f(x) >= 0`` on the
        training rows (tightened and refitted as above). False: the paper's guarantee only,
        for the randomised classifier (one fit, ``unmet_`` empty).

    Returns
    -------
    ConstrainedModel
        ``unmet_`` lists the bounds the deterministic decisions still miss.

    Raises
    ------
    InfeasibleConstraintsError
        No feasible start was found (the message names each constraint's smallest excess).

    Warns
    -----
    ConstraintsMissedWarning
        The deterministic decisions still miss a bound after the refits.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Algorithm 1 (majorization-minimization of the ramp
    losses) and Problem 3 (the convex subproblem, solved through its Lagrangian).

    Examples
    --------
    A linear classifier whose positive rate in a group is at least 0.8 times that of the others:

    >>> import numpy as np
    >>> from engine import fit_constrained
    >>> from engine.constraints import DemographicParity
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(400, 3))
    >>> y = (x[:, 0] + x[:, 2] + rng.normal(scale=0.5, size=400) > 0).astype(int)
    >>> group = x[:, 2] < 0  # the group the data favours less
    >>> model = fit_constrained(x, y, [DemographicParity(group, ~group, 0.8)])
    >>> flagged = model.predict(x)
    >>> bool(flagged[group].mean() >= 0.79 * flagged[~group].mean())
    True
    """
    x, y = _check_training_data(x, y)
    options = dict(
        lam=lam,
        max_iter=max_iter,
        tol=tol,
        max_svm_iter=max_svm_iter,
        standardize=standardize,
        rel_improvement=rel_improvement,
        progress=progress,
    )
    return _fit_one(x, y, list(constraints), options, warm_start, deterministic)


def _fit_one(x, y, constraints: list, options: dict, warm_start, deterministic: bool) -> ConstrainedModel:
    fitted = _fit_ramp(x, y, constraints, warm_start=warm_start, **options)
    if not deterministic or not constraints:
        return fitted
    return _meet_deterministically(x, y, constraints, fitted, options)


def one_blas_thread():
    """A context in which BLAS runs on one thread.

    The sweeps' matrix products are small (n x ~100), and OpenBLAS's spinning thread pool loses
    badly to other processes on a shared 2-core machine (a Hessian measured 10x slower on two
    threads than on one under load).

    Returns
    -------
    threadpoolctl.threadpool_limits
        A context manager; the previous limits come back on exit.
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def fit_sweep(
    x,
    y,
    constraint_sets: Sequence[Sequence],
    *,
    lam: float | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    max_svm_iter: int = 50,
    standardize: bool = True,
    rel_improvement: float = 1e-3,
    progress=None,
    warm: bool = False,
    deterministic: bool = True,
) -> tuple[ConstrainedModel, ...]:
    """One constrained fit per constraint set on the same rows (a sweep over bounds), sharing the work.

    Each set gets the model :func:`fit_constrained` gives it alone (same options, no warm start):
    the standardised features, the unconstrained fit and the constraint-free starts (constant
    classifiers, shifted intercepts, with their ramp objectives) do not depend on the bounds and
    are computed once, and an inner solve whose weights and start equal an earlier fit's bit for
    bit (the first multiplier tried; a churn or coverage bound's weights do not depend on the
    bound) returns that solution instead of being solved again. BLAS runs on one thread during
    the sweep: on a shared 2-core machine its thread pool spins against the other processes (10x
    slower Hessians measured under load).

    Parameters
    ----------
    x : array-like of shape (n, d)
        Features (finite).
    y : array-like of shape (n,)
        0/1 labels, -1 for unlabelled rows.
    constraint_sets : sequence of sequence of constraint objects
        One fit per set, in this order.
    lam, max_iter, tol, max_svm_iter, standardize, rel_improvement, deterministic
        As in :func:`fit_constrained`, for every fit.
    progress : callable(done, total), optional
        Called after each fit.
    warm : bool, optional
        Start each fit from the previous set's model (a warm start, faster; the non-convex
        problem may then end at a different local optimum than the fit alone).

    Returns
    -------
    tuple of ConstrainedModel
        One model per constraint set.

    Raises
    ------
    InfeasibleConstraintsError
        A set has no feasible start.

    References
    ----------
    Goh, Cotter, Gupta & Friedlander (NIPS 2016), Algorithm 1 and Section 4 (the sweeps of Figures 2 and 3).
    """
    x, y = _check_training_data(x, y)
    options = dict(
        lam=lam,
        max_iter=max_iter,
        tol=tol,
        max_svm_iter=max_svm_iter,
        standardize=standardize,
        rel_improvement=rel_improvement,
        progress=None,
        shared={},
    )
    models = []
    with one_blas_thread():
        for i, constraints in enumerate(constraint_sets):
            start = models[-1] if warm and models else None
            models.append(_fit_one(x, y, list(constraints), options, start, deterministic))
            if progress is not None:
                progress(i + 1, len(constraint_sets))
    return tuple(models)


#: refits with tightened bounds when the deterministic decisions miss a bound the ramp classifier meets
DETERMINISTIC_REFITS = 5
#: extra margin (in rate units) added to a bound when it is tightened
TIGHTEN_SLACK = 0.005


def _tighten(constraint, excess: float, decisions: np.ndarray, y: np.ndarray):
    """The same constraint with its bound moved by ``excess`` (plus a little slack) towards stricter.

    ``excess`` is in rate units; a ratio bound κ moves by excess / (the reference group's rate).
    """
    step = excess + TIGHTEN_SLACK
    if isinstance(constraint, (DemographicParity, EqualOpportunity)):
        reference = constraint.reference & ((y == 1) if isinstance(constraint, EqualOpportunity) else True)
        rate = max(float(decisions[reference].mean()) if reference.any() else 1.0, 0.05)
        return replace(constraint, kappa=constraint.kappa + excess / rate + TIGHTEN_SLACK)
    if isinstance(constraint, (MaxChurn, MaxCoverage)):
        return replace(constraint, rate=max(constraint.rate - step, 0.0))
    if isinstance(constraint, (MinRecall, MinCoverage)):
        return replace(constraint, rate=min(constraint.rate + step, 1.0))
    if isinstance(constraint, Egregious):
        return replace(constraint, min_correct=min(constraint.min_correct + step, 1.0))
    return constraint


def _meet_deterministically(x, y, constraints: list, fitted: ConstrainedModel, options: dict) -> ConstrainedModel:
    """While the deterministic decisions (score >= 0) miss a bound, tighten it and refit from the last fit.

    The excess is always measured against the bounds asked for; what is still missed after
    :data:`DETERMINISTIC_REFITS` refits (or when a tightened bound has no feasible start) is
    returned in ``unmet_`` and warned about.
    """
    exprs = [c.expression(y) for c in constraints]
    current, seconds = list(constraints), fitted.fit_seconds
    for _ in range(DETERMINISTIC_REFITS):
        z = x @ fitted.coef_ + fitted.intercept_
        excess = [e.value(z, deterministic=True) for e in exprs]
        if all(v <= 1e-12 for v in excess):
            break
        current = [_tighten(c, v, z >= 0, y) if v > 1e-12 else c for c, v in zip(current, excess)]
        try:
            fitted = _fit_ramp(x, y, current, warm_start=fitted, **options)
        except InfeasibleConstraintsError:
            break
        seconds += fitted.fit_seconds
    z = x @ fitted.coef_ + fitted.intercept_
    unmet = tuple(
        f"{c.describe()}: missed by {v:.4f}"
        for c, v in zip(constraints, (e.value(z, deterministic=True) for e in exprs))
        if v > 1e-12
    )
    if unmet:
        warnings.warn(
            ConstraintsMissedWarning(
                "The model's deterministic decisions (score >= 0) miss on the training rows: "
                + "; ".join(unmet)
                + f" (after {DETERMINISTIC_REFITS} refits with tightened bounds). The randomised classifier meets "
                "the bounds; loosen a bound or accept the miss."
            ),
            stacklevel=3,
        )
    return replace(
        fitted,
        constraint_names=tuple(c.describe() for c in constraints),
        fit_seconds=seconds,
        unmet_=unmet,
        fitted_bounds_=fitted.constraint_names,
    )


def _fit_ramp(
    x: np.ndarray,
    y: np.ndarray,
    constraints: list,
    *,
    lam,
    max_iter,
    tol,
    max_svm_iter,
    standardize,
    rel_improvement,
    progress,
    warm_start,
    shared: dict | None = None,
) -> ConstrainedModel:
    """One majorization-minimization fit: the constraints hold for the randomised (ramp) classifier.

    ``shared``: a dict kept across fits on the same (x, y) with the same options (:func:`fit_sweep`);
    the standardised features and the constraint-free starts are computed once and kept there.
    """
    t0 = time.perf_counter()
    lam = 0.01 if lam is None else float(lam)
    if shared is not None and "standardised" in shared:
        mean, scale, xs = shared["standardised"]
    else:
        mean = x.mean(axis=0) if standardize else np.zeros(x.shape[1])
        scale = x.std(axis=0) if standardize else np.ones(x.shape[1])
        scale = np.where(scale > 0, scale, 1.0)
        xs = standardised_design(x, mean, scale)
        if shared is not None:
            shared["standardised"] = (mean, scale, xs)
    exprs = [c.expression(y) for c in constraints]
    names = tuple(c.describe() for c in constraints)
    stats = {"svm_solves": 0} if shared is None else {"svm_solves": 0, "solved": shared.setdefault("solved", {})}
    prob = _Problem(xs, error_rate(y), exprs, lam, tol, max_svm_iter, stats)
    warm = None
    if warm_start is not None and np.shape(warm_start.coef_) == (x.shape[1],):
        w_warm = np.asarray(warm_start.coef_, float) * scale  # the same classifier on standardised features
        warm = (w_warm, -(float(warm_start.intercept_) + float(mean @ warm_start.coef_)), warm_start.multipliers_)
    w, b, _ = _feasible_start(prob, names, max_iter, warm, shared)
    v_start = warm[2] if warm is not None and len(warm[2]) == len(exprs) else None
    w, b, trace = _mm_iterations(prob, w, b, max_iter, rel_improvement, progress, v_start)
    coef = w / scale
    intercept = -b - float(mean @ coef)
    return ConstrainedModel(coef, intercept, tuple(trace), names, lam, time.perf_counter() - t0, (), names)


def _trace_row(it, prob, w, b, z, obj, vals, v, accepted) -> dict:
    return {
        "iteration": it,
        "objective": obj,
        "ramp_error": prob.objective.value(z),
        "error": prob.objective.value(z, deterministic=True),
        "constraints": [float(c) for c in vals],
        "constraints_deterministic": [c.value(z, deterministic=True) for c in prob.constraints],
        "multipliers": [float(m) for m in np.ravel(v)],
        "accepted": bool(accepted),
        "svm_solves": prob.stats["svm_solves"],
    }


def linear_svm(x, y, *, lam: float = 0.01) -> ConstrainedModel:
    """The unconstrained hinge-loss linear SVM on the labelled rows (same features, lambda and inner solver).

    Parameters
    ----------
    x : array-like of shape (n, d)
        Raw features (standardised inside; the model is returned on the raw scale).
    y : array-like of shape (n,)
        0/1 labels (-1 = unlabelled, ignored).
    lam : float
        Weight of ``||w||^2 / 2``.

    Returns
    -------
    ConstrainedModel
        With an empty trace and no constraints.
    """
    x = np.asarray(x, float)
    y = np.asarray(y).astype(int)
    mean, scale = x.mean(0), np.where(x.std(0) > 0, x.std(0), 1.0)
    xs = standardised_design(x, mean, scale)
    objective = error_rate(y)  # hinge bounds on both error terms: the plain SVM
    prob = _Problem(xs, objective, [], lam, 1e-4, 500)
    solution = _weighted_svm(xs, objective.pos, objective.neg, lam, prob)
    w, b = solution.w, solution.b
    coef = w / scale
    return ConstrainedModel(coef, -b - float(mean @ coef), (), (), lam, 0.0)
