"""Counting kernels beside the in-memory engine: the PN curve computed where the rated data lives.

Robles et al. (AAAI-MAKE 2020) need only aggregated counts (the paper's own data is
such counts). :mod:`~engine.backends.duckdb` computes them with DuckDB over Parquet /
CSV files or a DuckDB table, out of core; results equal the in-memory engine's.
:mod:`~engine.backends.duckdb_grid` does the same for the joint threshold grids of ``paths``;
:mod:`~engine.backends.connect` connects the dashboard's pages to rows on the server (schema, sample,
column mapping, counts). :mod:`~engine.backends.spark` (and :mod:`~engine.backends.spark_bootstrap`)
count the same answers on Apache Spark, locally or on a cluster through Spark Connect (pyspark is
imported only when used). :mod:`~engine.backends.counting` holds the arithmetic on counts they share.
:mod:`~engine.backends.confine` decides what a DuckDB connection may read: globs walked within limits,
every file checked against the allowed folders at each connection, connections locked to those files.
:mod:`~engine.backends.sources` registers the places rows live (memory, DuckDB, Spark) and gives one
call per result whatever holds the rows (:func:`pn_hull`, :func:`sweep_points`, :func:`joint_grid`,
:func:`bootstrap_points`): pages and the CLI never branch on the backend.
"""

from .confine import ROOTS_VARIABLE, confined_path, data_roots
from .connect import ConnectedData, ConnectedSource, ScanProgress, connect, connected_grid, connected_hull, map_columns
from .duckdb import DISTINCT_CAP, DuckSource, ScanStats, duckdb_operating_points, duckdb_pn_curve, sample_rows
from .duckdb_bootstrap import duckdb_bootstrap_points
from .duckdb_grid import duckdb_threshold_grid
from .duckdb_monitor import duckdb_period_counts
from .sources import (
    AUTO_DUCKDB_BYTES,
    BACKENDS,
    DATA_SOURCES,
    ROWS_NEEDED,
    CountedRows,
    DataSource,
    DatedCounts,
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
    scan_sentence,
    sweep_points,
)
from .spark import SparkSource, spark_operating_points, spark_pn_curve, spark_sample_rows, spark_threshold_grid
from .spark_bootstrap import spark_bootstrap_points, spark_replicate_counts

__all__ = [
    "DuckSource",
    "ScanStats",
    "duckdb_pn_curve",
    "duckdb_operating_points",
    "sample_rows",
    "DISTINCT_CAP",
    "choose_backend",
    "AUTO_DUCKDB_BYTES",
    "BACKENDS",
    "duckdb_period_counts",
    "duckdb_threshold_grid",
    "duckdb_bootstrap_points",
    "connect",
    "map_columns",
    "connected_hull",
    "connected_grid",
    "ConnectedSource",
    "ConnectedData",
    "ScanProgress",
    "SparkSource",
    "spark_pn_curve",
    "spark_operating_points",
    "spark_threshold_grid",
    "spark_replicate_counts",
    "spark_bootstrap_points",
    "spark_sample_rows",
    "DataSource",
    "DATA_SOURCES",
    "CountedRows",
    "data_source",
    "open_rows",
    "pn_hull",
    "sweep_points",
    "joint_grid",
    "bootstrap_points",
    "rated_row_ids",
    "resampling_note",
    "scan_sentence",
    "open_population",
    "DatedCounts",
    "dated_counts",
    "period_backends",
    "ROWS_NEEDED",
    "data_roots",
    "ROOTS_VARIABLE",
    "confined_path",
]
