"""Which reviewed audit goes with which rated data: the Audit page pairs them, the Operating point page reads recall.

An audit estimates the positives below the review line of one classifier's scores, so it
belongs with one rated input and one of its score columns. The Audit page remembers the
pair (by the two inputs' SHA-256) when it estimates; the Operating point page then shows recall
with its interval at the chosen threshold (and puts it in its record item) for that rated data
and classifier. A shipped audit goes with its shipped rated data without being paired: the Below
the line page opens its rated picker on it, and offers it when another rated input is chosen —
without touching any other page's selection.

An estimate needs the audit's design record (``plan.json``): the one uploaded with the reviewed
plan on the Data page or shipped with the sample audit (the audit carries it), or the one of a
plan made on the Below the line page in this session (:func:`remember_design` keeps each, keyed by
the SHA-256 of the plan's rows, :func:`engine.audit.designs.plan_rows_sha256`).
"""

from __future__ import annotations

import streamlit as st

from engine.audit import AuditEstimate, estimate, plan_rows_sha256
from engine.errors import InputError
from engine.io import SAMPLES
from views.inputs import load_sample, session_inputs, shared_sample, use_on_page
from views.navigation import current_page
from views.session_input import SessionInput
from views.state import memo

_PAIRS = "_audit_pairs"  # (rated SHA-256, classifier) -> SHA-256 of the audit estimated with them
_DESIGNS = "_audit_designs"  # rows SHA-256 of a plan made in this session -> its design record
MAX_DESIGNS = 20  # plans remembered per session (each record lists at most 100,000 scores)


def remember_design(design: dict) -> None:
    """Keep the design record of a plan made in this session (its reviewed plan is then estimated with it)."""
    designs = st.session_state.setdefault(_DESIGNS, {})
    designs.pop(design["rows_sha256"], None)
    designs[design["rows_sha256"]] = design
    while len(designs) > MAX_DESIGNS:
        designs.pop(next(iter(designs)))


def audit_design(audit: SessionInput) -> dict | None:
    """The audit's design record: the one it carries (uploaded or shipped), else a plan's of this session, else None."""
    if audit.value.design is not None:
        return audit.value.design
    designs = st.session_state.get(_DESIGNS, {})
    return (
        designs.get(memo(("audit_rows", audit.fingerprint), lambda: plan_rows_sha256(audit.value))) if designs else None
    )


def audit_estimate(
    rated: SessionInput, audit: SessionInput, classifier: str, level: float, thresholds: tuple = ()
) -> AuditEstimate:
    """The estimate of an audit with rated data, once per session and settings (raises InputError)."""
    design = audit_design(audit)
    if design is None:
        raise InputError(
            f"The reviewed audit '{audit.name}' has no design record, so nothing shows it is the plan of this "
            "population and review line. Upload its plan.json with it on the Data page (the reviewed-audit form "
            "takes both), or plan it here and download plan.csv and plan.json together."
        )
    return memo(
        # the design's strata are the file's (checked): its rows, population and above-line digests identify the rest
        ("audit_estimate", audit.fingerprint, design["rows_sha256"], design["population"]["fingerprint"]["sha256"])
        + (design["above"]["scores_sha256"], *rated.key, classifier, level, thresholds),
        lambda: estimate(
            rated.rated, audit.value, design=design, classifier=classifier, level=level, thresholds=thresholds
        ),
    )


def remember_audit(rated: SessionInput, classifier: str, audit: SessionInput) -> None:
    """Pair an audit with the rated data and classifier it was estimated with."""
    st.session_state.setdefault(_PAIRS, {})[(rated.fingerprint, classifier)] = audit.fingerprint


def companion_sample(audit: SessionInput | None) -> str | None:
    """The key of the shipped rated sample a shipped audit goes with (None for any other audit)."""
    return SAMPLES[audit.sample_key].companion if audit is not None and audit.sample_key else None


def paired_audit(rated: SessionInput, classifier: str) -> SessionInput | None:
    """The audit paired with this rated data and classifier if it is still loaded; a shipped audit goes with its
    shipped rated data (and its only classifier) without being paired, loaded or not."""
    sha = st.session_state.get(_PAIRS, {}).get((rated.fingerprint, classifier))
    paired = next((i for i in session_inputs("audit") if i.fingerprint == sha), None) if sha else None
    if paired is None and rated.source == "sample" and len(rated.rated.score_names) == 1:
        key = next((k for k, s in SAMPLES.items() if s.kind == "audit" and s.companion == rated.sample_key), None)
        paired = shared_sample(key) if key else None
    return paired


def audit_at(rated: SessionInput, classifier: str, level: float) -> AuditEstimate | None:
    """The paired audit's estimate for the Operating point page (None without one, or when it no longer fits).

    With audits loaded but none paired with this rated data, a caption says how to pair one.
    """
    audit = paired_audit(rated, classifier) if rated.source != "server" else None
    if audit is None:
        if session_inputs("audit"):
            st.caption(
                "A reviewed audit is loaded: estimate it with this rated data and classifier on **Below the "
                "line**, and recall with its interval shows here."
            )
        return None
    try:
        return audit_estimate(rated, audit, classifier, level)
    except InputError:
        return None


def offer_companion(audit: SessionInput | None, rated: SessionInput | None) -> None:
    """A shipped audit with other rated data on this page: say which rated data it goes with, and offer it here."""
    key = companion_sample(audit)
    if key is None or rated is None or rated.sample_key == key:
        return
    page = current_page()
    c = st.columns([4, 2], vertical_alignment="center")
    c[0].caption(f"The shipped audit goes with the shipped rated data {SAMPLES[key].title}.")
    c[1].button(
        "Use it on this page",
        key="audit_use_companion",
        on_click=lambda: use_on_page(page, load_sample(key)),
        help="Only this page's rated data changes.",
    )
