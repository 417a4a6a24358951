"""Rated data on the server, connected where it lies: a schema, a sample, a column mapping and counts from DuckDB.

The dashboard's Data page connects to Parquet / CSV files (a path or a glob) or a
table of a DuckDB database file on the machine that runs it. :func:`connect` checks
the path and reads only the schema and the first rows (to guess the column roles with
:func:`engine.io.detect_columns`, the detection uploads use); :func:`map_columns`
validates a mapping over every row in DuckDB (one scan) and returns
:class:`ConnectedData`, which the Operating point and Ensemble paths pages count with
:func:`engine.backends.pn_hull` and :func:`engine.backends.joint_grid`. Only aggregated counts come back
to Python: one row per distinct score, or per grid cell (Robles et al., AAAI-MAKE 2020).

Every bad input raises :class:`~engine.errors.InputError` naming the path or the
column and the fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..io._rated import ColumnMapping, detect_columns
from ._confine import GLOB_CHARS, matched_files
from ._counted import checked
from ._duckdb import NUMERIC_TYPES, DuckCounter, DuckSource, configure_session, duckdb_problem

__all__ = [
    "ScanProgress",
    "ConnectedSource",
    "ConnectedData",
    "connect",
    "map_columns",
    "SAMPLE_ROWS",
    "FILE_FORMATS",
]

#: rows read to show a sample and guess the column roles
SAMPLE_ROWS = 2_000
#: file name endings of each format the connection reads
FILE_FORMATS = {
    "Parquet": (".parquet", ".parq", ".pq"),
    "CSV": (".csv", ".csv.gz", ".tsv", ".txt"),
    "DuckDB": (".duckdb", ".ddb", ".db"),
}


class ScanProgress:
    """The progress of the DuckDB query a scan is running, readable from another thread.

    A scan opens connections through a source made with :meth:`source`; each is
    told to track progress (nothing is printed) and :meth:`share` asks the newest
    one how far its running query is.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._con = None
        self.queries = 0

    @staticmethod
    def configure(con) -> None:
        """Make ``con`` track its queries' progress (nothing printed); before its configuration is locked.

        Parameters
        ----------
        con : duckdb.DuckDBPyConnection
            A connection a scan is about to use.
        """
        con.execute("SET enable_progress_bar = true")
        con.execute("SET enable_progress_bar_print = false")
        con.execute("SET progress_bar_time = 0")

    def attach(self, con) -> None:
        """Follow the progress of the queries run on ``con`` (made by a source from :meth:`source`).

        Parameters
        ----------
        con : duckdb.DuckDBPyConnection
            A connection a scan is about to use.
        """
        with self._lock:
            self._con = con
            self.queries += 1

    def share(self) -> float:
        """How far the running query is, in [0, 1]; 0 when DuckDB cannot tell (yet).

        Returns
        -------
        float
            DuckDB's own estimate (``query_progress``) of the running query.
        """
        with self._lock:
            con = self._con
        if con is None:
            return 0.0
        try:
            percent = float(con.query_progress())
        except Exception:  # closed between queries, or no query running
            return 0.0
        return min(1.0, max(0.0, percent / 100.0))

    def source(self, source: DuckSource) -> DuckSource:
        """The same rows, read through connections whose progress this object follows.

        Parameters
        ----------
        source : DuckSource
            Where the rows are.

        Returns
        -------
        DuckSource
            Equal to ``source`` (same path and table); its connections report progress here.
        """
        return _WatchedSource(source.path, source.table, source.roots, self)


@dataclass(frozen=True)
class _WatchedSource(DuckSource):
    watcher: ScanProgress | None = field(default=None, compare=False, repr=False)

    def _configure(self, con) -> None:
        if self.watcher is None:
            super()._configure(con)
        else:
            self.watcher.configure(con)
            configure_session(con)

    def connect(self):
        con = super().connect()
        if self.watcher is not None:
            self.watcher.attach(con)
        return con


@dataclass(frozen=True)
class ConnectedSource:
    """Rows on the server, checked and previewed: the schema, a sample and the guessed column roles.

    Attributes
    ----------
    source : DuckSource
        Path or glob (or database file and table) for the DuckDB kernels.
    name : str
        Short display name: the file name (``:table`` added for a database), or for a glob
        the pattern with its folder's name (``lake/*.parquet``).
    file_format : str
        ``"Parquet"``, ``"CSV"`` or ``"DuckDB"``.
    files : tuple of str
        The files the path or glob matches (the database file for a table).
    total_bytes : int
        Their size on disk.
    schema : tuple of (str, str)
        Column name and DuckDB type, in order.
    sample : pandas.DataFrame
        The first rows (at most :data:`SAMPLE_ROWS`).
    guess : ColumnMapping or None
        The column roles :func:`engine.io.detect_columns` finds in the sample (no group).
    guess_problem : str
        Why nothing could be guessed (empty when ``guess`` is given).
    fingerprint : str
        SHA-256 of the files' paths, sizes and modification times and of the table
        (the rows are not read to identify them).
    seconds : float
        Time taken to check the path and read the schema and the sample.
    """

    source: DuckSource
    name: str
    file_format: str
    files: tuple[str, ...]
    total_bytes: int
    schema: tuple[tuple[str, str], ...]
    sample: pd.DataFrame = field(compare=False, repr=False)
    guess: ColumnMapping | None
    guess_problem: str
    fingerprint: str
    seconds: float

    @property
    def columns(self) -> list[str]:
        return [name for name, _ in self.schema]

    @property
    def numeric_columns(self) -> list[str]:
        """Columns of a numeric DuckDB type (score candidates when nothing could be guessed)."""
        return [name for name, kind in self.schema if kind.upper().split("(")[0] in NUMERIC_TYPES]

    def schema_table(self) -> pd.DataFrame:
        """The schema as a table: one row per column with its type and guessed role.

        Returns
        -------
        pandas.DataFrame
            Columns ``column``, ``type``, ``guessed role``.
        """
        roles = {}
        if self.guess is not None:
            roles = {c: "score" for c in self.guess.score_cols}
            roles[self.guess.label_col] = "label"
            if self.guess.weight_col:
                roles[self.guess.weight_col] = "weight"
        return pd.DataFrame(
            {
                "column": self.columns,
                "type": [t for _, t in self.schema],
                "guessed role": [roles.get(c, "") for c in self.columns],
            }
        )


def _file_format(path: str, table: str | None) -> str:
    lower = path.lower()
    for fmt, endings in FILE_FORMATS.items():
        if lower.endswith(endings):
            return fmt
    if table is not None:
        return "DuckDB"  # a database file may have any name when a table is given
    accepted = ", ".join(e for endings in FILE_FORMATS.values() for e in endings)
    raise InputError(
        f"'{path}' is not a file this connection reads. Give a Parquet or CSV path or glob, or a "
        f"DuckDB database file (names ending in {accepted})."
    )


def _database_table(source: DuckSource) -> str:
    """The table to read from a DuckDB database file: the one given (checked), or the only one there."""
    con = source.connect()
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
    finally:
        con.close()
    listed = ", ".join(tables[:20]) + (" ..." if len(tables) > 20 else "") if tables else "none"
    path, table = source.path, source.table
    if table == "":
        if len(tables) == 1:
            return tables[0]
        raise InputError(
            f"DuckDB database '{path}' holds {len(tables)} tables; give the table to read (tables: {listed})."
        )
    if table not in tables:
        raise InputError(f"No table '{table}' in the DuckDB database '{path}'. Give one of its tables: {listed}.")
    return table  # type: ignore[return-value]


def _fingerprint(files: Sequence[str], table: str | None) -> str:
    stats = []
    for f in files:
        info = os.stat(f)
        stats.append([os.path.abspath(f), info.st_size, info.st_mtime_ns])
    return hashlib.sha256(json.dumps({"files": stats, "table": table}).encode()).hexdigest()


def _schema(source: DuckSource) -> tuple[tuple[str, str], ...]:
    con = source.connect()
    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM {source.relation()}").fetchall()
    except InputError:
        raise
    except Exception as exc:  # duckdb's own error types (IO, parser, catalog)
        raise InputError(f"DuckDB could not read '{source.path}': {duckdb_problem(source, exc)}") from None
    finally:
        con.close()
    return tuple((str(name), str(kind)) for name, kind, *_ in rows)


def connect(
    path: str, table: str | None = None, *, sample_size: int = SAMPLE_ROWS, roots: Sequence[str] | None = None
) -> ConnectedSource:
    """Check a path or glob (or a DuckDB database file and table) on the server and preview its rows.

    Parameters
    ----------
    path : str
        A Parquet / CSV file or glob (``lake/2026-*/part-*.parquet``), or a DuckDB database file.
    table : str, optional
        Table of the database file; may be left out when the database holds one table.
    sample_size : int, optional
        Rows read for the sample and the column guess.
    roots : sequence of str, optional
        Folders the files must lie in (after resolving symbolic links); any readable file when None.

    Returns
    -------
    ConnectedSource
        The schema, the first rows and the guessed column roles; no other row is read.

    Raises
    ------
    InputError
        No path, an unknown file type, nothing matching, a folder, an unreadable file, a table
        given for Parquet / CSV, a file outside ``roots``, a database that is not DuckDB's, a
        missing table, or rows DuckDB cannot read.
    """
    started = time.perf_counter()
    path = os.path.expanduser(str(path or "").strip())
    table = str(table).strip() if table is not None and str(table).strip() else None
    if not path:
        raise InputError(
            "Give the path of Parquet or CSV files (or a glob) or of a DuckDB database file on the server."
        )
    fmt = _file_format(path, table)
    if table is not None and fmt != "DuckDB":
        raise InputError(f"A table is read from a DuckDB database file; '{path}' is {fmt}. Leave the table empty.")
    roots = tuple(str(r) for r in roots) if roots is not None else None
    files = [shown for shown, _ in matched_files(path, roots)]
    if fmt == "DuckDB":
        if len(files) > 1:
            raise InputError(f"The glob '{path}' matches {len(files)} database files; give one DuckDB file.")
        path = files[0]
        table = _database_table(DuckSource(path, table or "", roots))
    source = DuckSource(path, table, roots)
    schema = _schema(source)
    sample = source.first_rows(sample_size)
    if sample.empty:
        raise InputError(f"'{path}'{f' table {table}' if table else ''} has no rows.")
    try:
        guess = detect_columns(sample)
        guess, problem = ColumnMapping(guess.score_cols, guess.label_col, guess.weight_col), ""
    except InputError as exc:
        guess, problem = None, str(exc)
    name = Path(path).name + (f":{table}" if table else "")
    if GLOB_CHARS & set(name) and Path(path).parent.name:
        name = f"{Path(path).parent.name}/{name}"  # '*.parquet' alone says little
    return ConnectedSource(
        source,
        name,
        fmt,
        tuple(files),
        sum(os.path.getsize(f) for f in files),
        schema,
        sample,
        guess,
        problem,
        _fingerprint(files, table),
        time.perf_counter() - started,
    )


@dataclass(frozen=True)
class ConnectedData:
    """Rated data on the server with a validated column mapping, and what the validating scan counted.

    It answers what the pages ask of :class:`engine.io.RatedData` (names, counts,
    prevalence, summary) without the rows; the rows stay where they are and are
    counted by :func:`engine.backends.pn_hull` and :func:`engine.backends.joint_grid`.

    Attributes
    ----------
    connected : ConnectedSource
        The source and its preview.
    mapping : ColumnMapping
        Score columns, label and weight (no group).
    n_read : int
        Rows scanned.
    n_unrated : int
        Rows with an empty label (left out of every count).
    positives, negatives : float
        Weighted rated positives and negatives.
    rating_floor, highest : tuple of float
        Lowest and highest rated score of each classifier.
    seconds : float
        Time of the validating scan.
    warnings : tuple of str
        What did not stop the mapping (unrated rows, one class only).
    """

    connected: ConnectedSource
    mapping: ColumnMapping
    n_read: int
    n_unrated: int
    positives: float
    negatives: float
    rating_floor: tuple[float, ...]
    highest: tuple[float, ...]
    seconds: float
    warnings: tuple[str, ...] = ()

    groups = None  # segments need the rows in memory
    backend = "duckdb"

    @property
    def source(self) -> DuckSource:
        return self.connected.source

    @property
    def name(self) -> str:
        return self.connected.name

    @property
    def fingerprint(self) -> str:
        return self.connected.fingerprint

    @property
    def score_names(self) -> tuple[str, ...]:
        return tuple(self.mapping.score_cols)

    @property
    def n_classifiers(self) -> int:
        return len(self.mapping.score_cols)

    @property
    def n_rated(self) -> int:
        return self.n_read - self.n_unrated

    @property
    def prevalence_among_rated(self) -> float:
        total = self.positives + self.negatives
        return self.positives / total if total > 0 else float("nan")

    def summary(self) -> dict:
        """What identifies the data set a choice was made on (for reports and records), as RatedData's.

        Returns
        -------
        dict
            Name, fingerprint, row counts, columns, weighted positives, prevalence, backend and path.
        """
        return {
            "name": self.name,
            "fingerprint_sha256": self.fingerprint,
            "rows_read": self.n_read,
            "rated_rows": self.n_rated,
            "unrated_rows": self.n_unrated,
            "score_columns": list(self.score_names),
            "label_column": self.mapping.label_col,
            "weight_column": self.mapping.weight_col,
            "group_column": None,
            "rated_positives_weighted": self.positives,
            "prevalence_among_rated": self.prevalence_among_rated,
            "backend": "duckdb",
            "path": self.source.path,
            "table": self.source.table,
        }


def _check_mapping(
    connected: ConnectedSource, score_cols: Sequence[str], label_col: str, weight_col: str | None
) -> ColumnMapping:
    columns = connected.columns
    listed = ", ".join(columns[:30]) + (" ..." if len(columns) > 30 else "")
    score_cols = tuple(str(c) for c in score_cols)
    if not score_cols:
        raise InputError(
            f"Choose at least one score column of '{connected.name}': each classifier needs a column of numeric scores."
        )
    if not label_col:
        raise InputError(f"Choose the label column of '{connected.name}' (the raters' verdicts: 1/0, yes/no, tp/fp).")
    for role, name in [*(("score", c) for c in score_cols), ("label", label_col), ("weight", weight_col)]:
        if name is not None and name not in columns:
            raise InputError(f"The {role} column '{name}' is not in '{connected.name}'. Columns are: {listed}.")
    roles = [*score_cols, label_col] + ([weight_col] if weight_col else [])
    twice = sorted({c for c in roles if roles.count(c) > 1})
    if twice:
        raise InputError(
            f"Column '{twice[0]}' of '{connected.name}' is given two roles (score, label or weight). "
            "Give each column one role."
        )
    return ColumnMapping(score_cols, label_col, weight_col or None)


def map_columns(
    connected: ConnectedSource,
    score_cols: Sequence[str],
    label_col: str,
    weight_col: str | None = None,
    *,
    progress: ScanProgress | None = None,
) -> ConnectedData:
    """Validate a column mapping over every row in DuckDB (one scan; only counts come back).

    Parameters
    ----------
    connected : ConnectedSource
        From :func:`connect`.
    score_cols : sequence of str
        One score column per classifier.
    label_col : str
        The raters' verdicts (1/0, yes/no, true/false, tp/fp ...; empty = unrated).
    weight_col : str, optional
        Non-negative row weights; every row weighs 1 when None.
    progress : ScanProgress, optional
        Follows the scan's progress.

    Returns
    -------
    ConnectedData
        The mapping with rows, rated and unrated rows, weighted positives and negatives.

    Raises
    ------
    InputError
        No score or label column, a column not in the source or given two roles, unknown labels,
        non-numeric / infinite / missing rated scores, bad weights, or no rated row.
    """
    started = time.perf_counter()
    mapping = _check_mapping(connected, score_cols, label_col, weight_col)
    source = progress.source(connected.source) if progress is not None else connected.source
    with DuckCounter(source, mapping.score_cols, mapping.label_col, mapping.weight_col) as counter:
        rows, rated, unrated, lows, highs = checked(counter, positive_weight=True)
        positives, negatives = counter.con.execute(
            "SELECT coalesce(sum(w * y), 0), coalesce(sum(w * (1 - y)), 0) FROM grid_rows WHERE y IS NOT NULL"
        ).fetchall()[0]
    warnings = []
    if unrated:
        warnings.append(f"{unrated:,} rows have no label (unrated): they are left out of every count.")
    if positives == 0 or negatives == 0:
        warnings.append(
            f"Every rated row of column '{mapping.label_col}' is {'negative' if positives == 0 else 'positive'}"
            ": the PN curve has one class only."
        )
    return ConnectedData(
        connected,
        mapping,
        int(rows),
        int(unrated),
        float(positives),
        float(negatives),
        tuple(float(v) for v in lows),
        tuple(float(v) for v in highs),
        time.perf_counter() - started,
        tuple(warnings),
    )
