"""Reviewed audits (the plan file with the reviewers' labels) and their design record (plan.json): validation, report.

The reviewed plan is uploaded like any file; its design record is uploaded beside it on this form
(or shipped with the sample audit, or known because this session planned it: views/audit_link.py).
A design record that does not describe the plan is refused here, with the row or stratum that differs.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from engine.audit import PLAN_COLUMNS, design_path, load_audit, load_design
from engine.errors import InputError
from engine.io import Table, read_table, sample_path
from views.forms.common import parse_table, preview, sample_bytes
from views.session_input import SessionInput
from views.state import md, memo


def _input(
    raw: bytes, table: Table, source: str, sample_key: str | None = None, design: bytes | None = None
) -> SessionInput:
    """The reviewed plan read again from its bytes (delimiter from the plan's header, ids as written), carrying its
    design record when one is given (the record's SHA-256 is the mapping)."""
    tag = None if design is None else hashlib.sha256(design).hexdigest()
    value = memo(
        ("audit", table.fingerprint, tag),
        lambda: load_audit(
            raw, name=table.name, design=None if design is None else load_design(design, name="plan.json")
        ),
    )
    return SessionInput(table.name, "audit", source, table.fingerprint, value, tag, sample_key, table)


def load_sample(key: str) -> SessionInput:
    raw, name = sample_bytes(key)
    beside = design_path(sample_path(key))
    return _input(raw, parse_table(raw, name), "sample", key, beside.read_bytes() if beside.is_file() else None)


def restore(raw: bytes, name: str, mapping, sample_key: str | None = None) -> SessionInput:
    """The input read again from its bytes (a saved view), without the session's memo; ``mapping`` is the SHA-256 of
    its design record (None: none), which only a shipped sample's plan.json provides again."""
    design = None
    if sample_key is not None and design_path(sample_path(sample_key)).is_file():
        design = design_path(sample_path(sample_key)).read_bytes()
    if mapping is not None and (design is None or hashlib.sha256(design).hexdigest() != mapping):
        raise InputError(
            f"the view's reviewed audit {name} was bound to its design record (plan.json), which the workspace does "
            "not keep: add the plan and its plan.json on the Data page."
        )
    table = read_table(raw, name=name)
    value = load_audit(raw, name=table.name, design=None if design is None else load_design(design, name="plan.json"))
    source = "sample" if sample_key else "workspace"
    return SessionInput(table.name, "audit", source, table.fingerprint, value, mapping, sample_key, table)


def mapping_form(raw: bytes, table: Table, name: str, tag: str) -> SessionInput | None:
    st.caption(
        f"The plan file as the Audit page or `opstudio audit plan` wrote it ({', '.join(PLAN_COLUMNS)}), "
        "with 'label' filled in by the reviewers, and its design record (plan.json) beside it."
    )
    upload = st.file_uploader(
        "Its design record (plan.json)",
        type=["json"],
        key=f"design_{tag}",
        help="Written with the plan (Below the line page or `opstudio audit plan`): the estimate checks that the "
        "reviewed plan and the rated data are the ones it was planned for. Not needed for a plan made on the "
        "Below the line page in this session.",
    )
    try:
        plain = _input(raw, table, "upload")
    except InputError as exc:
        st.error(f"**{md(name)} is not a valid reviewed audit.** {md(exc)}")
        return None
    if upload is None:
        return plain
    try:
        return _input(raw, table, "upload", design=upload.getvalue())
    except InputError as exc:
        st.error(f"**{md(name)} and {md(upload.name)} do not fit.** {md(exc)}")
        return None


def summary(inp: SessionInput) -> str:
    a = inp.value
    bound = "with its design record" if a.design is not None else "no design record yet"
    return (
        f"{int(a.reviewed.sum()):,} of {a.ids.size:,} documents reviewed, {int(a.positives.sum()):,} positive; "
        f"{a.documents.size} strata below the line {a.review_threshold:.6g}; {bound}"
    )


def report(inp: SessionInput) -> None:
    a = inp.value
    m = st.columns(4)
    m[0].metric("Review line", f"{a.review_threshold:.6g}")
    m[1].metric("Documents below it", f"{int(a.documents.sum()):,}")
    m[2].metric("Reviewed", f"{int(a.reviewed.sum()):,} of {a.ids.size:,}")
    m[3].metric("Positives found", f"{int(a.positives.sum()):,}")
    if a.design is not None:
        d = a.design
        st.caption(
            md(
                f"Design record: population {d['population']['name']} ({d['population']['documents']:,} documents, "
                f"fingerprint {d['population']['fingerprint']['sha256'][:16]}…), score '{d['score_column']}', "
                f"seed {d['seed']}, {d['allocation']} allocation; {d['above']['documents']:,} documents at or above "
                "the line."
            )
        )
    else:
        st.info(
            "No design record: the Below the line page estimates this audit only with its plan.json (upload it "
            "with the file above) or when this session planned it."
        )
    for warning in a.warnings:
        st.warning(md(warning))
    st.subheader("Preview")
    preview(inp.table)
