"""Threshold paths against exhaustive search and Bellman-Ford; operating points on paths."""

import itertools

import networkx as nx
import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

from engine.pn import (
    ThresholdGrid,
    analytic_path,
    best_grid_point,
    bootstrap_graph_path,
    compare_paths,
    frontier,
    graph_path,
    path_operating_point,
    threshold_grid,
)
from engine.pn._comparison import evaluate_holdout, predict_joint
from engine.pn._curve import TIE_RTOL
from engine.pn._graph_path import _edge_areas, _graph_path_nd
from engine.pn._paths import grid_index_of


def random_grid(rng, shape, rule="or", n=400):
    k = len(shape)
    y = (rng.random(n) < 0.15).astype(int)
    s = rng.normal(y[:, None] * rng.uniform(0.5, 2.0, k), 1.0, size=(n, k))
    s += rng.normal(0, 0.7, size=(n, 1))  # correlated classifiers
    return threshold_grid(s, y, bins=list(shape), rule=rule), s, y


def all_lattice_paths(shape):
    """Every monotone lattice path from the all-lowest to the all-highest corner."""
    k = len(shape)
    moves = [j for j in range(k) for _ in range(shape[j] - 1)]
    for perm in set(itertools.permutations(moves)):
        node = [0] * k
        nodes = [tuple(node)]
        for j in perm:
            node[j] += 1
            nodes.append(tuple(node))
        yield nodes


def area_of(grid, nodes):
    tp = np.array([grid.tp[n] for n in nodes])
    fp = np.array([grid.fp[n] for n in nodes])
    return float(np.sum(0.5 * (tp[:-1] + tp[1:]) * (fp[:-1] - fp[1:])))


@pytest.mark.parametrize("shape", [(3, 3), (4, 5), (5, 4), (2, 6), (3, 3, 3), (2, 3, 4)])
@pytest.mark.parametrize("rule", ["or", "and"])
def test_graph_path_area_is_the_exhaustive_maximum(shape, rule):
    rng = np.random.default_rng([len(shape), *shape, rule == "or"])
    for _ in range(5):
        grid, _, _ = random_grid(rng, shape, rule)
        best = max(area_of(grid, p) for p in all_lattice_paths(grid.shape))
        path = graph_path(grid)
        assert path.auc == pytest.approx(best, rel=1e-12, abs=1e-9)
        idx = grid_index_of(path)
        assert area_of(grid, [tuple(i) for i in idx]) == pytest.approx(path.auc, rel=1e-12)
        # a monotone lattice path from corner to corner, one unit step at a time
        assert tuple(idx[0]) == (0,) * grid.k and tuple(idx[-1]) == tuple(m - 1 for m in grid.shape)
        assert np.all(np.abs(np.diff(idx, axis=0)).sum(axis=1) == 1) and np.all(np.diff(idx, axis=0) >= 0)


def test_graph_path_equals_networkx_bellman_ford():
    rng = np.random.default_rng(7)
    for shape in [(8, 8), (6, 9), (4, 4, 4)]:
        grid, _, _ = random_grid(rng, shape)
        g = nx.DiGraph()
        for idx in itertools.product(*(range(m) for m in grid.shape)):
            for j in range(grid.k):
                if idx[j] + 1 < grid.shape[j]:
                    nxt = idx[:j] + (idx[j] + 1,) + idx[j + 1 :]
                    w = -0.5 * abs(grid.fp[idx] - grid.fp[nxt]) * (grid.tp[idx] + grid.tp[nxt])  # eq. 3
                    g.add_edge(idx, nxt, weight=w)
        src, dst = (0,) * grid.k, tuple(m - 1 for m in grid.shape)
        length = nx.bellman_ford_path_length(g, src, dst)
        assert graph_path(grid).auc == pytest.approx(-length, rel=1e-12)


def test_row_scan_and_level_dynamic_programmes_agree():
    rng = np.random.default_rng(9)
    for _ in range(20):
        grid, _, _ = random_grid(rng, (int(rng.integers(2, 30)), int(rng.integers(2, 30))), n=2000)
        nodes = _graph_path_nd(_edge_areas(grid), grid.shape)
        assert area_of(grid, [tuple(n) for n in nodes]) == pytest.approx(graph_path(grid).auc, rel=1e-12)


def crossed_cell_bound(grid: ThresholdGrid, path) -> float:
    """Sum over the cells the path passes through of (FP range) x (TP range) of the cell."""
    sizes = np.array(grid.shape) - 1
    frac = path.positions * sizes
    cells = set()
    for f in frac:
        lo = np.minimum(np.floor(f).astype(int), sizes - 1)
        cells.add(tuple(lo))
    total = 0.0
    for c in cells:
        corner_lo = c
        corner_hi = tuple(i + 1 for i in c)
        total += (grid.fp[corner_lo] - grid.fp[corner_hi]) * (grid.tp[corner_lo] - grid.tp[corner_hi])
    return total


@pytest.mark.slow
def test_analytic_path_does_not_beat_graph_beyond_the_diagonal_cut_bound():
    """Measured: the analytic path's excess over the exact lattice optimum stays inside the bound.

    Bound: a path inside a cell stays inside the cell's PN bounding box (TP and FP
    are monotone on every axis, so their multilinear interpolant is too), so it
    can gain at most that box's area over the best lattice route around it.
    """
    rng = np.random.default_rng(11)
    worst_excess = 0.0
    for trial in range(12):
        shape = (int(rng.integers(3, 25)), int(rng.integers(3, 25)))
        grid, _, _ = random_grid(rng, shape, rule=("or", "and")[trial % 2], n=1500)
        gp = graph_path(grid)
        for family in ("power", "spline"):
            ap = analytic_path(grid, family, starts=3)
            bound = crossed_cell_bound(grid, ap)
            assert ap.auc <= gp.auc + bound + 1e-9
            worst_excess = max(worst_excess, (ap.auc - gp.auc) / gp.auc)
    # on these grids the diagonal gain is small in practice
    assert worst_excess < 0.02


@pytest.mark.slow
def test_analytic_path_is_monotone_and_spans_the_space():
    rng = np.random.default_rng(12)
    for shape in [(20, 30), (6, 7, 8)]:
        grid, _, _ = random_grid(rng, shape, n=3000)
        for family in ("power", "spline"):
            p = analytic_path(grid, family)
            assert np.all(np.diff(p.positions, axis=0) >= -1e-12)
            np.testing.assert_allclose(p.positions[0], 0.0, atol=1e-12)
            np.testing.assert_allclose(p.positions[-1], 1.0, atol=1e-12)
            assert np.all(np.diff(p.fp) <= 1e-9) and np.all(np.diff(p.tp) <= 1e-9)
            assert p.auc > 0 and p.runtime_s > 0


def ridge_grid(ridge, n: int = 41) -> ThresholdGrid:
    """A grid whose TP is high along ``u2 = ridge(u1)`` on a smooth FP surface (monotone by construction)."""
    u = np.linspace(0, 1, n)
    u1, u2 = np.meshgrid(u, u, indexing="ij")
    fp = (1 - u1) * (1 - u2) * 1000 + (2 - u1 - u2) * 500
    tp = fp * 0.2 + 400 * np.exp(-40 * (u2 - ridge(u1)) ** 2) * (1 - u1)
    tp = np.flip(np.maximum.accumulate(np.flip(tp, 0), 0), 0)
    tp = np.flip(np.maximum.accumulate(np.flip(tp, 1), 1), 1)
    return ThresholdGrid((u, u), tp, fp, "given")


def test_spline_family_follows_a_ridge_that_bends_twice():
    """An S-shaped ridge no power path can follow: the spline search itself must beat the power path
    (not merely fall back to it: no fallback note, its own knots)."""
    grid = ridge_grid(lambda x: 0.5 + 0.45 * np.tanh(6 * (x - 0.5)) / np.tanh(3))
    power = analytic_path(grid, "power")
    spline = analytic_path(grid, "spline")
    assert "note" not in spline.params and "knots" in spline.params
    assert spline.auc > power.auc * 1.05


def test_power_path_recovers_a_planted_exponent():
    """TP has a ridge along u2 = u1^2 on a smooth FP surface: the best power path follows the ridge (p2/p1 ~ 2)."""
    n = 41
    u = np.linspace(0, 1, n)
    u1, u2 = np.meshgrid(u, u, indexing="ij")
    # a grid whose optimal monotone path is known: TP high along u2 = u1 ** 2, FP uniform
    fp = (1 - u1) * (1 - u2) * 1000 + (2 - u1 - u2) * 500
    tp = fp * 0.2 + 400 * np.exp(-20 * (u2 - u1**2) ** 2) * (1 - u1)
    tp = np.flip(np.maximum.accumulate(np.flip(tp, 0), 0), 0)
    tp = np.flip(np.maximum.accumulate(np.flip(tp, 1), 1), 1)
    grid = ThresholdGrid((u, u), tp, fp, "given")
    p = analytic_path(grid, "power")
    ratio = p.params["exponents"][1] / p.params["exponents"][0]
    assert ratio == pytest.approx(2.0, rel=0.35)


def test_path_operating_point_is_the_best_point_on_the_path():
    rng = np.random.default_rng(14)
    grid, _, _ = random_grid(rng, (25, 25), n=3000)
    gp = graph_path(grid)
    best_cell = None
    for target in (0.1, 0.2, 0.35, 0.5, 0.8):
        lam = target / (1 - target)
        op = path_operating_point(gp, target)
        obj = gp.tp - lam * gp.fp
        assert op.tp - lam * op.fp == pytest.approx(obj.max())
        best_cell = best_grid_point(grid, target)
        assert best_cell.objective >= op.objective - 1e-9
        ap = analytic_path(grid)
        aop = path_operating_point(ap, target)
        # multilinear interpolation peaks at cell corners: no interpolated point beats the best grid point
        assert best_cell.objective >= aop.objective - 1e-6
        assert aop.objective >= (ap.tp - lam * ap.fp).max() - 1e-9  # refinement never hurts
        assert len(aop.threshold) == 2


def test_best_grid_point_and_frontier_by_brute_force():
    rng = np.random.default_rng(15)
    grid, _, _ = random_grid(rng, (12, 9), n=800)
    pts = np.column_stack([grid.fp.ravel(), grid.tp.ravel()])
    front = frontier(grid)
    fpts = np.column_stack([front.fp, front.tp])
    for p in pts:  # every grid point is weakly dominated by a frontier point
        assert np.any((fpts[:, 0] <= p[0]) & (fpts[:, 1] >= p[1]))
    for i, a in enumerate(fpts):  # frontier points do not dominate each other
        others = np.delete(fpts, i, axis=0)
        assert not np.any((others[:, 0] <= a[0]) & (others[:, 1] >= a[1]))
    assert graph_path(grid).auc <= front.area + 1e-9
    for target in (0.15, 0.3, 0.6):
        lam = target / (1 - target)
        obj = grid.tp - lam * grid.fp
        best = best_grid_point(grid, target)
        assert best.objective == pytest.approx(obj.max())
        tol = TIE_RTOL * max(1.0, grid.tp.max() + lam * grid.fp.max())
        tied_fp = grid.fp[obj >= obj.max() - tol]
        assert best.fp == tied_fp.min()


def test_compare_paths_reports_every_method():
    rng = np.random.default_rng(16)
    grid, _, _ = random_grid(rng, (30, 30), n=3000)
    paths = [graph_path(grid), analytic_path(grid, "power")]
    table = compare_paths(grid, paths, 0.3)
    assert list(table["method"]) == [
        "graph",
        "analytic-power",
        "best grid point",
        "frontier (concave hull of all grid points)",
    ]
    assert table.loc[0, "area_pct_of_frontier"] <= 100 + 1e-9
    assert (table.loc[:1, "objective_gap_to_best_grid_point"] >= -1e-6).all()


def test_bootstrap_graph_path_spread():
    rng = np.random.default_rng(17)
    grid, s, y = random_grid(rng, (15, 15), n=2000)
    boot = bootstrap_graph_path(s, y, grid=grid, n_boot=20, seed=3)
    assert boot.positions.shape == (20, 29, 2)
    assert boot.visit_frequency[0, 0] == 1 and boot.visit_frequency[-1, -1] == 1
    band = boot.band(0.9)
    assert np.all(band[0] <= band[1])
    # every replicate path scores at most the original graph path on the original counts
    assert np.all(boot.auc <= graph_path(grid).auc + 1e-9)
    # replicate r's operating point is the operating point of the graph path on replicate r's grid
    counts = np.random.default_rng(3).multinomial(len(y), np.full(len(y), 1 / len(y)), size=2)
    for target in (0.2, 0.5):
        at = boot.at(target)
        assert at["thresholds"].shape == (20, 2)
        for r in range(2):
            rep = threshold_grid(s, y, counts[r].astype(float), rule=grid.rule, axes=grid.axes)
            op = path_operating_point(graph_path(rep), target)
            np.testing.assert_array_equal(at["thresholds"][r], op.threshold)
    again = bootstrap_graph_path(s, y, grid=grid, n_boot=20, seed=3)
    np.testing.assert_array_equal(again.index, boot.index)


def test_evaluate_holdout_matches_sklearn_metrics():
    rng = np.random.default_rng(18)
    n = 6000
    y = (rng.random(n) < 0.05).astype(int)
    s = rng.normal(y[:, None] * np.array([1.5, 1.2]), 1.0, size=(n, 2))
    tr, te = slice(0, 3000), slice(3000, None)
    table = evaluate_holdout(s[tr], y[tr], s[te], y[te], 0.3, bins=40, score_names=("a", "b"))
    assert list(table["method"]) == ["graph", "analytic-power", "a", "b"]
    row = table.iloc[0]
    pred = predict_joint(s[te], np.array(row["thresholds"]), "or")
    assert row["precision"] == pytest.approx(precision_score(y[te], pred))
    assert row["recall"] == pytest.approx(recall_score(y[te], pred))
    assert row["f1"] == pytest.approx(f1_score(y[te], pred))
    single = table.iloc[2]
    pred = s[te][:, 0] >= single["thresholds"][0]
    assert single["f1"] == pytest.approx(f1_score(y[te], pred))
