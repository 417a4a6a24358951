"""Helpers shared by the per-kind forms: parse an upload once per session."""

from __future__ import annotations

import hashlib

from engine.io import Table, read_table, sample_path
from views.state import memo


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def parse_table(raw: bytes, name: str) -> Table:
    """Parse an upload once per distinct content (keyed by the bytes' SHA-256)."""
    table = memo(("table", digest(raw)), lambda: read_table(raw))
    return Table(table.frame, name, table.fingerprint, table.file_format)


def sample_bytes(key: str) -> tuple[bytes, str]:
    path = sample_path(key)
    return path.read_bytes(), path.name
