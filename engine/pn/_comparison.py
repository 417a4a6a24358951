"""Honesty checks for joint thresholds: the Pareto frontier, the best grid point, path comparison,
the graph path's bootstrap spread and a hold-out evaluation.

Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19). The frontier is the paper's hand-tuned "bucket" benchmark made exact; the
bootstrap answers the paper's worry that the graph path overfits single cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._analytic_path import analytic_path
from ._curve import cost_per_true_positive, target_slope, tie_tolerance
from ._graph_path import graph_path
from ._grid import ThresholdGrid, threshold_grid
from ._operating_point import OperatingPoint, operating_point
from ._paths import ThresholdPath, grid_index_of, path_operating_point, trapezoid_area

__all__ = [
    "Frontier",
    "frontier",
    "best_grid_point",
    "compare_paths",
    "GraphPathBootstrap",
    "bootstrap_graph_path",
    "bootstrap_spread_table",
    "predict_joint",
    "evaluate_holdout",
]


@dataclass(frozen=True)
class Frontier:
    """Pareto frontier of all grid points in PN space (highest TP for each FP).

    The frontier is the paper's hand-tuned "bucket" benchmark made exact.
    ``hull_fp``/``hull_tp`` are the vertices of its upper concave hull, and
    ``area`` the area under that hull on [0, max FP]: the largest area any
    monotone chain of grid points can reach (a chord between two grid points
    never rises above the hull), so every lattice path - the graph path
    included - scores at most 100 % of it.

    Attributes
    ----------
    fp, tp : numpy.ndarray of float64, shape (f,)
        FP and TP of the non-dominated grid points, FP ascending.
    index : numpy.ndarray of int, shape (f, k)
        Grid index of each frontier point.
    hull_fp, hull_tp : numpy.ndarray of float64
        Vertices of the upper concave hull of the frontier, from the origin to the largest FP.
    area : float
        Area under that hull on [0, max FP].
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
    """Non-dominated grid points (no other point has FP <= and TP >=, one strictly) and their hull area.

    Parameters
    ----------
    grid : ThresholdGrid
        TP and FP on the joint threshold grid.

    Returns
    -------
    Frontier
        The Pareto frontier, its upper concave hull and the hull's area.
    """
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
    """Argmax of ``TP − λ·FP`` over every grid point (ties -> fewest FP, then highest thresholds).

    Parameters
    ----------
    grid : ThresholdGrid
        TP and FP on the joint threshold grid.
    target : float
        Target marginal precision m in (0, 1); λ = m / (1 − m).

    Returns
    -------
    OperatingPoint
        The best grid point (joint thresholds of shape (k,)); its marginal precisions
        are NaN (a grid point has no path segments).

    Raises
    ------
    InputError
        ``target`` outside (0, 1).
    """
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
    return OperatingPoint(
        target=float(target),
        threshold=grid.thresholds_at(index),
        tp=tp_v,
        fp=fp_v,
        precision=tp_v / (tp_v + fp_v) if tp_v + fp_v > 0 else float("nan"),
        mp_above=float("nan"),
        mp_below=float("nan"),
        cost=cost_per_true_positive(target),
    )


def _normalised_position(grid: ThresholdGrid, thresholds: np.ndarray) -> np.ndarray:
    return np.array([np.interp(thresholds[j], a, np.arange(a.size)) / (a.size - 1) for j, a in enumerate(grid.axes)])


def compare_paths(
    grid: ThresholdGrid, paths: Sequence[ThresholdPath], target: float, front: Frontier | None = None
) -> pd.DataFrame:
    """One row per path: area (absolute and % of the frontier), operating point, distance to the best grid point.

    Parameters
    ----------
    grid : ThresholdGrid
        The grid the paths run through.
    paths : sequence of ThresholdPath
        Paths to compare.
    target : float
        Target marginal precision m in (0, 1).
    front : Frontier, optional
        The grid's frontier, computed when None.

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``area``, ``area_pct_of_frontier``, ``threshold_<name>`` per
        classifier, ``tp``, ``fp``, ``precision``, ``objective`` (TP − λ·FP),
        ``objective_gap_to_best_grid_point``, ``position_distance_to_best_grid_point``
        (Euclidean, normalised axis positions) and ``runtime_s``; one row per path, then
        the best grid point and the frontier.
    """
    front = front if front is not None else frontier(grid)
    best = best_grid_point(grid, target)
    best_pos = _normalised_position(grid, best.threshold)
    rows = []
    for p in paths:
        op = path_operating_point(p, target)
        rows.append(
            {
                "method": p.method,
                "area": p.auc,
                "area_pct_of_frontier": 100.0 * p.auc / front.area if front.area > 0 else float("nan"),
                **{f"threshold_{name}": float(t) for name, t in zip(grid.names, op.threshold)},
                "tp": op.tp,
                "fp": op.fp,
                "precision": op.precision,
                "objective": op.objective,
                "objective_gap_to_best_grid_point": best.objective - op.objective,
                "position_distance_to_best_grid_point": float(
                    np.linalg.norm(_normalised_position(grid, op.threshold) - best_pos)
                ),
                "runtime_s": p.runtime_s,
            }
        )
    rows.append(
        {
            "method": "best grid point",
            "area": float("nan"),
            "area_pct_of_frontier": float("nan"),
            **{f"threshold_{name}": float(t) for name, t in zip(grid.names, best.threshold)},
            "tp": best.tp,
            "fp": best.fp,
            "precision": best.precision,
            "objective": best.objective,
            "objective_gap_to_best_grid_point": 0.0,
            "position_distance_to_best_grid_point": 0.0,
            "runtime_s": float("nan"),
        }
    )
    rows.append(
        {"method": "frontier (concave hull of all grid points)", "area": front.area, "area_pct_of_frontier": 100.0}
    )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class GraphPathBootstrap:
    """Spread of the graph path under resampling of documents (the paper's overfitting worry).

    ``index`` (B, L, k): grid indices of every replicate's path (all lattice paths
    of a grid have the same L nodes, so step l is comparable); ``rep_tp``/``rep_fp``
    (B, L): each replicate's own counts along its path; ``visit_frequency``: share
    of replicates whose path visits each cell; ``auc`` (B,): each replicate path's
    area on the *original* counts. :meth:`at` gives every replicate's operating
    point for a target (read off the replicate's path) with its original counts.

    Attributes
    ----------
    grid : ThresholdGrid
        The original grid (the replicates share its axes).
    index : numpy.ndarray of int64, shape (B, L, k)
        Grid indices of every replicate's path.
    rep_tp, rep_fp : numpy.ndarray of float64, shape (B, L)
        Each replicate's own counts along its path.
    visit_frequency : numpy.ndarray of float64, grid shape
        Share of replicates whose path visits each cell.
    auc : numpy.ndarray of float64, shape (B,)
        Each replicate path's area on the original counts.
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
        """(2, L, k) lower/upper quantiles of the normalised path positions per step.

        Parameters
        ----------
        level : float, optional
            Share of replicates inside the band, in (0, 1).

        Returns
        -------
        numpy.ndarray of float64, shape (2, L, k)
            Lower and upper quantiles of the positions at every step of the path.
        """
        a = (1 - level) / 2
        return np.quantile(self.positions, [a, 1 - a], axis=0)

    def at(self, target: float) -> dict:
        """Every replicate's operating point: thresholds (B, k) and original TP, FP (B,).

        Parameters
        ----------
        target : float
            Target marginal precision m in (0, 1).

        Returns
        -------
        dict
            ``thresholds`` (B, k), ``tp`` and ``fp`` (B,) on the original counts, and
            ``index`` (B, k): the node of each replicate's path maximising its own
            TP − λ·FP (ties -> the highest thresholds).

        Raises
        ------
        InputError
            ``target`` outside (0, 1).
        """
        lam = target_slope(target)
        obj = self.rep_tp - lam * self.rep_fp
        tol = np.array([tie_tolerance(t.max(), f.max(), lam) for t, f in zip(self.rep_tp, self.rep_fp)])
        # ties -> the highest thresholds: the last tied node along the path
        tied = obj >= obj.max(axis=1, keepdims=True) - tol[:, None]
        last = obj.shape[1] - 1 - np.argmax(tied[:, ::-1], axis=1)
        idx = self.index[np.arange(self.n_boot), last]
        return {
            "thresholds": self.grid.thresholds_at(idx),
            "tp": self.grid.tp[tuple(idx.T)],
            "fp": self.grid.fp[tuple(idx.T)],
            "index": idx,
        }


def bootstrap_graph_path(
    scores, labels, weights=None, *, grid: ThresholdGrid, n_boot: int = 50, seed: int = 0, progress=None
) -> GraphPathBootstrap:
    """Resample documents (multinomial, seeded), rebuild the grid counts on the same axes, redo the graph path.

    Parameters
    ----------
    scores : array_like of float, shape (n, k)
        Scores of the rated documents, one column per classifier.
    labels : array_like of {0, 1}, shape (n,)
        1 = true positive, 0 = false positive.
    weights : array_like of float, shape (n,), optional
        Non-negative document weights; 1 each when None.
    grid : ThresholdGrid
        The original grid; its axes and rule are reused.
    n_boot : int, optional
        Number of replicates B.
    seed : int, optional
        Seed of the random generator.
    progress : callable, optional
        ``progress(done, total)`` after each replicate.

    Returns
    -------
    GraphPathBootstrap
        Every replicate's graph path, visit frequencies and areas on the original counts.

    Raises
    ------
    RatedDataError
        Invalid scores, labels or weights.
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
        aucs.append(trapezoid_area(tp, fp))
        if progress is not None:
            progress(r + 1, n_boot)
    return GraphPathBootstrap(
        grid=grid,
        index=np.stack(index),
        rep_tp=np.vstack(rep_tp),
        rep_fp=np.vstack(rep_fp),
        visit_frequency=visits / n_boot,
        auc=np.array(aucs),
    )


def bootstrap_spread_table(boot: GraphPathBootstrap, target: float, level: float = 0.9) -> pd.DataFrame:
    """Spread of the graph path's operating point and area over the bootstrap replicates.

    Parameters
    ----------
    boot : GraphPathBootstrap
        The replicates.
    target : float
        Target marginal precision m in (0, 1).
    level : float, optional
        Share of replicates between ``low`` and ``high``.

    Returns
    -------
    pandas.DataFrame
        Columns ``quantity``, ``low``, ``median``, ``high``; rows for each threshold, TP
        and FP (original counts) and the path area. ``attrs`` holds ``level`` and
        ``replicates``.
    """
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


def _prf(pred: np.ndarray, y: np.ndarray) -> dict:
    tp = float(np.sum(pred & (y == 1)))
    fp = float(np.sum(pred & (y == 0)))
    fn = float(np.sum(~pred & (y == 1)))
    precision = tp / (tp + fp) if tp + fp > 0 else float("nan")
    recall = tp / (tp + fn) if tp + fn > 0 else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp > 0 else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "f1": f1}


def predict_joint(scores: np.ndarray, thresholds: np.ndarray, rule: str) -> np.ndarray:
    """Flag a document iff any (OR) / all (AND) of its scores reach their thresholds.

    Parameters
    ----------
    scores : numpy.ndarray, shape (n, k)
        Scores, one column per classifier.
    thresholds : numpy.ndarray, shape (k,)
        Joint thresholds.
    rule : {"or", "and"}
        Combination rule (anything but ``"or"`` is read as ``"and"``).

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True for flagged documents.
    """
    passed = np.asarray(scores) >= np.asarray(thresholds)[None, :]
    return passed.any(axis=1) if rule == "or" else passed.all(axis=1)


def evaluate_holdout(
    train_scores,
    train_labels,
    test_scores,
    test_labels,
    target: float,
    *,
    rule: str = "or",
    bins: int = 100,
    families: Sequence[str] = ("power",),
    score_names: Sequence[str] = (),
) -> pd.DataFrame:
    """Precision / recall / F1 on a fully labelled test split (the paper's public-data experiment).

    Joint thresholds come from the graph and analytic paths on the training grid;
    each single classifier is thresholded at its own operating point for the same
    target.

    Parameters
    ----------
    train_scores : array_like of float, shape (n, k)
        Training scores, one column per classifier.
    train_labels : array_like of {0, 1}, shape (n,)
        Training labels.
    test_scores : array_like of float, shape (n_test, k)
        Test scores.
    test_labels : array_like of {0, 1}, shape (n_test,)
        Test labels (every document labelled).
    target : float
        Target marginal precision m in (0, 1).
    rule : {"or", "and"}, optional
        Combination rule of the joint thresholds.
    bins : int, optional
        Thresholds per axis of the training grid.
    families : sequence of str, optional
        Analytic path families to evaluate besides the graph path.
    score_names : sequence of str, optional
        Classifier names (``classifier 1`` ... when empty).

    Returns
    -------
    pandas.DataFrame
        One row per method (graph path, each analytic family, each single classifier):
        ``method``, ``thresholds``, ``tp``, ``fp``, ``fn``, ``precision``, ``recall``, ``f1``.
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
        rows.append(
            {
                "method": p.method,
                "thresholds": tuple(float(t) for t in op.threshold),
                **_prf(predict_joint(te_s, op.threshold, rule), te_y),
            }
        )
    for j, name in enumerate(names):
        op = operating_point(tr_s[:, j], tr_y, target)
        rows.append({"method": name, "thresholds": (float(op.threshold),), **_prf(te_s[:, j] >= op.threshold, te_y)})
    return pd.DataFrame(rows)
