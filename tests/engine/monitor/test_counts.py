"""Counts per (period, score) against a pandas group-by."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import RatedDataError
from engine.monitor import period_counts
from engine.monitor._periods import period_start


def _random(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    days = np.datetime64("2025-03-03") + rng.integers(0, 120, n).astype("timedelta64[D]")
    scores = np.round(rng.random(n), 2)  # many ties
    labels = (rng.random(n) < scores).astype(int)
    return scores, labels, days


@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_period_counts_equal_a_group_by(period):
    s, y, d = _random()
    c = period_counts(s, y, d, period)
    frame = pd.DataFrame({"p": period_start(d, period), "s": s, "y": y})
    g = (
        frame.groupby(["p", "s"])["y"]
        .agg(["sum", "count"])
        .reset_index()
        .sort_values(["p", "s"], ascending=[True, False])
    )
    assert np.array_equal(c.scores, g["s"].to_numpy())
    assert np.array_equal(c.pos, g["sum"].to_numpy(float))
    assert np.array_equal(c.neg, (g["count"] - g["sum"]).to_numpy(float))
    starts = c.calendar.starts[c.level_period]
    assert np.array_equal(starts, g["p"].to_numpy().astype("datetime64[D]"))
    assert c.rated.sum() == s.size


def test_empty_periods_are_kept():
    s = np.array([0.5, 0.7, 0.2])
    d = np.array(["2025-01-06", "2025-01-07", "2025-02-03"], dtype="datetime64[D]")
    c = period_counts(s, np.array([1, 0, 1]), d, "week")
    assert c.n_periods == 5 and list(c.rated) == [2, 0, 0, 0, 1]


def test_bad_inputs_name_the_problem():
    s, y, d = _random(20)
    d = d.copy()
    d[[3, 7]] = np.datetime64("NaT")
    with pytest.raises(RatedDataError, match="2 rated documents have no date .rows 4, 8"):
        period_counts(s, y, d)
    with pytest.raises(RatedDataError, match="labels must be 0/1"):
        period_counts(s, y + 1, d)
    with pytest.raises(RatedDataError, match="one length"):
        period_counts(s[:-1], y, d)
    with pytest.raises(RatedDataError, match="No rated documents"):
        period_counts([], [], np.array([], dtype="datetime64[D]"))
