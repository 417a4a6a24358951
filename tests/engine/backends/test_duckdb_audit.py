"""An audit planned by DuckDB equals the memory plan: strata, sizes and the very documents, for every source kind."""

import duckdb
import numpy as np
import pandas as pd
import pytest

import engine.backends._counted as grid_module
from engine.audit import PopulationColumns, plan, read_population
from engine.backends import open_population
from engine.backends._duckdb import DuckSource
from engine.backends._duckdb_audit import DuckPopulation
from engine.errors import InputError

COLS = PopulationColumns("doc", "score", "prior")


def population(rows=6000, seed=0, text_ids=False):
    rng = np.random.default_rng(seed)
    ids = [f"{i:05d}" for i in range(rows)] if text_ids else rng.permutation(rows) * 3 + 1
    return pd.DataFrame(
        {"doc": ids, "score": np.round(rng.beta(0.4, 5, rows), 5), "prior": np.round(rng.random(rows) * 0.05, 6)}
    )


def plans_equal(frame_or_path, source, **kwargs):
    memory = plan(open_population(frame_or_path, id="doc", score="score", prior="prior", backend="memory"), **kwargs)
    duck = plan(DuckPopulation(source, COLS), **kwargs)
    assert duck.backend == "duckdb"
    assert [s.as_dict() for s in duck.strata] == [s.as_dict() for s in memory.strata]
    pd.testing.assert_frame_equal(duck.table(), memory.table())
    return duck


KW = dict(below=0.3, budget=400, strata=6, seed=11, prior_column="prior")


def test_parquet_csv_glob_and_table_plan_the_memory_engines_audit(tmp_path):
    frame = population()
    frame.to_parquet(tmp_path / "pop.parquet")
    plans_equal(frame, DuckSource(str(tmp_path / "pop.parquet")), **KW)
    frame.iloc[:2500].to_parquet(tmp_path / "part-1.parquet")
    frame.iloc[2500:].to_parquet(tmp_path / "part-2.parquet")
    plans_equal(frame, DuckSource(str(tmp_path / "part-*.parquet")), **KW)
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    con.execute("CREATE TABLE docs AS SELECT * FROM frame")
    con.close()
    plans_equal(frame, DuckSource(str(tmp_path / "db.duckdb"), table="docs"), **{**KW, "allocation": "equal"})


def test_csv_ids_keep_their_text_on_both_backends(tmp_path):
    frame = population(text_ids=True)
    path = tmp_path / "pop.csv"
    frame.to_csv(path, index=False)
    duck = plans_equal(str(path), DuckSource(str(path)), **KW)
    assert duck.rows["id"].str.len().eq(5).all()  # "00042", not 42
    assert duck.table()["id"].str.startswith("'0").all()  # written marked: read back as text, not as 42
    assert read_population(str(path), COLS).ids[0] == "00000"


def test_order_statistics_by_counting_equal_sorting_when_bins_are_refined(tmp_path, monkeypatch):
    monkeypatch.setattr(grid_module, "FINE_BINS", 8)  # force subdivision and value reads
    monkeypatch.setattr(grid_module, "FETCH_ROWS", 50)
    frame = population(rows=3000, seed=4)
    frame.to_parquet(tmp_path / "pop.parquet")
    with DuckPopulation(DuckSource(str(tmp_path / "pop.parquet")), COLS) as scan:
        summary = scan.summary(0.3)
        ranks = np.array([0, 5, 700, 1500, summary.below - 1])
        found = scan.order_statistics(ranks, 0.3, summary.low, summary.high)
    below = np.sort(frame["score"].to_numpy()[frame["score"].to_numpy() < 0.3])
    assert np.array_equal(found, below[ranks])


def test_connections_are_opened_by_the_sources_own_entry_point(tmp_path, monkeypatch):
    population().to_parquet(tmp_path / "pop.parquet")

    def refuse(self):
        raise InputError("outside OPSTUDIO_DATA_ROOTS")

    monkeypatch.setattr(DuckSource, "connect", refuse)
    with pytest.raises(InputError, match="OPSTUDIO_DATA_ROOTS"):
        plan(DuckPopulation(DuckSource(str(tmp_path / "pop.parquet")), COLS), **KW)


@pytest.mark.parametrize(
    "column,values,message",
    [
        ("score", ["0.1", "x", "0.2", "0.4"], "non-numeric"),
        ("score", ["0.1", "", "0.2", "0.4"], "no score"),
        ("score", ["0.1", "inf", "0.2", "0.4"], "infinite"),
        ("prior", ["0.1", "2", "0.2", "0.1"], "Prior column"),
        ("doc", ["1", "", "3", "4"], "no id"),
    ],
)
def test_bad_csv_rows_are_refused_like_the_memory_backend(tmp_path, column, values, message):
    frame = pd.DataFrame({"doc": ["1", "2", "3", "4"], "score": ["0.1", "0.15", "0.2", "0.4"], "prior": ["0.1"] * 4})
    frame[column] = values
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    for backend in ("memory", "duckdb"):  # memory refuses while reading, DuckDB in its first scan
        with pytest.raises(InputError, match=message):
            scan = open_population(str(path), id="doc", score="score", prior="prior", backend=backend)
            plan(scan, below=0.3, budget=2, strata=1, prior_column="prior")


def test_unusable_columns_are_refused(tmp_path):
    frame = population(rows=50).assign(doc=np.arange(50) + 0.5)
    frame.to_parquet(tmp_path / "float_ids.parquet")
    with pytest.raises(InputError, match="ids must be whole numbers or text"):
        plan(DuckPopulation(DuckSource(str(tmp_path / "float_ids.parquet")), COLS), **{**KW, "budget": 12})
    with pytest.raises(
        InputError, match="Score column 'weight' \\(--score\\) is not in .*its columns are doc, score, prior"
    ):
        plan(
            DuckPopulation(DuckSource(str(tmp_path / "float_ids.parquet")), PopulationColumns("doc", "weight")),
            below=0.3,
            budget=10,
        )
    with pytest.raises(InputError, match="No file matches"):
        plan(DuckPopulation(DuckSource(str(tmp_path / "missing-*.parquet")), COLS), **KW)


def test_auto_backend_reads_globs_and_tables_with_duckdb(tmp_path):
    population().to_parquet(tmp_path / "a.parquet")
    assert open_population(str(tmp_path / "*.parquet"), id="doc", score="score").backend == "duckdb"
    assert open_population(str(tmp_path / "a.parquet"), id="doc", score="score").backend == "memory"
    with pytest.raises(InputError, match="--spark-remote needs --backend spark"):
        open_population(str(tmp_path / "a.parquet"), id="doc", score="score", spark_remote="sc://x:1")
