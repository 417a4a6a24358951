"""Feature tables (rows a model is run on): an optional label column, and a preview."""

from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.io import Table, read_table
from views.forms.common import preview
from views.session_input import SessionInput
from views.state import md

NONE = "(none)"
_LABEL_NAMES = ("label", "y", "target", "outcome", "class")


def load_sample(key: str) -> SessionInput:
    raise KeyError(f"no shipped feature table {key!r}")


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    if mapping is not None and not isinstance(mapping, str):
        raise InputError("the view's label column is not a column name; save the view again.")
    table = read_table(raw, name=name)
    return SessionInput(name, "feature_table", "workspace", table.fingerprint, table, mapping, None, table, raw)


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    columns = [str(c) for c in table.frame.columns]
    guess = next((c for c in columns if c.strip().lower() in _LABEL_NAMES), NONE)
    options = [NONE, *columns]
    label = st.selectbox(
        "Label column (optional)",
        options,
        index=options.index(guess),
        key=f"ftlabel_{tag}",
        help="Every other column is available as a feature; the model picks its own by name.",
    )
    mapping = None if label == NONE else label
    return SessionInput(name, "feature_table", "upload", table.fingerprint, table, mapping, None, table, raw)


def summary(inp: SessionInput) -> str:
    frame = inp.value.frame
    return f"{len(frame):,} rows, {frame.shape[1]} columns; label: {inp.mapping or 'none'}"


def report(inp: SessionInput) -> None:
    frame = inp.value.frame
    c = st.columns(3)
    c[0].metric("Rows", f"{len(frame):,}")
    c[1].metric("Columns", f"{frame.shape[1]:,}")
    # a column name is the user's and can be long: a sentence shows it whole, a metric card would cut it
    c[2].caption(md(f"Label column: {inp.mapping or 'none'}"))
    preview(inp.value)
