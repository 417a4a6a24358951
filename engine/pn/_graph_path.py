"""The graph path: Algorithm 3 of Robles, Zaidouni, Mavromoustaki & Refael, *Threshold Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted Positive Data*, AAAI-MAKE 2020 (CEUR-WS Vol-2600, paper 19).

Grid nodes, edges one step up one axis, weight
``w(v1, v2) = -1/2 |FP(v1) - FP(v2)| (TP(v1) + TP(v2))`` (eq. 3): the shortest
path is the lattice path of maximum PN area. The graph is a DAG, so the shortest
path is a dynamic programme in topological order (the paper used Bellman-Ford).
For k = 2 each grid row is one vectorised max-plus scan; for k >= 3 the cells are
processed by anti-diagonal levels.
"""

from __future__ import annotations

import time

import numpy as np

from ._grid import ThresholdGrid
from ._paths import ThresholdPath, path_from_frac

__all__ = ["graph_path"]


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
    nodes: list = []
    i, j = m0 - 1, m1 - 1
    while i > 0:
        back = int(entry[i - 1, j])
        nodes.extend((i, c) for c in range(j, back - 1, -1))
        i, j = i - 1, back
    nodes.extend((0, c) for c in range(j, -1, -1))
    return np.array(nodes[::-1], dtype=np.int64)


def _graph_path_nd(areas: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """Max-area lattice path for any k by dynamic programming over anti-diagonal levels."""
    k = len(shape)
    n = int(np.prod(shape))
    coords = np.indices(shape).reshape(k, n)
    strides = np.array([int(np.prod(shape[j + 1 :])) for j in range(k)])
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
        cells = order[bounds[lv] : bounds[lv + 1]]
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

    Parameters
    ----------
    grid : ThresholdGrid
        TP and FP on the joint threshold grid.

    Returns
    -------
    ThresholdPath
        The path through grid nodes (``method="graph"``, ``params["nodes"]`` its length).

    References
    ----------
    .. [1] Robles, E., Zaidouni, F., Mavromoustaki, A. & Refael, P. (2020). *Threshold
       Optimization in Multiple Binary Classifiers for Extreme Rare Events using Predicted
       Positive Data.* AAAI-MAKE 2020, CEUR-WS Vol-2600, paper 19: Algorithm 3 and eq. (3).

    Examples
    --------
    >>> from engine import graph_path, load_rated, path_operating_point, threshold_grid
    >>> data = load_rated("sample_data/synthetic_rare_events.csv.gz")
    >>> grid = threshold_grid(data.scores, data.labels, bins=20, rule="or")
    >>> op = path_operating_point(graph_path(grid), target=0.3)
    >>> op.threshold.tolist(), float(op.tp), float(op.fp)
    ([0.3977, 0.9241], 733.0, 366.0)
    """
    t0 = time.perf_counter()
    areas = _edge_areas(grid)
    if grid.k == 2:
        nodes = _graph_path_2d(areas, grid.shape)  # type: ignore[arg-type]
    else:
        nodes = _graph_path_nd(areas, grid.shape)
    tp = grid.tp[tuple(nodes.T)]
    fp = grid.fp[tuple(nodes.T)]
    runtime = time.perf_counter() - t0
    path = path_from_frac(grid, nodes.astype(np.float64), "graph", runtime, {"nodes": int(len(nodes))}, tp, fp)
    return path
