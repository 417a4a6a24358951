"""The Monitoring page following a deployed decision: its threshold and target come from the decision, and the run's
alerts are stored on it (as ``opstudio monitor FILE --decision ID`` does)."""

from __future__ import annotations

import streamlit as st

from engine.errors import InputError
from engine.workspace import Decision
from views.identity import allowed, current_identity, workspace
from views.session_input import SessionInput
from views.state import md

NOT_FOLLOWED = 0


def follow_decision(classifier: str, *, key: str) -> Decision | None:
    """ "Follow a deployed decision": the deployed operating-point decisions about ``classifier`` this identity may
    open, or None when none is chosen (the page's own threshold and target then apply)."""
    if not allowed("open_decision"):
        return None
    try:
        deployed = [
            d
            for d in workspace().decisions(current_identity(), status="deployed", kind="operating_point")
            if d.classifier == classifier and isinstance(d.threshold, (int, float)) and d.target is not None
        ]
    except InputError as exc:
        st.caption(f"Deployed decisions cannot be listed: {md(exc)}")
        return None
    if not deployed:
        st.session_state.pop(key, None)
        return None
    names = {d.id: f"decision {d.id}: {d.name} (T = {d.threshold:.6g}, m = {d.target:.4g})" for d in deployed}
    if st.session_state.get(key) not in (NOT_FOLLOWED, *names):
        st.session_state[key] = NOT_FOLLOWED
    choice = st.selectbox(
        "Follow a deployed decision",
        [NOT_FOLLOWED, *names],
        format_func=lambda i: "none: the threshold and target below" if i == NOT_FOLLOWED else names[i],
        key=key,
        help="Its threshold and target are monitored, and the alerts are stored on the decision.",
    )
    return next((d for d in deployed if d.id == choice), None)


def store_alerts(decision: Decision, dataset: SessionInput, result) -> None:
    """Keep the run's alerts on the decision (a ``monitoring`` record keyed by the data's SHA-256; the same run
    stored again is one record), or say why not."""
    permission = allowed("save_record")
    if not permission:
        st.caption(f"The alerts are not stored on decision {decision.id}: {md(permission.reason)}")
        return
    body = result.alerts_record(dataset.name)
    try:
        record = workspace().add_record(
            "monitoring", dataset.fingerprint, body, current_identity(), decision_id=decision.id
        )
    except InputError as exc:
        st.warning(f"The alerts could not be stored on decision {decision.id}: {md(exc)}")
        return
    st.caption(f"{len(result.alerts)} alert(s) stored on decision {decision.id} (record {record.id}).")
