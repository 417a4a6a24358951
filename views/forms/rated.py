"""Rated data: column mapping and validation report."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import RatedDataError
from engine.io import ColumnMapping, Table, detect_columns, likely_label_column, rated_from_frame
from engine.pn import score_histogram_figure
from engine.reporting import csv_bytes
from views.forms import connected
from views.forms.common import mapping_of, preview, restored_table, table_input, tabular_sample, validated
from views.session_input import SessionInput
from views.state import md
from views.tables import show_table

NONE = "(none)"
#: score histograms drawn in the report (one per classifier, up to this many)
MAX_HISTOGRAMS = 8


def validate(table: Table, mapping: ColumnMapping):
    return validated("rated", table, mapping, rated_from_frame)


def _input(table: Table, value, source: str, sample_key: str | None = None) -> SessionInput:
    return table_input("rated", table, value, source, sample_key)


def load_sample(key: str) -> SessionInput:
    return tabular_sample(key, "rated", detect_columns, rated_from_frame)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    return restored_table("rated", raw, name, mapping_of(ColumnMapping, mapping), rated_from_frame, sample_key)


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    columns = list(table.frame.columns)
    try:
        guess = detect_columns(table.frame)
    except RatedDataError as exc:
        st.warning(f"Automatic column detection needs help: {md(exc)}")
        guess = None
        label = likely_label_column(table.frame)  # a label column with a stray value: map it, validation names it
        if label is not None:
            try:
                guess = detect_columns(table.frame, label_col=label)
            except RatedDataError:
                guess = None
    c1, c2, c3, c4 = st.columns([3, 2, 2, 2])
    score_cols = c1.multiselect(
        "Score columns (one per classifier)",
        columns,
        default=list(guess.score_cols) if guess else [],
        key=f"scores_{tag}",
    )
    label_col = c2.selectbox(
        "Label column", columns, index=columns.index(guess.label_col) if guess else 0, key=f"label_{tag}"
    )
    optional = [NONE, *columns]
    weight_col = c3.selectbox(
        "Weight column",
        optional,
        index=optional.index(guess.weight_col) if guess and guess.weight_col else 0,
        key=f"weight_{tag}",
    )
    group_col = c4.selectbox(
        "Group column",
        optional,
        index=optional.index(guess.group_col) if guess and guess.group_col else 0,
        key=f"group_{tag}",
    )
    if not score_cols:
        st.error("Choose at least one score column: each classifier needs a column of numeric scores.")
        return None
    mapping = ColumnMapping(
        tuple(score_cols),
        label_col,
        None if weight_col == NONE else weight_col,
        None if group_col == NONE else group_col,
    )
    try:
        rated = validate(table, mapping)
    except RatedDataError as exc:
        st.error(f"**{md(name)} is not valid rated data.** {md(exc)}")
        return None
    return _input(table, rated, "upload")


def summary(inp: SessionInput) -> str:
    if inp.source == "server":
        return connected.summary(inp)
    d = inp.rated
    return f"{d.n_rated:,} rated, {d.n_unrated:,} unrated; classifiers {', '.join(d.score_names)}"


def report(inp: SessionInput) -> None:
    if inp.source == "server":
        connected.report(inp)
        return
    d = inp.rated
    m = st.columns(5)
    m[0].metric("Rows read", f"{d.n_read:,}")
    m[1].metric("Rated rows", f"{d.n_rated:,}")
    m[2].metric("Unrated (excluded)", f"{d.n_unrated:,}")
    m[3].metric("Rated positives", f"{d.positives:,.6g}")
    m[4].metric("Prevalence among rated", f"{d.prevalence_among_rated:.2%}")
    floors = pd.DataFrame(
        {
            "classifier": d.score_names,
            "rating floor (lowest rated score)": d.rating_floor,
            "highest rated score": d.scores.max(axis=0),
        }
    )
    show_table(floors)
    mapping_text = (
        f"Scores: {', '.join(d.score_names)} · label: {d.mapping.label_col} · weight: "
        f"{d.mapping.weight_col or 'none (1 per row)'} · group: {d.mapping.group_col or 'none'}"
    )
    st.caption(md(mapping_text))
    if d.mapping.ignored_cols:
        st.caption(f"Columns not used: {md(', '.join(d.mapping.ignored_cols))}")
    for warning in d.warnings:
        st.warning(md(warning))
    if d.n_unrated:
        excluded = pd.DataFrame({"row (1 = first data row)": d.unrated_rows + 1, "reason": "no label (unrated)"})
        with st.expander(f"All {d.n_unrated:,} excluded rows"):
            show_table(excluded, height=240)
            st.download_button(
                "Download the excluded rows (CSV)", csv_bytes(excluded), file_name="excluded_rows.csv", mime="text/csv"
            )
    st.subheader("Preview")
    preview(inp.table)
    st.subheader("Scores by rated label")
    cols = st.columns(min(2, d.n_classifiers))
    if d.n_classifiers > MAX_HISTOGRAMS:
        st.caption(f"The first {MAX_HISTOGRAMS} of {d.n_classifiers} classifiers are drawn.")
    for j, name in enumerate(d.score_names[:MAX_HISTOGRAMS]):
        with cols[j % len(cols)]:
            st.plotly_chart(score_histogram_figure(d.scores[:, j], d.labels, name), key=f"hist_{j}")
    if d.n_classifiers == 1:
        st.caption("One classifier: the Ensemble paths page needs two or more score columns.")
