"""The inner problem of the constrained training: a weighted hinge SVM, solved by Newton's method.

Goh, Cotter, Gupta & Friedlander, *Satisfying Real-world Goals with Dataset Constraints*,
NIPS 2016, Problem 3: for fixed Lagrange multipliers the convex subproblem is

    minimise over (w, b)   sum_i hp_i max(0, 1/2 + z_i) + hn_i max(0, 1/2 - z_i) + lam/2 ||w||^2,
    z = X w - b,

a hinge SVM whose rows may carry both hinges and whose intercept is not regularised.
With d of the order of 100 features a (d+1) x (d+1) Hessian is cheap, so the problem is
solved in the primal by Newton's method on the hinge smoothed quadratically within
``smoothing`` of its kink (an upper bound of the hinge, equal to it outside the kink;
Chapelle, *Training a Support Vector Machine in the Primal*, Neural Computation 19, 2007,
§ 4 uses the same Huber-type smoothing). Each step solves H p = -g with the Hessian of
the rows inside a kink, then takes the exact minimiser along p (the derivative along
a line is piecewise linear and monotone, so regula falsi finds it in O(n) per trial).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels
from ._design import DenseDesign, SplitDesign, as_design

__all__ = ["HingeSolution", "solve_weighted_hinge", "smooth_hinge"]

#: Newton steps at most per solve; relative decrease of the objective below which a solve stops
NEWTON_MAX_STEPS = 60
NEWTON_REL_TOL = 1e-10
#: curvature added to the intercept's diagonal: it has no regulariser, and no curvature when no row sits in a kink
INTERCEPT_RIDGE = 1e-10
#: exact line search: doublings of the step allowed, regula falsi trials, relative width at which it stops
LINE_DOUBLINGS = 60
LINE_TRIALS = 40
LINE_REL_WIDTH = 1e-9
#: a step at which the slope is still <= 0 (so the objective decreased) and this small relative to the
#: slope at s = 0 is taken (the curvature condition of a strong Wolfe line search); a full Newton step
#: usually meets it at once
LINE_SLOPE_TOL = 0.1
#: the data Hessian is rebuilt rather than updated when more than 1/REBUILD_SHARE of its kink rows changed
REBUILD_SHARE = 2


@dataclass(frozen=True)
class HingeSolution:
    """The minimiser ``(w, b)`` of the smoothed weighted hinge problem and its margins ``z = X w - b``."""

    w: np.ndarray
    b: float
    z: np.ndarray
    objective: float
    steps: int


def smooth_hinge(t: np.ndarray, smoothing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quadratically smoothed hinge: value, slope and kink indicator at ``t``.

    Parameters
    ----------
    t : ndarray
        Arguments of the hinge ``max(0, t)``.
    smoothing : float
        Width delta of the smoothed kink.

    Returns
    -------
    value, slope, in_kink : ndarray
        ``phi(t) = 0`` for ``t <= -delta/2``, ``(t + delta/2)^2 / (2 delta)`` up to
        ``t = delta/2`` and ``t`` beyond (so ``phi >= max(0, t)``, with equality for
        ``|t| >= delta/2``); its slope; and whether ``t`` lies inside the kink (where the
        second derivative is ``1/delta``).
    """
    u = t + smoothing / 2
    in_kink = (u > 0) & (u < smoothing)
    slope = np.clip(u / smoothing, 0.0, 1.0)
    value = np.where(u <= 0, 0.0, np.where(in_kink, u * u / (2 * smoothing), t))
    return value, slope, in_kink


def _slope_of_margins(z, hp, hn, smoothing):
    """d/dz of the smoothed weighted hinges: hp phi'(1/2 + z) - hn phi'(1/2 - z), phi'(t) = clip(t/delta + 1/2, 0, 1)."""
    inv = 1.0 / smoothing
    if kernels.AVAILABLE:
        return kernels.hinge_slopes(z, hp, hn, inv)
    pos = np.clip((0.5 + z) * inv + 0.5, 0.0, 1.0)
    neg = np.clip((0.5 - z) * inv + 0.5, 0.0, 1.0)
    return hp * pos - hn * neg


def _curvature(z, hp, hn, smoothing):
    """Second derivative of each row's smoothed hinges: (hp [1/2 + z in kink] + hn [1/2 - z in kink]) / delta."""
    if kernels.AVAILABLE:
        return kernels.hinge_curvature(z, hp, hn, smoothing)
    half = smoothing / 2
    in_pos = np.abs(0.5 + z) < half
    in_neg = np.abs(0.5 - z) < half
    return (hp * in_pos + hn * in_neg) / smoothing


def _objective(z, w, hp, hn, lam, smoothing) -> float:
    vp = smooth_hinge(0.5 + z, smoothing)[0]
    vn = smooth_hinge(0.5 - z, smoothing)[0]
    return float(hp @ vp + hn @ vn) + 0.5 * lam * float(w @ w)


class _Hessian:
    """The data part of the Hessian, updated by the rows whose curvature changed (rows move in and out of kinks)."""

    def __init__(self, design, rows):
        self.design, self.rows = design, rows
        self.curvature = None
        self.matrix = None

    def update(self, curvature) -> np.ndarray:
        if self.curvature is not None:
            # rows outside self.rows carry no weight, so their curvature is 0 in both
            changed = np.flatnonzero(curvature != self.curvature)
            if changed.size * REBUILD_SHARE < np.count_nonzero(curvature):
                self.matrix = self.matrix + self.design.hessian(changed, curvature - self.curvature)
                self.curvature = curvature
                return self.matrix
        self.matrix, self.curvature = self.design.hessian(self.rows, curvature), curvature
        return self.matrix


def _newton_direction(hess_data, grad, lam):
    """Solve H p = -g with H = data Hessian + diag(lam, ..., lam, ridge)."""
    d = grad.size - 1
    hess = hess_data.copy()
    hess[np.arange(d), np.arange(d)] += lam
    hess[d, d] += INTERCEPT_RIDGE * max(1.0, hess[d, d])
    try:
        return np.linalg.solve(hess, -grad)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(hess, -grad, rcond=None)[0]


def _exact_step(z, dz_line, w, pw, hp, hn, lam, smoothing) -> float:
    """The minimiser s >= 0 of the (convex, C^1) objective along the direction: bracket, then regula falsi.

    The slope along the line is piecewise linear and non-decreasing; a full Newton
    step (s = 1) is exact once no row crosses a kink edge, so s = 1 is tried first.
    """
    wp, pp = float(w @ pw), float(pw @ pw)

    inv = 1.0 / smoothing

    def slope(s):
        if kernels.AVAILABLE:
            return kernels.line_slope(z, dz_line, s, hp, hn, inv) + lam * (wp + s * pp)
        return float(_slope_of_margins(z + s * dz_line, hp, hn, smoothing) @ dz_line) + lam * (wp + s * pp)

    lo, f_lo = 0.0, slope(0.0)
    if f_lo >= 0:
        return 0.0
    f_start = f_lo
    hi, f_hi = 1.0, slope(1.0)
    if -LINE_SLOPE_TOL * abs(f_start) <= f_hi <= 0:  # the slope is still <= 0 on [0, 1]: f(1) < f(0)
        return 1.0
    for _ in range(LINE_DOUBLINGS):
        if f_hi >= 0:
            break
        lo, f_lo, hi = hi, f_hi, 2 * hi
        f_hi = slope(hi)
    side = 0
    for _ in range(LINE_TRIALS):  # Illinois variant of regula falsi on the monotone slope
        if f_hi <= 0 or hi - lo <= LINE_REL_WIDTH * hi:
            break
        s = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        f_s = slope(s)
        if -LINE_SLOPE_TOL * abs(f_start) <= f_s <= 0:
            return s
        if f_s > 0:
            hi, f_hi = s, f_s
            if side == 1:
                f_lo /= 2
            side = 1
        else:
            lo, f_lo = s, f_s
            if side == -1:
                f_hi /= 2
            side = -1
    return hi if f_hi <= 0 else lo


def solve_weighted_hinge(
    x: np.ndarray | DenseDesign | SplitDesign,
    hp: np.ndarray,
    hn: np.ndarray,
    lam: float,
    *,
    smoothing: float,
    start: tuple[np.ndarray, float] | None = None,
    max_steps: int = NEWTON_MAX_STEPS,
) -> HingeSolution:
    """Minimise the smoothed weighted hinge SVM objective (Problem 3 for fixed multipliers) by Newton's method.

    Parameters
    ----------
    x : ndarray of shape (n, d), DenseDesign or SplitDesign
        Features (standardised by the caller), or their design
        (:func:`~engine.constraints._design.standardised_design`).
    hp, hn : ndarray of shape (n,)
        Non-negative weights of the hinges ``max(0, 1/2 + z)`` and ``max(0, 1/2 - z)``.
    lam : float
        Weight of ``||w||^2 / 2`` (the intercept is not regularised).
    smoothing : float
        Width of the smoothed kink (see :func:`smooth_hinge`).
    start : (w, b), optional
        Warm start; zeros otherwise.
    max_steps : int
        Newton steps at most.

    Returns
    -------
    HingeSolution
        ``w``, ``b``, the margins ``z = x @ w - b`` of every row, the smoothed objective and the steps taken.

    References
    ----------
    Goh et al. (NIPS 2016), Problem 3; Chapelle (Neural Computation 2007), primal Newton training.
    """
    design = as_design(x)
    n, d = design.shape
    w = np.zeros(d) if start is None else np.array(start[0], dtype=float)
    b = 0.0 if start is None else float(start[1])
    rows = np.flatnonzero((hp > 0) | (hn > 0))
    z = design.matvec(w) - b
    scale = max(_objective(z, w, hp, hn, lam, smoothing), 1e-300)
    steps = 0
    hessian = _Hessian(design, rows)
    for steps in range(1, max_steps + 1):  # noqa: B007 (the count is returned)
        dz = _slope_of_margins(z, hp, hn, smoothing)
        grad = np.r_[design.rmatvec(dz) + lam * w, -dz.sum()]
        p = _newton_direction(hessian.update(_curvature(z, hp, hn, smoothing)), grad, lam)
        dz_line = design.matvec(p[:d]) - p[d]
        s = _exact_step(z, dz_line, w, p[:d], hp, hn, lam, smoothing)
        if s == 0.0:
            break
        w, b, z = w + s * p[:d], b + s * p[d], z + s * dz_line
        if -float(grad @ p) <= NEWTON_REL_TOL * scale:  # Newton decrement: the predicted decrease is negligible
            break
    return HingeSolution(w, float(b), z, _objective(z, w, hp, hn, lam, smoothing), steps)
