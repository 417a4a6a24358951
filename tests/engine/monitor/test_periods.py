"""Calendar periods against pandas' own periods."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.monitor._periods import calendar, period_start


@pytest.mark.parametrize("period, freq", [("day", "D"), ("week", "W-SUN"), ("month", "M")])
def test_period_start_matches_pandas_periods(period, freq):
    days = np.datetime64("2023-12-20") + np.arange(500).astype("timedelta64[D]")
    expected = pd.PeriodIndex(pd.DatetimeIndex(days), freq=freq).start_time.to_numpy().astype("datetime64[D]")
    assert np.array_equal(period_start(days, period), expected)


@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_calendar_covers_every_day_once_and_clips_to_the_data(period):
    cal = calendar("2025-01-08", "2025-05-02", period)
    days = np.datetime64("2025-01-08") + np.arange(115).astype("timedelta64[D]")
    index = cal.index_of(days)
    assert np.array_equal(np.bincount(index, minlength=cal.starts.size), cal.days)
    assert cal.first[0] == np.datetime64("2025-01-08") and cal.last[-1] == np.datetime64("2025-05-02")
    assert np.all(cal.first[index] <= days) and np.all(days <= cal.last[index])
    assert cal.days.sum() == 115


def test_weeks_start_on_monday_and_errors():
    assert str(period_start(np.array(["2025-01-12"], dtype="datetime64[D]"), "week")[0]) == "2025-01-06"
    with pytest.raises(InputError, match="period must be one of"):
        period_start(np.array(["2025-01-12"], dtype="datetime64[D]"), "year")
    with pytest.raises(InputError, match="before the first"):
        calendar("2025-02-01", "2025-01-01", "week")
