"""The figures draw what the result holds: intervals, the target, alerts, money."""

import numpy as np

from engine.monitor import monitor, period_counts
from engine.monitor.display import (
    evidence_figure,
    marginal_precision_over_time_figure,
    money_over_time_figure,
    threshold_over_time_figure,
)
from engine.pn import Economics


def _result():
    rng = np.random.default_rng(0)
    n = 30_000
    d = np.datetime64("2025-01-06") + rng.integers(0, 140, n).astype("timedelta64[D]")
    s = np.round(rng.random(n), 4)
    centre = np.where(d >= np.datetime64("2025-03-03"), 0.72, 0.6)
    y = (rng.random(n) < 1 / (1 + np.exp(-10 * (s - centre)))).astype(int)
    return monitor(period_counts(s, y, d), 0.515, economics=Economics(3, 10))


def test_figures_show_the_estimates_intervals_and_alerts():
    result = _result()
    assert result.first_alert is not None
    fig = marginal_precision_over_time_figure(result)
    names = [t.name for t in fig.data]
    assert "marginal precision at T" in names and "alert" in names
    line = next(t for t in fig.data if t.name == "marginal precision at T")
    assert list(line.y) == [p.marginal_precision.estimate for p in result.periods]
    alert = next(t for t in fig.data if t.name == "alert")
    assert list(alert.x) == [p.start for p in result.periods if p.alert]
    fig = threshold_over_time_figure(result)
    assert any((t.name or "").startswith("operating point for m") for t in fig.data)
    fig = evidence_figure(result)
    np.testing.assert_allclose(fig.data[0].y, [p.log_evidence / np.log(10) for p in result.periods])
    fig = money_over_time_figure(result, "$")
    assert list(fig.data[0].y) == [m.net_per_day for m in result.money()]
