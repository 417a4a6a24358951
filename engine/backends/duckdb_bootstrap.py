"""Bootstrap intervals of operating points counted by DuckDB, with the replicates the memory engine draws.

Each rated row gets, in replicate r, the Poisson(1) count of :mod:`engine.pn._replicates`
(splitmix64 of (row id, replicate), inverse CDF over a fixed table), computed in SQL with
128-bit integers and explicit ``% 2**64`` so that every product wraps exactly as numpy's
uint64 does. DuckDB returns per replicate and distinct rated score the weighted
positives and negatives (``GROUP BY r, s``); each replicate's hull and operating points
are then computed locally with the memory engine's own functions, so the intervals equal
``bootstrap(..., resample="poisson", ids=...)`` on the same rows.

**Row ids**: an integer id column (non-negative), or for one Parquet file the row's
position in the file (``file_row_number``: 0-based, unrated rows included).

Cost: rows x replicates hash evaluations (replicates are read in chunks of at most
:data:`MAX_REPLICATE_CELLS` / distinct scores per scan).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..errors import InputError
from ..pn._bootstrap import BootstrapPoint
from ..pn._curve import check_target
from ..pn._replicates import GOLDEN, MIX1, MIX2, POISSON1_THRESHOLDS, replicate_key
from .confine import GLOB_CHARS
from .counting import replicate_points
from .duckdb import DuckSource, ScanStats, check_rows, duckdb_problem, quote_identifier, rated_view

__all__ = ["duckdb_replicate_counts", "duckdb_bootstrap_points", "poisson_sql", "MAX_REPLICATE_CELLS"]

#: most (replicate, distinct score) rows one scan returns
MAX_REPLICATE_CELLS = 5_000_000
_MOD = f"{1 << 64}::UHUGEINT"


def _u128(value: int) -> str:
    return f"{int(value)}::UHUGEINT"


def poisson_sql(id_column: str, key_column: str) -> tuple[str, str]:
    """SQL computing the hashed Poisson(1) count of (row id, replicate key), as nested projections.

    Parameters
    ----------
    id_column, key_column : str
        Columns (of the relation the returned template wraps) holding the row id (non-negative
        BIGINT) and the replicate's key (UHUGEINT, :func:`engine.pn._replicates.replicate_key`).

    Returns
    -------
    (str, str)
        A template with ``{rel}`` for the relation, adding the column ``p`` (the count); and the
        expression of the final hash (for tests).

    References
    ----------
    Steele, Lea & Flood (2014), splitmix64; every multiplication is taken ``% 2**64``.
    """
    z0 = f"((CAST({id_column} AS UHUGEINT) + 1) * {_u128(GOLDEN)} % {_MOD} + {key_column}) % {_MOD}"
    z1 = f"xor(z0, z0 >> 30) * {_u128(MIX1)} % {_MOD}"
    z2 = f"xor(z1, z1 >> 27) * {_u128(MIX2)} % {_MOD}"
    h = "xor(z2, z2 >> 31)"
    p = " + ".join(f"CAST(h >= {_u128(t)} AS INTEGER)" for t in POISSON1_THRESHOLDS)
    template = (
        f"(SELECT *, {p} AS p FROM (SELECT *, {h} AS h FROM (SELECT *, {z2} AS z2 FROM "
        f"(SELECT *, {z1} AS z1 FROM (SELECT *, {z0} AS z0 FROM {{rel}})))))"
    )
    return template, h


def _relation(source: DuckSource, id_column: str | None, checked: list[str]) -> tuple[str, str]:
    """(FROM clause, id expression): the id column, or the Parquet file's row number. A CSV file's ``checked``
    columns are read as text (as :func:`~engine.backends.duckdb.grid_view` reads them)."""
    if id_column is not None:
        text = checked if source.file_format == "CSV" else []
        return source.relation(text_columns=text), f"CAST({quote_identifier(id_column)} AS BIGINT)"
    if source.table is None and source.file_format == "Parquet" and not GLOB_CHARS & set(source.path):
        return source.relation(row_number=True), "file_row_number"
    raise InputError(
        f"'{source.path}': bootstrap replicates need a row id. Give an integer id column (--id COLUMN), "
        "or use a single Parquet file (its row numbers are the ids)."
    )


def _boot_view(con, source: DuckSource, score: str, label: str, weight: str | None, id_column: str | None) -> None:
    relation, ident = _relation(source, id_column, [score, label, *([weight] if weight else [])])
    rated_view(con, source, score, label, weight, relation=relation, extra=[f"{ident} AS id"])
    try:
        bad = con.execute("SELECT count(*) FROM rows WHERE y IS NOT NULL AND (id IS NULL OR id < 0)").fetchall()[0][0]
    except Exception as exc:  # duckdb raises its own error types (an id that is not an integer)
        raise InputError(
            f"DuckDB could not read the columns from '{source.path}': {duckdb_problem(source, exc)}"
        ) from None
    if bad:
        raise InputError(
            f"Column '{id_column}' of '{source.path}': {bad:,} rated rows have a missing or negative "
            "id. Row ids must be integers >= 0."
        )


def _chunk_counts(con, thresholds: np.ndarray, replicates: np.ndarray, seed: int):
    """(tp, fp) of shape (len(replicates), len(thresholds)) for one chunk of replicates: one scan."""
    template, _ = poisson_sql("id", "key")
    keys = [str(replicate_key(int(r), seed)) for r in replicates]
    rel = (
        "(SELECT rows.*, reps.r, reps.key FROM rows, (SELECT unnest($r) AS r, CAST(unnest($keys) AS UHUGEINT) "
        "AS key) AS reps WHERE rows.y IS NOT NULL)"
    )
    out = con.execute(
        f"SELECT r, s, sum(w * y * p), sum(w * (1 - y) * p) FROM {template.format(rel=rel)} GROUP BY r, s",
        {"r": [int(r) for r in replicates], "keys": keys},
    ).fetchnumpy()
    r, s, tp, fp = (np.asarray(out[k]) for k in out)
    row = np.searchsorted(replicates, r.astype(np.int64))
    col = np.searchsorted(-thresholds, -s.astype(np.float64))
    d_tp, d_fp = np.zeros((replicates.size, thresholds.size)), np.zeros((replicates.size, thresholds.size))
    d_tp[row, col] = tp.astype(np.float64)
    d_fp[row, col] = fp.astype(np.float64)
    return d_tp, d_fp


def duckdb_replicate_counts(
    source: DuckSource,
    *,
    score: str,
    label: str,
    weight: str | None = None,
    id_column: str | None = None,
    n_boot: int = 200,
    seed: int = 0,
):
    """Per replicate and distinct rated score, the weighted positives and negatives of the Poisson bootstrap.

    Parameters
    ----------
    source : DuckSource
    score, label, weight : str
        Column names (empty label = unrated: counted, left out).
    id_column : str, optional
        Integer row ids; default the row's position in a single Parquet file.
    n_boot, seed : int
        Replicates 0 .. n_boot - 1 of the seed's streams.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray, ScanStats)
        Thresholds (distinct rated scores, descending), ``d_tp`` and ``d_fp`` of shape
        (n_boot, thresholds): equal to ``poisson_counts(ids, range(n_boot), seed) @`` the
        rows' ``w*y`` / ``w*(1-y)`` grouped by score.

    References
    ----------
    Hanley & MacGibbon (2006), the Poisson bootstrap; :mod:`engine.pn._replicates`.
    """
    started = time.perf_counter()
    if n_boot < 1:
        raise InputError("the number of bootstrap replicates must be >= 1")
    con = source.connect()
    try:
        _boot_view(con, source, score, label, weight, id_column)
        rows, rated, unrated = check_rows(con, source, label, weight, score)
        thresholds = np.asarray(
            con.execute("SELECT DISTINCT s FROM rows WHERE y IS NOT NULL ORDER BY s DESC").fetchnumpy()["s"],
            dtype=np.float64,
        )
        chunk = max(1, MAX_REPLICATE_CELLS // thresholds.size)
        parts = [
            _chunk_counts(con, thresholds, np.arange(start, min(n_boot, start + chunk)), seed)
            for start in range(0, n_boot, chunk)
        ]
    finally:
        con.close()
    d_tp, d_fp = np.vstack([p[0] for p in parts]), np.vstack([p[1] for p in parts])
    stats = ScanStats("duckdb", rows, rated, unrated, thresholds.size, time.perf_counter() - started)
    return thresholds, d_tp, d_fp, stats


def duckdb_bootstrap_points(
    source: DuckSource,
    *,
    score: str,
    label: str,
    targets: Sequence[float],
    weight: str | None = None,
    id_column: str | None = None,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[list[BootstrapPoint], ScanStats]:
    """Bootstrap distributions (and intervals) of the operating points, replicates counted in DuckDB.

    Parameters
    ----------
    source : DuckSource
    score, label, weight, id_column : str
        Columns, as for :func:`duckdb_replicate_counts`.
    targets : sequence of float
        Target marginal precisions.
    n_boot, seed : int
    level : float
        Interval level in (0, 1).

    Returns
    -------
    (list of BootstrapPoint, ScanStats)
        Equal to ``bootstrap(scores, labels, weights, resample="poisson", ids=ids, seed=seed,
        n_boot=n_boot, level=level).at(target)`` for the same rows and ids.

    References
    ----------
    Robles et al., AAAI-MAKE 2020 (operating points); Hanley & MacGibbon (2006).
    """
    if not 0 < level < 1:  # before the scan
        raise InputError("level must be in (0, 1)")
    check_target(targets)
    thresholds, d_tp, d_fp, stats = duckdb_replicate_counts(
        source, score=score, label=label, weight=weight, id_column=id_column, n_boot=n_boot, seed=seed
    )
    return replicate_points(thresholds, d_tp, d_fp, targets, level), stats
