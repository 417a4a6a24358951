"""Training tables (constrained training): role columns and a report."""

from __future__ import annotations

import streamlit as st

from engine.constraints import TrainingColumns, detect_training_columns
from engine.errors import InputError
from engine.io import Table, read_table
from views.forms.common import mapping_of, parse_table, preview, sample_bytes
from views.session_input import SessionInput
from views.state import md

NONE = "(none)"


def _input(table: Table, columns: TrainingColumns, source: str, sample_key: str | None = None) -> SessionInput:
    return SessionInput(table.name, "training_table", source, table.fingerprint, table, columns, sample_key, table)


def load_sample(key: str) -> SessionInput:
    raw, name = sample_bytes(key)
    table = parse_table(raw, name)
    return _input(table, detect_training_columns(table.frame), "sample", key)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    return _input(
        read_table(raw, name=name),
        mapping_of(TrainingColumns, mapping),
        "sample" if sample_key else "workspace",
        sample_key,
    )


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    columns = [str(c) for c in table.frame.columns]
    try:
        guess = detect_training_columns(table.frame)
    except InputError as exc:
        st.warning(f"Automatic column detection needs help: {md(exc)}")
        guess = TrainingColumns(columns[-1])
    optional = [NONE, *columns]

    def pick(column, label: str, value, options, key: str, help_text: str = ""):
        return column.selectbox(
            label,
            options,
            index=options.index(value) if value in options else 0,
            key=f"{key}_{tag}",
            help=help_text or None,
        )

    c = st.columns(5)
    label = pick(c[0], "Label column", guess.label, columns, "tlabel", "1/0, yes/no …; empty = unlabelled row")
    group = pick(c[1], "Protected-group column", guess.group, optional, "tgroup")
    deployed = pick(c[2], "Deployed decisions", guess.deployed, optional, "tdeployed", "0/1 of the model in use")
    flag = pick(c[3], "Egregious-example flag", guess.flag, optional, "tflag")
    split = pick(c[4], "Train/test split column", guess.split, optional, "tsplit", "values train and test")
    chosen = TrainingColumns(label, *(None if v == NONE else v for v in (group, deployed, flag, split)))
    used = [v for v in (chosen.label, chosen.group, chosen.deployed, chosen.flag, chosen.split) if v]
    if len(set(used)) < len(used):
        st.error("Give each column one role.")
        return None
    return _input(table, chosen, "upload")


def summary(inp: SessionInput) -> str:
    c = inp.mapping
    return (
        f"{len(inp.value.frame):,} rows; label {c.label}"
        + (f"; group {c.group}" if c.group else "")
        + (f"; split {c.split}" if c.split else "")
    )


def report(inp: SessionInput) -> None:
    c, frame = inp.mapping, inp.value.frame
    m = st.columns(3)
    m[0].metric("Rows", f"{len(frame):,}")
    m[1].metric("Columns", f"{frame.shape[1]:,}")
    # a column name is the user's and can be long: a sentence shows it whole, a metric card would cut it
    st.caption(
        md(
            f"Label: {c.label} · protected group: {c.group or 'none'} · deployed decisions: {c.deployed or 'none'} · egregious "
            f"flag: {c.flag or 'none'} · split: {c.split or 'seeded 70/30'}. Every other column is a feature."
        )
    )
    preview(inp.value)
