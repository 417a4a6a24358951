"""Counting kernels beside the in-memory engine: the PN curve computed where the rated data lives.

Robles et al. (AAAI-MAKE 2020) need only aggregated counts (the paper's own data is
such counts). :mod:`~engine.backends.duckdb` computes them with DuckDB over Parquet /
CSV files or a DuckDB table, out of core; results equal the in-memory engine's.
:mod:`~engine.backends.duckdb_grid` does the same for the joint threshold grids of ``paths``;
:mod:`~engine.backends.connect` connects the dashboard's pages to rows on the server (schema, sample,
column mapping, counts).
"""

from .duckdb import DISTINCT_CAP, DuckSource, ScanStats, duckdb_operating_points, duckdb_pn_curve, sample_rows
from .choice import AUTO_DUCKDB_BYTES, choose_backend
from .duckdb_grid import duckdb_threshold_grid
from .connect import ConnectedData, ConnectedSource, ScanProgress, connect, connected_grid, connected_hull, map_columns

__all__ = ["DuckSource", "ScanStats", "duckdb_pn_curve", "duckdb_operating_points", "sample_rows", "DISTINCT_CAP",
           "choose_backend", "AUTO_DUCKDB_BYTES", "duckdb_threshold_grid",
           "connect", "map_columns", "connected_hull", "connected_grid", "ConnectedSource", "ConnectedData",
           "ScanProgress"]
