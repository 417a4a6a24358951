"""Joint threshold grids counted by DuckDB against the in-memory engine: the same ThresholdGrid, exactly."""

import json

import duckdb
import numpy as np
import pandas as pd
import pytest

import engine.backends._counted as counted
from engine.backends._counted import counted_grid
from engine.backends._duckdb import DuckCounter, DuckSource
from engine.errors import InputError
from engine.pn._grid import MAX_GRID_CELLS, inverted_cdf_ranks, threshold_grid


def write(path, frame: pd.DataFrame) -> str:
    if str(path).endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return str(path)


def memory_grid(frame: pd.DataFrame, cols, *, bins, rule, weight="w"):
    rated = frame["label"].notna().to_numpy()
    y = frame.loc[rated, "label"].isin(["1", "yes", "tp"]).to_numpy().astype(int)
    w = None if weight is None else frame.loc[rated, weight].to_numpy(dtype=float)
    return threshold_grid(frame.loc[rated, cols].to_numpy(dtype=float), y, w, bins=bins, rule=rule)


def assert_same_grid(a, b):
    assert len(a.axes) == len(b.axes)
    for x, z in zip(a.axes, b.axes):
        assert np.array_equal(x, z)
    assert a.rule == b.rule
    assert np.array_equal(a.tp, b.tp) and np.array_equal(a.fp, b.fp)


def test_ranks_are_numpys_inverted_cdf():
    for n in list(range(1, 120)) + [1009, 4096, 99_991]:
        x = np.arange(n, dtype=float)
        for levels in (1, 2, 3, 10, 99):
            expected = np.quantile(x, np.linspace(0, 1, levels), method="inverted_cdf")
            assert np.array_equal(inverted_cdf_ranks(n, levels), expected.astype(int))


def test_order_statistics_of_continuous_and_clumped_scores(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    n = 30_000
    frame = pd.DataFrame(
        {"a": np.r_[rng.normal(size=n - 5000), np.full(4000, 0.25), 1e-300 * np.arange(1000)], "label": "1"}
    )
    path = write(tmp_path / "rows.parquet", frame)
    monkeypatch.setattr(counted, "FINE_BINS", 64)
    monkeypatch.setattr(counted, "FETCH_ROWS", 50)
    ranks = inverted_cdf_ranks(n, 257)
    with DuckCounter(DuckSource(path), ["a"], "label", None) as counter:
        low, high = float(frame.a.min()), float(frame.a.max())
        found = counted.order_statistics(counter.fine_bins, counter.value_counts, "s0", ranks, low=low, high=high)
    assert np.array_equal([found[int(r)] for r in ranks], np.sort(frame.a.to_numpy())[ranks])


def test_larger_case_csv_glob_three_classifiers(tmp_path):
    rng = np.random.default_rng(1)
    n = 120_000
    y = rng.random(n) < 0.04
    frame = pd.DataFrame(
        {
            "s1": np.round(rng.normal(0.3 + 0.2 * y, 0.15), 3),
            "s2": rng.random(n) + 0.1 * y,
            "s3": np.round(rng.exponential(1 + y), 2),
            "label": np.where(y, "tp", "fp").astype(object),
            "w": rng.integers(0, 5, n).astype(float),
        }
    )
    frame.loc[rng.random(n) < 0.03, "label"] = None
    frame.loc[frame["label"].isna() & (rng.random(n) < 0.5), "s2"] = np.nan  # unrated rows need no score
    for part in range(3):
        write(tmp_path / f"part{part}.csv", frame.iloc[part::3])
    for rule, bins in (("or", 60), ("and", 25)):
        grid, stats = counted_grid(
            DuckSource(str(tmp_path / "part*.csv")),
            scores=["s1", "s2", "s3"],
            label="label",
            weight="w",
            bins=bins,
            rule=rule,
        )
        expected = memory_grid(
            frame.assign(label=frame["label"].map({"tp": "1", "fp": "0"})), ["s1", "s2", "s3"], bins=bins, rule=rule
        )
        assert_same_grid(grid, expected)
        assert stats.rows_scanned == n and stats.unrated == int(frame["label"].isna().sum())


def test_database_table_and_uniform_spacing(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.random(3000), "z": rng.integers(0, 50, 3000), "label": rng.integers(0, 2, 3000)})
    db = tmp_path / "rated.duckdb"
    con = duckdb.connect(str(db))
    con.register("f", frame)
    con.execute("CREATE TABLE rated AS SELECT * FROM f")
    con.close()
    grid, _ = counted_grid(
        DuckSource(str(db), table="rated"), scores=["x", "z"], label="label", bins=17, spacing="uniform"
    )
    expected = threshold_grid(
        frame[["x", "z"]].to_numpy(dtype=float), frame.label.to_numpy(), bins=17, spacing="uniform"
    )
    assert_same_grid(grid, expected)


def test_a_grid_over_the_cell_limit_is_refused(tmp_path):
    b = 2 + int(MAX_GRID_CELLS**0.5)
    path = write(tmp_path / "ok.csv", pd.DataFrame({"a": np.arange(3 * b) / 7, "b": np.arange(3 * b) % b, "label": 1}))
    with pytest.raises(InputError, match="at most .* thresholds per classifier"):
        counted_grid(DuckSource(path), scores=["a", "b"], label="label", bins=b + 1)


def test_cli_paths_backends_agree(tmp_path, capsys):
    from engine.cli import main

    rng = np.random.default_rng(2)
    n = 6000
    y = rng.random(n) < 0.08
    frame = pd.DataFrame(
        {
            "doc_id": np.arange(n),
            "score_a": np.round(rng.random(n) * 0.6 + 0.3 * y, 3),
            "score_b": np.round(rng.random(n) * 0.7 + 0.2 * y, 2),
            "label": np.where(y, "1", "0").astype(object),
            "weight": rng.integers(1, 4, n),
        }
    )
    frame.loc[rng.random(n) < 0.05, "label"] = None
    path = write(tmp_path / "rated.parquet", frame)
    out = {}
    for backend in ("memory", "duckdb"):
        assert (
            main(["paths", path, "--backend", backend, "--target", "0.3", "--bins", "40", "--rule", "and", "--json"])
            == 0
        )
        out[backend] = json.loads(capsys.readouterr().out)
    mem, duck = out["memory"], out["duckdb"]
    assert duck["backend"] == "duckdb" and mem["backend"] == "memory"
    assert duck["rows_scanned"] == mem["rows_scanned"] == n and duck["unrated"] == mem["unrated"] > 0
    assert duck["seconds"] >= 0 and mem["seconds"] >= 0

    def timeless(records):
        return [{k: v for k, v in r.items() if k != "runtime_s"} for r in records]

    assert duck["grid_shape"] == mem["grid_shape"]
    assert timeless(duck["comparison"]) == timeless(mem["comparison"])
    assert timeless(duck["paths"]) == timeless(mem["paths"])
    assert main(["paths", str(tmp_path / "*.parquet"), "--target", "0.3", "--bins", "20"]) == 0  # glob -> duckdb
    assert "counted by duckdb" in capsys.readouterr().out
