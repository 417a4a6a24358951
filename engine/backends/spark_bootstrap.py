"""Hashed Poisson bootstrap replicates counted by Spark: the counts numpy and DuckDB draw, bit for bit.

Each rated row gets, in replicate r, the Poisson(1) count of :mod:`engine.pn._replicates`:
splitmix64 of (row id, replicate key), inverse CDF over a fixed 20-entry table. Spark has no
unsigned 64-bit integers, and under ANSI mode (Spark 4's default) a BIGINT product that wraps is
an error, so the hash keeps a 64-bit value as the bit pattern of a BIGINT (xor and logical shifts
``shiftrightunsigned`` act on the bits) and multiplies modulo 2**64 from 32-bit halves in
``DECIMAL(38,0)`` (every partial sum stays below 2**66)::

    (hi·2**32 + lo) · m  mod 2**64  =  lo·m_lo + ((hi·m_lo + lo·m_hi) mod 2**32) · 2**32   mod 2**64

The unsigned comparison with the table uses the signed order after flipping the sign bit.
Spark returns per replicate and distinct rated score the weighted positives and negatives
(``groupBy(r, s)``); each replicate's hull and operating points are then computed locally with the
memory engine's functions, so the intervals equal ``bootstrap(..., resample="poisson", ids=...)``.

**Row ids**: an integer id column (non-negative), or for one Parquet file the row's position in the
file (``_metadata.row_index``: 0-based, unrated rows included).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..errors import InputError
from ..pn._bootstrap import BootstrapPoint
from ..pn._curve import check_target
from ..pn._replicates import GOLDEN, MIX1, MIX2, POISSON1_THRESHOLDS, replicate_key
from .counting import replicate_points
from .duckdb import ScanStats
from .spark import SparkSource, checked_rows, collect_columns, spark_errors, spark_label_expression

__all__ = [
    "spark_replicate_counts",
    "spark_bootstrap_points",
    "poisson_steps",
    "with_poisson_counts",
    "MAX_REPLICATE_CELLS",
]

#: most (replicate, distinct score) rows one scan returns
MAX_REPLICATE_CELLS = 5_000_000
_LOW32 = (1 << 32) - 1


def _decimal(value: int) -> str:
    return f"CAST('{int(value)}' AS DECIMAL(20,0))"


def _mulmod(lo: str, hi: str, m: int) -> str:
    """``(hi * 2**32 + lo) * m mod 2**64`` as an unsigned DECIMAL, from non-negative BIGINT halves (lo <= 2**32)."""
    m_lo, m_hi = m & _LOW32, m >> 32
    lo_d, hi_d = f"CAST({lo} AS DECIMAL(20,0))", f"CAST({hi} AS DECIMAL(20,0))"
    cross = f"pmod({hi_d} * {_decimal(m_lo)} + {lo_d} * {_decimal(m_hi)}, {_decimal(1 << 32)})"
    return f"pmod({lo_d} * {_decimal(m_lo)} + {cross} * {_decimal(1 << 32)}, {_decimal(1 << 64)})"


def _bits(unsigned: str) -> str:
    """An unsigned DECIMAL below 2**64 as the BIGINT with the same 64 bits."""
    return f"CAST(IF({unsigned} >= {_decimal(1 << 63)}, {unsigned} - {_decimal(1 << 64)}, {unsigned}) AS BIGINT)"


def _times(col: str, m: int) -> list[tuple[str, str]]:
    """Steps setting ``_z`` to the BIGINT bits of ``col * m mod 2**64`` (col: bits of an unsigned value)."""
    return [("_u", _mulmod(f"({col} & {_LOW32})", f"shiftrightunsigned({col}, 32)", m)), ("_z", _bits("_u"))]


def poisson_steps(id_column: str, key_column: str) -> list[tuple[str, str]]:
    """Spark SQL columns computing the hashed Poisson(1) count of (row id, replicate key), one step each.

    Parameters
    ----------
    id_column : str
        Column of the row ids (non-negative BIGINT).
    key_column : str
        Column of the replicate's key (unsigned, ``DECIMAL(20,0)``):
        :func:`engine.pn._replicates.replicate_key`.

    Returns
    -------
    list of (str, str)
        ``(name, expression)`` pairs to add in order; ``_h`` holds the hash's 64 bits (as BIGINT)
        and ``_p`` the count.

    References
    ----------
    Steele, Lea & Flood (2014), splitmix64; Hanley & MacGibbon (2006), the Poisson bootstrap.
    """
    # (id + 1): the low half may carry to 2**32, which the multiplication allows
    start = _mulmod(f"(({id_column} & {_LOW32}) + 1)", f"shiftrightunsigned({id_column}, 32)", GOLDEN)
    flip = "shiftleft(CAST(1 AS BIGINT), 63)"
    count = " + ".join(f"CAST((_h ^ {flip}) >= {t - (1 << 63)} AS INT)" for t in POISSON1_THRESHOLDS)
    return [
        ("_u", f"pmod({start} + {key_column}, {_decimal(1 << 64)})"),
        ("_z", _bits("_u")),
        ("_z", "_z ^ shiftrightunsigned(_z, 30)"),
        *_times("_z", MIX1),
        ("_z", "_z ^ shiftrightunsigned(_z, 27)"),
        *_times("_z", MIX2),
        ("_h", "_z ^ shiftrightunsigned(_z, 31)"),
        ("_p", count),
    ]


def with_poisson_counts(frame, id_column: str, key_column: str):
    """``frame`` with the columns ``_h`` (hash bits) and ``_p`` (Poisson(1) count) added.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        Holding the id and key columns.
    id_column, key_column : str
        As for :func:`poisson_steps`.

    Returns
    -------
    pyspark.sql.DataFrame
        The rows with ``_h`` and ``_p``.
    """
    from pyspark.sql import functions

    for name, sql in poisson_steps(id_column, key_column):
        frame = frame.withColumn(name, functions.expr(sql))
    return frame.drop("_z", "_u")


def _boot_rows(source: SparkSource, score: str, label: str, weight: str | None, id_column: str | None):
    """(rows s, y, w, id; id description): the id column, or the single Parquet file's row positions."""
    if id_column is not None:
        ident = f"try_cast(`{id_column.replace('`', '``')}` AS BIGINT)"
        exact = f"try_cast(`{id_column.replace('`', '``')}` AS DOUBLE) = CAST({ident} AS DOUBLE)"
    elif source.is_single_parquet():
        ident, exact = "_metadata.row_index", "TRUE"
    else:
        raise InputError(
            f"{source.name}: bootstrap replicates need a row id. Give an integer id column (--id COLUMN), "
            "or use a single Parquet file (its row numbers are the ids)."
        )
    col = f"`{score.replace('`', '``')}`"
    weight_sql = "CAST(1.0 AS DOUBLE)" if weight is None else f"try_cast(`{weight.replace('`', '``')}` AS DOUBLE)"
    raw_weight = "CAST(NULL AS STRING)" if weight is None else f"`{weight.replace('`', '``')}`"
    return source.frame().selectExpr(
        f"{col} AS r0",
        f"try_cast({col} AS DOUBLE) AS s0",
        f"{raw_weight} AS rw",
        f"{weight_sql} AS w",
        f"{spark_label_expression(label)} AS y",
        f"{ident} AS id",
        f"{exact} AS id_exact",
    )


def _chunk_counts(rated, thresholds: np.ndarray, replicates: np.ndarray, seed: int):
    """(tp, fp) of shape (len(replicates), len(thresholds)) for one chunk of replicates: one scan."""
    reps = ", ".join(f"named_struct('r', {int(r)}, 'key', {_decimal(replicate_key(int(r), seed))})" for r in replicates)
    crossed = rated.selectExpr("s0", "w", "y", "id", f"inline(array({reps}))")
    counted = with_poisson_counts(crossed, "id", "key").selectExpr(
        "r", "s0", "w * y * _p AS tp", "w * (1 - y) * _p AS fp"
    )
    out = collect_columns(counted.groupBy("r", "s0").sum("tp", "fp").toDF("r", "s", "tp", "fp"))
    row = np.searchsorted(replicates, np.asarray(out["r"], dtype=np.int64))
    col = np.searchsorted(-thresholds, -np.asarray(out["s"], dtype=np.float64))
    d_tp, d_fp = np.zeros((replicates.size, thresholds.size)), np.zeros((replicates.size, thresholds.size))
    d_tp[row, col] = np.asarray(out["tp"], dtype=np.float64)
    d_fp[row, col] = np.asarray(out["fp"], dtype=np.float64)
    return d_tp, d_fp


def spark_replicate_counts(
    source: SparkSource,
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
    source : SparkSource
        Where the rows are.
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
        (n_boot, thresholds): equal to ``poisson_counts(ids, range(n_boot), seed) @`` the rows'
        ``w*y`` / ``w*(1-y)`` grouped by score, and to
        :func:`~engine.backends.duckdb_bootstrap.duckdb_replicate_counts`.

    Raises
    ------
    InputError
        No row id, bad ids (missing, negative, not integers), bad labels / scores / weights.

    References
    ----------
    Hanley & MacGibbon (2006), the Poisson bootstrap; :mod:`engine.pn._replicates`.
    """
    started = time.perf_counter()
    if n_boot < 1:
        raise InputError("the number of bootstrap replicates must be >= 1")
    rows = _boot_rows(source, score, label, weight, id_column)
    with spark_errors(source):
        facts = checked_rows(rows, source, [score], label, weight, positive_weight=False)
        bad = rows.selectExpr("count_if(y IS NOT NULL AND (id IS NULL OR id < 0 OR NOT id_exact))").collect()[0][0]
        if bad:
            raise InputError(
                f"Column '{id_column}' of {source.name}: {bad:,} rated rows have a missing, negative or "
                "non-integer id. Row ids must be integers >= 0."
            )
        rated = rows.where("y IS NOT NULL")
        thresholds = -np.sort(-np.asarray(collect_columns(rated.select("s0").distinct())["s0"], dtype=np.float64))
        chunk = max(1, MAX_REPLICATE_CELLS // thresholds.size)
        parts = [
            _chunk_counts(rated, thresholds, np.arange(start, min(n_boot, start + chunk)), seed)
            for start in range(0, n_boot, chunk)
        ]
    d_tp, d_fp = np.vstack([p[0] for p in parts]), np.vstack([p[1] for p in parts])
    stats = ScanStats(
        "spark", facts["rows"], facts["rated"], facts["unrated"], thresholds.size, time.perf_counter() - started
    )
    return thresholds, d_tp, d_fp, stats


def spark_bootstrap_points(
    source: SparkSource,
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
    """Bootstrap distributions (and intervals) of the operating points, replicates counted by Spark.

    Parameters
    ----------
    source : SparkSource
        Where the rows are.
    score, label, weight, id_column : str
        Columns, as for :func:`spark_replicate_counts`.
    targets : sequence of float
        Target marginal precisions.
    n_boot, seed : int
        Replicates and their seed.
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
    thresholds, d_tp, d_fp, stats = spark_replicate_counts(
        source, score=score, label=label, weight=weight, id_column=id_column, n_boot=n_boot, seed=seed
    )
    return replicate_points(thresholds, d_tp, d_fp, targets, level), stats
