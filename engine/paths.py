"""Monotone threshold paths for two or more classifiers, and their operating points.

Robles, Zaidouni, Mavromoustaki & Refael (AAAI-MAKE 2020), "For an ensemble of
classifiers": a path ``phi: [0, 1] -> T1 x ... x Tk`` from the all-lowest to the
all-highest thresholds, monotone in every coordinate, turns the joint threshold
space back into a PN curve. The best path maximises the area ``∫ TP dFP`` under
that curve; the operating point is then the point of the path where the slope
``dTP/dFP`` meets the target (Algorithm 1).

* :func:`graph_path` - Algorithm 3. Grid nodes, edges one step up one axis,
  weight ``w(v1, v2) = -1/2 |FP(v1) - FP(v2)| (TP(v1) + TP(v2))`` (eq. 3). The
  graph is a DAG, so the shortest path is a dynamic programme in topological
  order (the paper used Bellman-Ford). For k = 2 each grid row is one vectorised
  max-plus scan; for k >= 3 the cells are processed by anti-diagonal levels.
* :func:`analytic_path` - Algorithm 2. Thresholds normalised to [0, 1] (position
  along each axis: rank for quantile grids), TP and FP interpolated
  multilinearly, energy ``E`` = trapezoid area of the path's PN curve, minimise
  ``-log(log(E))`` with Nelder-Mead (multi-start). ``family="power"`` is the
  paper's ``phi_p(s) = (s^p1, ..., s^pk)`` (eq. 2); ``family="spline"`` is a
  monotone piecewise-linear path through a few free knots, started from the best
  power path.

Which wins where: the graph path is the exact optimum over lattice paths of the
grid; the analytic path can only beat it by cutting cells diagonally through
interpolated values, a gain bounded by the sum over the cells it crosses of
``(FP range) x (TP range)`` of the cell (see ``tests/engine/test_paths.py``).
The power family is smooth and hard to overfit but cannot follow a path that
bends twice; the spline family follows such paths and lands within a fraction
of a percent of the graph path's area on the shipped samples (see
``benchmarks/RESULTS.md``), with a smoother curve than the lattice path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.optimize import minimize, ridder

from .grid import ThresholdGrid, threshold_grid
from .pn import OperatingPoint, cost_per_true_positive, operating_point, target_slope, tie_tolerance

__all__ = [
    "ThresholdPath",
    "Frontier",
    "GraphPathBootstrap",
    "graph_path",
    "analytic_path",
    "path_operating_point",
    "frontier",
    "best_grid_point",
    "compare_paths",
    "bootstrap_spread_table",
    "bootstrap_graph_path",
    "evaluate_holdout",
    "interpolate_grid",
    "grid_index_of",
    "predict_joint",
    "FAMILIES",
]

FAMILIES = ("power", "spline")


@dataclass(frozen=True)
class ThresholdPath:
    """A monotone path through the threshold space and its PN curve.

    Rows run from the all-lowest thresholds (``positions`` 0, most flagged) to the
    all-highest (``positions`` 1, nothing flagged): ``fp`` and ``tp`` never increase.
    ``positions`` are normalised axis positions (fractional grid index / (size - 1));
    ``thresholds`` the corresponding threshold values; ``auc`` = trapezoid ∫ TP dFP.
    """

    thresholds: np.ndarray
    positions: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    auc: float
    method: str
    runtime_s: float
    params: dict = field(default_factory=dict)
    grid: ThresholdGrid | None = field(default=None, repr=False, compare=False)


def _trapezoid_area(tp: np.ndarray, fp: np.ndarray) -> float:
    """∫ TP dFP along a path whose FP never increases."""
    return float(np.sum(0.5 * (tp[:-1] + tp[1:]) * (fp[:-1] - fp[1:])))


# --------------------------------------------------------------------------- interpolation
def interpolate_grid(values: np.ndarray, frac_index: np.ndarray) -> np.ndarray:
    """Multilinear interpolation of a k-D array at fractional indices (m, k)."""
    x = np.asarray(frac_index, dtype=np.float64)
    k = values.ndim
    shape = np.array(values.shape)
    x = np.clip(x, 0, shape - 1)
    lo = np.minimum(np.floor(x).astype(np.int64), shape - 2)
    frac = x - lo
    out = np.zeros(x.shape[0])
    for corner in range(1 << k):
        bits = [(corner >> j) & 1 for j in range(k)]
        weight = np.ones(x.shape[0])
        idx = []
        for j, b in enumerate(bits):
            weight *= frac[:, j] if b else (1.0 - frac[:, j])
            idx.append(lo[:, j] + b)
        out += weight * values[tuple(idx)]
    return out


def _axis_values(grid: ThresholdGrid, frac_index: np.ndarray) -> np.ndarray:
    """Threshold values at fractional indices (linear between axis values)."""
    return np.column_stack([np.interp(frac_index[:, j], np.arange(a.size), a) for j, a in enumerate(grid.axes)])


def _path_from_frac(grid: ThresholdGrid, frac: np.ndarray, method: str, runtime: float, params: dict,
                    tp: np.ndarray | None = None, fp: np.ndarray | None = None) -> ThresholdPath:
    if tp is None:
        tp = interpolate_grid(grid.tp, frac)
        fp = interpolate_grid(grid.fp, frac)
    sizes = np.array(grid.shape) - 1
    return ThresholdPath(thresholds=_axis_values(grid, frac), positions=frac / sizes, tp=tp, fp=fp,
                         auc=_trapezoid_area(tp, fp), method=method, runtime_s=runtime, params=params, grid=grid)


# --------------------------------------------------------------------------- graph path
def _edge_areas(grid: ThresholdGrid) -> list[np.ndarray]:
    """Area under the PN segment of every edge along each axis (eq. 3 without the sign)."""
    out = []
    for j in range(grid.k):
        d_fp = np.abs(np.diff(grid.fp, axis=j))
        s_tp = grid.tp[(slice(None),) * j + (slice(0, -1),)] + grid.tp[(slice(None),) * j + (slice(1, None),)]
        out.append(0.5 * d_fp * s_tp)
    return out


def _graph_path_2d(areas: list[np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    """Max-area lattice path on a 2-D grid, one vectorised max-plus scan per row.

    Within row i, with x[l] the best value arriving from below at column l and
    P the prefix sums of the in-row edge areas, best[j] = P[j] + max_{l<=j}(x[l] - P[l]):
    one ``np.maximum.accumulate`` per row. The per-row ``x - P`` values are kept so
    the entry column of each row on the optimal path is recovered while backtracking.
    """
    m0, m1 = shape
    a_v, a_h = areas  # a_v[i, j]: (i, j)->(i+1, j); a_h[i, j]: (i, j)->(i, j+1)
    prefix = np.zeros((m0, m1))
    np.cumsum(a_h, axis=1, out=prefix[:, 1:])
    vals = np.empty((m0, m1))
    vals[1:] = a_v - prefix[1:]  # x[l] - P[l] = best_prev[l] + (a_v[l] - P[l])
    best = prefix[0].copy()  # row 0 is reachable only from the corner
    run = np.empty(m1)
    for i in range(1, m0):
        np.add(vals[i], best, out=vals[i])
        np.maximum.accumulate(vals[i], out=run)
        np.add(prefix[i], run, out=best)
    # entry column of every cell: the latest column attaining the row's running maximum
    # (whole-matrix operations, then a pure-Python walk back along the path)
    running = np.maximum.accumulate(vals[1:], axis=1)
    cols = np.arange(m1)
    entry = np.maximum.accumulate(np.where(vals[1:] >= running, cols, 0), axis=1)
    nodes = []
    i, j = m0 - 1, m1 - 1
    while i > 0:
        l = int(entry[i - 1, j])
        nodes.extend((i, c) for c in range(j, l - 1, -1))
        i, j = i - 1, l
    nodes.extend((0, c) for c in range(j, -1, -1))
    return np.array(nodes[::-1], dtype=np.int64)


def _graph_path_nd(areas: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """Max-area lattice path for any k by dynamic programming over anti-diagonal levels."""
    k = len(shape)
    n = int(np.prod(shape))
    coords = np.indices(shape).reshape(k, n)
    strides = np.array([int(np.prod(shape[j + 1:])) for j in range(k)])
    level = coords.sum(axis=0)
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(level.max() + 2))
    # flat edge areas: area_flat[j][c] = area of the edge c -> c + e_j (NaN where it leaves the grid)
    area_flat = []
    for j in range(k):
        a = np.full(shape, np.nan)
        a[(slice(None),) * j + (slice(0, shape[j] - 1),)] = areas[j]
        area_flat.append(a.ravel())
    best = np.full(n, -np.inf)
    choice = np.full(n, -1, dtype=np.int64)
    best[0] = 0.0
    for lv in range(1, level.max() + 1):
        cells = order[bounds[lv]:bounds[lv + 1]]
        cand = np.full((k, cells.size), -np.inf)
        for j in range(k):
            has = coords[j, cells] > 0
            pred = cells[has] - strides[j]
            cand[j, has] = best[pred] + area_flat[j][pred]
        choice[cells] = np.argmax(cand, axis=0)
        best[cells] = cand.max(axis=0)
    nodes = [n - 1]
    c = n - 1
    while c != 0:
        c = c - strides[choice[c]]
        nodes.append(c)
    return coords[:, nodes[::-1]].T.copy()


def graph_path(grid: ThresholdGrid) -> ThresholdPath:
    """Algorithm 3: the lattice path of maximum PN area (shortest path under eq. 3).

    Every monotone lattice path from the all-lowest to the all-highest corner has
    ``sum(size_j - 1) + 1`` nodes; the one returned maximises the trapezoid area.
    O(cells * k) time.
    """
    t0 = time.perf_counter()
    areas = _edge_areas(grid)
    if grid.k == 2:
        nodes = _graph_path_2d(areas, grid.shape)
    else:
        nodes = _graph_path_nd(areas, grid.shape)
    tp = grid.tp[tuple(nodes.T)]
    fp = grid.fp[tuple(nodes.T)]
    runtime = time.perf_counter() - t0
    path = _path_from_frac(grid, nodes.astype(np.float64), "graph", runtime, {"nodes": int(len(nodes))}, tp, fp)
    return path


def grid_index_of(path: ThresholdPath) -> np.ndarray:
    """Integer grid indices of a graph path's nodes."""
    sizes = np.array(path.grid.shape) - 1
    return np.rint(path.positions * sizes).astype(np.int64)


# --------------------------------------------------------------------------- analytic path
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


def analytic_path(grid: ThresholdGrid, family: str = "power", *, n_knots: int = 3, starts: int = 5,
                  step: float = 0.5, seed: int = 0, maxiter: int | None = None) -> ThresholdPath:
    """Algorithm 2: optimise a parametric monotone path for PN area with Nelder-Mead.

    ``family="power"``: ``u_j(s) = s^{p_j}`` with ``p = exp(theta)`` (positive by
    construction); exponents are normalised to a product of 1 because only their
    ratios change the curve. ``starts`` multi-starts are spread over log-ratios.
    ``family="spline"``: ``n_knots`` interior knots; each coordinate's increments
    are a softmax, so the path is monotone and runs from 0 to 1 in every
    coordinate; started from the best power path.
    The energy is evaluated on the path resampled every ``step`` grid cells.
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    t0 = time.perf_counter()
    k = grid.k
    sizes = np.array(grid.shape, dtype=np.float64) - 1

    def energy_of(knots, step=step) -> float:
        frac = _sample_by_length(knots[0], knots[1], sizes, step)
        tp = interpolate_grid(grid.tp, frac)
        fp = interpolate_grid(grid.fp, frac)
        return _trapezoid_area(tp, fp)

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
        res = minimize(power_obj, x0, method="Nelder-Mead",
                       options={"xatol": 1e-4, "fatol": 1e-10, "maxiter": maxiter or 400 * k})
        n_eval += res.nfev
        if best is None or res.fun < best.fun:
            best = res
    log_p = power_params(best.x)
    knots = _power_knots(log_p)
    params = {"family": family, "exponents": [float(v) for v in np.exp(log_p)], "evaluations": n_eval}
    if family == "spline":
        s_knots = np.linspace(0.0, 1.0, n_knots + 2)
        u0 = s_knots[:, None] ** np.exp(log_p)[None, :]
        inc = np.maximum(np.diff(u0, axis=0), 1e-6)
        z0 = np.log(inc.T).ravel()

        def spline_obj(z):
            return _energy_objective(energy_of(_spline_knots(z, k, n_knots), step=2 * step))

        res = minimize(spline_obj, z0, method="Nelder-Mead",
                       options={"xatol": 1e-4, "fatol": 1e-10, "maxiter": maxiter or 150 * z0.size,
                                "adaptive": True})
        spline_energy = energy_of(_spline_knots(res.x, k, n_knots))
        n_eval += res.nfev
        if _energy_objective(spline_energy) <= best.fun:
            knots = _spline_knots(res.x, k, n_knots)
            params = {"family": family, "knots": knots[1].tolist(), "evaluations": n_eval}
        else:  # keep the power path when the spline search did not improve it
            params["evaluations"] = n_eval
            params["note"] = "spline search did not beat the power path; power path kept"
    frac = _sample_by_length(knots[0], knots[1], sizes, min(step, 0.25))
    runtime = time.perf_counter() - t0
    return _path_from_frac(grid, frac, f"analytic-{family}", runtime, params)


# --------------------------------------------------------------------------- operating points on paths
def _segment_mp(tp: np.ndarray, fp: np.ndarray, v: int, direction: int) -> float:
    """Marginal precision of the nearest non-empty path segment next to vertex v.

    direction=+1 looks towards higher thresholds (the documents just above the point)."""
    i = v
    while 0 <= i + direction < tp.size:
        a, b = (i, i + 1) if direction > 0 else (i - 1, i)
        d_tp, d_fp = tp[a] - tp[b], fp[a] - fp[b]
        if d_tp + d_fp > 1e-12:
            return float(d_tp / (d_tp + d_fp))
        i += direction
    return float("nan")


def path_operating_point(path: ThresholdPath, target: float) -> OperatingPoint:
    """Maximise ``TP - λ·FP`` (``λ = target / (1 - target)``) along the path (ties -> highest thresholds).

    Graph paths are searched over their nodes. Analytic paths are searched over
    their dense samples, then refined with Ridders' method on the local slope
    ``d(TP - c FP)/dσ`` where it brackets zero around the best sample; the
    refinement is kept only if it improves the objective.
    """
    lam = target_slope(target)
    obj = path.tp - lam * path.fp
    # rows run from low to high thresholds: among ties take the last (highest thresholds)
    best_val = obj.max()
    tol = tie_tolerance(path.tp.max(), path.fp.max(), lam)
    v = int(np.flatnonzero(obj >= best_val - tol)[-1])
    threshold, tp, fp = path.thresholds[v], float(path.tp[v]), float(path.fp[v])
    if path.method != "graph" and path.grid is not None and 0 < v < path.tp.size - 1:
        grid = path.grid
        sizes = np.array(grid.shape) - 1.0
        frac = path.positions * sizes

        def at(sig):
            pos = np.interp(sig, np.arange(frac.shape[0]), np.arange(frac.shape[0]))
            lo = int(min(np.floor(pos), frac.shape[0] - 2))
            f = frac[lo] + (pos - lo) * (frac[lo + 1] - frac[lo])
            return f[None, :]

        def objective(sig):
            f = at(sig)
            return float(interpolate_grid(grid.tp, f)[0] - lam * interpolate_grid(grid.fp, f)[0])

        h = 1e-3

        def slope(sig):
            return (objective(sig + h) - objective(sig - h)) / (2 * h)

        a, b = v - 1 + h, v + 1 - h
        try:
            sa, sb = slope(a), slope(b)
            if sa * sb < 0:
                sig = ridder(slope, a, b, xtol=1e-6)
                if objective(sig) > obj[v] + tol:
                    f = at(sig)
                    tp = float(interpolate_grid(grid.tp, f)[0])
                    fp = float(interpolate_grid(grid.fp, f)[0])
                    threshold = _axis_values(grid, f)[0]
        except (ValueError, RuntimeError):
            pass
    total = tp + fp
    return OperatingPoint(target=float(target), threshold=np.asarray(threshold, dtype=float), tp=tp, fp=fp,
                          precision=tp / total if total > 0 else float("nan"),
                          mp_above=_segment_mp(path.tp, path.fp, v, +1),
                          mp_below=_segment_mp(path.tp, path.fp, v, -1), cost=cost_per_true_positive(target))


# --------------------------------------------------------------------------- honesty checks
@dataclass(frozen=True)
class Frontier:
    """Pareto frontier of all grid points in PN space (highest TP for each FP).

    The frontier is the paper's hand-tuned "bucket" benchmark made exact.
    ``hull_fp``/``hull_tp`` are the vertices of its upper concave hull, and
    ``area`` the area under that hull on [0, max FP]: the largest area any
    monotone chain of grid points can reach (a chord between two grid points
    never rises above the hull), so every lattice path - the graph path
    included - scores at most 100 % of it.
    """

    fp: np.ndarray
    tp: np.ndarray
    index: np.ndarray
    hull_fp: np.ndarray
    hull_tp: np.ndarray
    area: float


def _upper_concave_hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the upper concave hull of points sorted by x with y increasing (monotone chain)."""
    hull: list[int] = []
    for i in range(x.size):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # drop b if it lies on or below the chord a -> i
            if (y[b] - y[a]) * (x[i] - x[a]) <= (y[i] - y[a]) * (x[b] - x[a]):
                hull.pop()
            else:
                break
        hull.append(i)
    return np.array(hull, dtype=np.int64)


def frontier(grid: ThresholdGrid) -> Frontier:
    """Non-dominated grid points (no other point has FP <= and TP >=, one strictly) and their hull area."""
    fp = grid.fp.ravel()
    tp = grid.tp.ravel()
    order = np.lexsort((-tp, fp))
    tp_sorted = tp[order]
    prev_max = np.maximum.accumulate(np.r_[-np.inf, tp_sorted[:-1]])
    keep = order[tp_sorted > prev_max]
    f_fp, f_tp = fp[keep], tp[keep]
    # the hull starts at the origin (nothing flagged) and ends flat at the largest FP
    xs = np.r_[0.0, f_fp, fp.max()]
    ys = np.r_[0.0, f_tp, f_tp[-1]]
    h = _upper_concave_hull(xs, ys)
    area = float(np.sum(0.5 * (ys[h][:-1] + ys[h][1:]) * np.diff(xs[h])))
    index = np.column_stack(np.unravel_index(keep, grid.shape))
    return Frontier(fp=f_fp, tp=f_tp, index=index, hull_fp=xs[h], hull_tp=ys[h], area=area)


def best_grid_point(grid: ThresholdGrid, target: float) -> OperatingPoint:
    """Argmax of ``TP - λ·FP`` over every grid point (ties -> fewest FP, then highest thresholds)."""
    lam = target_slope(target)
    obj = (grid.tp - lam * grid.fp).ravel()
    best = obj.max()
    tol = tie_tolerance(grid.tp.max(), grid.fp.max(), lam)
    tied = np.flatnonzero(obj >= best - tol)
    fp = grid.fp.ravel()[tied]
    idx_sum = np.sum(np.column_stack(np.unravel_index(tied, grid.shape)), axis=1)
    pick = tied[np.lexsort((-idx_sum, fp))[0]]
    index = np.array(np.unravel_index(pick, grid.shape))
    tp_v, fp_v = float(grid.tp.ravel()[pick]), float(grid.fp.ravel()[pick])
    return OperatingPoint(target=float(target), threshold=grid.thresholds_at(index), tp=tp_v, fp=fp_v,
                          precision=tp_v / (tp_v + fp_v) if tp_v + fp_v > 0 else float("nan"),
                          mp_above=float("nan"), mp_below=float("nan"), cost=cost_per_true_positive(target))


def _normalised_position(grid: ThresholdGrid, thresholds: np.ndarray) -> np.ndarray:
    return np.array([np.interp(thresholds[j], a, np.arange(a.size)) / (a.size - 1) for j, a in enumerate(grid.axes)])


def compare_paths(grid: ThresholdGrid, paths: Sequence[ThresholdPath], target: float,
                  front: Frontier | None = None) -> pd.DataFrame:
    """One row per path: area (absolute and % of the frontier), operating point, distance to the best grid point."""
    front = front if front is not None else frontier(grid)
    best = best_grid_point(grid, target)
    best_pos = _normalised_position(grid, best.threshold)
    rows = []
    for p in paths:
        op = path_operating_point(p, target)
        rows.append({
            "method": p.method,
            "area": p.auc,
            "area_pct_of_frontier": 100.0 * p.auc / front.area if front.area > 0 else float("nan"),
            **{f"threshold_{name}": float(t) for name, t in zip(grid.names, op.threshold)},
            "tp": op.tp, "fp": op.fp, "precision": op.precision,
            "objective": op.objective,
            "objective_gap_to_best_grid_point": best.objective - op.objective,
            "position_distance_to_best_grid_point": float(np.linalg.norm(
                _normalised_position(grid, op.threshold) - best_pos)),
            "runtime_s": p.runtime_s,
        })
    rows.append({"method": "best grid point", "area": float("nan"), "area_pct_of_frontier": float("nan"),
                 **{f"threshold_{name}": float(t) for name, t in zip(grid.names, best.threshold)},
                 "tp": best.tp, "fp": best.fp, "precision": best.precision, "objective": best.objective,
                 "objective_gap_to_best_grid_point": 0.0, "position_distance_to_best_grid_point": 0.0,
                 "runtime_s": float("nan")})
    rows.append({"method": "frontier (concave hull of all grid points)", "area": front.area,
                 "area_pct_of_frontier": 100.0})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- overfitting check
@dataclass(frozen=True)
class GraphPathBootstrap:
    """Spread of the graph path under resampling of documents (the paper's overfitting worry).

    ``index`` (B, L, k): grid indices of every replicate's path (all lattice paths
    of a grid have the same L nodes, so step l is comparable); ``rep_tp``/``rep_fp``
    (B, L): each replicate's own counts along its path; ``visit_frequency``: share
    of replicates whose path visits each cell; ``auc`` (B,): each replicate path's
    area on the *original* counts. :meth:`at` gives every replicate's operating
    point for a target (read off the replicate's path) with its original counts.
    """

    grid: ThresholdGrid
    index: np.ndarray
    rep_tp: np.ndarray
    rep_fp: np.ndarray
    visit_frequency: np.ndarray
    auc: np.ndarray

    @property
    def n_boot(self) -> int:
        return self.index.shape[0]

    @property
    def positions(self) -> np.ndarray:
        return self.index / (np.array(self.grid.shape) - 1)

    def band(self, level: float = 0.9) -> np.ndarray:
        """(2, L, k) lower/upper quantiles of the normalised path positions per step."""
        a = (1 - level) / 2
        return np.quantile(self.positions, [a, 1 - a], axis=0)

    def at(self, target: float) -> dict:
        """Every replicate's operating point: thresholds (B, k) and original TP, FP (B,)."""
        lam = target_slope(target)
        obj = self.rep_tp - lam * self.rep_fp
        tol = np.array([tie_tolerance(t.max(), f.max(), lam) for t, f in zip(self.rep_tp, self.rep_fp)])
        # ties -> the highest thresholds: the last tied node along the path
        tied = obj >= obj.max(axis=1, keepdims=True) - tol[:, None]
        last = obj.shape[1] - 1 - np.argmax(tied[:, ::-1], axis=1)
        idx = self.index[np.arange(self.n_boot), last]
        return {"thresholds": self.grid.thresholds_at(idx), "tp": self.grid.tp[tuple(idx.T)],
                "fp": self.grid.fp[tuple(idx.T)], "index": idx}


def bootstrap_graph_path(scores, labels, weights=None, *, grid: ThresholdGrid, n_boot: int = 50, seed: int = 0,
                         progress=None) -> GraphPathBootstrap:
    """Resample documents (multinomial, seeded), rebuild the grid counts on the same axes, redo the graph path.

    ``progress(done, total)`` is called after each replicate.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    w = np.ones(s.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    rng = np.random.default_rng(seed)
    n = s.shape[0]
    index, rep_tp, rep_fp, aucs = [], [], [], []
    visits = np.zeros(grid.shape)
    for r in range(n_boot):
        counts = rng.multinomial(n, np.full(n, 1.0 / n))
        rep = threshold_grid(s, y, w * counts, rule=grid.rule, axes=grid.axes)
        path = graph_path(rep)
        idx = grid_index_of(path)
        visits[tuple(idx.T)] += 1
        index.append(idx)
        rep_tp.append(path.tp)
        rep_fp.append(path.fp)
        tp, fp = grid.tp[tuple(idx.T)], grid.fp[tuple(idx.T)]
        aucs.append(_trapezoid_area(tp, fp))
        if progress is not None:
            progress(r + 1, n_boot)
    return GraphPathBootstrap(grid=grid, index=np.stack(index), rep_tp=np.vstack(rep_tp), rep_fp=np.vstack(rep_fp),
                              visit_frequency=visits / n_boot, auc=np.array(aucs))


def bootstrap_spread_table(boot: GraphPathBootstrap, target: float, level: float = 0.9) -> pd.DataFrame:
    """Spread of the graph path's operating point and area over the bootstrap replicates."""
    at = boot.at(target)
    a = (1 - level) / 2
    rows = []
    for j, name in enumerate(boot.grid.names):
        lo, med, hi = np.quantile(at["thresholds"][:, j], [a, 0.5, 1 - a])
        rows.append({"quantity": f"threshold {name}", "low": lo, "median": med, "high": hi})
    for key, label in (("tp", "TP (original counts)"), ("fp", "FP (original counts)")):
        lo, med, hi = np.quantile(at[key], [a, 0.5, 1 - a])
        rows.append({"quantity": label, "low": lo, "median": med, "high": hi})
    lo, med, hi = np.quantile(boot.auc, [a, 0.5, 1 - a])
    rows.append({"quantity": "path area on the original counts", "low": lo, "median": med, "high": hi})
    frame = pd.DataFrame(rows)
    frame.attrs["level"] = level
    frame.attrs["replicates"] = boot.n_boot
    return frame


# --------------------------------------------------------------------------- holdout evaluation
def _prf(pred: np.ndarray, y: np.ndarray) -> dict:
    tp = float(np.sum(pred & (y == 1)))
    fp = float(np.sum(pred & (y == 0)))
    fn = float(np.sum(~pred & (y == 1)))
    precision = tp / (tp + fp) if tp + fp > 0 else float("nan")
    recall = tp / (tp + fn) if tp + fn > 0 else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp > 0 else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "f1": f1}


def predict_joint(scores: np.ndarray, thresholds: np.ndarray, rule: str) -> np.ndarray:
    """Flag a document iff any (OR) / all (AND) of its scores reach their thresholds."""
    passed = np.asarray(scores) >= np.asarray(thresholds)[None, :]
    return passed.any(axis=1) if rule == "or" else passed.all(axis=1)


def evaluate_holdout(train_scores, train_labels, test_scores, test_labels, target: float, *, rule: str = "or",
                     bins: int = 100, families: Sequence[str] = ("power",),
                     score_names: Sequence[str] = ()) -> pd.DataFrame:
    """Precision / recall / F1 on a fully labelled test split (the paper's public-data experiment).

    Joint thresholds come from the graph and analytic paths on the training grid;
    each single classifier is thresholded at its own operating point for the same
    target. Returns one row per method.
    """
    tr_s = np.asarray(train_scores, dtype=float)
    te_s = np.asarray(test_scores, dtype=float)
    tr_y = np.asarray(train_labels)
    te_y = np.asarray(test_labels)
    names = tuple(score_names) or tuple(f"classifier {j + 1}" for j in range(tr_s.shape[1]))
    grid = threshold_grid(tr_s, tr_y, bins=bins, rule=rule, score_names=names)
    rows = []
    paths = [graph_path(grid)] + [analytic_path(grid, f) for f in families]
    for p in paths:
        op = path_operating_point(p, target)
        rows.append({"method": p.method, "thresholds": tuple(float(t) for t in op.threshold),
                     **_prf(predict_joint(te_s, op.threshold, rule), te_y)})
    for j, name in enumerate(names):
        op = operating_point(tr_s[:, j], tr_y, target)
        rows.append({"method": name, "thresholds": (float(op.threshold),),
                     **_prf(te_s[:, j] >= op.threshold, te_y)})
    return pd.DataFrame(rows)
