"""Model files (every format of engine.io.MODEL_FORMATS): read into trees, and a report of what was read."""

from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.io import Table, model_formats_sentence
from engine.qwyc import load_model
from views.forms.common import digest
from views.session_input import SessionInput
from views.state import md, memo


def load_sample(key: str) -> SessionInput:
    raise KeyError(f"no shipped model file {key!r}")


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    model = load_model(raw, name=name)
    return SessionInput(name, "model_file", "workspace", model.fingerprint, model, None, None, None, raw)


def mapping_form(raw: bytes, table: Table | None, name: str, tag: str) -> SessionInput | None:
    st.caption(
        f"{model_formats_sentence()}: binary classifiers with numerical splits. Pickle and joblib are never "
        "loaded, and nothing in a file is run."
    )
    try:
        model = memo(("model_file", digest(raw)), lambda: load_model(raw, name=name))
    except InputError as exc:
        st.error(f"**{md(name)} is not a model file this studio reads.** {md(exc)}")
        return None
    return SessionInput(name, "model_file", "upload", model.fingerprint, model, None, None, None, raw)


def summary(inp: SessionInput) -> str:
    m = inp.value
    return f"{m.file_format} model, {m.n_trees:,} trees, {len(m.feature_names)} features"


def report(inp: SessionInput) -> None:
    m = inp.value
    c = st.columns(3)
    c[0].metric("Format", m.file_format)
    c[1].metric("Trees", f"{m.n_trees:,}")
    c[2].metric("Features", f"{len(m.feature_names):,}")
    st.caption(
        md(
            f"Features: {', '.join(m.feature_names[:30])}{' ...' if len(m.feature_names) > 30 else ''}. "
            f"Bias (initial score) {m.ensemble.bias:.6g}; decision: raw margin ≥ 0. SHA-256 "
            f"{m.fingerprint[:16]}…"
        )
    )
