"""Probability batches: column mapping and validation report."""

from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.io import BatchMapping, Table, batch_columns, batches_from_frame, detect_batch_columns
from views.forms.common import mapping_of, preview, restored_table, table_input, tabular_sample, validated
from views.session_input import SessionInput
from views.state import md

NONE = "(none)"


def validate(table: Table, mapping: BatchMapping):
    return validated("batches", table, mapping, batches_from_frame)


def _input(table: Table, value, source: str, sample_key: str | None = None) -> SessionInput:
    return table_input("batches", table, value, source, sample_key)


def load_sample(key: str) -> SessionInput:
    return tabular_sample(key, "batches", detect_batch_columns, batches_from_frame)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    return restored_table("batches", raw, name, mapping_of(BatchMapping, mapping), batches_from_frame, sample_key)


def _choice(value: str) -> str | None:
    return None if value == NONE else value


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    columns = [str(c) for c in table.frame.columns]
    try:
        guess = detect_batch_columns(table.frame)
    except InputError as exc:
        st.warning(f"Automatic column detection needs help: {md(exc)}")
        guess = None
    probability_columns = batch_columns(table.frame) or columns
    optional = [NONE, *columns]

    def index(options, value):
        return options.index(value) if value in options else 0

    c = st.columns(4)
    probability = c[0].selectbox(
        "Probability column",
        probability_columns,
        index=index(probability_columns, guess.probability_col if guess else None),
        key=f"prob_{tag}",
    )
    batch = c[1].selectbox(
        "Batch column",
        optional,
        index=index(optional, guess.batch_col if guess else None),
        key=f"batch_{tag}",
        help="Items decided together; none = every row is one batch.",
    )
    item = c[2].selectbox(
        "Item id column", optional, index=index(optional, guess.item_col if guess else None), key=f"item_{tag}"
    )
    label = c[3].selectbox(
        "Label column",
        optional,
        index=index(optional, guess.label_col if guess else None),
        key=f"blabel_{tag}",
        help="Optional: true outcomes, to score the decisions.",
    )
    mapping = BatchMapping(probability, _choice(batch), _choice(item), _choice(label))
    try:
        batches = validate(table, mapping)
    except InputError as exc:
        st.error(f"**{md(name)} is not valid probability batches.** {md(exc)}")
        return None
    return _input(table, batches, "upload")


def summary(inp: SessionInput) -> str:
    b = inp.value
    return f"{b.n_items:,} items in {len(b.batch_names):,} batches; probability '{b.mapping.probability_col}'" + (
        f"; {b.n_labelled:,} labelled" if b.labels is not None else ""
    )


def report(inp: SessionInput) -> None:
    b = inp.value
    facts = b.summary()
    m = st.columns(len(facts))
    for column, (label, value) in zip(m, facts.items()):
        column.metric(label.capitalize(), f"{value:,.3f}" if isinstance(value, float) else f"{value:,}")
    mapping = b.mapping
    st.caption(
        md(
            f"Probability: {mapping.probability_col} · batch: {mapping.batch_col or 'none (one batch)'} · "
            f"item id: {mapping.item_col or 'none'} · label: {mapping.label_col or 'none'}"
        )
    )
    for warning in b.warnings:
        st.warning(md(warning))
    st.subheader("Preview")
    preview(inp.table)
