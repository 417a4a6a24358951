"""Rated rows wherever they live (memory, DuckDB, Spark): one call per result, counted where the rows are.

Robles et al. (AAAI-MAKE 2020) need only aggregated counts (the paper's own data is such counts).
:data:`DATA_SOURCES` registers the places rows live; :func:`open_rows` opens rows in any of them and
:func:`pn_hull`, :func:`sweep_points`, :func:`joint_grid` and :func:`bootstrap_points` compute each result
whatever holds the rows (pages and the CLI never branch on the backend); :func:`open_population` and
:func:`dated_counts` do the same for audits and monitoring. :func:`connect` and :func:`map_columns`
connect the dashboard to rows on the server, confined to the folders :func:`data_roots` allows.

Every counting backend implements only the counting primitives of ``engine.backends._protocol.Counter``
(DuckDB in ``_duckdb``, Spark in ``_spark``); the checks, curves, grids, bootstrap replicates and order
statistics are written once on top of them in ``_counted``. Every module is private; this front is the API.
"""

from ._confine import confined_path, data_roots
from ._connect import ConnectedSource, ScanProgress, connect, map_columns
from ._sources import (
    BACKENDS,
    DATA_SOURCES,
    ROWS_NEEDED,
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

__all__ = [
    # one call per result, whatever holds the rows
    "DATA_SOURCES",
    "BACKENDS",
    "choose_backend",
    "data_source",
    "open_rows",
    "pn_hull",
    "sweep_points",
    "joint_grid",
    "bootstrap_points",
    "open_population",
    "dated_counts",
    "period_backends",
    # rows on the server, for the dashboard
    "connect",
    "map_columns",
    "ConnectedSource",
    "ScanProgress",
    "data_roots",
    "confined_path",
    # what the dashboard says about counted rows
    "ROWS_NEEDED",
    "rated_row_ids",
    "resampling_note",
    "scan_sentence",
]
