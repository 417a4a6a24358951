"""Early-exit figures: the models-per-example histogram is counted on the server, as Plotly would bin it."""

import numpy as np
import pytest

from engine.qwyc import models_histogram_figure, thresholds_figure


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
    from engine.qwyc.figures import MARKED_STEPS

    def policy(t, finite_plus):
        eps_plus = np.full(t, np.inf)
        eps_plus[:finite_plus] = np.linspace(1, 0, finite_plus)
        return EarlyExitPolicy(order=np.arange(t), eps_minus=-np.linspace(1, 0, t), eps_plus=eps_plus, threshold=0.0,
                               bias=0.0, costs=np.ones(t), alpha=0.01, method="test")

    fig = thresholds_figure(policy(500, 3))
    plus, minus = fig.data
    assert plus.mode == "markers+lines" and list(plus.x) == [1, 2, 3]  # few finite: each one marked
    assert minus.mode == "lines" and len(minus.x) == 500
    assert {t.mode for t in thresholds_figure(policy(MARKED_STEPS, MARKED_STEPS)).data} == {"markers+lines"}
