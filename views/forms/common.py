"""Helpers shared by the per-kind forms: parse an upload once per session; an input read again from its bytes."""

from __future__ import annotations

import dataclasses
import hashlib

import streamlit as st

from engine.errors import InputError
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


def mapping_fields(mapping) -> dict | str | None:
    """A column mapping as JSON values (a view stores it): a dataclass's fields (tuples as lists), text or None."""
    if mapping is None or isinstance(mapping, str):
        return mapping
    return {
        f.name: (list(v) if isinstance(v, tuple) else v)
        for f in dataclasses.fields(mapping)
        for v in [getattr(mapping, f.name)]
    }


def mapping_of(cls, fields) -> object:
    """The mapping ``cls`` from :func:`mapping_fields`'s JSON (lists back to tuples); a stored view is checked."""
    if not isinstance(fields, dict) or not all(
        isinstance(v, (str, type(None))) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
        for v in fields.values()
    ):
        raise InputError(f"the view's column mapping is not a {cls.__name__}; save the view again.")
    try:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
    except TypeError:
        raise InputError(f"the view's column mapping is not a {cls.__name__}; save the view again.") from None


def restored_table(kind: str, raw: bytes, name: str, mapping, build, sample_key: str | None = None) -> SessionInput:
    """A tabular input read again from its bytes with its mapping (no session memo: the server's cache holds it)."""
    table = read_table(raw, name=name)
    value = build(table.frame, mapping, name=table.name, fingerprint=table.fingerprint)
    return table_input(kind, table, value, "sample" if sample_key else "workspace", sample_key)
