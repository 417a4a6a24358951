"""Which backend counts a file (kept for its import path; the rule lives with the data-source registry)."""

from __future__ import annotations

from .sources import AUTO_DUCKDB_BYTES, BACKENDS, choose_backend

__all__ = ["choose_backend", "AUTO_DUCKDB_BYTES", "BACKENDS"]
