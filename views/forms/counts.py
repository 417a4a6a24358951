"""Aggregated counts (the paper's t1..tk, tp, fp format): validation and report."""

from __future__ import annotations

import streamlit as st

from engine.errors import RatedDataError
from engine.io import Table, counts_table, load_counts
from views.forms.common import digest, sample_bytes
from views.session_input import SessionInput
from views.state import md, memo
from views.tables import show_table

DEFAULT_BINS = 50


def grid_of(raw: bytes, bins: int = DEFAULT_BINS, name: str | None = None):
    """The threshold grid of a counts file (regridded onto ``bins`` values per axis when irregular)."""
    return memo(("counts", digest(raw), int(bins)), lambda: load_counts(raw, bins=int(bins), name=name))


def _input(raw: bytes, name: str, source: str, sample_key: str | None = None) -> SessionInput:
    return SessionInput(name, "counts", source, digest(raw), grid_of(raw, name=name), None, sample_key, None, raw)


def load_sample(key: str) -> SessionInput:
    raw, name = sample_bytes(key)
    return _input(raw, name, "sample", key)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    grid = load_counts(raw, bins=DEFAULT_BINS, name=name)
    source = "sample" if sample_key else "workspace"
    return SessionInput(name, "counts", source, digest(raw), grid, None, sample_key, None, raw)


def mapping_form(raw: bytes, table: Table | None, name: str, tag: str) -> SessionInput | None:
    st.caption(
        "Columns named tp and fp are the counts; every other column is a threshold. A file without a "
        "header is read as thresholds followed by tp, fp."
    )
    try:
        return _input(raw, name, "upload")
    except RatedDataError as exc:
        st.error(f"**{md(name)} is not a valid counts table.** {md(exc)}")
        return None


def summary(inp: SessionInput) -> str:
    grid = inp.value
    return f"{grid.k} thresholds ({', '.join(grid.names)}); grid {' x '.join(map(str, grid.shape))}"


def report(inp: SessionInput) -> None:
    grid = inp.value
    m = st.columns(4)
    m[0].metric("Threshold columns", f"{grid.k}")
    m[1].metric("Grid", " × ".join(map(str, grid.shape)))
    m[2].metric("Most TP counted", f"{grid.tp.max():,.6g}")
    m[3].metric("Most FP counted", f"{grid.fp.max():,.6g}")
    st.caption(f"Thresholds: {md(', '.join(grid.names))}. Counts never increase when a threshold rises (enforced).")
    st.subheader("Preview")
    counts = counts_table(grid).head(200)
    show_table(counts, height=280, kinds={c: "threshold" for c in counts.columns if c not in ("tp", "fp")})
