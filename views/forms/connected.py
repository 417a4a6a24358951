"""Rated data on the server: the Data page's Connect section, its report, and the counts the pages scan.

A connected source is a session input of kind ``rated`` with source ``server``: its
value is an :class:`engine.backends.ConnectedData` (no rows in memory), so the
Operating point and Ensemble paths pages pick it like any rated data and ask the engine
for their results (:mod:`views.counted`), which DuckDB counts, showing progress while it scans. The path is read on the server; nothing from it is rendered as HTML.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.backends import ROWS_NEEDED, ConnectedSource, connect, data_roots, map_columns
from engine.errors import InputError
from engine.presentation import EMPTY
from engine.reporting import neutralise_formulas
from views.session_input import SessionInput
from views.state import md, scan
from views.tables import show_table

NONE = "(none)"
_CONNECTED = "_connected_source"  # the ConnectedSource shown in the Connect section
#: sample rows shown
SAMPLE_SHOWN = 200


def connect_clicked(path_key: str, table_key: str, source_key: str, error_key: str) -> None:
    """A Connect button's callback: the path and table typed under ``path_key`` / ``table_key``, checked and
    previewed within the allowed folders; the source under ``source_key`` or the message under ``error_key``."""
    st.session_state.pop(error_key, None)
    try:
        st.session_state[source_key] = connect(
            st.session_state.get(path_key, ""), st.session_state.get(table_key, "") or None, roots=data_roots()
        )
    except InputError as exc:
        st.session_state.pop(source_key, None)
        st.session_state[error_key] = str(exc)


def connect_section() -> SessionInput | None:
    """Path / glob and table, Connect, then schema, sample and column mapping; the input when the user adds it."""
    st.caption(
        "Parquet or CSV files (a path, or a glob such as `/data/ratings/2026-*/part-*.parquet`) or a table of "
        "a DuckDB database file, **on the server** running this dashboard. DuckDB reads the rows where they "
        "are, out of core; only counts reach the dashboard, and nothing is copied into your session."
    )
    c = st.columns([5, 2, 1], vertical_alignment="bottom")
    c[0].text_input("Path or glob on the server", key="connect_path", placeholder="/data/ratings/*.parquet")
    c[1].text_input(
        "DuckDB table",
        key="connect_table",
        placeholder="only for a .duckdb file",
        help="Leave empty for Parquet / CSV, or for a database holding one table.",
    )
    c[2].button(
        "Connect",
        key="connect_button",
        type="primary",
        on_click=connect_clicked,
        args=("connect_path", "connect_table", _CONNECTED, "_connect_error"),
    )
    if st.session_state.get("_connect_error"):
        st.error(f"**Could not connect.** {md(st.session_state['_connect_error'])}")
        return None
    connected = st.session_state.get(_CONNECTED)
    if connected is None:
        return None
    _show_source(connected)
    mapping = _mapping_form(connected)
    if mapping is None or not st.button("Count with DuckDB and use these columns", key="connect_use", type="primary"):
        return None
    try:
        data = scan(
            ("connected", connected.fingerprint, *mapping),
            lambda progress: map_columns(connected, *mapping, progress=progress),
            label=f"Validating {connected.name} with DuckDB",
        )
    except InputError as exc:
        st.error(f"**{md(connected.name)} is not valid rated data.** {md(exc)}")
        return None
    return SessionInput(data.name, "rated", "server", data.fingerprint, data, data.mapping)


def _show_source(connected: ConnectedSource) -> None:
    files = f"{len(connected.files):,} file{'s' if len(connected.files) > 1 else ''}"
    st.success(
        f"Connected to **{md(connected.name)}**: {connected.file_format}, {files}, "
        f"{_size(connected.total_bytes)} on disk, {len(connected.schema):,} columns "
        f"(schema and {len(connected.sample):,} sample rows read in {connected.seconds:.2f} s)."
    )
    c = st.columns([1, 2])
    with c[0]:
        st.caption("Schema")
        show_table(connected.schema_table(), height=min(240, 35 * (len(connected.schema) + 1) + 3))
    with c[1]:
        st.caption(f"Sample: the first {min(SAMPLE_SHOWN, len(connected.sample)):,} rows")
        st.dataframe(neutralise_formulas(connected.sample.head(SAMPLE_SHOWN)), height=240, placeholder=EMPTY)


def _size(n_bytes: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,} bytes"


def _mapping_form(connected: ConnectedSource) -> tuple | None:
    """(score columns, label, weight) chosen in the form (defaults: the guess from the sample)."""
    st.subheader("Column mapping")
    if connected.guess is None:
        st.warning(f"Automatic column detection needs help: {md(connected.guess_problem)}")
    guess, columns, tag = connected.guess, connected.columns, connected.fingerprint[:12]
    optional = [NONE, *columns]
    c = st.columns([3, 2, 2])
    scores = c[0].multiselect(
        "Score columns (one per classifier)",
        columns,
        default=list(guess.score_cols) if guess else connected.numeric_columns,
        key=f"cscores_{tag}",
    )
    label = c[1].selectbox(
        "Label column",
        columns,
        index=columns.index(guess.label_col) if guess else None,
        key=f"clabel_{tag}",
        placeholder="Choose the raters' verdicts",
    )
    weight = c[2].selectbox(
        "Weight column",
        optional,
        index=optional.index(guess.weight_col) if guess and guess.weight_col else 0,
        key=f"cweight_{tag}",
    )
    if not scores:
        st.error("Choose at least one score column: each classifier needs a column of numeric scores.")
        return None
    if label is None:
        st.error("Choose the label column: the raters' verdicts (1/0, yes/no, tp/fp; empty = unrated).")
        return None
    return tuple(scores), label, None if weight == NONE else weight


def summary(inp: SessionInput) -> str:
    d = inp.value
    return (
        f"{d.n_rated:,} rated, {d.n_unrated:,} unrated; classifiers {', '.join(d.score_names)}; counted by "
        f"DuckDB at {d.source.path}"
    )


def report(inp: SessionInput) -> None:
    d = inp.value
    m = st.columns(5)
    m[0].metric("Rows scanned", f"{d.n_read:,}")
    m[1].metric("Rated rows", f"{d.n_rated:,}")
    m[2].metric("Unrated (excluded)", f"{d.n_unrated:,}")
    m[3].metric("Prevalence among rated", f"{d.prevalence_among_rated:.2%}")
    m[4].metric("Seconds", f"{d.seconds:.2f}", help="Time DuckDB took to validate every row.")
    show_table(
        pd.DataFrame(
            {
                "classifier": d.score_names,
                "rating floor (lowest rated score)": d.rating_floor,
                "highest rated score": d.highest,
            }
        )
    )
    st.caption(
        md(
            f"Path: {d.source.path}"
            + (f" · table: {d.source.table}" if d.source.table else "")
            + f" · scores: {', '.join(d.score_names)} · label: {d.mapping.label_col} · weight: "
            f"{d.mapping.weight_col or 'none (1 per row)'}"
        )
    )
    st.caption(
        "The rows stay on the server: the Operating point and Ensemble paths pages count them with DuckDB. "
        f"Bootstrap intervals and segments are not offered: {ROWS_NEEDED}"
    )
    for warning in d.warnings:
        st.warning(md(warning))
    st.subheader("Sample")
    st.dataframe(neutralise_formulas(d.connected.sample.head(SAMPLE_SHOWN)), height=280, placeholder=EMPTY)
