"""Where a population is read: a DataFrame or a file in memory, DuckDB out of core, or Spark.

:func:`open_population` turns what the user names (a DataFrame, a path or glob, a DuckDB
database and table, a Spark catalog table or DataFrame) into a
:class:`~engine.audit.population.PopulationScan` for :func:`engine.audit.plan`. The backends'
modules are imported only when used (DuckDB's and Spark's kernels import this package).
"""

from __future__ import annotations

import pandas as pd

from ..errors import InputError
from .population import MemoryPopulation, PopulationColumns, PopulationScan, memory_population, read_population

__all__ = ["open_population"]


def open_population(population, *, id: str, score: str, prior: str | None = None, backend: str = "auto",
                    table: str | None = None, spark_remote: str | None = None) -> PopulationScan:
    """The population to plan an audit on, read by the chosen backend.

    Parameters
    ----------
    population : pandas.DataFrame, str, DuckSource, SparkSource or MemoryPopulation
        The scored documents: a DataFrame, a Parquet / CSV path or glob, a DuckDB database file
        (with ``table``), a Spark catalog table name or DataFrame (with ``backend="spark"``).
    id, score : str
        The id and score columns.
    prior : str, optional
        A prior-probability column (Neyman allocation).
    backend : {"auto", "memory", "duckdb", "spark"}
        ``auto``: DuckDB for globs, tables and files over 100 MB, memory otherwise (never Spark).
    table : str, optional
        The table of a DuckDB database file.
    spark_remote : str, optional
        A Spark Connect URL (with ``backend="spark"``).

    Returns
    -------
    PopulationScan
        Use it as a context manager (``plan`` does).

    Raises
    ------
    InputError
        An unknown backend, ``--spark-remote`` without Spark, ``--table`` with Spark or memory,
        or what the memory reader refuses.
    """
    from ..backends.choice import choose_backend
    from ..backends.duckdb import DuckSource
    from ..backends.spark import SparkSource

    columns = PopulationColumns(id, score, prior)
    if isinstance(population, MemoryPopulation):
        return population
    if isinstance(population, pd.DataFrame):
        return memory_population(population, columns)
    if isinstance(population, DuckSource):
        return _duck(population, columns)
    if isinstance(population, SparkSource):
        return _spark(population, columns)
    if not isinstance(population, str) and backend == "spark":
        return _spark(SparkSource(population, remote=spark_remote), columns)
    if not isinstance(population, str):
        raise InputError(f"A population is a DataFrame or a path, not {type(population).__name__}.")
    if table is not None:
        backend = "duckdb" if backend == "auto" else backend
    chosen = choose_backend(population, backend) if table is None or backend != "duckdb" else "duckdb"
    if spark_remote is not None and chosen != "spark":
        raise InputError("--spark-remote needs --backend spark")
    if chosen == "spark":
        if table is not None:
            raise InputError("--table is for a DuckDB database file; with --backend spark give the table name as "
                             "POPULATION")
        return _spark(SparkSource(population, remote=spark_remote), columns)
    if chosen == "duckdb":
        return _duck(DuckSource(population, table=table), columns)
    if table is not None:
        raise InputError("--table reads a DuckDB database file: use --backend duckdb (or auto)")
    return read_population(population, columns)


def _duck(source, columns):
    from ..backends.duckdb_audit import DuckPopulation

    return DuckPopulation(source, columns)


def _spark(source, columns):
    from ..backends.spark_audit import SparkPopulation

    return SparkPopulation(source, columns)
