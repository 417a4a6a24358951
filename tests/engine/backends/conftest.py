"""Fixtures of the backend tests: one local Spark session, and rows put where each counting backend reads them."""

import os
import shutil

import pandas as pd
import pytest

from engine.backends._duckdb import DuckSource
from engine.backends._spark import SparkSource

#: the counting backends every shared test runs on (Spark's cases carry the ``spark`` tier)
COUNTING_BACKENDS = ["duckdb", pytest.param("spark", marks=pytest.mark.spark)]
#: the columns (and Spark schema) of the shared tests' rows
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
    """One local Spark session (``local[2]``) for the whole run; skipped without pyspark or Java, except under CI."""
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


def frame_of(spark, frame: pd.DataFrame, schema: str = SCHEMA):
    """A Spark DataFrame of the test rows (explicit schema: all-empty columns included)."""
    cols = [c.split()[0] for c in schema.split(", ")]
    kinds = dict(c.split() for c in schema.split(", "))
    convert = {"string": str, "long": int, "double": float}
    full = frame.reindex(columns=cols)
    records = [
        tuple(None if pd.isna(v) else convert[kinds[c]](v) for c, v in zip(cols, row))
        for row in full.itertuples(index=False)
    ]
    return spark.createDataFrame(records, schema)


@pytest.fixture(scope="module", params=COUNTING_BACKENDS)
def rows_at(request, tmp_path_factory):
    """``rows_at(frame, schema=SCHEMA)``: the rows as a source of the backend (DuckDB: a Parquet file; Spark: a
    DataFrame with ``schema``)."""
    if request.param == "spark":
        session = request.getfixturevalue("spark")
        return lambda frame, schema=SCHEMA: SparkSource(frame_of(session, frame, schema))

    def on_duckdb(frame: pd.DataFrame, schema: str = SCHEMA) -> DuckSource:
        kinds = dict(c.split() for c in schema.split(", "))
        typed = frame.astype({c: "string" if kinds.get(c) == "string" else frame[c].dtype for c in frame.columns})
        path = tmp_path_factory.mktemp("rows") / "rows.parquet"
        typed.to_parquet(path)
        return DuckSource(str(path))

    return on_duckdb
