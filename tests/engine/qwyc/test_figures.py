"""Early-exit figures: the models-per-example histogram is counted on the server, as Plotly would bin it."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.qwyc import EarlyExitPolicy
from engine.qwyc._figures import MARKED_STEPS
from engine.qwyc.display import models_histogram_figure, thresholds_figure


@pytest.mark.parametrize("total", [3, 100, 250, 500])
def test_models_histogram_counts_equal_numpys_histogram_over_the_same_bins(total):
    rng = np.random.default_rng(total)
    n_eval = np.minimum(total, rng.geometric(0.05, 5000))
    n_eval[:2] = (1, total)  # both ends
    size = max(1, total // 100)
    edges = np.arange(0.5, total + size + 0.5, size)  # the bins the Plotly histogram had: start 0.5, width size
    oracle, _ = np.histogram(n_eval, edges)
    bar = models_histogram_figure(n_eval, total).data[0]
    assert np.sum(bar.y) == n_eval.size and all(c > 0 for c in bar.y)  # empty bins left out (log axis)
    shown = dict(zip(np.round(np.asarray(bar.x) - np.asarray(bar.width) / 2 + 0.5).astype(int), bar.y))
    expected = {int(np.ceil(lo)): int(c) for lo, c in zip(edges[:-1], oracle) if c}
    assert shown == expected
    first = np.flatnonzero(oracle)[0]
    low, high = first * size + 1, min((first + 1) * size, total)
    assert bar.customdata[0] == (f"{low}" if low == high else f"{low}–{high}")


def test_models_histogram_marks_the_mean():
    fig = models_histogram_figure(np.array([1, 1, 2, 8]), 10)
    assert fig.layout.shapes[0].x0 == pytest.approx(3.0)
    assert fig.layout.annotations[0].text == "mean 3.0"


def test_thresholds_are_marked_up_to_a_hundred_per_side_and_drawn_as_lines_beyond():
    from engine.qwyc import EarlyExitPolicy
    from engine.qwyc._figures import MARKED_STEPS

    def policy(t, finite_plus):
        eps_plus = np.full(t, np.inf)
        eps_plus[:finite_plus] = np.linspace(1, 0, finite_plus)
        return EarlyExitPolicy(
            order=np.arange(t),
            eps_minus=-np.linspace(1, 0, t),
            eps_plus=eps_plus,
            threshold=0.0,
            bias=0.0,
            costs=np.ones(t),
            alpha=0.01,
            method="test",
        )

    fig = thresholds_figure(policy(500, 3))
    plus, minus = fig.data
    assert plus.mode == "markers+lines" and list(plus.x) == [1, 2, 3]  # few finite: each one marked
    assert minus.mode == "lines" and len(minus.x) == 500
    assert {t.mode for t in thresholds_figure(policy(MARKED_STEPS, MARKED_STEPS)).data} == {"markers+lines"}


def whole_histogram(n_evaluated, total):
    """The histogram built whole with Plotly's own calls (as before its layout was validated once)."""
    from engine.plotting import METHOD_COLOURS, layout, log_axis

    size = max(1, total // 100)
    counts = np.bincount((n_evaluated - 1) // size, minlength=(total - 1) // size + 1)
    shown = np.flatnonzero(counts)
    low, high = shown * size + 1, np.minimum((shown + 1) * size, total)
    models = [f"{a}" if a == b else f"{a}–{b}" for a, b in zip(low.tolist(), high.tolist())]
    fig = go.Figure(
        go.Bar(
            x=(low + high) / 2,
            y=counts[shown],
            width=high - low + 1,
            customdata=models,
            marker=dict(color=METHOD_COLOURS["curve"], line=dict(width=0)),
            hovertemplate="%{customdata} models<br>%{y:,} examples<extra></extra>",
        )
    )
    mean = float(np.mean(n_evaluated))
    fig.add_vline(x=mean, line=dict(color=METHOD_COLOURS["chosen"], dash="dot"), annotation_text=f"mean {mean:.1f}")
    fig = layout(fig, "Base models evaluated per example (test)", "# base models evaluated", "examples (log scale)")
    fig.update_layout(bargap=0)
    log_axis(fig)
    return fig


def whole_thresholds(policy, max_steps=None):
    """The thresholds figure built whole with Plotly's own calls."""
    from engine.plotting import METHOD_COLOURS, layout

    steps = np.arange(1, len(policy.order) + 1)
    lo, hi = np.asarray(policy.eps_minus, float), np.asarray(policy.eps_plus, float)
    if max_steps is not None:
        steps, lo, hi = steps[:max_steps], lo[:max_steps], hi[:max_steps]
    fig = go.Figure()
    for values, name, colour in (
        (hi, "ε⁺ (exit positive above)", METHOD_COLOURS["positive"]),
        (lo, "ε⁻ (exit negative below)", METHOD_COLOURS["negative"]),
    ):
        finite = np.isfinite(values)
        mode = "markers+lines" if finite.sum() <= MARKED_STEPS else "lines"
        fig.add_trace(
            go.Scatter(
                x=steps[finite],
                y=values[finite],
                mode=mode,
                name=name,
                marker=dict(color=colour, size=5),
                line=dict(color=colour, width=1),
                customdata=np.asarray(policy.order)[: steps.size][finite],
                hovertemplate="step %{x}<br>model %{customdata}<br>threshold %{y:.4g}<extra></extra>",
            )
        )
    fig.add_hline(y=policy.threshold, line=dict(color="black", dash="dot"), annotation_text="decision threshold β")
    return layout(fig, "Order and early-exit thresholds", "step (models evaluated so far)", "running score")


def as_json(fig):
    return json.loads(pio.to_json(fig, validate=False))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 7, 100, 500, 1234]), st.sampled_from([None, 5]), st.floats(-2, 2))
def test_figures_on_a_layout_validated_once_equal_the_figures_built_whole(seed, total, max_steps, threshold):
    rng = np.random.default_rng(seed)
    n_evaluated = rng.integers(1, total + 1, size=int(rng.integers(1, 300)))
    assert as_json(models_histogram_figure(n_evaluated, total)) == as_json(whole_histogram(n_evaluated, total))
    t_count = int(rng.integers(1, 250))
    eps_minus = np.where(rng.random(t_count) < 0.3, -np.inf, rng.normal(size=t_count) - 1)
    eps_plus = np.where(rng.random(t_count) < 0.3, np.inf, rng.normal(size=t_count) + 1)
    policy = EarlyExitPolicy(
        rng.permutation(t_count), eps_minus, eps_plus, threshold, 0.0, np.ones(t_count), 0.01, "qwyc"
    )
    assert as_json(thresholds_figure(policy, max_steps)) == as_json(whole_thresholds(policy, max_steps))
    first = models_histogram_figure(n_evaluated, total)
    first.update_layout(title="changed")  # a figure drawn is the caller's: the next one is not changed by it
    assert as_json(models_histogram_figure(n_evaluated, total)) == as_json(whole_histogram(n_evaluated, total))
