"""monitor(): every period against the engine's own functions on that period's rows, the JSON record, money."""

import json

import numpy as np
import pytest

from engine.errors import InputError
from engine.monitor import monitor, period_counts
from engine.monitor._periods import period_start
from engine.monitor.display import monitoring_sentence
from engine.pn import Economics, operating_point, pn_curve, upper_hull
from engine.reporting import json_safe


def _rows(seed=0, n=6000):
    rng = np.random.default_rng(seed)
    d = np.datetime64("2025-01-01") + rng.integers(0, 120, n).astype("timedelta64[D]")
    s = np.round(rng.random(n), 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-10 * (s - 0.6)))).astype(int)
    return s, y, d


def test_every_period_equals_the_engine_on_that_periods_rows():
    s, y, d = _rows()
    t, m = 0.52, 0.3
    result = monitor(period_counts(s, y, d, "month"), t, m)
    month = period_start(d, "month")
    assert len(result.periods) == 4
    for p, start in zip(result.periods, np.unique(month)):
        rows = month == start
        flagged = rows & (s >= t)
        assert (p.rated, p.tp, p.fp) == (rows.sum(), y[flagged].sum(), (1 - y[flagged]).sum())
        assert p.precision.estimate == pytest.approx(y[flagged].mean())
        assert p.flagged_per_day == pytest.approx(flagged.sum() / p.days)
        assert p.operating_point.estimate == operating_point(s[rows], y[rows], m).threshold
        hull = upper_hull(pn_curve(s[rows], y[rows]))
        lowest_flagged = np.flatnonzero(hull.curve.thresholds >= t)[-1]
        assert p.marginal_precision.estimate == hull.mp_at_threshold[lowest_flagged]
        for e in (p.precision, p.marginal_precision, p.operating_point):
            assert e.lower <= e.estimate <= e.upper


def test_json_record_has_exactly_the_documented_keys():
    s, y, d = _rows(1)
    record = json.loads(json.dumps(json_safe(monitor(period_counts(s, y, d), 0.5, 0.3).as_dict())))
    assert list(record) == ["threshold", "target", "level", "periods", "alerts"]
    period = record["periods"][0]
    assert list(period) == [
        "start",
        "end",
        "rated",
        "tp",
        "fp",
        "flagged_per_day",
        "precision",
        "marginal_precision",
        "operating_point",
        "alert",
        "reason",
    ]
    assert list(period["precision"]) == list(period["marginal_precision"]) == ["estimate", "lower", "upper"]
    assert list(period["operating_point"]) == ["threshold", "lower", "upper"]


def test_a_drift_raises_alerts_only_after_it_and_says_why():
    rng = np.random.default_rng(2)
    n = 40_000
    d = np.datetime64("2025-01-06") + rng.integers(0, 26 * 7, n).astype("timedelta64[D]")
    s = np.round(rng.random(n), 4)
    centre = np.where(d >= np.datetime64("2025-04-07"), 0.7, 0.6)  # week 13 on: worse at every score
    y = (rng.random(n) < 1 / (1 + np.exp(-10 * (s - centre)))).astype(int)
    t = 0.6 + np.log(0.3 / 0.7) / 10  # the operating point for m = 0.3 before the drift
    result = monitor(period_counts(s, y, d), t, 0.3)
    flagged = [p.start for p in result.periods if p.alert]
    assert flagged and flagged[0] >= "2025-04-07" and flagged[0] <= "2025-05-12"
    assert result.alerts[0] == {"period": flagged[0], "reason": result.first_alert.reason}
    assert "too low" in result.first_alert.reason and "Since 2025-04" in result.first_alert.reason
    assert all(p.reason is None for p in result.periods if not p.alert)
    assert "Alert from the week of" in monitoring_sentence(result, "score")


def test_a_threshold_set_too_high_is_flagged_on_the_other_side():
    rng = np.random.default_rng(3)
    n = 30_000
    d = np.datetime64("2025-01-06") + rng.integers(0, 70, n).astype("timedelta64[D]")
    s = np.round(rng.random(n), 4)
    y = (rng.random(n) < 1 / (1 + np.exp(-10 * (s - 0.6)))).astype(int)
    result = monitor(period_counts(s, y, d), 0.75, 0.3)  # documents just below 0.75 are ~80 % positive
    assert result.first_alert is not None and "too high" in result.first_alert.reason


def test_money_gives_the_operating_point_of_the_equivalent_target_exactly():
    s, y, d = _rows(4)
    economics = Economics(review_cost=2.0, value_per_positive=9.0, cost_per_false_positive=1.0)
    counts = period_counts(s, y, d)
    by_money = monitor(counts, 0.5, economics=economics)
    by_target = monitor(counts, 0.5, economics.target)
    assert economics.target == 3.0 / 10.0
    assert by_money.as_dict() == by_target.as_dict()
    money = by_money.money()
    p = by_money.periods[0]
    assert money[0].net_value == pytest.approx(9 * p.tp - 2 * (p.tp + p.fp) - 1 * p.fp)
    assert money[0].net_per_day == pytest.approx(money[0].net_value / p.days)
    assert "net value per day" in by_money.table().columns
    assert "Net value" in monitoring_sentence(by_money, "score", "$")


def test_bad_arguments():
    s, y, d = _rows(5, 200)
    counts = period_counts(s, y, d)
    for kwargs, message in (
        ({"target": 0.3, "economics": Economics(1, 5)}, "either a target"),
        ({}, "either a target"),
        ({"target": 1.2}, "strictly between 0 and 1"),
        ({"target": 0.3, "level": 1.0}, r"level must be a finite number in \(0, 1\), got 1.0"),
        ({"target": 0.3, "window": 0}, "window must be"),
    ):
        with pytest.raises(InputError, match=message):
            monitor(counts, 0.5, **kwargs)
    with pytest.raises(InputError, match="threshold must be a finite number, got inf"):
        monitor(counts, float("inf"), 0.3)
