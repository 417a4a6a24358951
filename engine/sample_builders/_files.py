"""Writing sample files reproducibly: CSV with ``\\n`` line ends, gzip without a timestamp, skops without ids."""

from __future__ import annotations

import gzip
import io
import re
import zipfile
from pathlib import Path

import pandas as pd

__all__ = ["write_csv", "gzip_bytes", "reproducible_skops"]


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


def reproducible_skops(raw: bytes) -> bytes:
    """A skops file rewritten so the same model always gives the same bytes.

    ``skops.io.dumps`` names array members and ``__id__`` fields after ``id()`` of the
    objects and stamps each member with the current time; here every such id becomes
    its rank of first appearance in ``schema.json`` (the same renaming in the member
    names and the schema, so shared references stay shared), the members are dated
    1980-01-01 and deflated at level 9, in their original order.

    Parameters
    ----------
    raw : bytes
        A file from ``skops.io.dumps``.

    Returns
    -------
    bytes
        The same model, byte for byte reproducible.
    """
    with zipfile.ZipFile(io.BytesIO(raw)) as src:
        members = [(info.filename, src.read(info)) for info in src.infolist()]
    schema = dict(members)["schema.json"].decode()
    ids: dict[str, str] = {}
    for match in re.finditer(r'"__id__": (\d+)|"(\d+)\.npy"', schema):
        ids.setdefault(match.group(1) or match.group(2), str(len(ids)))

    def rename(text: str) -> str:
        return re.sub(
            r'("__id__": )(\d+)|"(\d+)(\.npy")',
            lambda m: f"{m.group(1)}{ids[m.group(2)]}" if m.group(1) else f'"{ids[m.group(3)]}{m.group(4)}',
            text,
        )

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for name, data in members:
            if name == "schema.json":
                data = rename(schema).encode()
            elif name.endswith(".npy") and name[:-4] in ids:
                name = f"{ids[name[:-4]]}.npy"
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            out.writestr(info, data, compresslevel=9)
    return buf.getvalue()
