"""Figure builders draw exactly the engine's numbers."""

import numpy as np

from engine import plotting
from engine.io import load_rated, sample_path
from engine.pn import (
    analytic_path,
    bootstrap,
    figures,
    frontier,
    graph_path,
    operating_point,
    path_operating_point,
    score_histogram_figure,
    pn_curve,
    threshold_grid,
    upper_hull,
)


def test_pn_and_marginal_precision_figures():
    d = load_rated(sample_path("synthetic"))
    s = d.column("score_image")
    curve = pn_curve(s, d.labels)
    hull = upper_hull(curve)
    op = operating_point(s, d.labels, 0.3, hull=hull)
    fig = figures.pn_figure(curve, hull, [("chosen", op)])
    names = [t.name for t in fig.data]
    assert names[:2] == ["PN curve", "upper hull"]
    np.testing.assert_array_equal(fig.data[1].x, hull.fp)
    assert fig.data[2].x[0] == op.fp and fig.data[2].y[0] == op.tp
    boot = bootstrap(s, d.labels, n_boot=20)
    fig = figures.marginal_precision_figure(hull, 0.3, op, boot)
    assert any("bootstrap band" in (t.name or "") for t in fig.data)


def test_threshold_space_and_paths_figures():
    d = load_rated(sample_path("synthetic"))
    grid = threshold_grid(d.scores, d.labels, bins=30, score_names=d.score_names)
    gp, ap = graph_path(grid), analytic_path(grid)
    ops = [("graph", path_operating_point(gp, 0.3)), ("analytic-power", path_operating_point(ap, 0.3))]
    fig = figures.threshold_space_figure(grid, [gp, ap], ops)
    assert fig.data[0].type == "heatmap"
    np.testing.assert_array_equal(fig.data[1].x, gp.thresholds[:, 1])
    fig = figures.paths_pn_figure(grid, frontier(grid), [gp, ap], ops)
    assert fig.data[2].line.color == plotting.method_colour("graph")
    assert plotting.method_colour("graph") != plotting.method_colour("analytic-power")


def test_rated_positives_have_their_own_axis_in_the_score_histogram():
    rng = np.random.default_rng(0)
    labels = (rng.random(20_000) < 0.005).astype(int)
    scores = rng.random(20_000)
    fig = score_histogram_figure(scores, labels, "s")
    negative, positive = fig.data  # positives drawn last: on top
    assert negative.name == "rated negative" and positive.name.startswith("rated positive")
    assert positive.yaxis == "y2" and fig.layout.yaxis2.overlaying == "y"
    assert sum(positive.y) == labels.sum() and sum(negative.y) == (1 - labels).sum()


def test_log_axes_label_whole_decades_in_full():
    import plotly.graph_objects as go

    fig = plotting.log_axis(go.Figure(go.Scatter(x=[1, 2], y=[1e-4, 1e4])))
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.dtick == 1
    assert fig.layout.yaxis.exponentformat == "none" and fig.layout.yaxis.tickformat == ",~g"
