"""Writing sample files reproducibly: CSV with ``\\n`` line ends, gzip without a timestamp."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pandas as pd

__all__ = ["write_csv", "gzip_bytes"]


def gzip_bytes(raw: bytes) -> bytes:
    """``raw`` gzip-compressed at level 9 with no timestamp, so the same input gives the same bytes.

    Parameters
    ----------
    raw : bytes
        What to compress.

    Returns
    -------
    bytes
        The gzip stream.
    """
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    return buf.getvalue()


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` as CSV (no index), gzip-compressed when ``path`` ends in ``.gz``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows.
    path : pathlib.Path
        Where to write.
    """
    text = frame.to_csv(index=False, lineterminator="\n").encode()
    path.write_bytes(gzip_bytes(text) if path.suffix == ".gz" else text)
