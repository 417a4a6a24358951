"""DuckDB's monitoring counts equal the memory engine's exactly (CSV, Parquet, DuckDB tables; every period)."""

import numpy as np
import pandas as pd
import pytest

from engine.backends._duckdb import DuckSource
from engine.backends._duckdb_monitor import duckdb_period_counts
from engine.errors import InputError
from engine.monitor import monitor, period_counts


def _frame(seed=0, n=5000):
    rng = np.random.default_rng(seed)
    d = np.datetime64("2025-01-03") + rng.integers(0, 200, n).astype("timedelta64[D]")
    s = np.round(rng.random(n), 3)
    y = (rng.random(n) < s * 0.6).astype(int)
    label = np.where(rng.random(n) < 0.03, "", np.where(y == 1, "tp", "fp"))
    return pd.DataFrame({"score": s, "label": label, "date": d.astype(str)}), s, y, d


def _same(a, b):
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("offsets", "scores", "pos", "neg")) and all(
        np.array_equal(getattr(a.calendar, k), getattr(b.calendar, k)) for k in ("starts", "first", "last")
    )


@pytest.mark.parametrize("period", ["day", "week", "month"])
@pytest.mark.parametrize("kind", ["csv", "parquet", "duckdb"])
def test_counts_equal_memory(tmp_path, period, kind):
    frame, s, y, d = _frame()
    rated = frame["label"] != ""
    expected = period_counts(s[rated], y[rated], d[rated], period)
    if kind == "csv":
        frame.to_csv(tmp_path / "r.csv", index=False)
        source = DuckSource(str(tmp_path / "r.csv"))
    elif kind == "parquet":
        typed = frame.assign(date=pd.to_datetime(frame["date"]) + pd.Timedelta(hours=13))  # a time of day
        typed.to_parquet(tmp_path / "r.parquet")
        source = DuckSource(str(tmp_path / "r.parquet"))
    else:
        import duckdb

        con = duckdb.connect(str(tmp_path / "r.duckdb"))
        con.register("f", frame)
        con.execute("CREATE TABLE ratings AS SELECT * FROM f")
        con.close()
        source = DuckSource(str(tmp_path / "r.duckdb"), table="ratings")
    counts, stats = duckdb_period_counts(source, score="score", label="label", date="date", period=period)
    assert _same(counts, expected)
    assert (stats.rows_scanned, stats.unrated) == (len(frame), int((~rated).sum()))
    assert monitor(counts, 0.5, 0.3).as_dict() == monitor(expected, 0.5, 0.3).as_dict()


def test_binned_counts_equal_memory_on_the_same_edges(tmp_path):
    frame, s, y, d = _frame(1, 8000)
    frame["score"] = np.round(np.random.default_rng(2).random(len(frame)), 6)
    frame.to_parquet(tmp_path / "r.parquet")
    counts, stats = duckdb_period_counts(
        DuckSource(str(tmp_path / "r.parquet")),
        score="score",
        label="label",
        date="date",
        threshold=0.5,
        distinct_cap=100,
        bins=32,
    )
    assert stats.binned and counts.binned
    rated = (frame["label"] != "").to_numpy()
    sr = frame["score"].to_numpy()[rated]
    edges = np.unique(np.r_[np.quantile(sr, np.linspace(0, 1, 33)[:-1], method="inverted_cdf"), 0.5])
    level = edges[np.searchsorted(edges, sr, side="right") - 1]
    yr = (frame["label"].to_numpy()[rated] == "tp").astype(int)
    expected = period_counts(level, yr, d[rated], "week")
    assert _same(counts, expected)
    exact = period_counts(sr, yr, d[rated], "week")
    assert [(p.tp, p.fp) for p in monitor(counts, 0.5, 0.3).periods] == [
        (p.tp, p.fp) for p in monitor(exact, 0.5, 0.3).periods
    ]  # the threshold is an edge: TP, FP exact


def test_bad_dates_are_refused_with_counts(tmp_path):
    frame, *_ = _frame(3, 50)
    frame.loc[[4, 9], "date"] = ["06/01/2025", "soon"]
    frame.loc[[4, 9], "label"] = "tp"
    frame.to_csv(tmp_path / "r.csv", index=False)
    with pytest.raises(InputError, match="2 rated rows have values that are not dates"):
        duckdb_period_counts(DuckSource(str(tmp_path / "r.csv")), score="score", label="label", date="date")
    frame.loc[[4, 9], "date"] = None
    frame.to_parquet(tmp_path / "r.parquet")
    with pytest.raises(InputError, match="2 rated rows have no date"):
        duckdb_period_counts(DuckSource(str(tmp_path / "r.parquet")), score="score", label="label", date="date")
    pd.DataFrame({"score": [0.5], "label": [1], "date": [20250106]}).to_parquet(tmp_path / "n.parquet")
    with pytest.raises(InputError, match="not dates"):
        duckdb_period_counts(DuckSource(str(tmp_path / "n.parquet")), score="score", label="label", date="date")
