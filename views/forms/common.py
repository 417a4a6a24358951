"""Helpers shared by the per-kind forms: parse an upload once per session."""

from __future__ import annotations

import hashlib

import streamlit as st

from engine.io import Table, read_table, sample_path
from engine.presentation import EMPTY
from engine.reporting import neutralise_formulas
from views.session_input import SessionInput
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
    st.dataframe(neutralise_formulas(table.frame.head(PREVIEW_ROWS)), height=280, placeholder=EMPTY)


def validated(kind: str, table: Table, mapping, build):
    """``build(frame, mapping, name=, fingerprint=)`` once per table and mapping (the engine validates)."""
    return memo(
        (kind, table.fingerprint, mapping),
        lambda: build(table.frame, mapping, name=table.name, fingerprint=table.fingerprint),
    )


def table_input(kind: str, table: Table, value, source: str, sample_key: str | None = None) -> SessionInput:
    """A validated tabular input whose engine object carries its own mapping."""
    return SessionInput(table.name, kind, source, table.fingerprint, value, value.mapping, sample_key, table)


def tabular_sample(key: str, kind: str, detect, build) -> SessionInput:
    """A shipped tabular sample, its columns detected and validated."""
    raw, name = sample_bytes(key)
    table = parse_table(raw, name)
    return table_input(kind, table, validated(kind, table, detect(table.frame), build), "sample", key)
