"""The counting kernels on Apache Spark: PN curves, operating points and joint-threshold grids where the rows live.

Robles et al. (AAAI-MAKE 2020) need only aggregated counts. Here Spark computes them over a
DataFrame, a table of the session's catalog, or Parquet / CSV paths and globs, on a local
session or a cluster reached through Spark Connect; only aggregated counts (one row per
distinct score, per quantile bin or per grid cell) are collected to the driver, through Arrow.
The answers are :mod:`~engine.backends.duckdb`'s, which are the in-memory engine's:

* **Sweep**: with at most :data:`~engine.backends.duckdb.DISTINCT_CAP` distinct rated scores the
  whole curve is read (``GROUP BY score``; a HyperLogLog estimate in the check scan says whether
  to read it at once or to count the distinct scores exactly first); above, the scores are cut into quantile bins
  (``percentile_approx`` edges: any edges give the exact answer) and only the bins that can hold
  the optimum are re-read score by score, by the shared :mod:`~engine.backends.counting` code.
* **Grid**: the axes are :func:`engine.pn._grid.make_axes`'s by definition (order statistics at
  :func:`~engine.pn._grid.inverted_cdf_ranks`, found by counting in equal-width bins, no sort);
  each score becomes its level index by a branchless binary search (``element_at`` on a literal
  array), then ONE ``groupBy`` over the k indices; numpy does the cumulative sums.
* **Labels** are mapped with the spellings of :data:`engine.io.LABEL_VALUES`; empty labels are
  unrated (counted, reported, left out); other values raise :class:`~engine.errors.InputError`
  naming the column and the number of rows.

Counts are exact whenever the weighted sums are exact in float64 (no weights, integer or dyadic
weights); otherwise they differ only by the order of float additions. The hashed Poisson
bootstrap is in :mod:`~engine.backends.spark_bootstrap`.
"""

from __future__ import annotations

import glob
import math
import os
import socket
import time
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MAX_LISTED, InputError, listed_rows, shown_values
from ..io.rated import LABEL_VALUES
from ..pn._curve import PNCurve, check_target, upper_hull
from ..pn._grid import ThresholdGrid, axis_from_levels, check_grid_size, cumulative_counts, inverted_cdf_ranks
from ..pn._operating_point import OperatingPoint, sweep
from .counting import (
    BOOLEAN_TEXT,
    binned_point,
    check_counted_rows,
    check_grid_arguments,
    edge_objective,
    select_order_statistics,
)
from .duckdb import BINS, DISTINCT_CAP, ScanStats

__all__ = [
    "SparkSource",
    "spark_session",
    "spark_pn_curve",
    "spark_operating_points",
    "spark_threshold_grid",
    "spark_sample_rows",
    "spark_label_expression",
    "spark_errors",
    "collect_columns",
    "checked_rows",
    "sql_double",
    "order_statistics",
    "INSTALL_HINT",
    "FINE_BINS",
    "FETCH_ROWS",
]

#: what to install when pyspark (or Java) is missing
INSTALL_HINT = (
    "The Spark backend needs pyspark and Java 17: pip install pyspark (>= 3.5; pip install "
    "'pyspark[connect]' for --spark-remote), and a Java 17 runtime on PATH or in JAVA_HOME "
    "(Debian: apt-get install openjdk-17-jre-headless)."
)
#: equal-width bins per pass when order statistics are located by counting
FINE_BINS = 1 << 16
#: a bin with at most this many rated rows is read value by value; larger bins are subdivided
FETCH_ROWS = 1_000_000
#: most subdivisions of one bin
MAX_DEPTH = 64
#: names read as files (anything with a slash or glob character too); other names are catalog tables
PATH_SUFFIXES = (".parquet", ".parq", ".pq", ".csv", ".csv.gz", ".tsv", ".txt")


def _first_line(exc: BaseException) -> str:
    """The line of a Spark error that says what went wrong (py4j's "An error occurred while calling o50.x" and
    Java's exception class names left out)."""
    lines = [line.strip().lstrip(": ").strip() for line in (str(exc).strip() or type(exc).__name__).splitlines()]
    lines = [line for line in lines if line and not line.startswith("An error occurred while calling")] or [""]
    first = lines[0]
    if first.rstrip(":").endswith("awaitResult"):  # a wrapper: the root cause says what happened
        causes = [line.removeprefix("Caused by:").strip() for line in lines if line.startswith("Caused by:")]
        first = causes[-1] if causes else first
    if first.startswith(("org.apache.", "java.", "py4j.")) and ": " in first:
        first = first.split(": ", 1)[1]
    return first[:500]


def _pyspark():
    """(SparkSession, pyspark.sql.functions), or an InputError saying what to install."""
    # pyspark's notice about the pandas release would reach stderr beside the command's own output
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    try:
        from pyspark.sql import SparkSession, functions
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    return SparkSession, functions


def _check_reachable(remote: str, timeout: float = 10.0) -> None:
    """Fail fast (instead of Spark Connect's minutes of retries) when nothing listens at an ``sc://`` URL."""
    if not remote.startswith("sc://"):
        return
    netloc = remote[5:].split("/")[0]
    if netloc.startswith("["):  # [IPv6]:port
        host, _, port = netloc[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = netloc.partition(":")
    try:
        socket.create_connection((host, int(port or 15002)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise InputError(
            f"Cannot reach a Spark Connect server at {host}:{port or 15002} ({exc}). Start one "
            "(sbin/start-connect-server.sh) or check --spark-remote (sc://host:15002)."
        ) from None


def spark_session(remote: str | None = None):
    """The Spark session to count with: Spark Connect at ``remote``, else the active session or a new local one.

    Parameters
    ----------
    remote : str, optional
        A Spark Connect URL (``sc://host:15002``), passed to ``SparkSession.builder.remote``.

    Returns
    -------
    pyspark.sql.SparkSession
        A new local session (all cores, no UI, ERROR logging) only when none is active.

    Raises
    ------
    InputError
        pyspark is not installed, Java is missing, or the Connect server cannot be reached (checked
        with a plain TCP connection first, so an unreachable URL fails in seconds).
    """
    session_class, _ = _pyspark()
    try:
        if remote:
            _check_reachable(remote)
            return session_class.builder.remote(remote).getOrCreate()
        active = session_class.getActiveSession()
        if active is not None:
            return active
        return _local_session(session_class)
    except InputError:
        raise
    except Exception as exc:  # pyspark's own error types (gateway, connect, import of connect's dependencies)
        where = f"Spark Connect at {remote}" if remote else "a local Spark session"
        raise InputError(f"Could not start {where}: {_first_line(exc)}. {INSTALL_HINT}") from None


def _local_session(session_class):
    """A local session whose JVM writes nothing to this process's stdout or stderr.

    The JVM's start-up notices, log4j warnings and executor stack traces would otherwise print dozens
    of lines around the command's one-line error (the command line's contract); Spark's errors still
    reach the caller, as the exceptions :func:`spark_errors` words.
    """
    import subprocess

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    conf = (
        SparkConf()
        .setMaster("local[*]")
        .setAppName("opstudio")
        .set("spark.ui.enabled", "false")
        .set("spark.ui.showConsoleProgress", "false")
        .set("spark.sql.shuffle.partitions", str(max(2, 2 * (os.cpu_count() or 1))))
    )
    if SparkContext._gateway is None:  # a fresh JVM: started quiet
        gateway = launch_gateway(conf, popen_kwargs={"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL})
        SparkContext(conf=conf, gateway=gateway)
    session = session_class.builder.config(conf=conf).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def sql_double(x: float) -> str:
    """A float as an exact Spark SQL double (``repr`` round-trips; Java parses it correctly rounded).

    Parameters
    ----------
    x : float

    Returns
    -------
    str
        ``CAST('…' AS DOUBLE)``.
    """
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def _quote(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


@dataclass(frozen=True)
class SparkSource:
    """Where the rows are for Spark: a DataFrame, a catalog table, or Parquet / CSV paths and globs.

    Attributes
    ----------
    data : pyspark.sql.DataFrame or str
        A DataFrame (classic or Spark Connect), or a name: read as files when it has a slash, a
        glob character or a Parquet / CSV suffix (CSV with a header row, every column text),
        otherwise as a table of the session's catalog.
    remote : str or None
        Spark Connect URL for names; None: the active session, or a new local one.
    """

    data: Any
    remote: str | None = None

    @property
    def name(self) -> str:
        return f"'{self.data}'" if isinstance(self.data, str) else "the DataFrame"

    def is_single_parquet(self) -> bool:
        """True for one Parquet file (its row positions can serve as row ids)."""
        if not isinstance(self.data, str) or any(c in self.data for c in "*?["):
            return False
        return self.data.lower().endswith((".parquet", ".parq", ".pq"))

    def frame(self):
        """The rows as a Spark DataFrame.

        Returns
        -------
        pyspark.sql.DataFrame
            The given DataFrame, or the table or files read by :func:`spark_session`'s session.

        Raises
        ------
        InputError
            pyspark missing, no file matching a local path, or Spark cannot read it.
        """
        if not isinstance(self.data, str):
            if not (hasattr(self.data, "groupBy") and hasattr(self.data, "sparkSession")):
                raise InputError(
                    f"The Spark backend reads a Spark DataFrame or a name, not {type(self.data).__name__}."
                )
            return self.data
        session = spark_session(self.remote)
        name = self.data
        lower = name.lower().rstrip("/")
        with spark_errors(self, "read"):
            if not (any(c in name for c in "/*?[") or lower.endswith(PATH_SUFFIXES)):
                return session.table(name)
            if self.remote is None and "://" not in name and not glob.glob(name):
                raise InputError(f"No file matches '{name}'. Check the path or glob.")
            if lower.endswith((".csv", ".csv.gz", ".txt")):
                return session.read.csv(name, header=True)
            if lower.endswith(".tsv"):
                return session.read.csv(name, header=True, sep="\t")
            return session.read.parquet(name)


@contextmanager
def spark_errors(source: SparkSource, doing: str = "count"):
    """Turn Spark's own errors (analysis, execution, connection) into an InputError naming the source.

    Parameters
    ----------
    source : SparkSource
        What was being read.
    doing : str
        Verb for the message (``read``, ``count``).

    Returns
    -------
    contextmanager
        Re-raises pyspark / py4j exceptions as :class:`~engine.errors.InputError` with their first line.
    """
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        if type(exc).__module__.split(".")[0] in ("pyspark", "py4j", "grpc"):
            raise InputError(f"Spark could not {doing} {source.name}: {_first_line(exc)}") from None
        raise


def collect_columns(frame) -> dict[str, np.ndarray]:
    """An (aggregated) DataFrame's columns as numpy arrays, through Arrow.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        Small: aggregated counts only.

    Returns
    -------
    dict
        Column name -> numpy array.
    """
    if hasattr(frame, "toArrow"):  # pyspark >= 4: Arrow whatever the session's settings
        table = frame.toArrow()
        return {n: table.column(n).to_numpy() for n in table.column_names}
    pdf = frame.toPandas()
    return {str(c): pdf[c].to_numpy() for c in pdf.columns}


def spark_sample_rows(source: SparkSource, n: int = 2_000):
    """The first ``n`` rows as pandas, to detect and map columns.

    Parameters
    ----------
    source : SparkSource
        Where the rows are.
    n : int, optional
        Most rows read.

    Returns
    -------
    pandas.DataFrame
        Every column; CSV columns as text.
    """
    frame = source.frame()
    with spark_errors(source, "read"):
        limited = frame.limit(int(n))
        if hasattr(limited, "toArrow"):
            return limited.toArrow().to_pandas()
        return limited.toPandas()


def spark_label_expression(column: str) -> str:
    """Spark SQL: 0/1 for the accepted label spellings, NULL for empty (unrated), -1 for anything else.

    Parameters
    ----------
    column : str
        The label column.

    Returns
    -------
    str
        A ``CASE`` expression over the text of the column (numbers and booleans cast to text).
    """
    col = _quote(column)
    text = f"lower(trim(CAST({col} AS STRING)))"
    ones = ", ".join(f"'{k}'" for k, v in LABEL_VALUES.items() if v == 1)
    zeros = ", ".join(f"'{k}'" for k, v in LABEL_VALUES.items() if v == 0)
    # a number written otherwise ("1.00", "0e0") is the label it equals, as in memory (engine.io.rated.parse_labels)
    return (
        f"CASE WHEN {col} IS NULL OR {text} = '' THEN NULL WHEN {text} IN ({ones}) THEN 1 "
        f"WHEN {text} IN ({zeros}) THEN 0 WHEN try_cast({text} AS DOUBLE) = 1 THEN 1 "
        f"WHEN try_cast({text} AS DOUBLE) = 0 THEN 0 ELSE -1 END"
    )


def _columns(frame, scores: Sequence[str], label: str, weight: str | None, extra: Sequence[str] = ()):
    """Raw and numeric scores (r0.., s0..), raw label rl and label y, raw and numeric weight (rw, w), and ``extra``
    expressions."""
    cols = [f"{_quote(label)} AS rl"]
    for j, name in enumerate(scores):
        cols += [f"{_quote(name)} AS r{j}", f"try_cast({_quote(name)} AS DOUBLE) AS s{j}"]
    if weight is None:
        cols += ["CAST(NULL AS STRING) AS rw", "CAST(1.0 AS DOUBLE) AS w"]
    else:
        cols += [f"{_quote(weight)} AS rw", f"try_cast({_quote(weight)} AS DOUBLE) AS w"]
    return frame.selectExpr(*cols, f"{spark_label_expression(label)} AS y", *extra)


def _not_a_number(frame, raw: str, num: str) -> str:
    """Rows whose raw value is text that is not a number (FALSE for numeric columns)."""
    from pyspark.sql.types import NullType, NumericType

    if isinstance(frame.schema[raw].dataType, (NumericType, NullType)):
        return "FALSE"
    return f"({num} IS NULL AND {raw} IS NOT NULL AND trim(CAST({raw} AS STRING)) <> '')"


def _check_exprs(frame, k: int, distinct: bool) -> list[str]:
    inf = "CAST('Infinity' AS DOUBLE)"
    parts = ["count(*)", "count_if(y IS NULL)", "count_if(y = -1)"]
    for j in range(k):
        parts += [
            f"count_if({_not_a_number(frame, f'r{j}', f's{j}')})",
            f"count_if(abs(s{j}) = {inf})",
            f"count_if(y IS NOT NULL AND (s{j} IS NULL OR isnan(s{j})))",
            f"min(CASE WHEN y IS NOT NULL THEN s{j} END)",
            f"max(CASE WHEN y IS NOT NULL THEN s{j} END)",
        ]
    parts += [
        f"count_if({_not_a_number(frame, 'rw', 'w')})",
        f"count_if(y IS NOT NULL AND (w IS NULL OR isnan(w) OR abs(w) = {inf} OR w < 0))",
        f"coalesce(sum(CASE WHEN y IS NOT NULL AND w >= 0 AND abs(w) < {inf} THEN w END), 0D)",
    ]
    if distinct:  # HyperLogLog (one pass, no shuffle of the scores); the exact count comes from the scores read
        parts.append("approx_count_distinct(CASE WHEN y IS NOT NULL THEN s0 END, 0.02)")
    return [f"{p} AS c{i}" for i, p in enumerate(parts)]


def checked_rows(
    frame,
    source: SparkSource,
    scores: Sequence[str],
    label: str,
    weight: str | None,
    *,
    distinct: bool = False,
    positive_weight: bool = True,
) -> dict:
    """One scan of the checks the memory engine makes, refusing bad rows with the column and the count.

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        Columns ``r0.., s0.., rw, w, y`` (as :func:`_columns` selects them).
    source : SparkSource
        For the messages.
    scores, label, weight : str
        Column names, for the messages.
    distinct : bool
        Also estimate the number of distinct rated scores of ``s0`` (HyperLogLog, 2 % relative
        error; :func:`_distinct_scores` makes it exact).
    positive_weight : bool
        Refuse rated rows that all weigh 0.

    Returns
    -------
    dict
        ``rows``, ``rated``, ``unrated``, ``lows``, ``highs`` (rated min / max per score),
        ``approx_distinct``.

    Raises
    ------
    InputError
        Unknown labels, non-numeric / infinite / missing scores, bad weights, no rated rows.
    """
    from pyspark.sql.types import BooleanType

    values = list(frame.selectExpr(*_check_exprs(frame, len(scores), distinct)).collect()[0])
    raw = {name: (f"r{j}", values[3 + 5 * j]) for j, name in enumerate(scores)}
    if weight is not None:
        raw[weight] = ("rw", values[3 + 5 * len(scores)])
    listed = ", ".join(f"'{v}'" for v in BOOLEAN_TEXT)
    booleans = {
        n
        for n, (r, not_number) in raw.items()
        if isinstance(frame.schema[r].dataType, BooleanType)
        or (not_number and not frame.where(f"{r} IS NULL OR {r} NOT IN ({listed})").limit(1).count())
    }
    rows, rated, unrated, lows, highs = check_counted_rows(
        values,
        where=source.name,
        scores=scores,
        label=label,
        weight=weight,
        positive_weight=positive_weight,
        locate=_Locator(frame, scores, label, weight),
        booleans=booleans,
    )
    return {
        "rows": rows,
        "rated": rated,
        "unrated": unrated,
        "lows": lows,
        "highs": highs,
        "approx_distinct": values[-1] if distinct else None,
    }


class _Locator:
    """The first offending values and rows of checked rows, worded as the memory engine words them.

    A row's number is its position in its file: Spark numbers rows by partition
    (``monotonically_increasing_id``: the partition in the upper bits), and a file's rows are
    contiguous and in order within each partition, so the rows of a file before a given row are
    its rows in earlier partitions plus those before it in its own. Only aggregates (rows per file
    and partition, the first offending rows and values) leave the cluster, and only when a check fails.
    """

    def __init__(self, frame, scores, label: str, weight: str | None) -> None:
        self.frame = frame
        self.columns = {label: ("rl", "y"), **{n: (f"r{j}", f"s{j}") for j, n in enumerate(scores)}}
        if weight is not None:
            self.columns[weight] = ("rw", "w")

    def __call__(self, kind: str, column: str, n: int) -> str:
        raw, num = self.columns[column]
        inf = "CAST('Infinity' AS DOUBLE)"
        where = {
            "label": "y = -1",
            "not_number": _not_a_number(self.frame, raw, num),
            "infinite": f"abs({num}) = {inf}",
            "missing_score": f"y IS NOT NULL AND ({num} IS NULL OR isnan({num}))",
            "weight": f"y IS NOT NULL AND (w IS NULL OR isnan(w) OR abs(w) = {inf} OR w < 0)",
        }[kind]
        numbered = self.frame.selectExpr("*", "input_file_name() AS f", "monotonically_increasing_id() AS mid")
        bad = numbered.where(where)
        first = bad.orderBy("f", "mid").limit(MAX_LISTED).select("f", "mid").collect()
        shown = ""
        if kind in ("label", "not_number"):
            found = (
                bad.groupBy(raw)
                .agg({"mid": "min", "f": "min"})
                .toDF("v", "mid", "f")
                .orderBy("f", "mid")
                .limit(8 * MAX_LISTED)
                .collect()
            )
            values = [str(r["v"]).strip() if kind == "not_number" else r["v"] for r in found if r["v"] is not None]
            shown = shown_values(values, self._numeric(raw)) + " "
        return f"{shown}at {self._rows(numbered, first, n)}"

    def _numeric(self, raw: str) -> bool:
        from pyspark.sql.types import NumericType, StringType

        kind = self.frame.schema[raw].dataType
        if isinstance(kind, NumericType):
            return True
        if not isinstance(kind, StringType):
            return False
        text = f"trim({raw})"
        return not self.frame.where(f"{text} <> '' AND try_cast({text} AS DOUBLE) IS NULL").limit(1).count()

    def _rows(self, numbered, first, n: int) -> str:
        chunks = collect_columns(
            numbered.selectExpr("f", "shiftright(mid, 33) AS part", "mid")
            .groupBy("f", "part")
            .agg({"mid": "min", "*": "count"})
            .toDF("f", "part", "start", "rows")
        )
        names = np.asarray(chunks["f"]).astype(str)
        several = np.unique(names).size > 1
        named = []
        for row in first:
            f, mid = str(row["f"]), int(row["mid"])
            part, start, count = (np.asarray(chunks[k])[names == f] for k in ("part", "start", "rows"))
            before = int(count[part < (mid >> 33)].sum()) + mid - int(start[part == (mid >> 33)][0])
            named.append(f"{before + 1} of '{f.removeprefix('file:').removeprefix('//')}'" if several else before)
        if several:
            return listed_rows(named, n, "(row 1 = first data row of each file)")
        return listed_rows(named, n)


def _grouped(rated, col: str = "s0") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rated scores (descending) with their weighted positives and negatives."""
    out = collect_columns(
        rated.selectExpr(f"{col} AS s", "w * y AS tp", "w * (1 - y) AS fp")
        .groupBy("s")
        .sum("tp", "fp")
        .toDF("s", "tp", "fp")
    )
    s = np.asarray(out["s"], dtype=np.float64)
    order = np.argsort(-s, kind="stable")
    return s[order], np.asarray(out["tp"], dtype=np.float64)[order], np.asarray(out["fp"], dtype=np.float64)[order]


def _distinct_scores(rated, approx: int, cap: int):
    """(exact number of distinct rated scores, the grouped curve counts when that is at most ``cap``, else None).

    Clearly under the cap (the estimate at most 0.8 cap) the scores are grouped and read at once, and
    their number is the exact count; otherwise one ``count`` of the distinct scores decides first.
    """
    if approx <= 0.8 * cap:
        grouped = _grouped(rated)
        if grouped[0].size <= cap:
            return grouped[0].size, grouped
        return grouped[0].size, None
    distinct = rated.select("s0").distinct().count()
    return distinct, (_grouped(rated) if distinct <= cap else None)


def spark_pn_curve(source: SparkSource, *, score: str, label: str, weight: str | None = None):
    """The exact PN curve (every distinct rated score) counted by Spark, and what was scanned.

    Parameters
    ----------
    source : SparkSource
        Where the rows are.
    score, label : str
        Column of the scores and of the labels (spellings of :data:`engine.io.LABEL_VALUES`;
        empty = unrated).
    weight : str, optional
        Column of non-negative row weights; every row weighs 1 when None.

    Returns
    -------
    (PNCurve, ScanStats)
        Equal to :func:`engine.pn.pn_curve` on the rated rows; the scan's statistics.

    Raises
    ------
    InputError
        Unreadable columns, bad labels / scores / weights, or more than
        :data:`~engine.backends.duckdb.DISTINCT_CAP` distinct scores.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the PN curve is TP and FP at or above each threshold.
    """
    started = time.perf_counter()
    frame = source.frame()
    with spark_errors(source):
        rows = _columns(frame, [score], label, weight)
        facts = checked_rows(rows, source, [score], label, weight, distinct=True, positive_weight=False)
        distinct, grouped = _distinct_scores(rows.where("y IS NOT NULL"), facts["approx_distinct"], DISTINCT_CAP)
        if grouped is None:
            raise InputError(
                f"{distinct:,} distinct scores: more than {DISTINCT_CAP:,} are not read as a "
                "whole curve; operating points are still exact (quantile bins with exact refinement)."
            )
        s, tp, fp = grouped
    stats = ScanStats("spark", facts["rows"], facts["rated"], facts["unrated"], distinct, time.perf_counter() - started)
    return PNCurve(s, np.cumsum(tp), np.cumsum(fp)), stats


def spark_operating_points(
    source: SparkSource,
    *,
    score: str,
    label: str,
    targets,
    weight: str | None = None,
    distinct_cap: int = DISTINCT_CAP,
    bins: int = BINS,
):
    """Operating points for target marginal precisions, counted by Spark where the rows are.

    Parameters
    ----------
    source : SparkSource
        Where the rows are.
    score, label : str
        Column of the scores and of the labels (empty = unrated).
    targets : float or sequence of float
        Target marginal precisions in (0, 1).
    weight : str, optional
        Column of non-negative row weights.
    distinct_cap, bins : int, optional
        Above ``distinct_cap`` distinct scores, ``bins`` quantile bins plus exact refinement.

    Returns
    -------
    (list of OperatingPoint, ScanStats)
        Equal (threshold, TP, FP) to the in-memory engine's and to
        :func:`~engine.backends.duckdb.duckdb_operating_points`; binned: NaN marginal precisions.

    Raises
    ------
    InputError
        A target outside (0, 1), unreadable columns, bad labels / scores / weights, no rated row.

    References
    ----------
    Robles et al., AAAI-MAKE 2020: the operating point maximises TP − λ·FP on the PN curve.
    """
    started = time.perf_counter()
    targets = np.atleast_1d(check_target(targets))
    frame = source.frame()
    with spark_errors(source):
        rows = _columns(frame, [score], label, weight)
        facts = checked_rows(rows, source, [score], label, weight, distinct=True, positive_weight=False)
        rated = rows.where("y IS NOT NULL")
        distinct, grouped = _distinct_scores(rated, facts["approx_distinct"], distinct_cap)
        if grouped is not None:
            s, tp, fp = grouped
            points = sweep(targets=targets, hull=upper_hull(PNCurve(s, np.cumsum(tp), np.cumsum(fp))))
        else:
            points = _binned_points(rated, targets, bins, facts["lows"][0], facts["highs"][0])
    return points, ScanStats(
        "spark",
        facts["rows"],
        facts["rated"],
        facts["unrated"],
        distinct,
        time.perf_counter() - started,
        grouped is None,
    )


def _with_level_index(frame, col: str, axis: np.ndarray, name: str):
    """Add ``name`` = number of ``axis[:-1]`` levels <= ``col`` (branchless binary search; ``axis[-1]`` pads)."""
    levels = axis[:-1]
    size = 1 << int(levels.size).bit_length()  # > levels.size, a power of two
    padded = np.full(size, axis[-1])  # above every score: never <= one
    padded[: levels.size] = levels
    array = "array(" + ", ".join(sql_double(v) for v in padded) + ")"
    frame = frame.selectExpr("*", f"0 AS {name}")
    step = size // 2
    while step >= 1:
        frame = frame.withColumn(
            name, _expr(f"{name} + {step} * CAST({col} >= element_at({array}, {name} + {step}) AS INT)")
        )
        step //= 2
    return frame


def _expr(sql: str):
    return _pyspark()[1].expr(sql)


def _binned_points(rated, targets: np.ndarray, bins: int, low: float, high: float) -> list[OperatingPoint]:
    """Quantile bins (approximate edges: any edges are exact), then the candidate bins re-read score by score."""
    q = ", ".join(sql_double(x) for x in np.linspace(0, 1, bins + 1)[:-1])
    approx = rated.selectExpr(f"percentile_approx(s0, array({q}), 10000) AS e").collect()[0][0]
    edges = np.unique(np.r_[low, np.asarray(approx, dtype=np.float64)])
    edges = np.r_[edges, np.nextafter(high, math.inf)]
    binned = _with_level_index(rated, "s0", edges, "b").selectExpr(
        "b - 1 AS b", "s0", "w * y AS tp", "w * (1 - y) AS fp"
    )
    counts = collect_columns(binned.groupBy("b").sum("tp", "fp").toDF("b", "tp", "fp"))
    b = np.asarray(counts["b"], dtype=np.int64)
    tp_bin = np.bincount(b, weights=np.asarray(counts["tp"], dtype=float), minlength=edges.size - 1)
    fp_bin = np.bincount(b, weights=np.asarray(counts["fp"], dtype=float), minlength=edges.size - 1)
    terms = [edge_objective(tp_bin, fp_bin, float(t)) for t in targets]
    wanted = sorted({int(c) for t in terms for c in t[4]}) or [0]  # never empty: the best edge's bin qualifies
    inside = binned.where(f"b IN ({', '.join(map(str, wanted))})").groupBy("b", "s0").sum("tp", "fp")
    cols = collect_columns(inside.toDF("b", "s", "tp", "fp"))
    per_bin = {}
    for bin_id in wanted:
        mask = np.asarray(cols["b"]) == bin_id
        s = np.asarray(cols["s"], dtype=np.float64)[mask]
        order = np.argsort(-s, kind="stable")
        per_bin[bin_id] = tuple(np.asarray(cols[k], dtype=np.float64)[mask][order] for k in ("s", "tp", "fp"))
    return [binned_point(float(t), term, per_bin) for t, term in zip(targets, terms)]


def _bin_sql(col: str, params: dict) -> str:
    """Equal-width bin of a score over [low, high] (monotone in the score: every bin is an interval)."""
    return (
        f"least({FINE_BINS - 1}, CAST(floor(({col} * 0.5D - {sql_double(params['low'] * 0.5)}) * "
        f"{sql_double(params['scale'])}) AS BIGINT))"
    )


def _between(col: str, params: dict) -> str:
    return f"{col} BETWEEN {sql_double(params['low'])} AND {sql_double(params['high'])}"


def _fine_bins(rated, col: str, low: float, high: float):
    """Equal-width bins of the rated scores over [low, high]: (params, sorted (bin, count, min, max)) or None."""
    scale = FINE_BINS / (high * 0.5 - low * 0.5)  # halves: no overflow for any finite low, high
    if not math.isfinite(scale):
        return None
    params = {"low": low, "high": high, "scale": scale}
    binned = rated.where(_between(col, params)).selectExpr(f"{_bin_sql(col, params)} AS b", f"{col} AS v")
    out = collect_columns(
        binned.groupBy("b").agg(_expr("count(*)").alias("c"), _expr("min(v)").alias("lo"), _expr("max(v)").alias("hi"))
    )
    order = np.argsort(out["b"])
    return params, [(int(out["b"][i]), int(out["c"][i]), float(out["lo"][i]), float(out["hi"][i])) for i in order]


def _values(rated, col: str, params: dict, bin_ids: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rated scores in [low, high] (only in the given fine bins, if any) and their counts, ascending."""
    part = rated.where(_between(col, params))
    if bin_ids is not None:
        part = part.where(f"{_bin_sql(col, params)} IN ({', '.join(str(int(b)) for b in bin_ids)})")
    out = collect_columns(part.groupBy(col).count().toDF("v", "c"))
    order = np.argsort(out["v"])
    return np.asarray(out["v"], dtype=np.float64)[order], np.asarray(out["c"], dtype=np.int64)[order]


def _levels(rated, j: int, n: int, low: float, high: float, bins: int, spacing: str) -> np.ndarray:
    """The score levels of classifier j's axis, as :func:`engine.pn._grid.make_axes` defines them."""
    if spacing == "uniform":
        return np.linspace(low, high, bins - 1)
    ranks = inverted_cdf_ranks(n, bins - 1)
    found = order_statistics(rated, f"s{j}", ranks, low=low, high=high)
    return np.array([found[int(r)] for r in ranks])


def order_statistics(rows, col: str, ranks: np.ndarray, *, low: float, high: float) -> dict[int, float]:
    """Exact order statistics (0-based ``ranks`` among the values of ``col`` in ``rows``) by counting in Spark.

    Parameters
    ----------
    rows : pyspark.sql.DataFrame
        The rows whose values are ranked (column ``col``, no missing values).
    col : str
        The column.
    ranks : numpy.ndarray
        Ranks wanted.
    low, high : float
        The smallest and largest value.

    Returns
    -------
    dict
        Rank -> value, equal to ``numpy.sort(values)[rank]``.

    References
    ----------
    Hyndman & Fan (1996), definition 1; selection by counting (radix-style refinement).
    """
    return select_order_statistics(
        lambda lo, hi: _fine_bins(rows, col, lo, hi),
        lambda params, ids: _values(rows, col, params, ids),
        ranks,
        low=low,
        high=high,
        fetch_rows=FETCH_ROWS,
        max_depth=MAX_DEPTH,
    )


def _cell_counts(rated, axes: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """ONE groupBy over the k level indices: (histogram of w*y, histogram of w*(1-y), non-empty cells)."""
    frame = rated
    for j, axis in enumerate(axes):
        frame = _with_level_index(frame, f"s{j}", axis, f"e{j}")
    names = [f"e{j}" for j in range(len(axes))]
    out = collect_columns(
        frame.selectExpr(*names, "w * y AS tp", "w * (1 - y) AS fp")
        .groupBy(*names)
        .sum("tp", "fp")
        .toDF(*names, "tp", "fp")
    )
    shape = tuple(a.size + 1 for a in axes)
    index = tuple(np.asarray(out[n], dtype=np.int64) for n in names)
    hist_tp, hist_fp = np.zeros(shape), np.zeros(shape)
    hist_tp[index] = np.asarray(out["tp"], dtype=np.float64)
    hist_fp[index] = np.asarray(out["fp"], dtype=np.float64)
    return hist_tp, hist_fp, int(index[0].size)


def spark_threshold_grid(
    source: SparkSource,
    *,
    scores: Sequence[str],
    label: str,
    weight: str | None = None,
    bins: int | Sequence[int] = 100,
    rule: str = "or",
    spacing: str = "quantile",
) -> tuple[ThresholdGrid, ScanStats]:
    """TP and FP on the joint threshold grid of k classifiers, counted by Spark.

    Parameters
    ----------
    source : SparkSource
        A DataFrame, a catalog table, or Parquet / CSV paths and globs.
    scores : sequence of str
        Score columns, one per classifier (k >= 1).
    label, weight : str
        Label column (empty = unrated: counted, reported, left out) and optional weight column.
    bins : int or sequence of int
        Thresholds per axis, as for :func:`engine.pn._grid.make_axes`.
    rule : {"or", "and"}
    spacing : {"quantile", "uniform"}

    Returns
    -------
    (ThresholdGrid, ScanStats)
        The grid :func:`engine.pn.threshold_grid` gives on the rated rows (axes bit for bit;
        counts equal whenever the weighted sums are exact in float64); ``distinct_scores`` of the
        statistics holds the number of non-empty histogram cells.

    Raises
    ------
    InputError
        Unreadable columns, bad labels / scores / weights, no rated rows, or a grid over
        :data:`engine.pn._grid.MAX_GRID_CELLS` cells.

    References
    ----------
    Robles et al., AAAI-MAKE 2020, "For an ensemble of classifiers", eq. (1).
    """
    started = time.perf_counter()
    scores, bins_list, rule = check_grid_arguments(scores, bins, rule, spacing)
    frame = source.frame()
    with spark_errors(source):
        rows = _columns(frame, scores, label, weight)
        facts = checked_rows(rows, source, scores, label, weight)
        rated = rows.where("y IS NOT NULL")
        lows, highs = facts["lows"], facts["highs"]
        axes = tuple(
            axis_from_levels(
                _levels(rated, j, facts["rated"], lows[j], highs[j], bins_list[j], spacing), lows[j], highs[j]
            )
            for j in range(len(scores))
        )
        check_grid_size([a.size for a in axes])
        hist_tp, hist_fp, cells = _cell_counts(rated, axes)
    seconds = time.perf_counter() - started
    grid = ThresholdGrid(
        axes=axes,
        tp=cumulative_counts(hist_tp, rule, hist_tp.sum()),
        fp=cumulative_counts(hist_fp, rule, hist_fp.sum()),
        rule=rule,
        score_names=tuple(scores),
        seconds=seconds,
    )
    return grid, ScanStats("spark", facts["rows"], facts["rated"], facts["unrated"], cells, seconds)
