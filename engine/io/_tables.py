"""Reading uploaded tables: CSV (any common delimiter, optionally gzip) and Parquet, from paths, bytes or files.

The format is recognised from the bytes (gzip, Parquet, zip/Excel magic numbers,
UTF-16 byte-order marks), not the file name. Every problem raises
:class:`~engine.errors.RatedDataError` (an :class:`~engine.errors.InputError`)
naming the file, the rows and the fix; nothing is read silently wrong:

* blank lines before the header are skipped; a header of numbers only (a file
  without header) is refused, since its first row would become column names;
* every row must have as many fields as the header (a comma decimal in a comma
  CSV adds a field: refused with the rows, never shifted into an index);
* column names must be unique after trimming and ignoring case;
* sizes are bounded: :data:`MAX_UPLOAD_BYTES` as read, :data:`MAX_TABLE_BYTES`
  once decompressed (a gzip bomb is refused while it is being inflated).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Union

import numpy as np
import pandas as pd

from ..errors import InputError, RatedDataError, describe_rows
from ..untrusted import inflate_gzip
from ._numbers import EXACT_READ_CSV, is_number

__all__ = [
    "Source",
    "Table",
    "read_table",
    "read_source",
    "check_unique_columns",
    "refuse_numeric_header",
    "sniff_delimiter",
    "MAX_UPLOAD_BYTES",
    "MAX_TABLE_BYTES",
    "MAX_COLUMNS",
]

Source = Union[str, os.PathLike, bytes, IO[bytes], IO[str]]  # noqa: UP007 (a runtime alias: | needs 3.10 types)

#: largest file accepted as read (the dashboard's upload limit, enforced by the engine as well)
MAX_UPLOAD_BYTES = 200 * 1024 * 1024
#: largest table accepted once decompressed
MAX_TABLE_BYTES = 512 * 1024 * 1024
#: most columns a table may have (a wider file is almost certainly not a table of scores)
MAX_COLUMNS = 2_000


@dataclass(frozen=True)
class Table:
    """A parsed upload: the frame, a display name and the SHA-256 of the raw bytes.

    Attributes
    ----------
    frame : pandas.DataFrame
        The rows, columns named by the header (or numbered without one).
    name : str
        Display name used in messages (the file name).
    fingerprint : str
        Hex SHA-256 of the raw bytes as uploaded (before decompression).
    file_format : str
        ``"csv"``, ``"csv.gz"``, ``"parquet"`` or ``"parquet.gz"``.
    """

    frame: pd.DataFrame
    name: str
    fingerprint: str
    file_format: str  # "csv", "csv.gz", "parquet", "parquet.gz"


def read_source(source: Source, name: str | None = None) -> tuple[bytes, str]:
    """The bytes of a path, bytes or file object, and the name to use in messages.

    Parameters
    ----------
    source : str, os.PathLike, bytes or file object
        A path (at most ``MAX_UPLOAD_BYTES``), the bytes themselves, or an object with ``read()``.
    name : str, optional
        The name used in messages (default: the file's name, or "upload").

    Returns
    -------
    (bytes, str)
        The content and the name.

    Raises
    ------
    RatedDataError
        The path does not exist or the file is too large.
    """
    if isinstance(source, (bytes, bytearray)):
        data, default = bytes(source), "upload"
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise RatedDataError(f"File '{path}' does not exist. Check the path.")
        if path.stat().st_size > MAX_UPLOAD_BYTES:
            raise RatedDataError(
                f"'{path.name}' is {path.stat().st_size / 2**20:,.0f} MB; at most "
                f"{MAX_UPLOAD_BYTES / 2**20:,.0f} MB can be read. Aggregate it first (for example "
                "into the t1..tk, tp, fp counts format) or use a DuckDB/Spark backend."
            )
        data, default = path.read_bytes(), path.name
    elif hasattr(source, "read"):
        read = source.read()
        data = read.encode("utf-8") if isinstance(read, str) else read
        data, default = bytes(data), os.path.basename(str(getattr(source, "name", "upload")))
    else:
        raise RatedDataError(f"Cannot read data from a {type(source).__name__}; give a path, bytes or a file object.")
    name = name or default
    if len(data) > MAX_UPLOAD_BYTES:
        raise RatedDataError(
            f"'{name}' is {len(data) / 2**20:,.0f} MB; at most {MAX_UPLOAD_BYTES / 2**20:,.0f} MB "
            "can be uploaded. Upload a sample or aggregated counts instead."
        )
    return data, name


def _gunzip(raw: bytes, name: str) -> bytes:
    """Decompress gzip (several members allowed), refusing more than :data:`MAX_TABLE_BYTES` as it inflates."""
    try:
        return inflate_gzip(raw, what=f"file '{name}'", max_bytes=MAX_TABLE_BYTES)
    except InputError as exc:
        raise RatedDataError(str(exc)) from None


def _refuse_other_formats(raw: bytes, name: str) -> None:
    if raw[:4] == b"PK\x03\x04":
        kind = (
            "an Excel workbook (.xlsx)" if b"xl/" in raw[:4096] or b"[Content_Types]" in raw[:4096] else "a zip archive"
        )
        raise RatedDataError(
            f"'{name}' is {kind}, not a CSV or Parquet table. "
            + (
                "Save the sheet as CSV (File > Save as > CSV UTF-8) and upload that."
                if "Excel" in kind
                else "Unzip it and upload the CSV or Parquet file inside."
            )
        )
    if raw[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        raise RatedDataError(f"'{name}' is an old Excel workbook (.xls). Save the sheet as CSV and upload that.")


def _decode(raw: bytes, name: str) -> str:
    """Text of a CSV: UTF-8 (with or without BOM), UTF-16 (by its BOM), else Latin-1; binary refused."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise RatedDataError(
                f"'{name}' starts like UTF-16 text but is not valid UTF-16. Save it as UTF-8 CSV."
            ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    head = text[:65536]
    if "\x00" in head or sum(ch < " " and ch not in "\t\r\n" for ch in head) > len(head) // 100 + 2:
        raise RatedDataError(
            f"'{name}' is not a text table (it holds binary data). Upload a CSV (comma, semicolon, "
            "tab or | delimited) or a Parquet file."
        )
    return text


def sniff_delimiter(text_head: str) -> str:
    """The delimiter of CSV text (``,`` ``;`` tab or ``|``), sniffed on its first lines.

    Parameters
    ----------
    text_head : str
        The first non-blank lines of the text.

    Returns
    -------
    str
        What :func:`csv.Sniffer` finds among the four, else the most frequent of them on the
        first line (``,`` when none occurs).
    """
    first_line = text_head.splitlines()[0] if text_head else ""
    try:
        return csv.Sniffer().sniff(text_head, delimiters=",;\t|").delimiter
    except csv.Error:
        counts = {d: first_line.count(d) for d in ",;\t|"}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] > 0 else ","


def _csv_rows(lines: list[str], delimiter: str, name: str) -> list[list[str]]:
    """``csv.reader`` over the lines, its errors (a field over the module's size limit ...) as RatedDataError."""
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        return list(reader)
    except csv.Error as exc:
        line = reader.line_num or 1
        if "field limit" in str(exc):
            raise RatedDataError(
                f"'{name}': line {line:,} (blank lines not counted) holds a field longer than "
                f"{csv.field_size_limit():,} characters, the most a CSV field may hold. This is usually a quote "
                "that is never closed or a file that is not a table: close the quote, or shorten or drop that "
                "column."
            ) from None
        raise RatedDataError(
            f"'{name}': line {line:,} (blank lines not counted) cannot be read as "
            f"'{delimiter}'-delimited text (a stray quote or line break inside a field?). Quote "
            "fields that contain the delimiter, quotes or line breaks."
        ) from None


def _field_counts(lines: list[str], delimiter: str, name: str) -> np.ndarray:
    """Fields per line (quoted fields honoured when the text has quotes)."""
    if any('"' in line for line in lines):
        return np.array([len(row) for row in _csv_rows(lines, delimiter, name)])
    return np.array([line.count(delimiter) + 1 for line in lines])


#: most lines without a delimiter (blank-line candidates) the vectorised layout checks one by one
_MAX_BLANK_CANDIDATES = 10_000


@dataclass(frozen=True)
class _Layout:
    """The non-blank lines of a text: the first ones, fields per line, and the text without blank lines."""

    head: list
    counts: np.ndarray
    body: str


def _layout(text: str, delimiter: str, name: str = "table", encoded: bytes | None = None) -> _Layout:
    """Non-blank lines and their field counts; vectorised for plain text (what almost every export is).

    Plain: ASCII, lines broken by "\n" only (none of "\r", "\x0b", "\x0c", "\x1c"-"\x1e", where
    ``str.splitlines`` also breaks), no quotes, a delimiter other than tab. Then a
    blank line has no delimiter, so only lines without one are checked with ``str.strip``;
    anything else takes the line-by-line path (``splitlines``, ``csv`` for quoted fields).
    ``encoded``, when given, is ``text.encode("ascii")`` already at hand (the raw bytes of an ASCII file).
    """
    if encoded is None and text.isascii():
        encoded = text.encode("ascii")
    # `in` on bytes is a memchr per byte value: no temporary, a fraction of a numpy comparison pass
    if encoded is not None and delimiter != "\t" and not any(c in encoded for c in b'"\r\x0b\x0c\x1c\x1d\x1e'):
        data = np.frombuffer(encoded, np.uint8)
        breaks = _positions(data, 10)
        starts, ends = np.r_[0, breaks + 1], np.r_[breaks, data.size]
        counts = _delimiter_counts(data, ord(delimiter), breaks, starts, ends)
        candidates = np.flatnonzero(counts == 1)
        if candidates.size <= _MAX_BLANK_CANDIDATES:
            blank = [i for i in candidates if not text[starts[i] : ends[i]].strip()]
            if not blank or (blank == [starts.size - 1] and starts[-1] == data.size):
                # nothing blank but a trailing newline's empty last line: the text is the body as it is
                kept = starts.size - len(blank)
                head = [text[starts[i] : ends[i]] for i in range(min(kept, 201))]
                return _Layout(head, counts[:kept], text)
            kept_lines = np.delete(np.arange(starts.size), blank)
            head = [text[starts[i] : ends[i]] for i in kept_lines[:201]]
            body = "\n".join(text[starts[i] : ends[i]] for i in kept_lines)
            return _Layout(head, counts[kept_lines], body)
    lines = [line for line in text.splitlines() if line.strip()]
    return _Layout(lines[:201], _field_counts(lines, delimiter, name), "\n".join(lines))


def _positions(data: np.ndarray, byte: int) -> np.ndarray:
    """``np.flatnonzero(data == byte)``, a slice at a time (no mask of the whole text), int32 when that holds them.

    The delimiters' positions are the largest temporary of a read: int32 halves it, as fast.
    """
    dtype = np.int32 if data.size < 2**31 else np.intp
    step = 1 << 18
    parts = [np.flatnonzero(data[i : i + step] == byte).astype(dtype) + dtype(i) for i in range(0, data.size, step)]
    return np.concatenate(parts) if parts else np.empty(0, dtype)


def _delimiter_counts(
    data: np.ndarray, delimiter: int, breaks: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> np.ndarray:
    """Fields per "\n"-separated line of ASCII ``data`` (delimiters + 1; a last line after a final "\n" counted).

    A well-formed table has as many delimiters on every line as on the first: then the delimiter
    positions, one row per line, each lie within their own line, checked in O(lines) instead of
    locating every delimiter's line (a ``searchsorted`` per delimiter, the bulk of the time).
    """
    positions = _positions(data, delimiter)
    lines = starts.size - int(starts[-1] == data.size)  # the empty "line" after a final newline has no delimiter
    per_line = int(np.searchsorted(positions, ends[0]))  # on the first line
    if per_line and positions.size == lines * per_line:
        rows = positions.reshape(lines, per_line)
        if (rows[:, 0] >= starts[:lines]).all() and (rows[:, -1] < ends[:lines]).all():
            counts = np.full(starts.size, per_line + 1, dtype=np.intp)
            counts[lines:] = 1
            return counts
    return np.bincount(np.searchsorted(breaks, positions), minlength=starts.size) + 1


_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+\s*$")


def _decimal(lines: list[str], delimiter: str) -> str:
    """',' when a non-comma-delimited file writes numbers with decimal commas (0,45), else '.'."""
    if delimiter == ",":
        return "."
    sample = [field for line in lines[1:201] for field in line.split(delimiter)]
    commas = sum(bool(_DECIMAL_COMMA.match(f)) for f in sample)
    dots = sum("." in f and is_number(f) for f in sample)
    return "," if commas > dots else "."


def refuse_numeric_header(fields: Sequence[str], name: str) -> None:
    """Refuse a header line made only of numbers: it would be read as column names and lost as data.

    Parameters
    ----------
    fields : sequence of str
        The first line's fields.
    name : str
        The file, for the message.

    Raises
    ------
    RatedDataError
        Every non-empty field is a number.
    """
    if any(f.strip() for f in fields) and all(is_number(f.strip()) for f in fields if f.strip()):
        raise RatedDataError(
            f"'{name}' has no header row: its first line ({','.join(fields)[:60]!r}) holds only "
            "numbers, so it would be read as column names and lost as data. Add a header line "
            "naming the columns (for example 'score,label')."
        )


def _check_shape(layout: _Layout, delimiter: str, name: str, header: bool) -> None:
    counts, lines = layout.counts, layout.head
    expected = counts[0]
    if expected > MAX_COLUMNS:
        raise RatedDataError(
            f"'{name}' has {expected:,} columns; at most {MAX_COLUMNS:,} are read. Keep the score, "
            "label, weight and group columns and drop the rest."
        )
    bad = np.flatnonzero(counts[1:] != expected) if header else np.flatnonzero(counts != expected)
    if bad.size:
        first = bad[0] + (1 if header else 0)
        verb = "has" if bad.size == 1 else "have"
        raise RatedDataError(
            f"'{name}': {describe_rows(bad)} {verb} {counts[first]} fields where the "
            f"{'header has' if header else 'first row has'} {expected} ('{delimiter}'-delimited). Check for a "
            f"decimal comma in a comma-separated file (use a dot, or ';' as the delimiter), a missing or extra "
            "delimiter, or an unquoted text containing the delimiter."
        )
    if header:
        fields = _csv_rows([lines[0]], delimiter, name)[0]
        refuse_numeric_header(fields, name)
        check_unique_columns([f.strip() for f in fields], name)


def _read_parquet(raw: bytes, name: str, fingerprint: str, fmt: str) -> Table:
    try:
        frame = pd.read_parquet(io.BytesIO(raw))
    except Exception as exc:  # pyarrow raises many types
        raise RatedDataError(f"'{name}' is not a readable Parquet file ({exc}).") from None
    names = [str(c) for c in frame.columns]
    check_unique_columns(names, name)
    if len(names) > MAX_COLUMNS:
        raise RatedDataError(f"'{name}' has {len(names):,} columns; at most {MAX_COLUMNS:,} are read.")
    frame.columns = names
    return Table(_plain_categories(frame), name, fingerprint, "parquet" + fmt)


def _plain_categories(frame: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns (pandas' dictionary encoding of Parquet) as the plain values a CSV read gives.

    A categorical refuses values outside its categories, so code that writes into a column
    (an export that neutralises formulas, a fill of missing values) would fail on it; the
    rest of the engine sees text (or numbers) exactly as if the file had been a CSV.
    """
    categorical = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if not categorical:
        return frame
    out = frame.copy()
    for c in categorical:
        out[c] = pd.Series(np.asarray(frame[c], dtype=object), index=frame.index, name=c).infer_objects()
    return out


def read_table(source: Source, *, header: bool = True, name: str | None = None, delimiter: str | None = None) -> Table:
    """Read CSV (``,`` ``;`` tab or ``|`` delimited, optionally gzip) or Parquet, validated as a table.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        The file: a path, its raw bytes or an open binary file.
    header : bool
        Whether the first (non-blank) line names the columns.
    name : str, optional
        The name used in messages (an upload's file name); defaults to the path's or file's name.
    delimiter : {",", ";", "\\t", "|"}, optional
        The delimiter when the caller knows it (a file whose header it knows); sniffed otherwise.

    Returns
    -------
    Table
        The frame with the file's name, SHA-256 fingerprint and format.

    Raises
    ------
    RatedDataError
        With the file name, the rows and the fix (see the module docstring for what is checked).

    Examples
    --------
    >>> from engine import read_table
    >>> table = read_table("sample_data/synthetic_rare_events.csv.gz")
    >>> table.name, list(table.frame.columns)[:3]
    ('synthetic_rare_events.csv.gz', ['doc_id', 'score_image', 'score_text'])
    """
    raw, name = read_source(source, name)
    fingerprint = hashlib.sha256(raw).hexdigest()
    fmt = ""
    if raw[:2] == b"\x1f\x8b":
        raw, fmt = _gunzip(raw, name), ".gz"
    if not raw or raw.isspace():  # what `not raw.strip()` says, without copying the file
        raise RatedDataError(
            f"'{name}' is empty. Upload a CSV or Parquet file with a header row and one row per rated document."
        )
    if raw[:4] == b"PAR1":
        return _read_parquet(raw, name, fingerprint, fmt)
    _refuse_other_formats(raw, name)
    text = _decode(raw, name)
    # the delimiter is sniffed on the first non-blank lines (the text is split only that far)
    first = [part for piece in text.split("\n", 1000)[:1000] for part in piece.splitlines() if part.strip()][:200]
    if not first:
        raise RatedDataError(f"'{name}' is empty. Upload a file with a header row and data rows.")
    delimiter = delimiter if delimiter in (",", ";", "\t", "|") else sniff_delimiter("\n".join(first))
    # ASCII text decoded from as many bytes (no BOM, not UTF-16) is the raw bytes: no copy to encode it again
    encoded = raw if len(raw) == len(text) and text.isascii() else None
    layout = _layout(text, delimiter, name, encoded)
    _check_shape(layout, delimiter, name, header)
    decimal = _decimal(layout.head, delimiter)
    # the untouched text as its bytes: pandas need not encode the str again, and the str is let go while it parses
    body = io.BytesIO(raw) if encoded is not None and layout.body is text else io.StringIO(layout.body)
    del text, layout
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                body,
                sep=delimiter,
                header=0 if header else None,
                index_col=False,
                skipinitialspace=True,
                low_memory=False,
                decimal=decimal,
                **EXACT_READ_CSV,
            )
    except (pd.errors.ParserError, pd.errors.ParserWarning, csv.Error) as exc:
        raise RatedDataError(
            f"'{name}' could not be parsed as '{delimiter}'-delimited text ({exc}). "
            "Check that every row has the same number of fields."
        ) from None
    if header:
        frame.columns = [str(c).strip() for c in frame.columns]
    if len(frame) == 0:
        raise RatedDataError(f"'{name}' has a header but no data rows. Add one row per rated document.")
    return Table(frame, name, fingerprint, "csv" + fmt)


def check_unique_columns(names: Sequence[str], file_name: str) -> None:
    """Raise :class:`RatedDataError` naming every column name used twice (ignoring case and surrounding spaces).

    Parameters
    ----------
    names : sequence of str
        Column names in file order.
    file_name : str
        The file's name, for the message.

    Raises
    ------
    RatedDataError
        Two names equal after ``strip().casefold()``.
    """
    seen: dict[str, str] = {}
    dupes = []
    for n in names:
        key = str(n).strip().casefold()
        if key in seen:
            dupes.append(f"{seen[key]!r} and {str(n)!r}" if seen[key] != n else repr(n))
        else:
            seen[key] = n
    if dupes:
        raise RatedDataError(
            f"'{file_name}' has duplicate column names (ignoring case and spaces): "
            f"{', '.join(dupes)}. Rename them so that every column name is unique."
        )
