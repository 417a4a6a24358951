"""DuckDB's counting primitives: rated data read out of core, only counts leave the database.

:class:`DuckCounter` implements :class:`~engine.backends._protocol.Counter` in SQL over a view
``grid_rows`` of the source's rows (Parquet / CSV files, paths or globs, or a table of a DuckDB
database file, streaming and spilling to disk as needed); :mod:`engine.backends._counted` builds
the curve, operating points, grids and replicates on top. Python receives one row per distinct
score, bin, cell or replicate, never the documents. Quantile edges are ``quantile_disc`` (the
definition of ``numpy.quantile(..., method="inverted_cdf")``); the hashed Poisson counts are
computed with 128-bit integers and explicit ``% 2**64`` (:func:`poisson_sql`), bit for bit
numpy's; row ids are an integer column or a single Parquet file's ``file_row_number``.

**Labels** are mapped in SQL with the same spellings as :data:`engine.io.LABEL_VALUES`;
empty labels are unrated (counted and reported); any other value is an error that
says how many rows have it.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MAX_LISTED, InputError, listed_rows, shown_values
from ..io._rated import LABEL_VALUES
from ..io._tables import refuse_numeric_header, sniff_delimiter
from ..pn.counting import GOLDEN, MIX1, MIX2, POISSON1_THRESHOLDS, replicate_key
from ._confine import GLOB_CHARS, checked_files, duckdb_message, lock_down, matched_files, readable_roots
from ._counting import BOOLEAN_TEXT

__all__ = [
    "DuckSource",
    "ScanStats",
    "DuckCounter",
    "poisson_sql",
    "fine_bins",
    "value_counts",
    "no_row_id",
    "quote_identifier",
    "label_expression",
    "grid_view",
    "NUMERIC_TYPES",
    "csv_relation",
    "csv_header",
    "csv_problem",
    "duckdb_problem",
    "configure_session",
    "CSV_ENDINGS",
    "PARQUET_ENDINGS",
]

#: (path, table, roots) -> the files the newest connection to them was locked to
_LOCKED: dict[tuple, tuple[str, ...]] = {}


@dataclass(frozen=True)
class DuckSource:
    """Where the rows are: a Parquet/CSV path or glob, or a table of a DuckDB database file.

    Every connection (:meth:`connect`) resolves the path or glob again (a bounded walk,
    :func:`engine.backends._confine.checked_files`), checks each file against ``roots``
    after resolving symbolic links, and is locked to read exactly those files
    (:func:`engine.backends._confine.lock_down`); :meth:`relation` hands DuckDB the explicit
    list of files, never the pattern.

    Attributes
    ----------
    path : str
        A ``.parquet`` / ``.csv`` (``.csv.gz``, ``.tsv``, ``.txt``) path or glob, or the
        path of a DuckDB database file when ``table`` is given.
    table : str or None
        Table of the database file holding the rows; None for a Parquet / CSV source.
    roots : tuple of str or None
        Folders the files must lie in: by default ``OPSTUDIO_DATA_ROOTS`` and the shipped samples' folder (any
        readable file when it is unset), so every DuckDB read of the command line and the pages is confined
        without asking.
    """

    path: str
    table: str | None = None
    roots: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        roots = self.roots if self.roots is not None else readable_roots()
        if roots is not None and not isinstance(roots, tuple):
            roots = tuple(str(r) for r in roots)
        object.__setattr__(self, "roots", roots)

    @property
    def file_format(self) -> str:
        """``"DuckDB"``, ``"Parquet"`` or ``"CSV"``."""
        if self.table is not None:
            return "DuckDB"
        lower = self.path.lower()
        if lower.endswith(PARQUET_ENDINGS):
            return "Parquet"
        if lower.endswith(CSV_ENDINGS):
            return "CSV"
        raise InputError(
            f"'{self.path}': the DuckDB backend reads .parquet and .csv(.gz) paths or globs, or "
            "a DuckDB database file with --table."
        )

    def files(self) -> tuple[str, ...]:
        """The real paths of the files read, checked against ``roots`` now.

        Returns
        -------
        tuple of str
            One database file for a table; the files the path or glob matches otherwise.

        Raises
        ------
        InputError
            As :func:`engine.backends._confine.matched_files`; a glob matching several database files.
        """
        _ = self.file_format  # an unknown format is refused before the walk
        files = checked_files(self.path, self.roots)
        if self.table is not None and len(files) > 1:
            raise InputError(f"The glob '{self.path}' matches {len(files)} database files; give one DuckDB file.")
        if self.table is not None and os.path.lexists(files[0] + ".wal"):
            checked_files(files[0] + ".wal", self.roots)  # DuckDB replays the write-ahead log beside the file
        return files

    def relation(self, *, text: bool = False, row_number: bool = False, text_columns: Sequence[str] = ()) -> str:
        """The FROM clause reading the rows: the table, or the checked files as an explicit list.

        Parameters
        ----------
        text : bool, optional
            CSV columns read as text (ids keep their digits).
        row_number : bool, optional
            Parquet rows numbered (column ``file_row_number``).
        text_columns : sequence of str, optional
            CSV columns read as text whatever DuckDB's sniffer would make of them (dates keep the day written).

        Returns
        -------
        str
        """
        fmt = self.file_format
        if fmt == "DuckDB":
            return quote_identifier(self.table or "")
        # the files the newest connection to these rows was locked to (DuckDB reads no other), else checked now
        files = _LOCKED.get(self._key()) or self.files()
        if fmt == "Parquet":
            return f"read_parquet({_list_literal(files)}{', file_row_number = true' if row_number else ''})"
        return csv_relation(files, text=text, text_columns=text_columns)

    def first_rows(self, n: int = 2_000):
        """The first ``n`` rows (a DataFrame, every column), to detect and map columns from a sample.

        Parameters
        ----------
        n : int, optional
            Most rows read.

        Returns
        -------
        pandas.DataFrame
            The rows in the source's order.

        Raises
        ------
        InputError
            DuckDB cannot read the source.
        """
        con = self.connect()
        try:
            return con.execute(f"SELECT * FROM {self.relation()} LIMIT {int(n)}").fetchdf()
        except Exception as exc:  # duckdb's own error types
            raise InputError(f"DuckDB could not read '{self.path}': {duckdb_problem(self, exc)}") from None
        finally:
            con.close()

    def _key(self) -> tuple:
        return (self.path, self.table, self.roots)

    def _configure(self, con) -> None:
        """Settings made before the connection's configuration is locked."""
        con.execute("SET enable_progress_bar = false")  # stdout carries the command's own output
        configure_session(con)

    def connect(self):
        """A DuckDB connection that can read the rows and nothing else (read-only on a database file).

        Returns
        -------
        duckdb.DuckDBPyConnection
            In-memory for files, the database file opened read-only for a table; locked to the
            files checked now (none besides the database for a table). The caller closes it.

        Raises
        ------
        InputError
            A file outside ``roots`` (links resolved), missing, unmatched or unreadable; a CSV file
            whose rows DuckDB does not read as its header line says.
        """
        import duckdb

        files = self.files()
        _LOCKED[self._key()] = files  # what relation() lists
        while len(_LOCKED) > 256:
            _LOCKED.pop(next(iter(_LOCKED)), None)
        if self.table is not None:
            try:
                con = duckdb.connect(files[0], read_only=True)
            except Exception as exc:  # duckdb's own error types
                raise InputError(
                    f"'{self.path}' could not be opened as a DuckDB database: {duckdb_message(exc)}"
                ) from None
            allowed: Sequence[str] = []
        else:
            con = duckdb.connect()
            allowed = files
        self._configure(con)
        lock_down(con, allowed)
        if self.file_format == "CSV":
            try:
                _check_csv_columns(con, self, files)
            except BaseException:
                con.close()
                raise
        return con


def configure_session(con) -> None:
    """Settings every connection to a source has, whatever else it tracks: days and hours in UTC.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        A connection whose configuration is not locked yet.
    """
    con.execute("SET TimeZone = 'UTC'")  # a time-zone-aware timestamp's day is its UTC day, as in memory


PARQUET_ENDINGS = (".parquet", ".parq", ".pq")
CSV_ENDINGS = (".csv", ".csv.gz", ".tsv", ".txt")
#: bytes of a CSV file read to find its header line and delimiter
CSV_HEAD_BYTES = 1 << 20


def _text_literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _list_literal(files) -> str:
    return "[" + ", ".join(_text_literal(f) for f in files) + "]"


def _open_text(path: str):
    if path.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")


def _unreadable(path: str, exc: BaseException) -> str:
    """Why a CSV file could not be read as text: a broken or truncated gzip is said as the memory loader says it."""
    if path.lower().endswith(".gz") and isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile)):
        why = "the compressed stream ends early" if isinstance(exc, EOFError) else str(exc) or type(exc).__name__
        return (
            f"The file '{path}' looks gzip-compressed but cannot be decompressed ({why}). "
            "Re-compress it or give the uncompressed file."
        )
    return f"'{path}' could not be read as CSV text: {exc.__class__.__name__}."


def csv_header(path: str) -> tuple[str, list[str]]:
    """The delimiter and the header fields of a CSV file (its first non-blank line).

    Parameters
    ----------
    path : str
        A CSV file (gzip when its name ends in ``.gz``).

    Returns
    -------
    (str, list of str)
        The delimiter :func:`engine.io._tables.sniff_delimiter` finds (as for uploads) and the header's fields.

    Raises
    ------
    InputError
        An empty file, or a first line that is not CSV.
    """
    try:
        with _open_text(path) as handle:
            head = handle.read(CSV_HEAD_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(_unreadable(path, exc)) from None
    lines = [line for line in head.splitlines()[:201] if line.strip()]
    if not lines:
        raise InputError(f"'{path}' is empty. A CSV file needs a header line naming its columns and data rows.")
    delimiter = sniff_delimiter("\n".join(lines[:200]))
    try:
        fields = next(csv.reader([lines[0]], delimiter=delimiter))
    except csv.Error:
        raise InputError(f"'{path}': its header line cannot be read as '{delimiter}'-delimited text.") from None
    return delimiter, fields


def csv_relation(files, *, text: bool = False, text_columns: Sequence[str] = ()) -> str:
    """``read_csv`` over the files, strict: a header line, its delimiter, every row as many fields as the header.

    The one CSV reader of the DuckDB backends (counts, grids, bootstrap, monitoring, audits).

    Parameters
    ----------
    files : sequence of str
        Checked CSV files (the first one's header line gives the delimiter).
    text : bool, optional
        Every column read as text.
    text_columns : sequence of str, optional
        These columns read as text (the others typed by DuckDB's sniffer).

    Returns
    -------
    str
        A FROM clause.
    """
    delimiter, _ = csv_header(files[0])
    delim = _text_literal(delimiter)
    types = ", ".join(f"{_text_literal(c)}: 'VARCHAR'" for c in text_columns)
    return (
        f"read_csv({_list_literal(files)}, header = true, skip = 0, delim = {delim}, quote = '\"', "
        f"escape = '\"', strict_mode = true, null_padding = false, ignore_errors = false"
        f"{', all_varchar = true' if text else ''}{f', types = {{{types}}}' if types and not text else ''})"
    )


#: rows and characters per line the diagnosis of a CSV file DuckDB refused looks at
CSV_CHECK_ROWS = 1_000_000
CSV_CHECK_LINE = 1 << 20
_DUCK_CSV_ERROR = re.compile(r"CSV Error on Line: (\d+).*?Expected Number of Columns: (\d+) Found: (\d+)", re.S)
_DUCK_CSV_FILE = re.compile(r"^\s*file = (.*)$", re.M)


def _nonblank_lines(handle):
    while True:
        line = handle.readline(CSV_CHECK_LINE)
        if not line:
            return
        if len(line) >= CSV_CHECK_LINE and not line.endswith("\n"):
            raise csv.Error("line too long")
        if line.strip():
            yield line


def csv_problem(files, duckdb_text: str = "") -> str | None:
    """The first row of the files whose field count differs from its header's, as a sentence (None if not found).

    Parameters
    ----------
    files : sequence of str
        CSV files.
    duckdb_text : str, optional
        DuckDB's error message: when it names the line (a row past the sniffed sample), that line is
        reported; otherwise the first :data:`CSV_CHECK_ROWS` rows are read again here.

    Returns
    -------
    str or None
    """
    found = _DUCK_CSV_ERROR.search(duckdb_text)
    if found:
        line, expected, got = (int(g) for g in found.groups())
        where = _DUCK_CSV_FILE.search(duckdb_text)
        name = (
            where.group(1).strip()
            if where and where.group(1).strip() in files
            else (files[0] if len(files) == 1 else "one of the files")
        )
        return (
            f"'{name}' line {line:,} has {got} fields where its header has {expected}. Check for a missing or "
            "extra delimiter, or an unquoted text containing the delimiter."
        )
    seen = 0
    for path in files:
        delimiter, header = csv_header(path)
        with _open_text(path) as handle:
            reader = csv.reader(_nonblank_lines(handle), delimiter=delimiter)
            try:
                next(reader, None)
                for row in reader:
                    seen += 1
                    if len(row) != len(header):
                        return (
                            f"'{path}' line {reader.line_num:,} (blank lines not counted) has {len(row)} fields "
                            f"where its header has {len(header)} ('{delimiter}'-delimited). Check for a missing "
                            "or extra delimiter, or an unquoted text containing the delimiter."
                        )
                    if seen >= CSV_CHECK_ROWS:
                        return None
            except (OSError, EOFError, zlib.error) as exc:
                return _unreadable(path, exc)
            except csv.Error:
                return (
                    f"'{path}' line {reader.line_num + 1:,} (blank lines not counted) cannot be read as "
                    f"'{delimiter}'-delimited text (a stray quote, a line break inside a field, or a line over "
                    f"{CSV_CHECK_LINE:,} characters?)."
                )
    return None


def duckdb_problem(source: DuckSource, exc: BaseException) -> str:
    """What went wrong reading ``source``, in one line: the CSV row at fault when there is one.

    Parameters
    ----------
    source : DuckSource
        The source DuckDB was reading.
    exc : BaseException
        What DuckDB raised.

    Returns
    -------
    str
        :func:`engine.backends._confine.duckdb_message` (refused file accesses never named), or for a
        CSV source whose rows do not match their header, the first such row.
    """
    if isinstance(exc, InputError):
        return str(exc)
    message = duckdb_message(exc)
    if (
        source.table is None
        and source.path.lower().endswith(CSV_ENDINGS)
        and type(exc).__name__ != "PermissionException"
    ):
        try:
            problem = csv_problem(source.files(), str(exc))
        except InputError as err:
            problem = str(err)
        if problem:
            return problem
    return message


def _check_csv_columns(con, source: DuckSource, files) -> None:
    """Refuse CSV files DuckDB does not read as their header line says (column count, or rows it cannot parse)."""
    _, header = csv_header(files[0])
    refuse_numeric_header(header, files[0])
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {source.relation()}").fetchall()
    except InputError:
        raise
    except Exception as exc:  # duckdb's own error types
        raise InputError(f"DuckDB could not read '{source.path}': {duckdb_problem(source, exc)}") from None
    if len(described) != len(header):
        raise InputError(
            f"DuckDB reads {len(described)} columns from '{source.path}' where the header line of "
            f"'{files[0]}' has {len(header)}. Check the delimiter and the header line."
        )


def quote_identifier(name: str) -> str:
    """A column or table name as a quoted SQL identifier (embedded quotes doubled)."""
    return '"' + str(name).replace('"', '""') + '"'


@dataclass(frozen=True)
class ScanStats:
    """What a backend read: rows scanned, rated and unrated rows, distinct scores, seconds.

    Attributes
    ----------
    backend : str
        ``"duckdb"``, ``"spark"`` or ``"memory"``.
    rows_scanned : int
        Rows read, rated or not.
    rated : int
        Rows with a label (0 or 1).
    unrated : int
        Rows with an empty label (excluded from the counts).
    distinct_scores : int
        Distinct scores among the rated rows.
    seconds : float
        Wall-clock time of the scan.
    binned : bool
        True when the scores were cut into quantile bins (more than the distinct cap).
    """

    backend: str
    rows_scanned: int
    rated: int
    unrated: int
    distinct_scores: int
    seconds: float
    binned: bool = False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def label_expression(column: str) -> str:
    """0/1 for the accepted spellings, NULL for empty (unrated), -1 for anything else."""
    text = f"lower(trim(CAST({quote_identifier(column)} AS VARCHAR)))"
    ones = ", ".join(f"'{k}'" for k, v in LABEL_VALUES.items() if v == 1)
    zeros = ", ".join(f"'{k}'" for k, v in LABEL_VALUES.items() if v == 0)
    # a number written otherwise ("1.00", "0e0") is the label it equals, as in memory (engine.io._rated.parse_labels)
    return (
        f"CASE WHEN {quote_identifier(column)} IS NULL OR {text} = '' THEN NULL WHEN {text} IN ({ones}) THEN 1 "
        f"WHEN {text} IN ({zeros}) THEN 0 WHEN TRY_CAST({text} AS DOUBLE) = 1 THEN 1 "
        f"WHEN TRY_CAST({text} AS DOUBLE) = 0 THEN 0 ELSE -1 END"
    )


def grid_view(
    con,
    source: DuckSource,
    scores: Sequence[str],
    label: str,
    weight: str | None,
    *,
    relation: str | None = None,
    extra: Sequence[str] = (),
) -> None:
    """View ``grid_rows``: raw and numeric scores (r0.., s0..), raw label rl and label y (0/1, NULL unrated,
    -1 unknown), raw and numeric weight (rw, w).

    ``relation`` replaces the source's relation (a row-numbered read); ``extra`` adds SQL expressions. By
    default a CSV file's score, label and weight columns are read as text and converted here, as pandas
    reads them: a value DuckDB's sniffer did not expect far down the file is then a row the checks name,
    not a conversion error."""
    if relation is None and source.file_format == "CSV":
        relation = source.relation(text_columns=[*scores, label, *([weight] if weight else [])])
    cols = [f"{quote_identifier(label)} AS rl"]
    for j, name in enumerate(scores):
        cols += [f"{quote_identifier(name)} AS r{j}", f"TRY_CAST({quote_identifier(name)} AS DOUBLE) AS s{j}"]
    if weight is None:
        cols += ["NULL AS rw", "1.0 AS w"]
    else:
        cols += [f"{quote_identifier(weight)} AS rw", f"TRY_CAST({quote_identifier(weight)} AS DOUBLE) AS w"]
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW grid_rows AS SELECT {', '.join([*cols, *extra])}, "
            f"{label_expression(label)} AS y FROM {relation or source.relation()}"
        )
        con.execute("SELECT * FROM grid_rows LIMIT 0")
    except Exception as exc:  # duckdb raises its own error types (binder, IO, conversion)
        raise InputError(
            f"DuckDB could not read the columns from '{source.path}': {duckdb_problem(source, exc)}"
        ) from None


#: DuckDB column types whose values always convert to DOUBLE (no text to check)
NUMERIC_TYPES = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL",
    "NULL",
)


def _not_a_number(raw: str, num: str, types: dict[str, str]) -> str:
    """Rows whose raw value is text that is not a number (FALSE for numeric columns: nothing to read)."""
    if types.get(raw, "").split("(")[0] in NUMERIC_TYPES:
        return "FALSE"
    return f"({num} IS NULL AND {raw} IS NOT NULL AND trim(CAST({raw} AS VARCHAR)) <> '')"


def _check_sql(k: int, types: dict[str, str]) -> str:
    """One scan: row counts, per-classifier problems and rated min / max, weight problems."""
    parts = ["count(*)", "count(*) FILTER (WHERE y IS NULL)", "count(*) FILTER (WHERE y = -1)"]
    for j in range(k):
        parts += [
            f"count(*) FILTER (WHERE {_not_a_number(f'r{j}', f's{j}', types)})",
            f"count(*) FILTER (WHERE isinf(s{j}))",
            f"count(*) FILTER (WHERE y IS NOT NULL AND (s{j} IS NULL OR isnan(s{j})))",
            f"min(s{j}) FILTER (WHERE y IS NOT NULL)",
            f"max(s{j}) FILTER (WHERE y IS NOT NULL)",
        ]
    parts += [
        f"count(*) FILTER (WHERE {_not_a_number('rw', 'w', types)})",
        "count(*) FILTER (WHERE y IS NOT NULL AND (w IS NULL OR isnan(w) OR isinf(w) OR w < 0))",
        "coalesce(sum(w) FILTER (WHERE y IS NOT NULL AND w >= 0 AND NOT isinf(w)), 0)",
    ]
    return f"SELECT {', '.join(parts)} FROM grid_rows"


def _booleans(con, scores, weight: str | None, types: dict, values) -> set:
    """Score and weight columns the memory engine reads as true/false: a BOOLEAN column, or (a CSV file's columns
    are read as text) text that is only true/false spellings; looked at only when a column has non-numbers."""
    found = set()
    raws = [(name, f"r{j}", values[3 + 5 * j]) for j, name in enumerate(scores)]
    raws += [(weight, "rw", values[3 + 5 * len(scores)])] if weight is not None else []
    listed = ", ".join(f"'{v}'" for v in BOOLEAN_TEXT)
    for name, raw, not_number in raws:
        if types.get(raw) == "BOOLEAN":
            found.add(name)
        elif not_number and types.get(raw) == "VARCHAR":
            other = con.execute(f"SELECT count(*) FROM grid_rows WHERE {raw} IS NULL OR {raw} NOT IN ({listed})")
            if not other.fetchall()[0][0]:
                found.add(name)
    return found


class _Locator:
    """The first offending values and rows of view ``grid_rows``, worded as the memory engine words them.

    Rows are numbered in the source's order (``row_number() OVER ()`` keeps DuckDB's insertion order: the
    files in the glob's order, each from its first row); with several files each row is named in its file.
    Only asked for when a check fails, so its extra scans cost nothing on good data.
    """

    def __init__(self, con, source: DuckSource, scores, label: str, weight: str | None, types: dict) -> None:
        self.con, self.source, self.types = con, source, types
        self.columns = {label: ("rl", "y"), **{n: (f"r{j}", f"s{j}") for j, n in enumerate(scores)}}
        if weight is not None:
            self.columns[weight] = ("rw", "w")

    def _predicate(self, kind: str, raw: str, num: str) -> str:
        return {
            "label": "y = -1",
            "not_number": _not_a_number(raw, num, self.types),
            "infinite": f"isinf({num})",
            "missing_score": f"y IS NOT NULL AND ({num} IS NULL OR isnan({num}))",
            "weight": "y IS NOT NULL AND (w IS NULL OR isnan(w) OR isinf(w) OR w < 0)",
        }[kind]

    def __call__(self, kind: str, column: str, n: int) -> str:
        raw, num = self.columns[column]
        where = self._predicate(kind, raw, num)
        numbered = "(SELECT row_number() OVER () - 1 AS rn, * FROM grid_rows)"
        first = [
            int(r[0])
            for r in self.con.execute(
                f"SELECT rn FROM {numbered} WHERE {where} ORDER BY rn LIMIT {MAX_LISTED}"
            ).fetchall()
        ]
        shown = ""
        if kind in ("label", "not_number"):
            found = self.con.execute(
                f"SELECT v FROM (SELECT {raw} AS v, min(rn) AS r FROM {numbered} WHERE {where} GROUP BY v) "
                f"ORDER BY r LIMIT {8 * MAX_LISTED}"
            ).fetchall()
            shown = shown_values([_value_text(v[0], kind) for v in found], self._numeric(raw)) + " "
        return f"{shown}at {self._rows(first, n)}"

    def _numeric(self, raw: str) -> bool:
        """Whether memory reads the column as numbers: a numeric type, or text that is numbers throughout."""
        kind = self.types.get(raw, "").split("(")[0]
        if kind in NUMERIC_TYPES:
            return True
        if kind != "VARCHAR":
            return False
        text = f"trim({raw})"
        return not self.con.execute(
            f"SELECT count(*) FROM grid_rows WHERE {text} <> '' AND TRY_CAST({text} AS DOUBLE) IS NULL"
        ).fetchall()[0][0]

    def _rows(self, first: list[int], n: int) -> str:
        files = () if self.source.table is not None else self.source.files()
        shown = [name for name, _ in matched_files(self.source.path, self.source.roots)] if len(files) > 1 else []
        if len(files) <= 1:
            return listed_rows(first, n)
        ends, named = np.zeros(0, dtype=np.int64), []
        for path in files:  # rows per file, until the last row listed is reached
            if ends.size and ends[-1] > max(first):
                break
            fmt = self.source.file_format
            one = csv_relation([path], text=True) if fmt == "CSV" else f"read_parquet({_list_literal([path])})"
            ends = np.r_[
                ends, (ends[-1] if ends.size else 0) + self.con.execute(f"SELECT count(*) FROM {one}").fetchall()[0][0]
            ]
        for row in first:
            i = int(np.searchsorted(ends, row, side="right"))
            named.append(f"{row - (ends[i - 1] if i else 0) + 1} of '{shown[i]}'")
        return listed_rows(named, n, "(row 1 = first data row of each file)")


def _value_text(value, kind: str):
    """A raw value as memory quotes it: labels as read, non-numbers without surrounding spaces."""
    if value is None:
        return ""
    return str(value).strip() if kind == "not_number" and isinstance(value, str) else value


def no_row_id(where: str) -> InputError:
    """The one refusal of bootstrap replicates without row ids, whatever the backend."""
    return InputError(
        f"{where}: bootstrap replicates need a row id. Give an integer id column (--id COLUMN), "
        "or use a single Parquet file (its row numbers are the ids)."
    )


def _u128(value: int) -> str:
    return f"{int(value)}::UHUGEINT"


_MOD = f"{1 << 64}::UHUGEINT"


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


def _bin_sql(col: str) -> str:
    """Equal-width bin of a score over [$low, $high]: monotone in the score, so every bin is an interval of scores."""
    return f"least($top, floor(({col} * 0.5 - $low * 0.5) * $scale))::BIGINT"


def fine_bins(con, col: str, params: dict) -> list[tuple[int, int, float, float]]:
    """Rated values of ``col`` (view ``grid_rows``) in [$low, $high], equal-width bins: (bin, count, min, max)."""
    out = con.execute(
        f"SELECT {_bin_sql(col)} AS b, count(*), min({col}), max({col}) FROM grid_rows WHERE y IS NOT "
        f"NULL AND {col} BETWEEN $low AND $high GROUP BY b ORDER BY b",
        params,
    ).fetchall()
    return [(int(b), int(c), float(lo), float(hi)) for b, c, lo, hi in out]


def value_counts(con, col: str, params: dict, bin_ids: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rated values of ``col`` in [$low, $high] (only in the given fine bins, if any) and their counts."""
    where = f"y IS NOT NULL AND {col} BETWEEN $low AND $high"
    if bin_ids is not None:
        where += f" AND list_contains($bins, {_bin_sql(col)})"
        params = {**params, "bins": [int(b) for b in bin_ids]}
    out = con.execute(
        f"SELECT {col}, count(*) FROM grid_rows WHERE {where} GROUP BY {col} ORDER BY {col}", params
    ).fetchnumpy()
    keys = list(out)
    return np.asarray(out[keys[0]], dtype=np.float64), np.asarray(out[keys[1]], dtype=np.int64)


def _bisect_sql(inner: str, col: str, levels: np.ndarray, name: str) -> tuple[str, str, list[float]]:
    """Subqueries adding ``name`` = number of ``levels`` <= ``col`` (a branchless binary search).

    The levels are padded with +inf to a power of two P; ``idx`` starts at 0 and moves up by
    P/2, P/4, ..., 1 whenever the score is >= the level there (1-based list ``$name``).
    """
    size = 1 << int(levels.size).bit_length()  # > levels.size, a power of two
    padded = np.full(size, np.inf)
    padded[: levels.size] = levels
    sql, prev, step, i = f"(SELECT *, 0 AS {name}_0 FROM {inner})", f"{name}_0", size // 2, 0
    while step >= 1:
        i += 1
        sql = (
            f"(SELECT *, {prev} + {step} * CAST({col} >= ${name}[{prev} + {step}] AS BIGINT) AS {name}_{i} FROM {sql})"
        )
        prev, step = f"{name}_{i}", step // 2
    return sql, prev, padded.tolist()


def _columns(out: dict, names: Sequence[str]) -> dict[str, np.ndarray]:
    return {name: np.asarray(out[key]) for name, key in zip(names, out)}


class DuckCounter:
    """The counting primitives of :class:`~engine.backends._protocol.Counter` in DuckDB SQL (view ``grid_rows``).

    Parameters
    ----------
    source : DuckSource
        Where the rows are.
    scores : list of str
        Score columns (``s0..``).
    label : str
        Label column.
    weight : str or None
        Weight column.
    id_column : str, optional
        Integer row ids (replicates); default the row's position in a single Parquet file.
    ids : bool
        Open with row ids (bootstrap replicates).
    relation : str, optional
        Read the rows from this relation instead of the source's (the monitor reads dates as text).
    extra : sequence of str
        More ``expression AS name`` columns of the view (the monitor's day and raw date).
    """

    backend = "duckdb"

    def __init__(
        self,
        source: DuckSource,
        scores,
        label: str,
        weight: str | None,
        *,
        id_column=None,
        ids=False,
        relation: str | None = None,
        extra: Sequence[str] = (),
    ):
        self.source, self.scores, self.label, self.weight = source, list(scores), label, weight
        self.where = f"'{source.path}'"
        self.id_column, self._relation, self._extra = id_column, relation, list(extra)
        if ids:
            self._relation, ident, exact = self._id_relation()
            self._extra = [f"{ident} AS id", f"{exact} AS id_exact"]
        self.con: Any = None
        self._types: dict[str, str] = {}

    def _id_relation(self) -> tuple[str, str, str]:
        """(FROM clause, id expression, whether the id is a whole number): the id column, or the Parquet file's row
        number. A CSV file's checked columns are read as text (as :func:`grid_view` reads them)."""
        source = self.source
        if self.id_column is not None:
            text = [*self.scores, self.label, *([self.weight] if self.weight else [])]
            text = text if source.file_format == "CSV" else []
            ident = f"TRY_CAST({quote_identifier(self.id_column)} AS BIGINT)"
            exact = f"TRY_CAST({quote_identifier(self.id_column)} AS DOUBLE) = CAST({ident} AS DOUBLE)"
            return source.relation(text_columns=text), ident, exact
        if source.table is None and source.file_format == "Parquet" and not GLOB_CHARS & set(source.path):
            return source.relation(row_number=True), "file_row_number", "TRUE"
        raise no_row_id(self.where)

    def __enter__(self) -> DuckCounter:
        self.con = self.source.connect()
        try:
            grid_view(
                self.con, self.source, self.scores, self.label, self.weight, relation=self._relation, extra=self._extra
            )
        except BaseException:
            self.con.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.con.close()

    def _read(self, sql: str, params=None):
        try:
            return self.con.execute(sql, params) if params else self.con.execute(sql)
        except Exception as exc:  # duckdb's own error types: a CSV row it cannot read, a refused file
            raise InputError(f"DuckDB could not read {self.where}: {duckdb_problem(self.source, exc)}") from None

    def check_counts(self, distinct: bool) -> list:
        self._types = {name: str(kind).upper() for name, kind, *_ in self._read("DESCRIBE grid_rows").fetchall()}
        return list(self._read(_check_sql(len(self.scores), self._types)).fetchall()[0])

    def boolean_columns(self, values: list) -> set[str]:
        try:
            return _booleans(self.con, self.scores, self.weight, self._types, values)
        except Exception as exc:  # duckdb's own error types
            raise InputError(f"DuckDB could not read {self.where}: {duckdb_problem(self.source, exc)}") from None

    def locate(self, kind: str, column: str, n: int) -> str:
        locator = _Locator(self.con, self.source, self.scores, self.label, self.weight, self._types)
        try:
            return locator(kind, column, n)
        except Exception as exc:  # duckdb's own error types
            raise InputError(f"DuckDB could not read {self.where}: {duckdb_problem(self.source, exc)}") from None

    def score_counts(self, cap: int | None = None):
        if cap is not None:
            distinct = self.con.execute("SELECT count(DISTINCT s0) FROM grid_rows WHERE y IS NOT NULL").fetchall()[0][0]
            if distinct > cap:
                return int(distinct), None
        out = self.con.execute(
            "SELECT s0, sum(w * y), sum(w * (1 - y)) FROM grid_rows WHERE y IS NOT NULL GROUP BY s0 ORDER BY s0 DESC"
        ).fetchnumpy()
        s, tp, fp = (np.asarray(out[k], dtype=np.float64) for k in out)
        return int(s.size), (s, tp, fp)

    def score_quantiles(self, qs: np.ndarray) -> np.ndarray:
        q = ", ".join(repr(float(x)) for x in qs)
        found = self.con.execute(f"SELECT quantile_disc(s0, [{q}]) FROM grid_rows WHERE y IS NOT NULL").fetchall()
        return np.asarray(found[0][0], dtype=np.float64)

    def bin_counts(self, edges: np.ndarray, wanted: list[int] | None) -> dict[str, np.ndarray]:
        import pandas as pd

        # each rated row goes to the last edge at or below its score (an ASOF join: one sort, no per-edge work)
        self.con.register("edge_table", pd.DataFrame({"b": np.arange(edges.size - 1), "e": edges[:-1]}))
        rated = (
            "(SELECT * FROM grid_rows WHERE y IS NOT NULL) AS rated ASOF JOIN edge_table ON rated.s0 >= edge_table.e"
        )
        if wanted is None:
            out = self.con.execute(f"SELECT b, sum(w * y), sum(w * (1 - y)) FROM {rated} GROUP BY b").fetchnumpy()
            return _columns(out, ("b", "tp", "fp"))
        self.con.register("wanted_bins", pd.DataFrame({"b": np.asarray(wanted, dtype=np.int64)}))
        out = self.con.execute(
            f"SELECT b, s0, sum(w * y), sum(w * (1 - y)) FROM {rated} WHERE b IN (SELECT b FROM wanted_bins) "
            "GROUP BY b, s0"
        ).fetchnumpy()
        return _columns(out, ("b", "s", "tp", "fp"))

    def fine_bins(self, col: str, params: dict) -> list[tuple[int, int, float, float]]:
        return fine_bins(self.con, col, params)

    def value_counts(self, col: str, params: dict, bin_ids: list[int] | None) -> tuple[np.ndarray, np.ndarray]:
        return value_counts(self.con, col, params, bin_ids)

    def cell_counts(self, axes: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
        sql = "(SELECT * FROM grid_rows WHERE y IS NOT NULL)"
        indices, params = [], {}
        for j, axis in enumerate(axes):
            sql, idx, params[f"e{j}"] = _bisect_sql(sql, f"s{j}", axis[:-1], f"e{j}")
            indices.append(idx)
        out = self.con.execute(
            f"SELECT {', '.join(indices)}, sum(w * y), sum(w * (1 - y)) FROM {sql} GROUP BY ALL", params
        ).fetchnumpy()
        return _columns(out, [*(f"e{j}" for j in range(len(axes))), "tp", "fp"])

    def bad_ids(self) -> int:
        try:
            sql = "SELECT count(*) FROM grid_rows WHERE y IS NOT NULL AND (id IS NULL OR id < 0 OR NOT id_exact)"
            return int(self.con.execute(sql).fetchall()[0][0])
        except Exception as exc:  # duckdb raises its own error types (an id that is not an integer)
            raise InputError(
                f"DuckDB could not read the columns from '{self.source.path}': {duckdb_problem(self.source, exc)}"
            ) from None

    def replicate_counts(self, replicates: np.ndarray, seed: int) -> dict[str, np.ndarray]:
        template, _ = poisson_sql("id", "key")
        keys = [str(replicate_key(int(r), seed)) for r in replicates]
        rel = (
            "(SELECT grid_rows.*, reps.r, reps.key FROM grid_rows, (SELECT unnest($r) AS r, "
            "CAST(unnest($keys) AS UHUGEINT) AS key) AS reps WHERE grid_rows.y IS NOT NULL)"
        )
        out = self.con.execute(
            f"SELECT r, s0, sum(w * y * p), sum(w * (1 - y) * p) FROM {template.format(rel=rel)} GROUP BY r, s0",
            {"r": [int(r) for r in replicates], "keys": keys},
        ).fetchnumpy()
        return _columns(out, ("r", "s", "tp", "fp"))
