"""The data-source registry: one call per result whatever holds the rows, one message set for bad rows."""

import numpy as np
import pandas as pd
import pytest

from engine.backends import (
    BACKENDS,
    DATA_SOURCES,
    bootstrap_points,
    choose_backend,
    data_source,
    dated_counts,
    joint_grid,
    open_population,
    open_rows,
    period_backends,
    pn_hull,
    rated_row_ids,
    resampling_note,
    sweep_points,
)
from engine.backends._sources import CountedRows
from engine.errors import ROW_PROBLEMS, InputError
from engine.io import load_rated, sample_path
from engine.pn import pn_curve, sweep, threshold_grid, upper_hull

#: bad rows of every kind: (change to a valid table, the problem of ROW_PROBLEMS, the column named)
BAD_ROWS = [
    ({"a": ["0.1", "oops", "0.3"]}, "not_number", "a"),
    ({"b": ["1", "inf", "3"]}, "infinite", "b"),
    ({"b": ["", "2", "3"]}, "missing_score", "b"),
    ({"label": ["1", "maybe", ""]}, "label", "label"),
    ({"w": ["1", "-2", "1"]}, "weight", "w"),
    ({"w": ["0", "0", "1"]}, "zero_weight", "w"),
    ({"label": ["", "", ""]}, "no_rated", "label"),
]
BASE = {"a": ["0.1", "0.2", "0.3"], "b": ["1", "2", "3"], "label": ["1", "0", ""], "w": ["1", "1", "1"]}


def bad_file(tmp_path, i, change) -> str:
    path = tmp_path / f"bad{i}.csv"
    pd.DataFrame({**BASE, **change}).to_csv(path, index=False)
    return str(path)


def message(path, backend) -> str:
    with pytest.raises(InputError) as caught:
        rows = open_rows(path, backend, scores=["a", "b"], label="label", weight="w")
        joint_grid(rows, ["a", "b"], bins=5)
    return str(caught.value)


@pytest.mark.parametrize("i", range(len(BAD_ROWS)))
def test_the_same_bad_rows_give_the_same_message_in_memory_and_in_duckdb(tmp_path, i):
    change, kind, column = BAD_ROWS[i]
    path = bad_file(tmp_path, i, change)
    problem, fix = ROW_PROBLEMS[kind]
    memory, duck = message(path, "memory"), message(path, "duckdb")
    for text in (memory, duck):
        assert f"olumn '{column}'" in text and problem in text and text.endswith(fix), text
    # DuckDB locates the first bad values and rows as memory lists them: one message
    assert duck == memory


def test_one_call_per_result_equals_the_memory_engine():
    path = str(sample_path("synthetic"))
    memory, duck = open_rows(path, "memory"), open_rows(path, "duckdb")
    assert isinstance(duck, CountedRows) and data_source(duck).name == "duckdb" and data_source(memory).name == "memory"
    d = load_rated(path)
    name = d.score_names[0]
    expected = upper_hull(pn_curve(d.column(name), d.labels, d.weights))
    for rows in (memory, duck):
        hull, stats = pn_hull(rows, name)
        assert np.array_equal(hull.curve.thresholds, expected.curve.thresholds) and stats.rated == d.n_rated
        points, _ = sweep_points(rows, name, [0.2, 0.6])
        assert [(p.threshold, p.tp, p.fp) for p in points] == [
            (p.threshold, p.tp, p.fp) for p in sweep(targets=[0.2, 0.6], hull=expected)
        ]
        grid, _ = joint_grid(rows, d.score_names[:2], bins=12, rule="and")
        want = threshold_grid(d.columns(list(d.score_names[:2])), d.labels, d.weights, bins=12, rule="and")
        assert np.array_equal(grid.tp, want.tp) and np.array_equal(grid.fp, want.fp)
    assert resampling_note(memory) is None and "in memory" in resampling_note(duck)
    assert ("auto", *DATA_SOURCES) == BACKENDS


def test_bootstrap_points_are_the_same_replicates_in_memory_and_in_duckdb(tmp_path):
    frame = pd.read_csv(sample_path("synthetic")).head(3000)
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path)
    got = [
        bootstrap_points(open_rows(str(path), backend), "score_text", targets=[0.3], n_boot=15, seed=3)[0]
        for backend in ("memory", "duckdb")
    ]
    assert got[0].threshold_ci == got[1].threshold_ci and got[0].tp_ci == got[1].tp_ci


def test_what_needs_rows_in_memory_is_refused_before_reading(tmp_path):
    with pytest.raises(InputError, match="--by and --capacity run on the memory backend"):
        open_rows(str(tmp_path / "*.parquet"), "auto", needs_rows="--by and --capacity")
    with pytest.raises(InputError, match="unknown backend"):
        open_rows("x.csv", "oracle")
    with pytest.raises(InputError, match="not rated rows of any data source"):
        pn_hull(object(), "a")


def _dated(tmp_path):
    rng = np.random.default_rng(4)
    n = 3000
    s = np.round(rng.random(n), 3)
    label = np.where(rng.random(n) < 0.05, "", np.where(rng.random(n) < s * 0.6, "tp", "fp"))
    dates = (np.datetime64("2025-03-01") + rng.integers(0, 120, n).astype("timedelta64[D]")).astype(str)
    path = tmp_path / "dated.csv"
    pd.DataFrame({"score": s, "label": label, "date": dates}).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("period", ["week", "month"])
def test_dated_counts_are_the_same_counts_in_memory_and_in_duckdb(tmp_path, period):
    from engine.monitor import load_dated

    path = _dated(tmp_path)
    expected = load_dated(path).counts(period)
    for backend in ("memory", "duckdb"):
        got = dated_counts(path, backend, period=period, threshold=0.5)
        assert got.classifier == "score"
        assert all(
            np.array_equal(getattr(got.counts, k), getattr(expected, k)) for k in ("offsets", "scores", "pos", "neg")
        ), backend
        assert (got.dated is not None) == (backend == "memory")


def test_dated_counts_refuse_a_source_that_does_not_count_periods_and_options_of_another(tmp_path):
    path = _dated(tmp_path)
    assert period_backends() == ("auto", *(n for n, s in DATA_SOURCES.items() if s.periods is not None))
    with pytest.raises(InputError, match="not counted with Spark; use --backend memory or duckdb"):
        dated_counts(path, "spark")
    with pytest.raises(InputError, match="--by needs the rows in memory"):
        dated_counts(path, "duckdb", group="score")
    with pytest.raises(InputError, match="--table reads a DuckDB database file"):
        dated_counts(path, "memory", table="t")


def test_a_table_means_duckdb_under_auto_for_every_kind_of_rows(tmp_path):
    assert choose_backend("x.duckdb", "auto", table="t") == "duckdb"
    assert choose_backend("x.duckdb", "memory", table="t") == "memory"  # as asked; the opener then refuses
    with pytest.raises(InputError, match="--table reads a DuckDB database file"):
        open_rows(_dated(tmp_path), "memory", table="t")
    with pytest.raises(InputError, match="--table reads a DuckDB database file"):
        open_population(_dated(tmp_path), id="date", score="score", backend="memory", table="t")
    with pytest.raises(InputError, match="give the table name as POPULATION"):
        open_population("lake.docs", id="doc", score="score", backend="spark", table="docs")
    with pytest.raises(InputError, match="give the table name as FILE"):
        open_rows("lake.docs", "spark", table="docs")
    with pytest.raises(InputError, match="a DataFrame or a path, not int"):
        open_population(3, id="doc", score="score")


def test_a_population_opens_on_the_source_that_holds_it(tmp_path):
    from engine.audit import PopulationColumns, plan
    from engine.audit._population import memory_population
    from engine.backends._duckdb import DuckSource

    frame = pd.DataFrame({"doc": np.arange(400), "score": np.linspace(0, 1, 400)})
    frame.to_parquet(tmp_path / "p.parquet")
    memory = open_population(frame, id="doc", score="score")
    duck = open_population(DuckSource(str(tmp_path / "p.parquet")), id="doc", score="score")
    assert (memory.backend, duck.backend) == ("memory", "duckdb")
    assert (
        open_population(memory_population(frame, PopulationColumns("doc", "score")), id="x", score="y").backend
        == "memory"
    )
    kwargs = dict(below=0.8, budget=40, strata=3, seed=1)
    assert plan(memory, **kwargs).table().equals(plan(duck, **kwargs).table())


@pytest.mark.parametrize("unrated", [[], [0], [4], [1, 2, 6], list(range(0, 9, 2))])
def test_rated_row_ids_are_the_positions_of_the_rated_rows_in_the_file(unrated):
    labels = ["" if i in unrated else str(i % 2) for i in range(9)]
    table = pd.DataFrame({"score": np.linspace(0, 1, 9), "label": labels})
    data = load_rated(table.to_csv(index=False).encode())
    expected = [i for i in range(9) if i not in unrated]  # the oracle: the file's rows, one by one
    ids = rated_row_ids(data)
    assert ids.dtype == np.int64 and ids.tolist() == expected
    np.testing.assert_array_equal(data.scores[:, 0], np.linspace(0, 1, 9)[expected])
