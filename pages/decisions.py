"""Decisions: the workspace's operating-point registry — filter, read each decision's history and evidence, approve,
reject, deploy or retire it, and export the record of any set of decisions."""

import datetime as dt
import json

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.record import RECORD_FORMAT, new_item, read_record_json, record_html, record_json, record_pdf
from engine.workspace import DECISION_KINDS, STATUSES, TRANSITIONS
from views.identity import current_identity, workspace
from views.navigation import routed
from views.state import md, on_click
from views.tables import show_table
from views.workspace import decision_link, public_base

ANY = "any"
_DONE = "_decision_done"  # the message of the last action taken on this page (shown after the rerun)


def threshold_text(threshold) -> str:
    """A decision's threshold(s) for people: a number, joint thresholds, per-segment thresholds or a rule."""
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        return f"{threshold:.6g}"
    if isinstance(threshold, list) and all(isinstance(t, (int, float)) for t in threshold):
        return ", ".join(f"{t:.6g}" for t in threshold)
    if isinstance(threshold, dict) and all(isinstance(t, (int, float)) for t in threshold.values()):
        text = "; ".join(f"{k}: {t:.6g}" for k, t in list(threshold.items())[:8])
        return text + (f"; … ({len(threshold)} in all)" if len(threshold) > 8 else "")
    text = json.dumps(threshold, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "…"


def filters(everything) -> dict:
    """Status, kind, model and dates to filter by (the engine filters)."""
    c = st.columns([2, 2, 2, 3])
    status = c[0].selectbox("Status", [ANY, *STATUSES], key="dec_status")
    kind = c[1].selectbox(
        "Kind", [ANY, *DECISION_KINDS], format_func=lambda k: DECISION_KINDS.get(k, k), key="dec_kind"
    )
    models = sorted({d.classifier for d in everything})
    model = c[2].selectbox("Model", [ANY, *models], key="dec_model")
    dates = c[3].date_input("Proposed between", value=(), key="dec_dates", format="YYYY-MM-DD")
    since = dates[0].isoformat() if len(dates) > 0 else None
    until = (dates[-1] + dt.timedelta(days=1)).isoformat() if len(dates) > 0 else None
    return {
        "status": None if status == ANY else status,
        "kind": None if kind == ANY else kind,
        "classifier": None if model == ANY else model,
        "since": since,
        "until": until,
    }


def decisions_table(found) -> None:
    if not found:
        return
    rows = [
        {
            "id": d.id,
            "name": d.name,
            "kind": DECISION_KINDS.get(d.kind, d.kind),
            "status": d.status,
            "model": d.classifier,
            "threshold": threshold_text(d.threshold),
            "target m": d.target,
            "proposed by": d.proposed_by,
            "proposed at": d.proposed_at[:16].replace("T", " "),
            "last event": f"{d.history[-1].event} by {d.history[-1].by}" if d.history else "",
        }
        for d in found
    ]
    show_table(pd.DataFrame(rows), height=min(38 + 35 * len(rows), 400))


def chosen(found):
    """The decision shown below: the link's ``?decision=<id>`` on arrival, then the selection (kept in the URL)."""
    ids = [d.id for d in found]
    wanted = st.query_params.get("decision")
    if wanted is not None and st.session_state.get("_decision_link") != wanted:
        st.session_state["_decision_link"] = wanted
        try:
            linked = workspace().decision(int(str(wanted)), current_identity())
        except (InputError, ValueError) as exc:
            st.error(f"Decision {md(str(wanted)[:20])} cannot be opened: {md(exc)}")
            return None
        if linked.id not in ids:
            found.insert(0, linked)
            ids.insert(0, linked.id)
        st.session_state["dec_choice"] = linked.id
    if not ids:
        return None
    names = {d.id: f"{d.id} · {d.name} · {d.status}" for d in found}
    choice = st.selectbox("Decision", ids, format_func=lambda i: names[i], key="dec_choice")
    st.query_params["decision"] = str(choice)
    st.session_state["_decision_link"] = str(choice)
    return next(d for d in found if d.id == choice)


def details(d) -> None:
    """What the decision is: kind, model, threshold(s), target, counts, data, note."""
    st.subheader(f"{d.id}. {d.name}")
    m = st.columns(5)
    m[0].metric("Status", d.status)
    m[1].metric("Threshold" if not isinstance(d.threshold, (list, dict)) else "Thresholds", threshold_text(d.threshold))
    m[2].metric("Target marginal precision", "—" if d.target is None else f"{d.target:.4g}")
    m[3].metric("True positives", "—" if d.tp is None else f"{d.tp:,.6g}")
    m[4].metric("False positives", "—" if d.fp is None else f"{d.fp:,.6g}")
    ws, me = workspace(), current_identity()
    names = []
    for sha in d.datasets:
        try:
            names.append(f"{ws.dataset(sha, me).name} (SHA-256 {sha[:12]}…)")
        except InputError:
            names.append(f"SHA-256 {sha[:12]}…")
    st.caption(
        md(
            f"{DECISION_KINDS.get(d.kind, d.kind)} of {d.classifier}, proposed by {d.proposed_by} at "
            f"{d.proposed_at}. Data: {'; '.join(names)}. Content SHA-256 {d.content_hash[:16]}…"
        )
    )
    if d.note:
        st.text(f"Note: {d.note}")
    if d.settings:
        with st.expander("Settings"):
            st.json(d.settings)
    st.code(decision_link(d.id), language=None)


def evidence_items(d) -> list:
    """The record items stored as the decision's evidence (read back as untrusted records)."""
    wanted = {r for r in d.evidence.get("records", []) if isinstance(r, int)}
    if not wanted:
        return []
    found = [r for r in workspace().records(current_identity(), kind="record_item") if r.id in wanted]
    text = json.dumps({"format": RECORD_FORMAT, "items": [r.body for r in found]})
    try:
        return read_record_json(text)
    except InputError as exc:
        st.warning(f"The decision's evidence could not be read: {md(exc)}")
        return []


def evidence(d) -> None:
    """The view, the record items, audits and monitoring results behind the decision."""
    st.markdown("**Evidence**")
    view = d.evidence.get("view")
    if isinstance(view, int):
        try:
            v = workspace().view(view, current_identity())
            st.link_button(
                f"Open view {v.id} ({v.page})", f"{public_base()}/{v.page}?view={v.id}", key=f"ev_view_{d.id}"
            )
        except InputError as exc:
            st.caption(f"View {view} cannot be opened: {md(exc)}")
    for item in evidence_items(d):
        st.markdown(f"- {md(item.title)}: {md(item.sentence)}")
    for kind in ("audits", "monitoring"):
        ids = d.evidence.get(kind) or []
        if ids:
            st.caption(f"{kind.capitalize()} attached when proposed: record(s) {', '.join(map(str, ids))}.")
    alerts = workspace().records(current_identity(), kind="monitoring", decision_id=d.id)
    for r in alerts:
        body = r.body if isinstance(r.body, dict) else {}
        st.markdown(
            md(
                f"- Monitoring by {r.created_by} at {r.created_at[:16].replace('T', ' ')}: {len(body.get('alerts') or [])} "
                f"alert(s) over {body.get('periods', '?')} periods of {body.get('file', 'the data')}."
            )
        )


def events_sentence(d) -> str:
    """The history in words: who moved the decision on, and when."""
    return "; ".join(f"{e.event} by {e.by} at {e.at[:16].replace('T', ' ')}" for e in d.history)


def history(d) -> None:
    st.markdown("**History**")
    st.markdown(md(events_sentence(d).capitalize() + "."))
    rows = [{"event": e.event, "by": e.by, "at": e.at, "note": e.note, "hash": e.hash[:16] + "…"} for e in d.history]
    show_table(pd.DataFrame(rows))


def act(decision_id: int, action: str) -> None:
    """A button's callback: one event on the decision; the message is shown after the rerun."""
    note = st.session_state.get(f"dec_note_{decision_id}", "")
    try:
        workspace().act(decision_id, action, current_identity(), note=note)
        st.session_state[_DONE] = ("success", f"Decision {decision_id}: {TRANSITIONS[action][1]}.")
        st.session_state[f"dec_note_{decision_id}"] = ""
    except InputError as exc:
        st.session_state[_DONE] = ("error", str(exc))


def actions(d) -> None:
    """Approve, reject, deploy or retire: a button when allowed, else the reason (four-eyes, role, status)."""
    ws, me = workspace(), current_identity()
    possible = [a for a, (start, _) in TRANSITIONS.items() if start == d.status]
    if not possible:
        st.caption(f"Decision {d.id} is {d.status}: no action is left.")
        return
    permissions = {a: ws.may(me, a, d) for a in possible}
    offered = [a for a, p in permissions.items() if p]
    if offered:
        st.text_input("Note for the history", key=f"dec_note_{d.id}", max_chars=2000)
        c = st.columns(len(offered))
        for column, action in zip(c, offered):
            column.button(action.capitalize(), key=f"dec_{action}_{d.id}", on_click=act, args=(d.id, action))
    for action, permission in permissions.items():
        if not permission:
            st.caption(f"{action.capitalize()} is not offered: {md(permission.reason)}")


def decision_item(d):
    """The decision as an item of the decision record: its sentence, history, data and link."""
    events = events_sentence(d)
    sentence = (
        f"{DECISION_KINDS.get(d.kind, d.kind)} of {d.classifier}: threshold {threshold_text(d.threshold)}"
        + ("" if d.target is None else f" at target marginal precision {d.target:.4g}")
        + f"; {d.status} ({events})."
    )
    table = pd.DataFrame([e.as_dict() for e in d.history])
    item = new_item(
        "decision",
        f"Decision {d.id}: {d.name}",
        sentence,
        tables=[("History", table)],
        data_fingerprint=d.datasets[0] if d.datasets else "",
        settings={"threshold": d.threshold, "target": d.target, **d.settings},
        link=decision_link(d.id),
    )
    return item.annotated(d.note) if d.note else item


def export(found) -> None:
    """The record (HTML, JSON, PDF) of the decisions chosen: each decision, then its evidence's items."""
    st.subheader("Record of decisions")
    ids = st.multiselect(
        "Decisions in the record", [d.id for d in found], default=[d.id for d in found][:20], key="dec_export"
    )
    chosen_ones = [d for d in found if d.id in ids]
    key = tuple((d.id, d.history[-1].hash if d.history else "") for d in chosen_ones)
    built = on_click(
        "_dec_record",
        key,
        st.button("Build the record", key="dec_build", disabled=not chosen_ones),
        lambda: [item for d in chosen_ones for item in [decision_item(d), *evidence_items(d)]],
        spinner="Building the record",
    )
    if built is None:
        return
    c = st.columns(3)
    c[0].download_button("Download HTML", record_html(built, "Decisions").encode(), "decisions.html", "text/html")
    c[1].download_button("Download JSON", record_json(built).encode(), "decisions.json", "application/json")
    if c[2].button("Prepare PDF", key="dec_pdf"):
        with st.spinner("Printing the record with headless Chromium"):
            try:
                st.session_state["_dec_pdf"] = (key, record_pdf(record_html(built, "Decisions", static=True)))
            except InputError as exc:
                st.error(md(exc))
    pdf = st.session_state.get("_dec_pdf")
    if pdf and pdf[0] == key:
        c[2].download_button("Download PDF", pdf[1], "decisions.pdf", "application/pdf", key="dec_pdf_file")


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Decisions")
st.caption(
    "Every threshold proposed from a page (Propose decision), with who approved, deployed and retired it, when, "
    "and on what evidence. Nobody approves, rejects or deploys a decision they proposed (four-eyes)."
)
done = st.session_state.pop(_DONE, None)
if done:
    (st.success if done[0] == "success" else st.error)(md(done[1]))
me = current_identity()
everything = workspace().decisions(me)
found = workspace().decisions(me, **filters(everything))
st.caption(f"{len(found):,} of {len(everything):,} decisions.")
decisions_table(found)
decision = chosen(found)
if decision is not None:
    details(decision)
    actions(decision)
    history(decision)
    evidence(decision)
    export(found)
else:
    st.info("No decision yet. Propose one from a page (Operating point: Propose decision under the sweep).")
