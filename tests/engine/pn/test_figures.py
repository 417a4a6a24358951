"""Figure builders draw exactly the engine's numbers."""

import dataclasses
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from engine import plotting
from engine.io import load_rated, sample_path
from engine.pn import _figures as figures
from engine.pn import (
    analytic_path,
    bootstrap,
    frontier,
    graph_path,
    operating_point,
    path_operating_point,
    pn_curve,
    threshold_grid,
    upper_hull,
)
from engine.pn.display import score_histogram_figure


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


def plotly_json(fig: go.Figure) -> dict:
    return json.loads(pio.to_json(fig))


@pytest.mark.parametrize("target", [0.05, 0.3, 0.5, 0.97])
@pytest.mark.parametrize("with_boot", [False, True])
def test_a_slider_step_drawn_from_the_still_parts_equals_plotlys_own_construction(target, with_boot):
    # oracle: the still part with the marks added by Plotly's own builders (go.Scatter, add_hline, add_vline)
    d = load_rated(sample_path("synthetic"))
    s = d.column("score_image")
    curve = pn_curve(s, d.labels)
    hull = upper_hull(curve)
    boot = bootstrap(s, d.labels, n_boot=20) if with_boot else None
    op, second = operating_point(s, d.labels, target, hull=hull), operating_point(s, d.labels, 0.6, hull=hull)
    pn_parts = figures.pn_figure_parts(curve, hull, 300, "PN <b>curve</b>")
    mp_parts = figures.marginal_precision_parts(hull, boot, 300, "mp")

    expected = go.Figure(pn_parts.still)
    for label, point, colour in [
        ("chosen", op, plotting.METHOD_COLOURS["chosen"]),
        ("what-if", second, plotting.METHOD_COLOURS["what-if"]),
    ]:
        expected.add_trace(
            go.Scatter(
                x=[point.fp],
                y=[point.tp],
                mode="markers",
                name=f"{label}: m = {point.target:.3g}",
                marker=dict(size=13, color=colour, symbol="star", line=dict(color="black", width=1)),
                hovertemplate=(
                    f"{label}<br>threshold {float(point.threshold):.6g}<br>TP %{{y:,.6g}}<br>FP %{{x:,.6g}}"
                    f"<br>precision {point.precision:.3f}<extra></extra>"
                ),
            )
        )
    drawn = pn_parts.draw(**figures.point_marks([("chosen", op), ("what-if", second)]))
    assert plotly_json(drawn) == plotly_json(expected)
    assert plotly_json(
        figures.pn_figure(curve, hull, [("chosen", op), ("what-if", second)], 300, "PN <b>curve</b>")
    ) == plotly_json(expected)

    expected = go.Figure(mp_parts.still)
    colour = plotting.METHOD_COLOURS["chosen"]
    expected.add_hline(
        y=target,
        line=dict(color=colour, dash="dot"),
        annotation_text=f"target {target:.3g}",
        annotation_position="top left",
    )
    expected.add_vline(
        x=float(op.threshold),
        line=dict(color=colour),
        annotation_text="chosen threshold",
        annotation_position="top right",
    )
    assert plotly_json(mp_parts.draw(**figures.target_marks(target, op))) == plotly_json(expected)
    assert plotly_json(figures.marginal_precision_figure(hull, target, op, boot, 300, "mp")) == plotly_json(expected)
    assert (len(mp_parts.still["data"]) == 3) == with_boot


def test_no_chosen_line_where_the_target_flags_nothing():
    d = load_rated(sample_path("synthetic"))
    hull = upper_hull(pn_curve(d.column("score_image"), d.labels))
    op = operating_point(target=0.3, hull=hull)
    unreachable = dataclasses.replace(op, threshold=np.inf)  # flags nothing: no threshold to draw
    marks = figures.target_marks(0.3, unreachable)
    assert [m["yref"] for m in marks["shapes"]] == ["y"] and len(marks["annotations"]) == 1
    assert len(figures.target_marks(0.3, op)["shapes"]) == 2 and len(figures.target_marks(0.3)["shapes"]) == 1


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
