"""What only the Spark backend does: its hash on BIGINT bit patterns, CSV globs and Parquet row ids, its errors,
the CLI and Spark Connect. The results every backend shares are tested once, on every backend, in test_counted.py.

One local Spark session (``local[2]``, conftest.py) for the whole run. Without pyspark or Java the tests are
skipped, except under CI (``CI`` set), where that is a failure.
"""

import json
import os
import sys

import numpy as np
import pandas as pd
import pytest

import engine.backends._spark as spark_backend
from engine.backends._counted import counted_curve, counted_points, replicate_counts
from engine.backends._spark import SparkSource, with_poisson_counts
from engine.errors import InputError
from engine.pn import operating_point, pn_curve
from engine.pn._replicates import poisson_counts, replicate_key, row_hash

from .test_counted import TARGETS, grouped


def test_hash_and_poisson_counts_equal_numpy(spark):
    ids = np.r_[np.arange(300), [2**31, 2**32 - 1, 2**32, 2**40 + 3, 2**63 - 1]].astype(np.int64)
    frame = spark.createDataFrame([(int(i),) for i in ids], "id long")
    for r, seed in ((0, 0), (7, 0), (3, 12345)):
        keyed = frame.selectExpr("id", f"CAST('{replicate_key(r, seed)}' AS DECIMAL(20,0)) AS key")
        out = with_poisson_counts(keyed, "id", "key").orderBy("id").toArrow()
        order = np.sort(ids)
        assert np.array_equal(out.column("_h").to_numpy().astype(np.int64).view(np.uint64), row_hash(order, r, seed))
        assert np.array_equal(out.column("_p").to_numpy(), poisson_counts(order, [r], seed)[0])


def test_csv_glob_binned_curve_and_parquet_row_ids(spark, tmp_path):
    rng = np.random.default_rng(0)
    n = 20_000
    y = (rng.random(n) < 0.05).astype(int)
    s = np.round(np.clip(rng.normal(0.3 + 0.25 * y, 0.15), 0, 1), 4)
    labels = np.where(y == 1, "tp", "fp").astype(object)
    labels[rng.random(n) < 0.02] = None
    frame = pd.DataFrame({"score": s, "label": labels})
    for part in range(3):  # a glob over three CSV files (every column read as text)
        frame.iloc[part::3].to_csv(tmp_path / f"part{part}.csv", index=False)
    rated = pd.notna(labels)
    expected = [operating_point(s[rated], (labels[rated] == "tp").astype(int), t) for t in TARGETS]
    points, stats = counted_points(
        SparkSource(str(tmp_path / "part*.csv")),
        score="score",
        label="label",
        targets=TARGETS,
        distinct_cap=500,
        bins=64,
    )
    assert stats.binned and stats.rows_scanned == n
    assert [(p.threshold, p.tp, p.fp) for p in points] == [(e.threshold, e.tp, e.fp) for e in expected]
    parquet = str(tmp_path / "rated.parquet")
    frame.iloc[:3000].to_parquet(parquet)
    curve, _ = counted_curve(SparkSource(parquet), score="score", label="label")
    memory = pn_curve(s[:3000][rated[:3000]], (labels[:3000][rated[:3000]] == "tp").astype(int))
    for a, b in ((curve.thresholds, memory.thresholds), (curve.tp, memory.tp), (curve.fp, memory.fp)):
        assert np.array_equal(a, b)
    # default row ids of one Parquet file: positions in the file, unrated rows included
    th, d_tp, _, _ = replicate_counts(SparkSource(parquet), score="score", label="label", n_boot=3, seed=1)
    keep = rated[:3000]
    e_th, e_tp, _ = grouped(
        np.flatnonzero(keep), s[:3000][keep], (labels[:3000][keep] == "tp").astype(float), np.ones(keep.sum()), 3, 1
    )
    assert np.array_equal(th, e_th) and np.array_equal(d_tp, e_tp)


def test_errors_name_the_rows_and_the_source(spark, tmp_path):
    frame = spark.createDataFrame([(0.1, "1"), (0.2, "maybe"), (0.3, "maybe")], "a double, label string")
    with pytest.raises(InputError, match="Column 'label': unknown label values 'maybe' at rows 2, 3 \\(row 1"):
        counted_points(SparkSource(frame), score="a", label="label", targets=[0.3])
    with pytest.raises(InputError, match="Spark could not count the DataFrame.*nope"):
        counted_points(SparkSource(frame), score="nope", label="label", targets=[0.3])
    with pytest.raises(InputError, match="No file matches"):
        counted_points(SparkSource(str(tmp_path / "missing*.parquet")), score="a", label="l", targets=[0.3])
    with pytest.raises(InputError, match="need a row id"):
        replicate_counts(SparkSource(frame), score="a", label="label")


def test_missing_pyspark_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)  # import fails as if not installed
    with pytest.raises(InputError, match=r"pip install pyspark.*Java 17"):
        spark_backend.spark_session()


def test_cli_sweep_and_paths_backends_agree(spark, tmp_path, capsys):
    from engine.cli import main

    rng = np.random.default_rng(2)
    n = 4000
    y = rng.random(n) < 0.1
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
    path = str(tmp_path / "rated.parquet")
    frame.to_parquet(path)
    out = {}
    for backend in ("memory", "spark"):
        assert (
            main(
                [
                    "sweep",
                    path,
                    "--backend",
                    backend,
                    "--classifier",
                    "score_a",
                    "--target",
                    "0.2",
                    "--target",
                    "0.6",
                    "--bootstrap",
                    "5",
                    "--json",
                ]
            )
            == 0
        )
        out["sweep", backend] = json.loads(capsys.readouterr().out)
        assert (
            main(
                [
                    "paths",
                    path,
                    "--backend",
                    backend,
                    "--target",
                    "0.3",
                    "--bins",
                    "30",
                    "--rule",
                    "and",
                    "--method",
                    "graph",
                    "--json",
                ]
            )
            == 0
        )
        out["paths", backend] = json.loads(capsys.readouterr().out)
    sweep_m, sweep_s = out["sweep", "memory"], out["sweep", "spark"]
    assert sweep_s["backend"] == "spark" and sweep_s["rows_scanned"] == n and sweep_s["seconds"] >= 0
    assert sweep_s["unrated"] == sweep_m["unrated"] > 0
    for a, b in zip(sweep_m["operating_points"], sweep_s["operating_points"]):
        assert (a["threshold"], a["tp"], a["fp"]) == (b["threshold"], b["tp"], b["fp"])
    assert sweep_m["intervals"] == sweep_s["intervals"]  # hashed replicates: the same on both backends
    paths_m, paths_s = out["paths", "memory"], out["paths", "spark"]
    assert paths_s["backend"] == "spark" and paths_s["rows_scanned"] == n and paths_s["unrated"] == paths_m["unrated"]
    assert paths_s["grid_shape"] == paths_m["grid_shape"]
    strip = [{k: v for k, v in r.items() if k != "runtime_s"} for r in paths_m["comparison"]]
    assert [{k: v for k, v in r.items() if k != "runtime_s"} for r in paths_s["comparison"]] == strip
    assert main(["sweep", path, "--backend", "spark", "--by", "x", "--capacity", "5"]) == 2
    assert main(["sweep", path, "--backend", "memory", "--spark-remote", "sc://localhost:15002"]) == 2
    assert "--spark-remote needs --backend spark" in capsys.readouterr().err


def test_unreachable_spark_connect_fails_fast_with_exit_2(capsys):
    from engine.cli import main

    assert main(["sweep", "rated.parquet", "--backend", "spark", "--spark-remote", "sc://127.0.0.1:1"]) == 2
    assert "Cannot reach a Spark Connect server at 127.0.0.1:1" in capsys.readouterr().err


@pytest.mark.skipif(
    not os.environ.get("OPSTUDIO_SPARK_CONNECT_URL"),
    reason="set OPSTUDIO_SPARK_CONNECT_URL (sc://host:15002/;token=...) to test against Spark Connect",
)
def test_spark_connect_cli_equals_memory(tmp_path):
    """Against a running Connect server (in a subprocess: Connect and a classic session do not share a process)."""
    import subprocess

    rng = np.random.default_rng(4)
    n = 3000
    y = rng.random(n) < 0.1
    frame = pd.DataFrame(
        {
            "score_a": np.round(rng.random(n) + 0.3 * y, 3),
            "score_b": np.round(rng.random(n), 2),
            "label": np.where(y, "1", "0"),
        }
    )
    path = str(tmp_path / "rated.parquet")  # the server reads the same path (a local server, or shared storage)
    frame.to_parquet(path)
    out = {}
    for extra in (
        ["--backend", "memory"],
        ["--backend", "spark", "--spark-remote", os.environ["OPSTUDIO_SPARK_CONNECT_URL"]],
    ):
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "engine.cli",
                "sweep",
                path,
                "--classifier",
                "score_a",
                "--target",
                "0.3",
                "--bootstrap",
                "4",
                "--json",
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        out[extra[1]] = json.loads(run.stdout)
    assert out["spark"]["operating_points"][0]["threshold"] == out["memory"]["operating_points"][0]["threshold"]
    assert out["spark"]["intervals"] == out["memory"]["intervals"]


def test_the_same_bad_rows_give_the_same_message_on_memory_duckdb_and_spark(spark, tmp_path):
    from engine.errors import ROW_PROBLEMS

    from .test_sources import BAD_ROWS, bad_file, message

    for i, (change, kind, column) in enumerate(BAD_ROWS):
        path = bad_file(tmp_path, i, change)
        memory, duck, on_spark = (message(path, backend) for backend in ("memory", "duckdb", "spark"))
        assert on_spark == duck  # counted where the rows lie: the very same words
        problem, fix = ROW_PROBLEMS[kind]
        assert f"olumn '{column}'" in memory and problem in memory and memory.endswith(fix)
