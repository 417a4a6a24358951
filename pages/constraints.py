"""Constrained training: a linear classifier trained on a table under fairness, churn, coverage and recall goals."""

import json

import streamlit as st

from engine.constraints import (
    TableModel,
    TableSpec,
    TrainingColumns,
    adult_data,
    churn_sweep,
    churn_tradeoff_figure,
    fairness_sweep,
    fairness_tradeoff_figure,
    model_json,
    rates_frame,
    train_on_table,
)
from engine.errors import InputError
from engine.presentation import BOUND_FORMAT
from engine.record import new_item
from engine.reporting import csv_bytes
from views.inputs import input_picker
from views.navigation import current_link, routed
from views.propose import Proposal, propose_decision
from views.record_button import add_to_record
from views.session_input import SessionInput
from views.state import kept, md, memo, on_click, server_memo
from views.tables import show_table

EVERY_OTHER = "every other row"


def group_choice(frame, roles: TrainingColumns):
    """Protected group as column = value, and the reference group."""
    if roles.group is None:
        st.caption("No protected-group column mapped (Data page): fairness constraints are off.")
        return None, None
    values = sorted(frame[roles.group].dropna().astype(str).str.strip().unique())
    c = st.columns(2)
    protected = c[0].selectbox(
        f"Protected group: {roles.group} =",
        values,
        key="cons_protected",
        index=values.index("Female") if "Female" in values else 0,
    )
    others = [EVERY_OTHER, *[v for v in values if v != protected]]
    reference = c[1].selectbox("Reference group", others, key="cons_reference")
    return protected, None if reference == EVERY_OTHER else reference


def constraint_form(protected, roles: TrainingColumns) -> dict:
    """The constraint checkboxes and bounds, as TableSpec fields (None = not asked for)."""
    c = st.columns(3)
    fair = protected is not None
    bounds = {}
    if c[0].checkbox("Demographic parity ratio", value=fair, key="dp_on", disabled=not fair):
        bounds["demographic_parity"] = c[0].slider(
            f"positive rate({protected}) ≥ κ × positive rate(reference)",
            0.0,
            1.0,
            0.8,
            0.05,
            key="dp_kappa",
            format=BOUND_FORMAT,
        )
    if c[0].checkbox("Equal opportunity ratio", key="eo_on", disabled=not fair):
        bounds["equal_opportunity"] = c[0].slider(
            "true positive rate ratio ≥ κ", 0.0, 1.0, 0.8, 0.05, key="eo_kappa", format=BOUND_FORMAT
        )
    if c[1].checkbox("Maximum coverage", key="cov_max_on"):
        bounds["max_coverage"] = c[1].slider("share flagged ≤", 0.0, 1.0, 0.2, 0.01, key="cov_max", format=BOUND_FORMAT)
    if c[1].checkbox("Minimum coverage", key="cov_min_on"):
        bounds["min_coverage"] = c[1].slider(
            "share flagged ≥", 0.0, 1.0, 0.05, 0.01, key="cov_min", format=BOUND_FORMAT
        )
    if c[2].checkbox("Minimum recall", key="rec_on"):
        bounds["min_recall"] = c[2].slider("recall ≥", 0.0, 1.0, 0.6, 0.01, key="rec", format=BOUND_FORMAT)
    if c[2].checkbox(
        "Maximum churn",
        key="churn_on",
        disabled=roles.deployed is None,
        help="Share of decisions that differ from the deployed model's. Needs a deployed-decisions column (Data page).",
    ):
        bounds["max_churn"] = c[2].slider("decisions changed ≤", 0.0, 0.5, 0.05, 0.01, key="churn", format=BOUND_FORMAT)
    if roles.flag is not None and c[1].checkbox("Egregious examples", key="egr_on"):
        bounds["min_egregious_correct"] = c[1].slider(
            "flagged egregious rows decided correctly ≥", 0.0, 1.0, 0.9, 0.01, key="egr", format=BOUND_FORMAT
        )
    return bounds


def model_or_message(frame, spec: TableSpec, warm: TableModel | None, progress) -> TableModel | str:
    """The model fitted (warm-started from ``warm`` when given), or why the constraints cannot be met."""
    try:
        return train_on_table(frame, spec, progress=progress, warm_start=warm)
    except InputError as exc:  # InfeasibleConstraintsError included
        return str(exc)


def show_model(chosen: SessionInput, model: TableModel) -> None:
    """Warnings, the rates table, the downloads and the record button of a fitted model."""
    frame = chosen.value.frame
    if model.flags_nobody:
        st.warning(
            "This model flags nobody on the training rows: every decision is negative. Loosen a bound "
            "or drop a constraint."
        )
    for unmet in model.rates.get("train", {}).get("constraints_unmet_by_decisions", []):
        st.warning(md(f"The model's decisions miss a bound on the training rows: {unmet}."))
    bounds = model.bounds_in_words() or model.constraints  # the sliders' values as they read, and what is met
    st.caption(md("Constraints: " + "; ".join(bounds) + ".") if bounds else "No constraints.")
    show_table(rates_frame(model), row_kinds="measure")
    score, decision = model.decide(frame)
    d = st.columns(2)
    d[0].download_button(
        "Download the model (JSON)",
        model_json(model).encode(),
        file_name=f"constrained_model_{chosen.name}.json",
        mime="application/json",
        key="model_json",
    )
    d[1].download_button(
        "Download predictions for every row (CSV)",
        csv_bytes(frame.assign(score=score, decision=decision)[["score", "decision"]]),
        file_name=f"predictions_{chosen.name}.csv",
        mime="text/csv",
        key="predictions_csv",
    )
    st.caption("Apply the model elsewhere with `opstudio predict model.json TABLE --out predictions.csv`.")

    def record_item():
        return new_item(
            "constrained model",
            f"Constrained linear model on {chosen.name}",
            model.sentence(),
            tables=[("Rates on training and test rows", rates_frame(model))],
            data_fingerprint=chosen.fingerprint,
            settings=model.settings,
            link=current_link(),
        )

    add_to_record(record_item, key="record_constraints")
    propose_decision(
        lambda: Proposal(
            "constrained_model",
            f"constrained linear model of {chosen.mapping.label}",
            json.loads(model_json(model)),
            settings=model.settings,
        ),
        key="propose_constraints",
        record=record_item,
    )


@st.fragment
def tuning(chosen: SessionInput) -> None:
    """Constraints, training and the model: moving a bound reruns only this part, refitting from the current model."""
    frame, roles = chosen.value.frame, chosen.mapping
    protected, reference = group_choice(frame, roles)
    st.subheader("Constraints")
    spec = TableSpec(
        label=roles.label,
        group=roles.group if protected is not None else None,
        group_value=protected,
        reference_value=reference,
        deployed=roles.deployed,
        flag=roles.flag,
        split=roles.split,
        **constraint_form(protected, roles),
    )
    run_key = (chosen.key, spec)
    c = st.columns([1, 3])
    clicked = c[0].button("Train from scratch", key="train_constrained", type="primary")
    live = c[1].toggle(
        "Refit as the bounds move",
        value=True,
        key="cons_live",
        help="Each change refits from the current model (a warm start, about a second on Adult). "
        "'Train from scratch' gives the fit that does not depend on earlier settings.",
    )
    last = kept("_cons_model")
    refit = live and last is not None and last[0][0] == chosen.key and last[0] != run_key
    # a refit starts from the current model; after a failed fit there is none to start from: a cold fit
    warm = last[1] if refit and not clicked and not isinstance(last[1], str) else None
    result = on_click(
        "_cons_model",
        run_key,
        clicked or refit,
        # a cold fit depends on the table and the settings only: kept (server-wide for a sample or workspace data)
        lambda progress: (
            model_or_message(frame, spec, warm, progress)
            if warm is not None
            else memo(("constrained fit", *run_key), lambda: model_or_message(frame, spec, None, progress))
        ),
        progress="Majorization-minimization" + (" from the current model" if warm is not None else ""),
    )
    if isinstance(result, str):
        st.error(md(result))
    elif result is not None:
        show_model(chosen, result)


def shared_adult():
    """UCI Adult's design matrix, built once per server (public data, read only)."""
    return server_memo(("adult design",), adult_data)


def shared_sweep(name: str, compute):
    """One of the paper's sweeps on Adult, once per server (public data, deterministic): every session shares it."""
    return server_memo(("adult sweep", name), compute)


def adult_sweeps() -> None:
    """The paper's fairness and churn experiments on Adult, each on click."""
    st.subheader("Trade-off curves on Adult (the paper's experiments)")
    t = st.columns(2)
    fair = on_click(
        "_fair_sweep",
        (),
        t[0].button("Fairness sweep (κ = 0.2 … 1.0)", key="run_fair_sweep"),
        lambda progress: shared_sweep("fairness", lambda: fairness_sweep(shared_adult(), progress=progress)),
        progress="Training one constrained model per κ",
    )
    churn = on_click(
        "_churn_sweep",
        (),
        t[1].button("Churn sweep (targets 1 % … 8 %)", key="run_churn_sweep"),
        lambda progress: shared_sweep("churn", lambda: churn_sweep(shared_adult(), progress=progress)),
        progress="Training one constrained model per churn target",
    )
    for column, sweep, figure, name in (
        (t[0], fair, fairness_tradeoff_figure, "fairness_sweep"),
        (t[1], churn, churn_tradeoff_figure, "churn_sweep"),
    ):
        if sweep is not None:
            column.plotly_chart(figure(sweep), key=f"{name}_chart")
    for sweep, name, title in ((fair, "fairness_sweep", "Fairness sweep"), (churn, "churn_sweep", "Churn sweep")):
        if sweep is not None:  # the page's width: in half of it the columns' labels were cut ("Test erro…")
            st.markdown(f"**{title}**")
            show_table(sweep)
            st.download_button(
                "Download (CSV)", csv_bytes(sweep), file_name=f"{name}.csv", mime="text/csv", key=f"{name}_csv"
            )


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Constrained training")
st.caption(
    "Goh, Cotter, Gupta & Friedlander (NIPS 2016): minimise the training error of a linear classifier "
    "subject to rate constraints, with a ramp-loss majorization-minimization solver. Categorical columns are "
    "one-hot encoded and numeric ones standardised; the preprocessing is part of the model you download. "
    "Bounds are tightened until the model's own decisions (score ≥ 0) meet them."
)
training = input_picker("training_table", key="cons_table", label="Training table")
if training is None:
    st.stop()
table_roles = training.mapping
st.caption(
    md(
        f"{len(training.value.frame):,} rows; label '{table_roles.label}'; "
        f"{'split by ' + table_roles.split if table_roles.split else 'a seeded 70/30 split'}; every column "
        "except the label, deployed, flag and split columns is a feature."
    )
)
tuning(training)
if training.sample_key == "adult_table":
    adult_sweeps()
