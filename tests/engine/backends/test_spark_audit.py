"""An audit planned by Spark equals the memory and DuckDB plans: the same strata, sizes and documents for one seed.

Uses the Spark session of conftest.py (skipped without pyspark or Java, except under CI).
"""

import numpy as np
import pandas as pd
import pytest

from engine.audit import PopulationColumns, plan
from engine.backends import open_population
from engine.backends._duckdb import DuckSource
from engine.backends._duckdb_audit import DuckPopulation
from engine.backends._spark import SparkSource
from engine.backends._spark_audit import SparkPopulation
from engine.errors import InputError

COLS = PopulationColumns("doc", "score", "prior")
KW = dict(below=0.3, budget=300, strata=6, seed=3, prior_column="prior")


def population(rows=3000, seed=0):
    rng = np.random.default_rng(seed)
    ids = [f"{i:05d}" if i % 7 else f"é-{i}" for i in range(rows)]  # leading zeros and non-ASCII text
    return pd.DataFrame(
        {"doc": ids, "score": np.round(rng.beta(0.4, 5, rows), 5), "prior": np.round(rng.random(rows) * 0.05, 6)}
    )


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_spark_plans_the_same_documents_as_memory_and_duckdb(spark, tmp_path, kind):
    frame = population()
    path = tmp_path / f"pop.{kind}"
    frame.to_parquet(path) if kind == "parquet" else frame.to_csv(path, index=False)
    memory = plan(open_population(frame, id="doc", score="score", prior="prior"), **KW).table()
    duck = plan(DuckPopulation(DuckSource(str(path)), COLS), **KW).table()
    result = plan(SparkPopulation(SparkSource(str(path)), COLS), **KW)
    assert result.backend == "spark"
    pd.testing.assert_frame_equal(result.table(), memory)
    pd.testing.assert_frame_equal(duck, memory)


def test_integer_ids_and_a_dataframe_source(spark, tmp_path):
    frame = population(seed=2).assign(doc=np.arange(3000) * 13 - 50)  # negative ids too
    memory = plan(open_population(frame, id="doc", score="score", prior="prior"), **KW).table()
    result = plan(
        open_population(spark.createDataFrame(frame), id="doc", score="score", prior="prior", backend="spark"), **KW
    ).table()
    pd.testing.assert_frame_equal(result, memory)


def test_spark_refuses_what_memory_refuses(spark, tmp_path):
    frame = population(rows=40).assign(doc=np.arange(40) + 0.5)
    frame.to_parquet(tmp_path / "float_ids.parquet")
    with pytest.raises(InputError, match="ids must be whole numbers or text"):
        plan(SparkPopulation(SparkSource(str(tmp_path / "float_ids.parquet")), COLS), **{**KW, "budget": 12})
    bad = population(rows=40).astype({"score": str})
    bad.loc[3, "score"] = "n/a"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError, match="1 rows hold non-numeric values"):
        plan(SparkPopulation(SparkSource(str(tmp_path / "bad.csv")), COLS), **{**KW, "budget": 12})
    with pytest.raises(InputError, match="--table is for a DuckDB database file"):
        open_population("lake.docs", id="doc", score="score", backend="spark", table="docs")


def test_spark_binds_the_same_design_record_and_names_missing_columns_like_memory(spark, tmp_path):
    from engine.audit.designs import design_record

    frame = population(rows=600, seed=5)
    frame.to_parquet(tmp_path / "pop.parquet")
    memory = design_record(plan(open_population(frame, id="doc", score="score", prior="prior"), **KW))
    sparked = design_record(plan(SparkPopulation(SparkSource(str(tmp_path / "pop.parquet")), COLS), **KW))
    assert sparked["population"]["fingerprint"]["kind"] == "connection" and sparked["population"]["backend"] == "spark"
    for key in ("strata", "above", "rows_sha256", "review_threshold", "seed", "score_column"):
        assert sparked[key] == memory[key], key
    with pytest.raises(InputError, match=r"Id column 'id' \(--id\) is not in .*its columns are doc, score, prior"):
        plan(SparkPopulation(SparkSource(str(tmp_path / "pop.parquet")), PopulationColumns("id", "score")), **KW)
    frame.assign(score=frame["score"] > 0.1).to_parquet(tmp_path / "bool.parquet")
    with pytest.raises(InputError, match=r"Score column 'score' of .* holds true/false values"):
        plan(SparkPopulation(SparkSource(str(tmp_path / "bool.parquet")), PopulationColumns("doc", "score")), **KW)
