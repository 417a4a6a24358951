"""Helpers shared by the per-kind forms: parse an upload once per session."""

from __future__ import annotations

import hashlib

import streamlit as st

from engine.io import Table, read_table, sample_path
from engine.reporting import neutralise_formulas
from views.state import memo

#: rows shown in a file preview
PREVIEW_ROWS = 200


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def parse_table(raw: bytes, name: str) -> Table:
    """Parse an upload once per distinct content (keyed by the bytes' SHA-256)."""
    table = memo(("table", digest(raw)), lambda: read_table(raw, name=name))
    return Table(table.frame, name, table.fingerprint, table.file_format)


def sample_bytes(key: str) -> tuple[bytes, str]:
    path = sample_path(key)
    return path.read_bytes(), path.name


def preview(table: Table) -> None:
    """The first rows of an upload; formula-like text is neutralised, so the table's own CSV download is safe."""
    st.dataframe(neutralise_formulas(table.frame.head(PREVIEW_ROWS)), height=280)
