"""Monotone threshold paths through the joint threshold space, and their operating points.

Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19), "For an ensemble of classifiers": a path ``phi: [0, 1] -> T1 x ... x Tk``
from the all-lowest to the all-highest thresholds, monotone in every coordinate,
turns the joint threshold space back into a PN curve. The best path maximises
the area ``∫ TP dFP`` under that curve (eq. 3); the operating point is the point
of the path where the slope ``dTP/dFP`` meets the target ``λ = m / (1 − m)``
(Algorithm 1). The paths themselves come from
:func:`~engine.pn.graph_path` (Algorithm 3) and
:func:`~engine.pn.analytic_path` (Algorithm 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import ridder

from ._curve import cost_per_true_positive, target_slope, tie_tolerance
from ._grid import ThresholdGrid
from ._operating_point import OperatingPoint

__all__ = [
    "ThresholdPath",
    "trapezoid_area",
    "interpolate_grid",
    "axis_values",
    "path_from_frac",
    "path_operating_point",
    "grid_index_of",
]


@dataclass(frozen=True)
class ThresholdPath:
    """A monotone path through the threshold space and its PN curve.

    Rows run from the all-lowest thresholds (``positions`` 0, most flagged) to the
    all-highest (``positions`` 1, nothing flagged): ``fp`` and ``tp`` never increase.

    Attributes
    ----------
    thresholds : numpy.ndarray of float64, shape (L, k)
        Joint thresholds along the path.
    positions : numpy.ndarray of float64, shape (L, k)
        Normalised axis positions: fractional grid index / (axis size − 1), in [0, 1].
    tp, fp : numpy.ndarray of float64, shape (L,)
        Weighted TP and FP along the path (interpolated on the grid between nodes).
    auc : float
        Trapezoid area ∫ TP dFP under the path's PN curve (eq. 3).
    method : str
        ``"graph"``, ``"analytic-power"`` or ``"analytic-spline"``.
    runtime_s : float
        Seconds the path search took.
    params : dict
        The method's parameters and diagnostics (exponents, knots, evaluations, nodes).
    grid : ThresholdGrid or None
        The grid the path runs through.
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


def trapezoid_area(tp: np.ndarray, fp: np.ndarray) -> float:
    """∫ TP dFP along a path whose FP never increases."""
    return float(np.sum(0.5 * (tp[:-1] + tp[1:]) * (fp[:-1] - fp[1:])))


def interpolate_grid(values: np.ndarray, frac_index: np.ndarray) -> np.ndarray:
    """Multilinear interpolation of a k-D array at fractional indices (m, k).

    Parameters
    ----------
    values : numpy.ndarray, k dimensions, every size >= 2
        Values on the grid (``grid.tp`` or ``grid.fp``).
    frac_index : array_like of float, shape (m, k)
        Fractional grid indices, clipped to the grid.

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
        The interpolated values.
    """
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


def axis_values(grid: ThresholdGrid, frac_index: np.ndarray) -> np.ndarray:
    """Threshold values at fractional indices (linear between axis values)."""
    return np.column_stack([np.interp(frac_index[:, j], np.arange(a.size), a) for j, a in enumerate(grid.axes)])


def path_from_frac(
    grid: ThresholdGrid,
    frac: np.ndarray,
    method: str,
    runtime: float,
    params: dict,
    tp: np.ndarray | None = None,
    fp: np.ndarray | None = None,
) -> ThresholdPath:
    if tp is None:
        tp = interpolate_grid(grid.tp, frac)
        fp = interpolate_grid(grid.fp, frac)
    sizes = np.array(grid.shape) - 1
    return ThresholdPath(
        thresholds=axis_values(grid, frac),
        positions=frac / sizes,
        tp=tp,
        fp=fp,
        auc=trapezoid_area(tp, fp),
        method=method,
        runtime_s=runtime,
        params=params,
        grid=grid,
    )


def grid_index_of(path: ThresholdPath) -> np.ndarray:
    """Integer grid indices of a graph path's nodes.

    Parameters
    ----------
    path : ThresholdPath
        A path with its ``grid`` (its nodes on grid points, as for the graph path).

    Returns
    -------
    numpy.ndarray of int64, shape (L, k)
        The grid index of every node.
    """
    sizes = np.array(path.grid.shape) - 1
    return np.rint(path.positions * sizes).astype(np.int64)


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
    """Maximise ``TP − λ·FP`` (``λ = target / (1 − target)``) along the path (ties -> highest thresholds).

    Graph paths are searched over their nodes. Analytic paths are searched over
    their dense samples, then refined with Ridders' method on the local slope
    ``d(TP − λ·FP)/dσ`` where it brackets zero around the best sample; the
    refinement is kept only if it improves the objective.

    Parameters
    ----------
    path : ThresholdPath
        A graph or analytic path.
    target : float
        Target marginal precision m in (0, 1).

    Returns
    -------
    OperatingPoint
        Joint thresholds (shape (k,)), TP, FP, precision and the marginal precisions of
        the nearest non-empty path segments above and below the point.

    Raises
    ------
    InputError
        ``target`` outside (0, 1).

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: Algorithm 1 (the operating point where the path's slope meets the target).

    Examples
    --------
    >>> from engine import graph_path, load_rated, path_operating_point, threshold_grid
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> path = graph_path(threshold_grid(data.scores, data.labels, bins=20, rule="or"))
    >>> path_operating_point(path, 0.3).threshold.tolist()  # one threshold per classifier
    [0.3977, 0.9241]
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
                    threshold = axis_values(grid, f)[0]
        except (ValueError, RuntimeError):
            pass
    total = tp + fp
    return OperatingPoint(
        target=float(target),
        threshold=np.asarray(threshold, dtype=float),
        tp=tp,
        fp=fp,
        precision=tp / total if total > 0 else float("nan"),
        mp_above=_segment_mp(path.tp, path.fp, v, +1),
        mp_below=_segment_mp(path.tp, path.fp, v, -1),
        cost=cost_per_true_positive(target),
    )
