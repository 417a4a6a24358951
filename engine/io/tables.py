"""Reading uploaded tables: CSV (any common delimiter, optionally gzip) and Parquet, from paths, bytes or files.

The format is recognised from the bytes (gzip and Parquet magic numbers), not the
file name. Every problem raises :class:`~engine.errors.RatedDataError` (an
:class:`~engine.errors.InputError`) naming the file and the fix.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Sequence, Union

import pandas as pd

from ..errors import RatedDataError

__all__ = ["Source", "Table", "read_table", "read_source", "check_unique_columns"]

Source = Union[str, os.PathLike, bytes, IO[bytes], IO[str]]


@dataclass(frozen=True)
class Table:
    """A parsed upload: the frame, a display name and the SHA-256 of the raw bytes."""

    frame: pd.DataFrame
    name: str
    fingerprint: str
    file_format: str  # "csv", "csv.gz", "parquet", "parquet.gz"


def read_source(source: Source) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), "upload"
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise RatedDataError(f"File '{path}' does not exist. Check the path.")
        return path.read_bytes(), path.name
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = getattr(source, "name", "upload")
        return bytes(data), os.path.basename(str(name))
    raise RatedDataError(f"Cannot read data from a {type(source).__name__}; give a path, bytes or a file object.")


def _sniff_delimiter(text_head: str) -> str:
    first_line = text_head.splitlines()[0] if text_head else ""
    try:
        return csv.Sniffer().sniff(text_head, delimiters=",;\t|").delimiter
    except csv.Error:
        counts = {d: first_line.count(d) for d in ",;\t|"}
        best = max(counts, key=counts.get)
        return best if counts[best] > 0 else ","


def read_table(source: Source, *, header: bool = True) -> Table:
    """Read CSV (``,`` ``;`` tab or ``|`` delimited, optionally gzip) or Parquet.

    The format is recognised from the bytes (gzip and Parquet magic numbers), not
    the file name, so uploads with odd names work. Duplicate column names raise
    :class:`RatedDataError` (pandas would silently rename them).
    """
    raw, name = read_source(source)
    fingerprint = hashlib.sha256(raw).hexdigest()
    fmt = ""
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise RatedDataError(f"'{name}' looks gzip-compressed but cannot be decompressed ({exc}). "
                                 "Re-compress it or upload the plain CSV.") from None
        fmt = ".gz"
    if not raw.strip():
        raise RatedDataError(f"'{name}' is empty. Upload a CSV or Parquet file with a header row "
                             "and one row per rated document.")
    if raw[:4] == b"PAR1":
        try:
            frame = pd.read_parquet(io.BytesIO(raw))
        except Exception as exc:  # pyarrow raises many types
            raise RatedDataError(f"'{name}' is not a readable Parquet file ({exc}).") from None
        names = [str(c) for c in frame.columns]
        check_unique_columns(names, name)
        frame.columns = names
        return Table(frame, name, fingerprint, "parquet" + fmt)

    try:
        text_head = raw[:65536].decode("utf-8-sig")
    except UnicodeDecodeError:
        text_head = raw[:65536].decode("latin-1")
    delimiter = _sniff_delimiter(text_head)
    encoding = "utf-8-sig"
    try:
        raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        encoding = "latin-1"
    if header:
        header_fields = next(csv.reader(io.StringIO(text_head.splitlines()[0]), delimiter=delimiter))
        check_unique_columns([h.strip() for h in header_fields], name)
    try:
        frame = pd.read_csv(io.BytesIO(raw), sep=delimiter, encoding=encoding, header=0 if header else None,
                            skipinitialspace=True, low_memory=False)
    except pd.errors.EmptyDataError:
        raise RatedDataError(f"'{name}' is empty. Upload a file with a header row and data rows.") from None
    except pd.errors.ParserError as exc:
        raise RatedDataError(f"'{name}' could not be parsed as '{delimiter}'-delimited text ({exc}). "
                             "Check that every row has the same number of fields.") from None
    if header:
        frame.columns = [str(c).strip() for c in frame.columns]
    if len(frame) == 0:
        raise RatedDataError(f"'{name}' has a header but no data rows. Add one row per rated document.")
    return Table(frame, name, fingerprint, "csv" + fmt)


def check_unique_columns(names: Sequence[str], file_name: str) -> None:
    """Raise :class:`RatedDataError` naming every duplicated column name."""
    seen: dict[str, int] = {}
    dupes = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        if seen[n] == 2:
            dupes.append(n)
    if dupes:
        raise RatedDataError(f"'{file_name}' has duplicate column names: {', '.join(map(repr, dupes))}. "
                             "Rename them so that every column name is unique.")
