"""Dated ratings (the Monitoring page's input): column mapping and validation report."""

from __future__ import annotations

import streamlit as st

from engine.errors import RatedDataError
from engine.io import Table
from engine.monitor import DatedMapping, dated_from_frame, detect_dated
from views.forms.common import mapping_of, preview, restored_table, table_input, tabular_sample, validated
from views.session_input import SessionInput
from views.state import md

NONE = "(none)"


def load_sample(key: str) -> SessionInput:
    return tabular_sample(key, "dated", detect_dated, dated_from_frame)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    return restored_table("dated", raw, name, mapping_of(DatedMapping, mapping), dated_from_frame, sample_key)


def _guess(table: Table) -> DatedMapping | None:
    try:
        return detect_dated(table.frame)
    except RatedDataError as exc:
        st.warning(f"Automatic column detection needs help: {md(exc)}")
        return None


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    columns, guess = list(table.frame.columns), _guess(table)

    def index(options: list, value) -> int:
        return options.index(value) if value in options else 0

    c = st.columns(4)
    classifier = c[0].selectbox(
        "Score column (the classifier)",
        columns,
        index=index(columns, guess and guess.classifier),
        key=f"dated_score_{tag}",
    )
    date_col = c[1].selectbox(
        "Date column (day rated)", columns, index=index(columns, guess and guess.date_col), key=f"dated_date_{tag}"
    )
    label_col = c[2].selectbox(
        "Label column", columns, index=index(columns, guess and guess.label_col), key=f"dated_label_{tag}"
    )
    optional = [NONE, *columns]
    group_col = c[3].selectbox(
        "Group column", optional, index=index(optional, guess and guess.group_col), key=f"dated_group_{tag}"
    )
    mapping = DatedMapping(classifier, date_col, label_col, None if group_col == NONE else group_col)
    try:
        value = validated("dated", table, mapping, dated_from_frame)
    except RatedDataError as exc:
        st.error(f"**{md(name)} is not valid dated rated data.** {md(exc)}")
        return None
    return table_input("dated", table, value, "upload")


def summary(inp: SessionInput) -> str:
    d = inp.value
    return (
        f"{d.data.n_rated:,} rated over {d.days:,} days ({d.dates.min()} to {d.dates.max()}); classifier {d.classifier}"
    )


def report(inp: SessionInput) -> None:
    d = inp.value
    m = st.columns(5)
    m[0].metric("Rows read", f"{d.data.n_read:,}")
    m[1].metric("Rated rows", f"{d.data.n_rated:,}")
    m[2].metric("Unrated (excluded)", f"{d.data.n_unrated:,}")
    m[3].metric("Days covered", f"{d.days:,}")
    m[4].metric("Prevalence among rated", f"{d.data.prevalence_among_rated:.2%}")
    mapping = d.mapping
    st.caption(
        md(
            f"Score: {mapping.classifier} · date: {mapping.date_col} · label: {mapping.label_col} · group: "
            f"{mapping.group_col or 'none'} · from {d.dates.min()} to {d.dates.max()}"
        )
    )
    for warning in d.data.warnings:
        st.warning(md(warning))
    st.subheader("Preview")
    preview(inp.table)
