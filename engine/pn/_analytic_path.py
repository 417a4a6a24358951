"""The analytic path: Algorithm 2 of Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19).

Thresholds are normalised to [0, 1] (position along each axis: rank for quantile
grids), TP and FP interpolated multilinearly, and the energy ``E`` (trapezoid
area of the path's PN curve) is maximised by minimising ``-log(log(E))`` with
Nelder-Mead (multi-start). ``family="power"`` is the paper's
``phi_p(s) = (s^p1, ..., s^pk)`` (eq. 2); ``family="spline"`` is a monotone
piecewise-linear path through a few free knots, started from the best power path.

The power family is smooth and hard to overfit but cannot follow a path that
bends twice; the spline family follows such paths. The analytic path can beat
the graph path only by cutting cells diagonally through interpolated values, a
gain bounded by the sum over the cells it crosses of ``(FP range) x (TP range)``.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize

from ..errors import InputError
from ._grid import ThresholdGrid
from ._paths import ThresholdPath, interpolate_grid, path_from_frac, trapezoid_area

__all__ = ["analytic_path", "FAMILIES"]

FAMILIES = ("power", "spline")


def _sample_by_length(knot_s: np.ndarray, knot_u: np.ndarray, sizes: np.ndarray, step: float) -> np.ndarray:
    """Resample a monotone polyline (knots in [0,1]^k) so consecutive samples are <= step cells apart (L1)."""
    frac = knot_u * sizes
    seg = np.abs(np.diff(frac, axis=0)).sum(axis=1)
    length = np.r_[0.0, np.cumsum(seg)]
    total = length[-1]
    m = max(2, int(np.ceil(total / step)) + 1)
    targets = np.linspace(0.0, total, m)
    return np.column_stack([np.interp(targets, length, frac[:, j]) for j in range(frac.shape[1])])


def _power_knots(log_p: np.ndarray, n: int = 2049) -> tuple[np.ndarray, np.ndarray]:
    s = np.linspace(0.0, 1.0, n)
    p = np.exp(log_p)
    return s, s[:, None] ** p[None, :]


def _spline_knots(logits: np.ndarray, k: int, n_knots: int) -> tuple[np.ndarray, np.ndarray]:
    z = logits.reshape(k, n_knots + 1)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    inc = z / z.sum(axis=1, keepdims=True)
    u = np.vstack([np.zeros(k), np.cumsum(inc, axis=1).T])
    u[-1] = 1.0
    return np.linspace(0.0, 1.0, n_knots + 2), u


def _energy_objective(energy: float) -> float:
    """The paper's -log(log(E)); for E <= e (tiny weights) a decreasing stand-in above any attained value."""
    if energy > np.e:
        return -np.log(np.log(energy))
    return 10.0 - energy


def _axis_path(grid: ThresholdGrid, family: str, sizes: np.ndarray, step: float, t0: float) -> ThresholdPath:
    """One threshold: the axis itself is the only monotone path, nothing to optimise."""
    knots = _power_knots(np.zeros(1))
    frac = _sample_by_length(knots[0], knots[1], sizes, min(step, 0.25))
    return path_from_frac(
        grid,
        frac,
        f"analytic-{family}",
        time.perf_counter() - t0,
        {"family": family, "note": "one threshold: the axis is the only monotone path"},
    )


def analytic_path(
    grid: ThresholdGrid,
    family: str = "power",
    *,
    n_knots: int = 3,
    starts: int = 5,
    step: float = 0.5,
    seed: int = 0,
    maxiter: int | None = None,
) -> ThresholdPath:
    """Algorithm 2: optimise a parametric monotone path for PN area with Nelder-Mead.

    ``family="power"``: ``u_j(s) = s^{p_j}`` with ``p = exp(theta)`` (positive by
    construction); exponents are normalised to a product of 1 because only their
    ratios change the curve. ``starts`` multi-starts are spread over log-ratios.
    ``family="spline"``: ``n_knots`` interior knots; each coordinate's increments
    are a softmax, so the path is monotone and runs from 0 to 1 in every
    coordinate; started from the best power path.
    The energy is evaluated on the path resampled every ``step`` grid cells.

    Parameters
    ----------
    grid : ThresholdGrid
        TP and FP on the joint threshold grid.
    family : {"power", "spline"}, optional
        The paper's power path ``phi_p`` (eq. 2) or a monotone piecewise-linear path.
    n_knots : int, optional
        Interior knots of the spline path.
    starts : int, optional
        Nelder-Mead starts spread over the exponents' log-ratios (plus as many random
        starts for k >= 3).
    step : float, optional
        Resampling step along the path, in grid cells (L1).
    seed : int, optional
        Seed of the random starts.
    maxiter : int, optional
        Nelder-Mead iterations per start; 400·k (power) and 150 per parameter
        (spline) when None.

    Returns
    -------
    ThresholdPath
        The path (``method`` ``"analytic-power"`` or ``"analytic-spline"``) with its
        exponents or knots and the number of energy evaluations in ``params``. When the
        spline search does not beat the best power path, the power path is returned and
        ``params["note"]`` says so.

    Raises
    ------
    ValueError
        ``family`` not in :data:`FAMILIES`.

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: Algorithm 2 and eq. (2).

    Examples
    --------
    >>> from engine import analytic_path, graph_path, load_rated, threshold_grid
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> grid = threshold_grid(data.scores, data.labels, bins=20, rule="or")
    >>> smooth, exact = analytic_path(grid, "power"), graph_path(grid)
    >>> print(f"{smooth.auc / exact.auc:.3f}")  # area under the path, as a share of the lattice optimum
    0.995
    """
    if family not in FAMILIES:
        raise InputError(f"family must be one of {FAMILIES}, got {family!r}")
    t0 = time.perf_counter()
    k = grid.k
    sizes = np.array(grid.shape, dtype=np.float64) - 1
    if k == 1:
        return _axis_path(grid, family, sizes, step, t0)

    def energy_of(knots, step=step) -> float:
        frac = _sample_by_length(knots[0], knots[1], sizes, step)
        tp = interpolate_grid(grid.tp, frac)
        fp = interpolate_grid(grid.fp, frac)
        return trapezoid_area(tp, fp)

    def power_params(theta):
        return np.r_[theta, -np.sum(theta)] if k > 1 else np.zeros(1)

    def power_obj(theta):
        return _energy_objective(energy_of(_power_knots(power_params(theta))))

    rng = np.random.default_rng(seed)
    spread = np.linspace(-2.0, 2.0, max(1, starts))
    inits = [np.full(k - 1, v) for v in spread]
    if k > 2:
        inits += [rng.uniform(-2, 2, size=k - 1) for _ in range(starts)]
    best = None
    n_eval = 0
    for x0 in inits:
        res = minimize(
            power_obj, x0, method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-10, "maxiter": maxiter or 400 * k}
        )
        n_eval += res.nfev
        if best is None or res.fun < best.fun:
            best = res
    log_p = power_params(best.x)  # type: ignore[union-attr]
    knots = _power_knots(log_p)
    params = {"family": family, "exponents": [float(v) for v in np.exp(log_p)], "evaluations": n_eval}
    if family == "spline":
        s_knots = np.linspace(0.0, 1.0, n_knots + 2)
        u0 = s_knots[:, None] ** np.exp(log_p)[None, :]
        inc = np.maximum(np.diff(u0, axis=0), 1e-6)
        z0 = np.log(inc.T).ravel()

        def spline_obj(z):
            return _energy_objective(energy_of(_spline_knots(z, k, n_knots), step=2 * step))

        res = minimize(
            spline_obj,
            z0,
            method="Nelder-Mead",
            options={"xatol": 1e-4, "fatol": 1e-10, "maxiter": maxiter or 150 * z0.size, "adaptive": True},
        )
        spline_energy = energy_of(_spline_knots(res.x, k, n_knots))
        n_eval += res.nfev
        if _energy_objective(spline_energy) <= best.fun:  # type: ignore[union-attr]
            knots = _spline_knots(res.x, k, n_knots)
            params = {"family": family, "knots": knots[1].tolist(), "evaluations": n_eval}
        else:  # the power path is kept when the spline search does not improve it
            params["evaluations"] = n_eval
            params["note"] = "spline search did not beat the power path; power path kept"
    frac = _sample_by_length(knots[0], knots[1], sizes, min(step, 0.25))
    runtime = time.perf_counter() - t0
    return path_from_frac(grid, frac, f"analytic-{family}", runtime, params)
