"""The DuckDB counting kernel against the in-memory engine: the same operating points, exactly."""

import duckdb
import numpy as np
import pandas as pd
import pytest

from engine.backends._counted import counted_curve, counted_points
from engine.backends._duckdb import DuckSource
from engine.errors import InputError
from engine.pn import operating_point, pn_curve

TARGETS = [0.05, 0.2, 0.35, 0.5, 0.8, 0.95]


def write(tmp_path, frame: pd.DataFrame, name: str = "rows.parquet") -> str:
    path = tmp_path / name
    if name.endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return str(path)


def memory_points(s, labels, w, targets):
    rated = pd.notna(labels)
    y = np.array([1 if str(v) in ("1", "yes", "tp") else 0 for v in labels[rated]])
    return [operating_point(s[rated], y, t, w[rated]) for t in targets]


def test_larger_case_csv_glob_and_database_table(tmp_path):
    rng = np.random.default_rng(0)
    n = 60_000
    y = (rng.random(n) < 0.03).astype(int)
    s = np.round(np.clip(rng.normal(0.3 + 0.25 * y, 0.15), 0, 1), 4)
    labels = np.where(y == 1, "tp", "fp").astype(object)
    labels[rng.random(n) < 0.02] = None
    frame = pd.DataFrame({"score": s, "label": labels})
    for part in range(3):  # a glob over three CSV files
        write(tmp_path, frame.iloc[part::3], f"part{part}.csv")
    expected = memory_points(s, labels, np.ones(n), TARGETS)
    points, stats = counted_points(
        DuckSource(str(tmp_path / "part*.csv")),
        score="score",
        label="label",
        targets=TARGETS,
        distinct_cap=500,
        bins=64,
    )
    assert stats.binned and stats.rows_scanned == n
    assert [(p.threshold, p.tp, p.fp) for p in points] == [(e.threshold, e.tp, e.fp) for e in expected]
    db = tmp_path / "rated.duckdb"
    con = duckdb.connect(str(db))
    con.register("f", frame)
    con.execute("CREATE TABLE rated AS SELECT * FROM f")
    con.close()
    curve, _ = counted_curve(DuckSource(str(db), table="rated"), score="score", label="label")
    rated = pd.notna(labels)
    memory = pn_curve(s[rated], (labels[rated] == "tp").astype(int))
    np.testing.assert_array_equal(curve.thresholds, memory.thresholds)
    np.testing.assert_array_equal(curve.tp, memory.tp)
    np.testing.assert_array_equal(curve.fp, memory.fp)


def test_errors_name_the_problem(tmp_path):
    path = write(tmp_path, pd.DataFrame({"score": [0.1, 0.2], "label": ["1", "maybe"]}))
    with pytest.raises(InputError, match="unknown label values 'maybe' at row 2 \\(row 1"):
        counted_points(DuckSource(path), score="score", label="label", targets=[0.3])
    with pytest.raises(InputError, match="could not read the columns"):
        counted_points(DuckSource(path), score="nope", label="label", targets=[0.3])
    with pytest.raises(InputError, match="No file matches"):
        counted_points(DuckSource(str(tmp_path / "missing*.parquet")), score="s", label="l", targets=[0.3])
    with pytest.raises(InputError, match="reads .parquet and .csv"):
        DuckSource("x.xlsx").relation()


def test_cli_backends_agree(tmp_path, capsys):
    import json

    from engine.cli import main

    rng = np.random.default_rng(2)
    n = 5000
    y = rng.random(n) < 0.1
    frame = pd.DataFrame(
        {"doc_id": np.arange(n), "score": np.round(rng.random(n) * 0.6 + 0.3 * y, 3), "label": np.where(y, "1", "0")}
    )
    path = write(tmp_path, frame)
    out = {}
    for backend in ("memory", "duckdb"):
        assert main(["sweep", path, "--backend", backend, "--target", "0.2", "--target", "0.6", "--json"]) == 0
        out[backend] = json.loads(capsys.readouterr().out)
    assert out["duckdb"]["backend"] == "duckdb" and out["duckdb"]["rows_scanned"] == n
    for a, b in zip(out["memory"]["operating_points"], out["duckdb"]["operating_points"]):
        assert (a["threshold"], a["tp"], a["fp"]) == (b["threshold"], b["tp"], b["fp"])
    assert main(["sweep", str(tmp_path / "*.parquet"), "--by", "x", "--capacity", "5"]) == 2  # glob -> duckdb
