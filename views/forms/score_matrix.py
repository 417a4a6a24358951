"""Score matrices (base-model contributions for early exit): validation and report."""

from __future__ import annotations

import streamlit as st

from engine.errors import RatedDataError
from engine.io import Table, load_score_matrix
from views.forms.common import digest, sample_bytes
from views.session_input import SessionInput
from views.state import md, memo


def _input(raw: bytes, name: str, source: str, sample_key: str | None = None) -> SessionInput:
    matrix = memo(("score_matrix", digest(raw)), lambda: load_score_matrix(raw, name=name))
    return SessionInput(name, "score_matrix", source, digest(raw), matrix, None, sample_key, None, raw)


def load_sample(key: str) -> SessionInput:
    raw, name = sample_bytes(key)
    return _input(raw, name, "sample", key)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    source = "sample" if sample_key else "workspace"
    return SessionInput(
        name, "score_matrix", source, digest(raw), load_score_matrix(raw, name=name), None, sample_key, None, raw
    )


def mapping_form(raw: bytes, table: Table | None, name: str, tag: str) -> SessionInput | None:
    st.caption(
        "CSV / Parquet: one numeric column per base model (its contribution to the score), optional "
        "`label` (1/0) and `split` (fit/test) columns. NPZ: array `F`, optional `labels`, `split`, `bias`. "
        "Without a split, 30 % of the rows are held out for testing. The decision is score ≥ 0."
    )
    try:
        return _input(raw, name, "upload")
    except RatedDataError as exc:
        st.error(f"**{md(name)} is not a valid score matrix.** {md(exc)}")
        return None


def summary(inp: SessionInput) -> str:
    m = inp.value
    return f"{len(m.model_names)} base models; {m.f_fit.shape[0]:,} fit and {m.f_test.shape[0]:,} test rows"


def report(inp: SessionInput) -> None:
    m = inp.value
    c = st.columns(4)
    c[0].metric("Base models", f"{len(m.model_names):,}")
    c[1].metric("Fit rows", f"{m.f_fit.shape[0]:,}")
    c[2].metric("Test rows", f"{m.f_test.shape[0]:,}")
    c[3].metric("Labels", "yes" if m.labels_fit is not None else "no")
    st.caption(f"Bias {m.bias:.6g}; the full decision is bias + sum of contributions ≥ 0.")
