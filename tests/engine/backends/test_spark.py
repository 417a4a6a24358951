"""The Spark backend against the in-memory engine: the same operating points, grids and bootstrap counts, exactly.

One local Spark session (``local[2]``) for the whole module; Spark jobs are slow to start, so the
property tests draw few examples. Without pyspark or Java the module is skipped, except under CI
(``CI`` set), where that is a failure.
"""

import json
import os
import shutil
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.backends._counted as counted
import engine.backends._spark as spark_backend
from engine.backends._counted import counted_bootstrap, counted_curve, counted_grid, counted_points, replicate_counts
from engine.backends._spark import SparkSource, with_poisson_counts
from engine.errors import InputError
from engine.pn import operating_point, pn_curve
from engine.pn._bootstrap import bootstrap
from engine.pn._grid import threshold_grid
from engine.pn._replicates import poisson_counts, replicate_key, row_hash

TARGETS = [0.05, 0.2, 0.35, 0.5, 0.8, 0.95]
SCHEMA = "a double, b double, c double, label string, w double, doc long"


def _missing() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (java on PATH or JAVA_HOME)"
    return None


@pytest.fixture(scope="session")
def spark():
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI: the Spark backend's tests need pyspark and Java 17 ({missing})")
        pytest.skip(missing)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("opstudio-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.adaptive.enabled", "false")  # tiny data: re-planning every stage only costs time
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def frame_of(spark, frame: pd.DataFrame):
    """A Spark DataFrame of the test rows (explicit schema: all-empty label columns included)."""
    cols = ["a", "b", "c", "label", "w", "doc"]
    full = frame.reindex(columns=cols)
    records = [
        tuple(
            None if pd.isna(v) else (str(v) if c == "label" else (int(v) if c == "doc" else float(v)))
            for c, v in zip(cols, row)
        )
        for row in full.itertuples(index=False)
    ]
    return spark.createDataFrame(records, SCHEMA)


def rated_arrays(frame: pd.DataFrame, cols):
    rated = frame["label"].notna().to_numpy()
    y = frame.loc[rated, "label"].isin(["1", "yes", "tp"]).to_numpy().astype(int)
    return rated, frame.loc[rated, cols].to_numpy(dtype=float), y, frame.loc[rated, "w"].to_numpy(dtype=float)


def assert_same_grid(a, b):
    assert len(a.axes) == len(b.axes)
    for x, z in zip(a.axes, b.axes):
        assert np.array_equal(x, z)
    assert a.rule == b.rule and np.array_equal(a.tp, b.tp) and np.array_equal(a.fp, b.fp)


@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from(["1", "0", "yes", "no", "tp", None]), st.integers(1, 3)),
        min_size=2,
        max_size=60,
    )
)
@settings(max_examples=12, deadline=None)
def test_sweep_exact_and_binned_equal_memory_with_ties_weights_and_unrated_rows(spark, rows):
    frame = pd.DataFrame(
        {"a": [r[0] / 30 for r in rows], "label": [r[1] for r in rows], "w": [float(r[2]) for r in rows]}
    )
    rated, s, y, w = rated_arrays(frame, "a")
    if not rated.any():
        return
    source = SparkSource(frame_of(spark, frame))
    expected = [operating_point(s, y, t, w) for t in TARGETS]
    exact, stats = counted_points(source, score="a", label="label", weight="w", targets=TARGETS)
    binned, bstats = counted_points(
        source, score="a", label="label", weight="w", targets=TARGETS, distinct_cap=0, bins=4
    )
    assert bstats.binned and not stats.binned and stats.backend == "spark"
    assert stats.unrated == int((~rated).sum()) and stats.rows_scanned == len(rows)
    assert stats.distinct_scores == np.unique(s).size
    for e, a, b in zip(expected, exact, binned):
        assert (a.threshold, a.tp, a.fp) == (e.threshold, e.tp, e.fp)
        assert (b.threshold, b.tp, b.fp) == (e.threshold, e.tp, e.fp)


row = st.tuples(
    st.lists(st.integers(-3, 12), min_size=3, max_size=3),
    st.sampled_from(["1", "0", "yes", "no", "tp", None]),
    st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]),
)


@given(
    rows=st.lists(row, min_size=1, max_size=50),
    k=st.integers(1, 3),
    rule=st.sampled_from(["or", "and"]),
    bins=st.integers(2, 9),
    fine=st.sampled_from([2, 3, 1 << 16]),
    fetch=st.sampled_from([0, 1, 10**6]),
)
@settings(max_examples=15, deadline=None)
def test_grid_equals_memory_with_ties_weights_and_unrated_rows(spark, rows, k, rule, bins, fine, fetch):
    frame = pd.DataFrame(
        {
            "a": [r[0][0] / 4 for r in rows],
            "b": [r[0][1] / 8 for r in rows],
            "c": [float(r[0][2]) for r in rows],
            "label": [r[1] for r in rows],
            "w": [r[2] for r in rows],
        }
    )
    cols = ["a", "b", "c"][:k]
    rated, s, y, w = rated_arrays(frame, cols)
    if not rated.any() or w.sum() == 0:
        return
    # few fine bins and no direct reads: the order statistics go through every refinement branch
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(counted, "FINE_BINS", fine)
        patch.setattr(counted, "FETCH_ROWS", fetch)
        grid, stats = counted_grid(
            SparkSource(frame_of(spark, frame)), scores=cols, label="label", weight="w", bins=bins, rule=rule
        )
    assert_same_grid(grid, threshold_grid(s, y, w, bins=bins, rule=rule))
    assert stats.rows_scanned == len(rows) and stats.unrated == int((~rated).sum()) and stats.rated == rated.sum()


def test_hash_and_poisson_counts_equal_numpy(spark):
    ids = np.r_[np.arange(300), [2**31, 2**32 - 1, 2**32, 2**40 + 3, 2**63 - 1]].astype(np.int64)
    frame = spark.createDataFrame([(int(i),) for i in ids], "id long")
    for r, seed in ((0, 0), (7, 0), (3, 12345)):
        keyed = frame.selectExpr("id", f"CAST('{replicate_key(r, seed)}' AS DECIMAL(20,0)) AS key")
        out = with_poisson_counts(keyed, "id", "key").orderBy("id").toArrow()
        order = np.sort(ids)
        assert np.array_equal(out.column("_h").to_numpy().astype(np.int64).view(np.uint64), row_hash(order, r, seed))
        assert np.array_equal(out.column("_p").to_numpy(), poisson_counts(order, [r], seed)[0])


def grouped(ids, s, y, w, n_boot, seed):
    thresholds = np.unique(s)[::-1]
    col = np.searchsorted(-thresholds, -s)
    counts = poisson_counts(ids, np.arange(n_boot), seed).astype(float)
    d_tp, d_fp = np.zeros((n_boot, thresholds.size)), np.zeros((n_boot, thresholds.size))
    for r in range(n_boot):
        np.add.at(d_tp[r], col, counts[r] * w * y)
        np.add.at(d_fp[r], col, counts[r] * w * (1 - y))
    return thresholds, d_tp, d_fp


@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.sampled_from(["1", "0", None]), st.integers(0, 3)), min_size=1, max_size=40
    ),
    st.integers(0, 2**20),
)
@settings(max_examples=8, deadline=None)
def test_replicate_counts_and_intervals_equal_memory(spark, rows, seed):
    frame = pd.DataFrame(
        {
            "a": [r[0] / 12 for r in rows],
            "label": [r[1] for r in rows],
            "w": [float(r[2]) for r in rows],
            "doc": np.arange(len(rows)) * 5 + 2**40,
        }
    )
    rated, s, y, w = rated_arrays(frame, "a")
    if not rated.any() or w.sum() == 0:
        return
    ids = frame["doc"].to_numpy()[rated]
    source = SparkSource(frame_of(spark, frame))
    th, d_tp, d_fp, stats = replicate_counts(
        source, score="a", label="label", weight="w", id_column="doc", n_boot=12, seed=seed
    )
    e_th, e_tp, e_fp = grouped(ids, s, y, w, 12, seed)
    assert np.array_equal(th, e_th) and np.array_equal(d_tp, e_tp) and np.array_equal(d_fp, e_fp)
    assert stats.unrated == int((~rated).sum())
    points, _ = counted_bootstrap(
        source, score="a", label="label", weight="w", id_column="doc", targets=[0.2, 0.6], n_boot=12, seed=seed
    )
    memory = bootstrap(s, y, w, n_boot=12, seed=seed, resample="poisson", ids=ids)
    for p, t in zip(points, (0.2, 0.6)):
        m = memory.at(t)
        assert np.array_equal(p.thresholds, m.thresholds) and np.array_equal(p.tp, m.tp)
        assert np.array_equal(p.fp, m.fp) and p.threshold_ci == m.threshold_ci


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


def test_errors_name_column_and_rows(spark, tmp_path):
    base = {"a": ["0.1", "0.2", "0.3"], "b": ["1", "2", "3"], "label": ["1", "0", None], "w": ["1", "1", "1"]}
    cases = [
        ({"a": ["0.1", "oops", "0.3"]}, "Score column 'a': non-numeric values 'oops' at row 2 \\(row 1"),
        ({"b": ["1", "inf", "3"]}, "Score column 'b': infinite values at row 2 \\(row 1"),
        ({"b": [None, "2", "3"]}, "Score column 'b': missing scores on rated rows at row 1 \\(row 1"),
        ({"label": ["1", "maybe", None]}, "Column 'label': unknown label values 'maybe' at row 2 \\(row 1"),
        ({"w": ["1", "-2", "1"]}, "Weight column 'w': negative, missing or non-finite weights at row 2 \\(row 1"),
        ({"label": [None, None, None]}, "no rated rows"),
    ]
    for change, message in cases:
        rows = {**base, **change}
        frame = spark.createDataFrame(list(zip(*rows.values())), "a string, b string, label string, w string")
        with pytest.raises(InputError, match=message):
            counted_grid(SparkSource(frame), scores=["a", "b"], label="label", weight="w")
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
