"""The Audit page's population: a loaded input (upload or sample, in memory) or rows on the server (DuckDB).

A population on the server is never read into the session: DuckDB counts its strata and
returns only the selected documents (:func:`engine.backends.open_population`). The path is
checked like the Data page's connections (:func:`engine.backends.connect`, confined to
``OPSTUDIO_DATA_ROOTS`` when set) and nothing from it is rendered as HTML.
"""

from __future__ import annotations

import streamlit as st

from engine.audit import PopulationColumns, detect_population_columns
from engine.backends import open_population
from engine.errors import InputError
from views.forms.connected import connect_clicked
from views.inputs import input_picker
from views.session_input import SessionInput
from views.state import md

LOADED, SERVER = "A loaded input (upload or sample)", "Rows on the server (DuckDB)"
NONE = "(none)"
_SOURCE = "_audit_population_source"  # the ConnectedSource of the population on the server


def _columns(connected) -> PopulationColumns:
    try:
        guess = detect_population_columns(connected.sample)
    except InputError as exc:
        st.warning(f"Automatic column detection needs help: {md(exc)}")
        guess = None
    columns, tag = connected.columns, connected.fingerprint[:12]
    optional = [NONE, *columns]
    c = st.columns(3)
    id_col = c[0].selectbox("Id column", columns, index=columns.index(guess.id) if guess else 0, key=f"spid_{tag}")
    score = c[1].selectbox(
        "Score column", columns, index=columns.index(guess.score) if guess else 0, key=f"spscore_{tag}"
    )
    prior = c[2].selectbox(
        "Prior probability column",
        optional,
        index=optional.index(guess.prior) if guess and guess.prior else 0,
        key=f"spprior_{tag}",
    )
    return PopulationColumns(id_col, score, None if prior == NONE else prior)


def server_population() -> SessionInput | None:
    """Path or glob (and DuckDB table), Connect, the columns; the population as DuckDB reads it."""
    c = st.columns([5, 2, 1], vertical_alignment="bottom")
    c[0].text_input("Population path or glob on the server", key="audit_pop_path", placeholder="/data/scored/*.parquet")
    c[1].text_input("DuckDB table", key="audit_pop_table", placeholder="only for a .duckdb file")
    c[2].button(
        "Connect",
        key="audit_pop_connect",
        type="primary",
        on_click=connect_clicked,
        args=("audit_pop_path", "audit_pop_table", _SOURCE, "_audit_pop_error"),
    )
    if st.session_state.get("_audit_pop_error"):
        st.error(f"**Could not connect.** {md(st.session_state['_audit_pop_error'])}")
        return None
    connected = st.session_state.get(_SOURCE)
    if connected is None:
        st.info("Connect to the scored documents on the server: DuckDB reads them where they are, out of core.")
        return None
    st.caption(md(f"Connected to {connected.name}: {connected.file_format}, {len(connected.files):,} file(s)."))
    columns = _columns(connected)
    source = connected.source
    where = source.path + (f" (table {source.table})" if source.table else "")
    scan = open_population(source, id=columns.id, score=columns.score, prior=columns.prior)
    return SessionInput(where, "population", "server", connected.fingerprint, scan, columns)


def choose_population() -> SessionInput | None:
    """The population the plan samples: a loaded input, or rows on the server."""
    where = st.radio(
        "Population",
        [LOADED, SERVER],
        key="audit_population_source",
        horizontal=True,
        help="Every scored document, flagged or not: only the id and the score (and a prior) are read.",
    )
    if where == SERVER:
        return server_population()
    return input_picker("population", key="audit_population", label="Population (every scored document)")
