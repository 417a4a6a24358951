"""Monitoring counts on DuckDB: rated rows counted per (period, score) where they lie, only counts leave.

:func:`engine.monitor.monitor` needs nothing but the positives and negatives of every
(period, score level); DuckDB computes them with one ``GROUP BY`` over Parquet / CSV files
(paths or globs) or a table of a DuckDB database, out of core, and the result is the
in-memory engine's :func:`engine.monitor.period_counts` exactly (the tests compare them).

Dates are read as the memory engine reads them (:func:`engine.io._rated.parse_dates`): a DATE /
TIMESTAMP column as it is (a time-zone-aware one in UTC), text when it starts with ``YYYY-MM-DD``
(the day written, whatever time or offset follows; a CSV file's date column is always read as
text, as pandas reads it). Two scans: the label and
score checks every backend shares (:func:`~engine.backends._counted.checked`), then one
``GROUP BY`` that counts and checks the dates. Above :data:`~engine.backends._counted.DISTINCT_CAP`
distinct (period, score) pairs the scores are cut at quantile edges (``quantile_disc``, as the
sweep's binned mode) with the deployed threshold made an edge, so TP and FP at the threshold stay
exact and re-solved thresholds are read at bin edges (``binned`` is set).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io._rated import DATE_TEXT_PATTERN
from ..monitor._counts import PeriodCounts, check_threshold, counts_from_groups
from ..monitor._periods import calendar, check_period
from ._counted import BINS, DISTINCT_CAP, checked
from ._duckdb import DuckCounter, DuckSource, ScanStats, duckdb_problem, quote_identifier

__all__ = ["duckdb_period_counts"]

_EPOCH = "DATE '1970-01-01'"


def _date_expressions(con, source: DuckSource, date: str, relation: str) -> tuple[str, str]:
    """SQL for the day of each row (NULL when empty or not a date) and for the raw text checked (NULL for
    DATE / TIMESTAMP columns: nothing to parse), by the column's type."""
    try:
        kind = con.execute(f"DESCRIBE SELECT {quote_identifier(date)} FROM {relation}").fetchall()[0][1]
    except Exception as exc:  # duckdb's own error types (binder, IO)
        raise InputError(
            f"DuckDB could not read the date column '{date}' from '{source.path}': {duckdb_problem(source, exc)}"
        ) from None
    col = quote_identifier(date)
    if kind.startswith(("DATE", "TIMESTAMP")):
        return f"CAST({col} AS DATE)", "CAST(NULL AS VARCHAR)"
    if kind == "VARCHAR":
        text = f"trim({col})"
        return (
            f"CASE WHEN regexp_full_match({text}, '{DATE_TEXT_PATTERN}') THEN TRY_CAST(substr({text}, 1, 10) "
            "AS DATE) END",
            text,
        )
    raise InputError(
        f"Date column '{date}' of '{source.path}' holds {kind} values, not dates. Write the day each "
        "document was rated as YYYY-MM-DD (e.g. 2025-01-06)."
    )


def _period_key(period: str) -> str:
    if period == "day":
        return f"(d - {_EPOCH})"
    return f"(CAST(date_trunc('{period}', d) AS DATE) - {_EPOCH})"


def _counter(source: DuckSource, score: str, label: str, date: str) -> DuckCounter:
    # the connection's TimeZone is UTC (DuckSource.connect): a time-zone-aware timestamp's day is its UTC day; a
    # CSV file's dates are text, as in memory (DuckDB's sniffer would turn '2025-01-06T01:30+05:00' into an
    # instant of 2025-01-05 in UTC), so their day is the one written
    # the score and label as text too, as grid_view reads a CSV file's checked columns
    text = [date, score, label]
    relation = source.relation(text_columns=text) if source.file_format == "CSV" else source.relation()
    con = source.connect()
    try:
        day, raw = _date_expressions(con, source, date, relation)
    finally:
        con.close()
    return DuckCounter(source, [score], label, None, relation=relation, extra=[f"{day} AS d", f"{raw} AS raw_date"])


def _keyed(con, period: str) -> None:
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW keyed AS SELECT s0 AS s, y, d, raw_date, {_period_key(period)} AS p "
        "FROM grid_rows WHERE y IS NOT NULL"
    )


def _grouped(con, source: DuckSource, date: str) -> tuple[int, int, int]:
    """Count every (period, score) of the rated rows into the temp table ``g`` in one scan, checking the dates
    on the way; (first day, last day as days since the epoch, groups)."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE g AS SELECT p, s, sum(y) AS pos, count(*) - sum(y) AS neg, "
        f"min(d) - {_EPOCH} AS first_day, max(d) - {_EPOCH} AS last_day, "
        "count(*) FILTER (WHERE d IS NULL AND raw_date <> '') AS bad, "
        "count(*) FILTER (WHERE d IS NULL AND (raw_date IS NULL OR raw_date = '')) AS missing "
        "FROM keyed GROUP BY p, s"
    )
    bad, missing, first, last, groups = con.execute(
        "SELECT sum(bad), sum(missing), min(first_day), max(last_day), count(*) FROM g"
    ).fetchall()[0]
    if bad:
        shown = ", ".join(
            repr(v[0])
            for v in con.execute(
                "SELECT DISTINCT raw_date FROM grid_rows WHERE y IS NOT NULL AND d IS NULL AND raw_date <> '' LIMIT 5"
            ).fetchall()
        )
        raise InputError(
            f"Date column '{date}' of '{source.path}': {bad:,} rated rows have values that are not dates "
            f"({shown}). Write dates as YYYY-MM-DD (a time may follow, e.g. 2025-01-06 14:30)."
        )
    if missing:
        raise InputError(
            f"Date column '{date}' of '{source.path}': {missing:,} rated rows have no date. Every rated "
            "document needs the day it was rated (YYYY-MM-DD)."
        )
    return int(first), int(last), int(groups)


def _binned_groups(con, threshold: float | None, bins: int):
    """(period day, bin lower edge, positives, negatives) with quantile edges (and the threshold as an edge)."""
    q = ", ".join(repr(float(x)) for x in np.linspace(0, 1, bins + 1)[:-1])
    edges = np.asarray(con.execute(f"SELECT quantile_disc(s, [{q}]) FROM keyed").fetchall()[0][0], dtype=np.float64)
    if threshold is not None:
        edges = np.r_[edges, threshold]
    edges = np.unique(edges)
    con.register("edge_table", pd.DataFrame({"e": edges}))
    # each rated row goes to the last edge at or below its score; rows under the lowest edge keep their own score
    return con.execute(
        "SELECT p, coalesce(e, s) AS level, sum(y), count(*) - sum(y) FROM keyed ASOF LEFT JOIN "
        "edge_table ON keyed.s >= edge_table.e GROUP BY p, level"
    ).fetchnumpy()


def duckdb_period_counts(
    source: DuckSource,
    *,
    score: str,
    label: str,
    date: str,
    period: str = "week",
    threshold: float | None = None,
    distinct_cap: int = DISTINCT_CAP,
    bins: int = BINS,
) -> tuple[PeriodCounts, ScanStats]:
    """Rated rows counted per (period, score) by DuckDB, equal to :func:`engine.monitor.period_counts`.

    Parameters
    ----------
    source : DuckSource
        Where the rows are.
    score, label, date : str
        Columns of the classifier's scores, the raters' labels (empty = unrated) and the day rated.
    period : {"day", "week", "month"}, optional
        Period length (weeks start on Monday).
    threshold : float, optional
        The deployed threshold: made a bin edge when the scores are binned.
    distinct_cap, bins : int, optional
        Above ``distinct_cap`` distinct (period, score) pairs, ``bins`` quantile bins.

    Returns
    -------
    (PeriodCounts, ScanStats)

    Raises
    ------
    InputError
        Columns missing, unknown labels, missing or infinite scores on rated rows, dates that are
        missing or not dates on rated rows, a numeric date column, no rated row, an unknown period.
    """
    started = time.perf_counter()
    period = check_period(period)
    t = None if threshold is None else check_threshold(threshold)
    with _counter(source, score, label, date) as counter:
        con = counter.con
        _keyed(con, period)
        rows, rated, unrated, _, _ = checked(counter, positive_weight=False)
        first, last, groups = _grouped(con, source, date)
        binned = groups > distinct_cap
        out = _binned_groups(con, t, bins) if binned else con.execute("SELECT p, s, pos, neg FROM g").fetchnumpy()
    p_day, level, pos, neg = (np.asarray(v) for v in out.values())
    epoch = np.datetime64("1970-01-01", "D")
    cal = calendar(epoch + np.timedelta64(first, "D"), epoch + np.timedelta64(last, "D"), period)
    index = np.searchsorted(cal.starts, epoch + p_day.astype(np.int64).astype("timedelta64[D]"))
    counts = counts_from_groups(
        cal,
        index,
        level.astype(np.float64),
        pos.astype(np.float64),
        neg.astype(np.float64),
        binned=binned,
        rows_scanned=rows,
        unrated=unrated,
    )
    return counts, ScanStats(
        "duckdb", rows, rated, unrated, int(counts.scores.size), time.perf_counter() - started, binned
    )
