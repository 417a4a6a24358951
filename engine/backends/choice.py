"""Which backend counts a file: memory for what fits comfortably, DuckDB for large files and globs, Spark when asked."""

from __future__ import annotations

import glob
import os

from ..errors import InputError

__all__ = ["choose_backend", "AUTO_DUCKDB_BYTES", "BACKENDS"]

BACKENDS = ("auto", "memory", "duckdb", "spark")
#: files (or globs) larger than this are counted by DuckDB under --backend auto
AUTO_DUCKDB_BYTES = 100 * 1024 * 1024


def choose_backend(path: str, backend: str = "auto") -> str:
    """The backend counting a path or glob; ``auto`` picks DuckDB for globs and large files, never Spark.

    Parameters
    ----------
    path : str
        A file path or a glob.
    backend : {"auto", "memory", "duckdb", "spark"}, optional
        ``memory``, ``duckdb`` and ``spark`` are returned as given (Spark only when asked: it
        needs a JVM and, for a cluster, a Connect URL); ``auto`` means DuckDB for a glob
        (or a pattern matching other than exactly ``path``) and for a file larger than
        :data:`AUTO_DUCKDB_BYTES`, memory otherwise.

    Returns
    -------
    str
        ``"memory"``, ``"duckdb"`` or ``"spark"``.

    Raises
    ------
    InputError
        ``backend`` is not one of :data:`BACKENDS`.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend != "auto":
        return backend
    files = glob.glob(path)
    if len(files) != 1 or files[0] != path:
        return "duckdb"  # a glob (or several files) is never read into memory whole
    return "duckdb" if os.path.getsize(path) > AUTO_DUCKDB_BYTES else "memory"
