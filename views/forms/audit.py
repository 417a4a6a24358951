"""Reviewed audits (the plan file with the reviewers' labels): validation and report."""

from __future__ import annotations

import streamlit as st

from engine.audit import PLAN_COLUMNS, audit_from_frame
from engine.errors import InputError
from engine.io import Table, read_table
from views.forms.common import parse_table, preview, sample_bytes
from views.session_input import SessionInput
from views.state import md, memo


def _input(table: Table, source: str, sample_key: str | None = None) -> SessionInput:
    value = memo(
        ("audit", table.fingerprint),
        lambda: audit_from_frame(table.frame, name=table.name, fingerprint=table.fingerprint),
    )
    return SessionInput(table.name, "audit", source, table.fingerprint, value, None, sample_key, table)


def load_sample(key: str) -> SessionInput:
    raw, name = sample_bytes(key)
    return _input(parse_table(raw, name), "sample", key)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes and stored mapping (a saved view), without the session's memo."""
    table = read_table(raw, name=name)
    value = audit_from_frame(table.frame, name=table.name, fingerprint=table.fingerprint)
    source = "sample" if sample_key else "workspace"
    return SessionInput(table.name, "audit", source, table.fingerprint, value, None, sample_key, table)


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    st.caption(
        f"The plan file as the Audit page or `opstudio audit plan` wrote it ({', '.join(PLAN_COLUMNS)}), "
        "with 'label' filled in by the reviewers."
    )
    try:
        return _input(table, "upload")
    except InputError as exc:
        st.error(f"**{md(name)} is not a valid reviewed audit.** {md(exc)}")
        return None


def summary(inp: SessionInput) -> str:
    a = inp.value
    return (
        f"{int(a.reviewed.sum()):,} of {a.ids.size:,} documents reviewed, {int(a.positives.sum()):,} positive; "
        f"{a.documents.size} strata below the line {a.review_threshold:.6g}"
    )


def report(inp: SessionInput) -> None:
    a = inp.value
    m = st.columns(4)
    m[0].metric("Review line", f"{a.review_threshold:.6g}")
    m[1].metric("Documents below it", f"{int(a.documents.sum()):,}")
    m[2].metric("Reviewed", f"{int(a.reviewed.sum()):,} of {a.ids.size:,}")
    m[3].metric("Positives found", f"{int(a.positives.sum()):,}")
    for warning in a.warnings:
        st.warning(md(warning))
    st.subheader("Preview")
    preview(inp.table)
