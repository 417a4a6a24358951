"""Scored populations (every document, flagged or not, for a below-the-line audit): column mapping and report."""

from __future__ import annotations

import streamlit as st

from engine.audit import PopulationColumns, detect_population_columns, read_population
from engine.errors import InputError
from engine.io import Table, read_table
from views.forms.common import mapping_of, parse_table, preview, sample_bytes
from views.session_input import SessionInput
from views.state import md, memo

NONE = "(none)"


def _input(
    raw: bytes, table: Table, columns: PopulationColumns, source: str, sample_key: str | None = None
) -> SessionInput:
    # read again from the bytes: ids as text, as a plan writes them back (00140 stays 00140, not 140)
    value = memo(
        ("population", table.fingerprint, columns),
        lambda: read_population(raw, columns, name=table.name),
    )
    return SessionInput(table.name, "population", source, table.fingerprint, value, columns, sample_key, table)


def load_sample(key: str) -> SessionInput:
    raw, name = sample_bytes(key)
    table = parse_table(raw, name)
    guess = detect_population_columns(table.frame)
    # the shipped sample's score is a calibrated probability: it is also the prior (as its audit was planned)
    return _input(raw, table, PopulationColumns(guess.id, guess.score, guess.score), "sample", key)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    table, columns = read_table(raw, name=name), mapping_of(PopulationColumns, mapping)
    value = read_population(raw, columns, name=table.name)
    source = "sample" if sample_key else "workspace"
    return SessionInput(table.name, "population", source, table.fingerprint, value, columns, sample_key, table)


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    columns = [str(c) for c in table.frame.columns]
    try:
        guess = detect_population_columns(table.frame)
    except InputError as exc:
        st.warning(f"Automatic column detection needs help: {md(exc)}")
        guess = None
    optional = [NONE, *columns]
    c = st.columns(3)
    id_col = c[0].selectbox(
        "Id column",
        columns,
        index=columns.index(guess.id) if guess else 0,
        key=f"pid_{tag}",
        help="Unique document ids: the reviewers find the documents by them.",
    )
    score = c[1].selectbox(
        "Score column",
        columns,
        index=columns.index(guess.score) if guess else 0,
        key=f"pscore_{tag}",
        help="The classifier's score; the review line is a threshold on it.",
    )
    prior = c[2].selectbox(
        "Prior probability column",
        optional,
        index=optional.index(guess.prior) if guess and guess.prior else 0,
        key=f"pprior_{tag}",
        help="Optional: an anticipated probability of being positive (the score itself when it is "
        "calibrated). It allows Neyman allocation and an expected interval width.",
    )
    try:
        return _input(raw, table, PopulationColumns(id_col, score, None if prior == NONE else prior), "upload")
    except InputError as exc:
        st.error(f"**{md(name)} is not a valid population.** {md(exc)}")
        return None


def summary(inp: SessionInput) -> str:
    cols = inp.mapping
    return f"{inp.value.scores.size:,} documents; id '{cols.id}', score '{cols.score}'" + (
        f", prior '{cols.prior}'" if cols.prior else ""
    )


def report(inp: SessionInput) -> None:
    pop, cols = inp.value, inp.mapping
    m = st.columns(4)
    m[0].metric("Documents", f"{pop.scores.size:,}")
    m[1].metric("Lowest score", f"{pop.scores.min():.4g}")
    m[2].metric("Highest score", f"{pop.scores.max():.4g}")
    m[3].metric("Prior", cols.prior or "none")
    st.caption(
        md(f"Id: {cols.id} · score: {cols.score} · prior: {cols.prior or 'none'}") + ". The Audit page "
        "plans a random sample of the documents below the review line."
    )
    st.subheader("Preview")
    preview(inp.table)
