"""Reviewers: capacity R·Q·D gives exactly the budget point / allocation; the backlog against a day-by-day loop."""

import numpy as np
import pytest

from engine.errors import InputError
from engine.monitor import backlog, capacity_per_day, capacity_segments, flagged_per_day, reviewer_plan
from engine.monitor._reviewers import capacity_threshold, daily_flagged
from engine.monitor.display import backlog_figure, flagged_per_day_figure
from engine.pn._budget import max_flagged_point
from engine.pn._segments import allocate_capacity, segment_curves


def _rows(seed=0, n=4000):
    rng = np.random.default_rng(seed)
    d = np.datetime64("2025-02-01") + rng.integers(0, 60, n).astype("timedelta64[D]")
    d[0], d[1] = np.datetime64("2025-02-01"), np.datetime64("2025-04-01")  # span: 60 days
    s = np.round(rng.random(n), 3)
    y = (rng.random(n) < s**3).astype(int)
    g = rng.choice(np.array(["a", "b", "c"]), n)
    return s, y, d, g


def test_reviewer_capacity_gives_exactly_the_budget_point_and_allocation():
    s, y, d, g = _rows()
    for reviewers, per_day in ((2, 7.5), (3, 11), (0.5, 3)):
        capacity = reviewers * per_day * 60
        assert capacity_threshold(s, y, d, reviewers=reviewers, reviews_per_day=per_day) == max_flagged_point(
            s, y, capacity=capacity
        )
        assert (
            capacity_segments(s, y, d, g, reviewers=reviewers, reviews_per_day=per_day).as_dict()
            == allocate_capacity(segment_curves(s, y, g), capacity).as_dict()
        )


def test_flagged_per_day_at_every_threshold():
    s, y, d, _ = _rows(1)
    load = flagged_per_day(s, d)
    assert load.days == 60
    for t in (0.0, 0.3, 0.5, 0.999, 2.0):
        assert load.at(t) == pytest.approx((s >= t).sum() / 60)
    days, per_day = daily_flagged(s, d, 0.5)
    assert days.size == 60 and per_day.sum() == (s >= 0.5).sum()
    assert per_day[3] == ((s >= 0.5) & (d == days[3])).sum()
    assert len(flagged_per_day_figure(load, capacity=20, threshold=0.5).data) == 1


def test_backlog_equals_a_day_by_day_queue():
    s, y, d, _ = _rows(2)
    for capacity in (10.0, 30.0, 33.3, 60.0):
        queue = backlog(s, d, 0.5, capacity)
        waiting, expected = 0.0, []
        for arrivals in queue.flagged:  # Lindley: serve up to the capacity each day
            waiting = max(0.0, waiting + arrivals - capacity)
            expected.append(waiting)
        np.testing.assert_allclose(queue.queue, expected, atol=1e-9)
        assert queue.peak == pytest.approx(max(expected)) and queue.final == pytest.approx(expected[-1])
        assert ("no backlog" in queue.sentence()) == (max(expected) == 0)
    assert len(backlog_figure(backlog(s, d, 0.5, 10.0)).data) == 2


def test_bad_reviewer_numbers():
    with pytest.raises(InputError, match="reviewers must be a finite number > 0"):
        capacity_per_day(0, 10)
    with pytest.raises(InputError, match="reviews per day must be a number"):
        capacity_per_day(2, "many")
    assert capacity_per_day(2.5, 12) == 30.0


def test_a_reviewer_plan_is_the_capacity_the_backlog_and_the_fitting_threshold_of_the_same_rows():
    s, y, d, _ = _rows(3)
    team = reviewer_plan(s, y, d, 0.7, reviewers=2, reviews_per_day=9)
    # a day-by-day count of the flagged documents and the budget point at R·Q·D, independently
    days = np.arange(np.datetime64("2025-02-01"), np.datetime64("2025-04-02"))
    per_day = np.array([((d == day) & (s >= 0.7)).sum() for day in days])
    assert (team.capacity, team.days) == (18.0, days.size)
    assert team.flagged_at_threshold == pytest.approx(per_day.sum() / days.size)
    assert np.array_equal(team.queue.flagged, per_day)
    assert team.fitting == max_flagged_point(s, y, capacity=18 * days.size)
    words = team.sentence()
    assert words.startswith("2 reviewers × 9 reviews a day = 18 reviews per day over 60 days")
    assert team.queue.sentence() in words and f"{team.fitting.threshold:.4g}" in words
    with pytest.raises(InputError):
        reviewer_plan(s, y, d, 0.7, reviewers=0, reviews_per_day=9)
