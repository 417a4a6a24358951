"""Constrained training: a linear classifier trained on a table under fairness, churn, coverage and recall goals."""

import streamlit as st

from engine.constraints import (
    InfeasibleConstraintsError,
    TableSpec,
    adult_data,
    churn_sweep,
    fairness_sweep,
    model_json,
    rates_frame,
    train_on_table,
)
from engine.constraints.figures import churn_tradeoff_figure, fairness_tradeoff_figure
from engine.errors import InputError
from engine.reporting import csv_bytes
from engine.record import new_item
from views.inputs import input_picker
from views.navigation import current_link
from views.record_button import add_to_record
from views.state import md, progress_callback

EVERY_OTHER = "every other row"

st.title("Constrained training")
st.caption("Goh, Cotter, Gupta & Friedlander (NIPS 2016): minimise the training error of a linear classifier "
           "subject to rate constraints, with a ramp-loss majorization-minimization solver. Categorical columns are "
           "one-hot encoded and numeric ones standardised; the preprocessing is part of the model you download. "
           "Bounds are tightened until the model's own decisions (score ≥ 0) meet them.")

chosen = input_picker("training_table", key="cons_table", label="Training table")
if chosen is None:
    st.stop()
frame, roles = chosen.value.frame, chosen.mapping
st.caption(md(f"{len(frame):,} rows; label '{roles.label}'; "
              f"{'split by ' + roles.split if roles.split else 'a seeded 70/30 split'}; every column except the "
              "label, deployed, flag and split columns is a feature."))


def group_choice():
    """Protected group as column = value, and the reference group."""
    if roles.group is None:
        st.caption("No protected-group column mapped (Data page): fairness constraints are off.")
        return None, None
    values = sorted(frame[roles.group].dropna().astype(str).str.strip().unique())
    c = st.columns(2)
    protected = c[0].selectbox(f"Protected group: {roles.group} =", values, key="cons_protected",
                               index=values.index("Female") if "Female" in values else 0)
    others = [EVERY_OTHER, *[v for v in values if v != protected]]
    reference = c[1].selectbox("Reference group", others, key="cons_reference")
    return protected, None if reference == EVERY_OTHER else reference


def constraint_form(protected) -> dict:
    """The constraint checkboxes and bounds, as TableSpec fields (None = not asked for)."""
    c = st.columns(3)
    fair = protected is not None
    bounds = {}
    if c[0].checkbox("Demographic parity ratio", value=fair, key="dp_on", disabled=not fair):
        bounds["demographic_parity"] = c[0].slider(f"positive rate({protected}) ≥ κ × positive rate(reference)",
                                                   0.0, 1.0, 0.8, 0.05, key="dp_kappa")
    if c[0].checkbox("Equal opportunity ratio", key="eo_on", disabled=not fair):
        bounds["equal_opportunity"] = c[0].slider("true positive rate ratio ≥ κ", 0.0, 1.0, 0.8, 0.05, key="eo_kappa")
    if c[1].checkbox("Maximum coverage", key="cov_max_on"):
        bounds["max_coverage"] = c[1].slider("share flagged ≤", 0.0, 1.0, 0.2, 0.01, key="cov_max")
    if c[1].checkbox("Minimum coverage", key="cov_min_on"):
        bounds["min_coverage"] = c[1].slider("share flagged ≥", 0.0, 1.0, 0.05, 0.01, key="cov_min")
    if c[2].checkbox("Minimum recall", key="rec_on"):
        bounds["min_recall"] = c[2].slider("recall ≥", 0.0, 1.0, 0.6, 0.01, key="rec")
    if c[2].checkbox("Maximum churn against the deployed decisions", key="churn_on", disabled=roles.deployed is None,
                     help="Needs a deployed-decisions column (Data page)."):
        bounds["max_churn"] = c[2].slider("decisions changed ≤", 0.0, 0.5, 0.05, 0.01, key="churn")
    if roles.flag is not None and c[1].checkbox("Egregious examples", key="egr_on"):
        bounds["min_egregious_correct"] = c[1].slider("flagged egregious rows decided correctly ≥", 0.0, 1.0, 0.9,
                                                      0.01, key="egr")
    return bounds


def train(spec: TableSpec, run_key, warm) -> None:
    """Fit (warm-started from ``warm`` when given) with a progress bar; keep the model or the message."""
    bar, update = progress_callback("Majorization-minimization" + (" from the current model" if warm else ""))
    try:
        st.session_state["_cons_model"] = (run_key, train_on_table(frame, spec, progress=update, warm_start=warm))
    except (InfeasibleConstraintsError, InputError) as exc:
        st.session_state["_cons_model"] = (run_key, str(exc))
    bar.empty()


def show_model(model) -> None:
    """Warnings, the rates table, the downloads and the record button of a fitted model."""
    if model.flags_nobody:
        st.warning("This model flags nobody on the training rows: every decision is negative. Loosen a bound "
                   "or drop a constraint.")
    for unmet in model.rates.get("train", {}).get("constraints_unmet_by_decisions", []):
        st.warning(md(f"The model's decisions miss a bound on the training rows: {unmet}."))
    st.caption(md("Constraints: " + "; ".join(model.constraints)) if model.constraints else "No constraints.")
    st.dataframe(rates_frame(model), hide_index=True)
    score, decision = model.decide(frame)
    d = st.columns(2)
    d[0].download_button("Download the model (JSON)", model_json(model).encode(),
                         file_name=f"constrained_model_{chosen.name}.json", mime="application/json",
                         key="model_json")
    d[1].download_button("Download predictions for every row (CSV)",
                         csv_bytes(frame.assign(score=score, decision=decision)[["score", "decision"]]),
                         file_name=f"predictions_{chosen.name}.csv", mime="text/csv", key="predictions_csv")
    st.caption("Apply the model elsewhere with `opstudio predict model.json TABLE --out predictions.csv`.")
    add_to_record(lambda: new_item(
        "constrained model", f"Constrained linear model on {chosen.name}", model.sentence(),
        tables=[("Rates on training and test rows", rates_frame(model))], data_fingerprint=chosen.fingerprint,
        settings=model.settings, link=current_link()), key="record_constraints")


@st.fragment
def tuning() -> None:
    """Constraints, training and the model: moving a bound reruns only this part, refitting from the current model."""
    protected, reference = group_choice()
    st.subheader("Constraints")
    spec = TableSpec(label=roles.label, group=roles.group if protected is not None else None,
                     group_value=protected, reference_value=reference, deployed=roles.deployed, flag=roles.flag,
                     split=roles.split, **constraint_form(protected))
    run_key = (chosen.key, spec)
    c = st.columns([1, 3])
    clicked = c[0].button("Train from scratch", key="train_constrained", type="primary")
    live = c[1].toggle("Refit as the bounds move", value=True, key="cons_live",
                       help="Each change refits from the current model (a warm start, about a second on Adult). "
                            "'Train from scratch' gives the fit that does not depend on earlier settings.")
    stored = st.session_state.get("_cons_model")
    previous = stored[1] if stored and stored[0][0] == chosen.key and not isinstance(stored[1], str) else None
    if clicked:
        train(spec, run_key, None)
    elif live and stored and stored[0][0] == chosen.key and stored[0] != run_key:
        train(spec, run_key, previous)  # after a failed fit there is no model to start from: a cold fit
    stored = st.session_state.get("_cons_model")
    if not stored or stored[0] != run_key:
        return
    if isinstance(stored[1], str):
        st.error(md(stored[1]))
    else:
        show_model(stored[1])


tuning()

if chosen.sample_key == "adult_table":
    st.subheader("Trade-off curves on Adult (the paper's experiments)")
    t = st.columns(2)
    if t[0].button("Fairness sweep (κ = 0.2 … 1.0)", key="run_fair_sweep"):
        bar, update = progress_callback("Training one constrained model per κ")
        st.session_state["_fair_sweep"] = fairness_sweep(adult_data(), progress=update)
        bar.empty()
    if t[1].button("Churn sweep (targets 1 % … 8 %)", key="run_churn_sweep"):
        bar, update = progress_callback("Training one constrained model per churn target")
        st.session_state["_churn_sweep"] = churn_sweep(adult_data(), progress=update)
        bar.empty()
    for column, (key, figure, name) in zip(t, (("_fair_sweep", fairness_tradeoff_figure, "fairness_sweep"),
                                                 ("_churn_sweep", churn_tradeoff_figure, "churn_sweep"))):
        if key in st.session_state:
            sweep = st.session_state[key]
            column.plotly_chart(figure(sweep), key=f"{name}_chart")
            column.dataframe(sweep, hide_index=True)
            column.download_button("Download (CSV)", csv_bytes(sweep), file_name=f"{name}.csv",
                                   mime="text/csv", key=f"{name}_csv")
