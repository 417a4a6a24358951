"""Spark's counting primitives: PN curves, operating points, grids and replicates counted where the rows live.

:class:`SparkCounter` implements :class:`~engine.backends._protocol.Counter` over a DataFrame, a
table of the session's catalog, or Parquet / CSV paths and globs, on a local session or a cluster
reached through Spark Connect; only aggregated counts (one row per distinct score, quantile bin,
grid cell or replicate) are collected to the driver, through Arrow. :mod:`engine.backends._counted`
builds the answers on top, the same as DuckDB's and the in-memory engine's:

* quantile edges are ``percentile_approx`` (any edges give the exact answer); a HyperLogLog estimate
  in the check scan says whether to read the curve at once or count the distinct scores first;
* a score's level index is a branchless binary search (``element_at`` on a literal array);
* the hashed Poisson(1) counts: Spark has no unsigned 64-bit integers, and under ANSI mode (Spark 4's
  default) a BIGINT product that wraps is an error, so the hash keeps a 64-bit value as the bit pattern
  of a BIGINT (xor and logical shifts ``shiftrightunsigned``) and multiplies modulo 2**64 from 32-bit
  halves in ``DECIMAL(38,0)`` (every partial sum stays below 2**66)::

      (hi·2**32 + lo) · m  mod 2**64  =  lo·m_lo + ((hi·m_lo + lo·m_hi) mod 2**32) · 2**32   mod 2**64

  The unsigned comparison with the table uses the signed order after flipping the sign bit. Row ids: an
  integer id column, or a single Parquet file's ``_metadata.row_index``.
* **Labels** are mapped with the spellings of :data:`engine.io.LABEL_VALUES`; empty labels are
  unrated (counted, reported, left out).

Counts are exact whenever the weighted sums are exact in float64 (no weights, integer or dyadic
weights); otherwise they differ only by the order of float additions.
"""

from __future__ import annotations

import glob
import os
import socket
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MAX_LISTED, InputError, listed_rows, shown_values
from ..io._rated import LABEL_VALUES
from ..pn.counting import GOLDEN, MIX1, MIX2, POISSON1_THRESHOLDS, replicate_key
from ._counting import BOOLEAN_TEXT
from ._duckdb import no_row_id

__all__ = [
    "SparkSource",
    "spark_session",
    "SparkCounter",
    "spark_label_expression",
    "spark_errors",
    "collect_columns",
    "sql_double",
    "fine_bins",
    "value_counts",
    "poisson_steps",
    "with_poisson_counts",
    "INSTALL_HINT",
]

#: what to install when pyspark (or Java) is missing
INSTALL_HINT = (
    "The Spark backend needs pyspark and Java 17: pip install pyspark (>= 3.5; pip install "
    "'pyspark[connect]' for --spark-remote), and a Java 17 runtime on PATH or in JAVA_HOME "
    "(Debian: apt-get install openjdk-17-jre-headless)."
)
_LOW32 = (1 << 32) - 1
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

    def first_rows(self, n: int = 2_000):
        """The first ``n`` rows as pandas (every column; CSV columns as text), to detect and map columns.

        Parameters
        ----------
        n : int, optional
            Most rows read.

        Returns
        -------
        pandas.DataFrame
        """
        frame = self.frame()
        with spark_errors(self, "read"):
            limited = frame.limit(int(n))
            if hasattr(limited, "toArrow"):
                return limited.toArrow().to_pandas()
            return limited.toPandas()

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
    # a number written otherwise ("1.00", "0e0") is the label it equals, as in memory (engine.io._rated.parse_labels)
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


def _bin_sql(col: str, params: dict) -> str:
    """Equal-width bin of a score over [low, high] (monotone in the score: every bin is an interval)."""
    return (
        f"least({int(params['top'])}, CAST(floor(({col} * 0.5D - {sql_double(params['low'] * 0.5)}) * "
        f"{sql_double(params['scale'])}) AS BIGINT))"
    )


def _between(col: str, params: dict) -> str:
    return f"{col} BETWEEN {sql_double(params['low'])} AND {sql_double(params['high'])}"


def fine_bins(rated, col: str, params: dict) -> list[tuple[int, int, float, float]]:
    """Equal-width bins of the values of ``col`` in ``rated`` over [low, high]: (bin, count, min, max)."""
    binned = rated.where(_between(col, params)).selectExpr(f"{_bin_sql(col, params)} AS b", f"{col} AS v")
    out = collect_columns(
        binned.groupBy("b").agg(_expr("count(*)").alias("c"), _expr("min(v)").alias("lo"), _expr("max(v)").alias("hi"))
    )
    return [(int(b), int(c), float(lo), float(hi)) for b, c, lo, hi in zip(out["b"], out["c"], out["lo"], out["hi"])]


def value_counts(rated, col: str, params: dict, bin_ids: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``col`` in [low, high] (only in the given fine bins, if any) and their counts, ascending."""
    part = rated.where(_between(col, params))
    if bin_ids is not None:
        part = part.where(f"{_bin_sql(col, params)} IN ({', '.join(str(int(b)) for b in bin_ids)})")
    out = collect_columns(part.groupBy(col).count().toDF("v", "c"))
    order = np.argsort(out["v"])
    return np.asarray(out["v"], dtype=np.float64)[order], np.asarray(out["c"], dtype=np.int64)[order]


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


class SparkCounter:
    """The counting primitives of :class:`~engine.backends._protocol.Counter` in Spark SQL (DataFrame columns).

    Every primitive of the protocol is provided. Spark has no unsigned 64-bit integers: the hashed
    Poisson counts are computed on BIGINT bit patterns (:func:`poisson_steps`); quantile edges are
    ``percentile_approx`` (any edges are exact, only the refinement reads more); the exact number of
    distinct scores is read from the grouped scores when a HyperLogLog estimate puts it clearly under
    the cap. There is no period count (monitoring) on Spark.

    Parameters
    ----------
    source : SparkSource
        Where the rows are.
    scores, label, weight, id_column, ids
        As for :class:`~engine.backends._duckdb.DuckCounter`.
    """

    backend = "spark"

    def __init__(self, source: SparkSource, scores, label: str, weight: str | None, *, id_column=None, ids=False):
        self.source, self.scores, self.label, self.weight = source, list(scores), label, weight
        self.where = source.name
        self._extra: list[str] = []
        if ids:
            if id_column is not None:
                ident = f"try_cast({_quote(id_column)} AS BIGINT)"
                exact = f"try_cast({_quote(id_column)} AS DOUBLE) = CAST({ident} AS DOUBLE)"
            elif source.is_single_parquet():
                ident, exact = "_metadata.row_index", "TRUE"
            else:
                raise no_row_id(self.where)
            self._extra = [f"{ident} AS id", f"{exact} AS id_exact"]
        self._approx = None
        self._errors = spark_errors(source)

    def __enter__(self) -> SparkCounter:
        frame = self.source.frame()
        self._errors.__enter__()
        try:
            self.rows = _columns(frame, self.scores, self.label, self.weight, self._extra)
            self.rated = self.rows.where("y IS NOT NULL")
        except BaseException as exc:
            self._errors.__exit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._errors.__exit__(*exc)

    def check_counts(self, distinct: bool) -> list:
        values = list(self.rows.selectExpr(*_check_exprs(self.rows, len(self.scores), distinct)).collect()[0])
        self._approx = values[-1] if distinct else None
        return values

    def boolean_columns(self, values: list) -> set[str]:
        from pyspark.sql.types import BooleanType

        raw = {name: (f"r{j}", values[3 + 5 * j]) for j, name in enumerate(self.scores)}
        if self.weight is not None:
            raw[self.weight] = ("rw", values[3 + 5 * len(self.scores)])
        listed = ", ".join(f"'{v}'" for v in BOOLEAN_TEXT)
        return {
            n
            for n, (r, not_number) in raw.items()
            if isinstance(self.rows.schema[r].dataType, BooleanType)
            or (not_number and not self.rows.where(f"{r} IS NULL OR {r} NOT IN ({listed})").limit(1).count())
        }

    def locate(self, kind: str, column: str, n: int) -> str:
        return _Locator(self.rows, self.scores, self.label, self.weight)(kind, column, n)

    def _grouped(self):
        out = collect_columns(
            self.rated.selectExpr("s0 AS s", "w * y AS tp", "w * (1 - y) AS fp")
            .groupBy("s")
            .sum("tp", "fp")
            .toDF("s", "tp", "fp")
        )
        s = np.asarray(out["s"], dtype=np.float64)
        order = np.argsort(-s, kind="stable")
        return s[order], np.asarray(out["tp"], dtype=np.float64)[order], np.asarray(out["fp"], dtype=np.float64)[order]

    def score_counts(self, cap: int | None = None):
        # clearly under the cap (the HyperLogLog estimate at most 0.8 cap) the scores are grouped and read at once;
        # otherwise one count of the distinct scores decides first
        if cap is None or (self._approx is not None and self._approx <= 0.8 * cap):
            grouped = self._grouped()
            return grouped[0].size, (grouped if cap is None or grouped[0].size <= cap else None)
        distinct = self.rated.select("s0").distinct().count()
        return distinct, (self._grouped() if distinct <= cap else None)

    def score_quantiles(self, qs: np.ndarray) -> np.ndarray:
        q = ", ".join(sql_double(x) for x in qs)
        approx = self.rated.selectExpr(f"percentile_approx(s0, array({q}), 10000) AS e").collect()[0][0]
        return np.asarray(approx, dtype=np.float64)

    def bin_counts(self, edges: np.ndarray, wanted: list[int] | None) -> dict[str, np.ndarray]:
        binned = _with_level_index(self.rated, "s0", edges, "b").selectExpr(
            "b - 1 AS b", "s0", "w * y AS tp", "w * (1 - y) AS fp"
        )
        if wanted is None:
            return collect_columns(binned.groupBy("b").sum("tp", "fp").toDF("b", "tp", "fp"))
        inside = binned.where(f"b IN ({', '.join(map(str, wanted))})").groupBy("b", "s0").sum("tp", "fp")
        return collect_columns(inside.toDF("b", "s", "tp", "fp"))

    def fine_bins(self, col: str, params: dict) -> list[tuple[int, int, float, float]]:
        return fine_bins(self.rated, col, params)

    def value_counts(self, col: str, params: dict, bin_ids: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
        return value_counts(self.rated, col, params, bin_ids)

    def cell_counts(self, axes: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
        frame = self.rated
        for j, axis in enumerate(axes):
            frame = _with_level_index(frame, f"s{j}", axis, f"e{j}")
        names = [f"e{j}" for j in range(len(axes))]
        return collect_columns(
            frame.selectExpr(*names, "w * y AS tp", "w * (1 - y) AS fp")
            .groupBy(*names)
            .sum("tp", "fp")
            .toDF(*names, "tp", "fp")
        )

    def bad_ids(self) -> int:
        sql = "count_if(y IS NOT NULL AND (id IS NULL OR id < 0 OR NOT id_exact))"
        return int(self.rows.selectExpr(sql).collect()[0][0])

    def replicate_counts(self, replicates: np.ndarray, seed: int) -> dict[str, np.ndarray]:
        reps = ", ".join(
            f"named_struct('r', {int(r)}, 'key', {_decimal(replicate_key(int(r), seed))})" for r in replicates
        )
        crossed = self.rated.selectExpr("s0", "w", "y", "id", f"inline(array({reps}))")
        counted = with_poisson_counts(crossed, "id", "key").selectExpr(
            "r", "s0", "w * y * _p AS tp", "w * (1 - y) * _p AS fp"
        )
        return collect_columns(counted.groupBy("r", "s0").sum("tp", "fp").toDF("r", "s", "tp", "fp"))
