"""Propose decision: one widget for every page that decides something (a threshold, thresholds, a model, a policy,
a batch rule), and the saved view behind each decision-record link.

A page gives what it decides as a :class:`Proposal`, built only when the user proposes, and the record item
it adds to the decision record. Proposing stores, in this order: the page's datasets in the workspace, a
saved view of the page (its settings and datasets), the record item with the view as its link (evidence),
and the decision (status *proposed*) whose evidence names the view, the item, and the audits and monitoring
results stored on its datasets. Whether the button is offered, and why not, is
:func:`engine.workspace.may`'s answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from engine.errors import InputError
from engine.record import RecordItem
from engine.workspace import Decision
from views.identity import allowed, current_identity, workspace
from views.state import md
from views.workspace import decision_link, page_inputs, save_view, store_input, view_link

_PAGE = "_current_page"  # views.navigation.remember_page's note of the page this run shows


@dataclass(frozen=True)
class Proposal:
    """What a page proposes: the decision's kind, what it is about, its threshold(s) and the numbers behind it.

    Attributes
    ----------
    kind : str
        A key of :data:`engine.workspace.DECISION_KINDS` (``"operating_point"`` ...).
    classifier : str
        The model or score column it is about (several joined by ``", "``).
    threshold : Any
        The threshold (a number), joint thresholds (a list), per-segment thresholds (a dict) or the rule's or
        model's parameters (a dict of JSON values).
    target : float or None
        The target marginal precision, when the decision has one.
    tp, fp : float or None
        Rated true and false positives flagged at the decision's point.
    settings : dict
        Everything else that defines it (JSON values).
    name : str or None
        A name for people (the workspace's default: "<classifier> at marginal precision <target>").
    """

    kind: str
    classifier: str
    threshold: Any
    target: float | None = None
    tp: float | None = None
    fp: float | None = None
    settings: dict = field(default_factory=dict)
    name: str | None = None


def _page() -> str:
    return str(st.session_state.get(_PAGE, ""))


def with_view_link(item: RecordItem) -> RecordItem:
    """The item with a saved view of this page as its "Reopen this view" link, when this identity may save views
    and the page's data can be a workspace dataset; else the item as the page built it (a link with settings)."""
    if not allowed("save_view"):
        return item
    try:
        view = save_view(_page())
    except InputError:
        return item
    return dataclasses.replace(item, provenance={**item.provenance, "link": view_link(view)})


def propose(proposal: Proposal, item: RecordItem | None, note: str) -> Decision:
    """Store the page's datasets, a view, the record item and the decision (see the module docstring).

    Raises
    ------
    InputError
        Not allowed (the reason), no dataset, data that cannot be a workspace dataset (counted on the server,
        private), or a value the workspace refuses.
    """
    identity, ws = current_identity(), workspace()
    allowed("propose").check()
    page = _page()
    inputs = page_inputs(page)
    if not inputs:
        raise InputError("a decision names the data it was computed on; this page's data is not a dataset.")
    shas = [store_input(inp, identity) for inp in inputs]
    view = save_view(page)
    evidence: dict = {"view": view.id}
    if item is not None:
        item = dataclasses.replace(item, provenance={**item.provenance, "link": view_link(view)})
        stored = ws.add_record("record_item", f"view {view.id}", item.as_dict(), identity, dataset_sha256=shas[0])
        evidence["records"] = [stored.id]
    attached = [r for sha in dict.fromkeys(shas) for r in ws.records(identity, dataset_sha256=sha)]
    evidence["audits"] = sorted({r.id for r in attached if r.kind.startswith("audit")})
    evidence["monitoring"] = sorted({r.id for r in attached if r.kind == "monitoring"})
    return ws.propose(
        identity,
        kind=proposal.kind,
        classifier=proposal.classifier,
        threshold=proposal.threshold,
        datasets=shas,
        target=proposal.target,
        tp=proposal.tp,
        fp=proposal.fp,
        settings={"page": page, **proposal.settings},
        evidence=evidence,
        note=note,
        name=proposal.name,
    )


def propose_decision(
    proposal: Callable[[], Proposal], *, key: str, record: Callable[[], RecordItem] | None = None
) -> None:
    """The Propose decision button (with a note) for the page's current result; the reason when it is not offered.

    ``proposal`` and ``record`` (the page's decision-record item, kept as evidence) are built only on a click.
    """
    permission = allowed("propose")
    if not permission:
        st.caption(f"Propose decision is not offered: {md(permission.reason)}")
        return
    with st.popover("Propose decision", icon=":material/gavel:"):
        st.caption(
            "Stores this view, its data and this result in the workspace as a proposed decision; another "
            "approver approves it on the Decisions page (four-eyes)."
        )
        note = st.text_area("Note for the reviewers", key=f"{key}_note", max_chars=10_000, height=80)
        go = st.button("Propose", key=f"{key}_go", type="primary")
    if go:
        try:
            decision = propose(proposal(), record() if record is not None else None, note)
        except InputError as exc:
            st.error(f"Not proposed: {md(exc)}")
            return
        st.success(f"Decision {decision.id} proposed ({md(decision.name)}): {decision_link(decision.id)}")
