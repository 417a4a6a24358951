"""Constraints: train a linear classifier under fairness, churn, coverage and recall constraints."""

import json

import numpy as np
import pandas as pd
import streamlit as st

from engine.constraints import (
    DemographicParity,
    EqualOpportunity,
    InfeasibleConstraintsError,
    MaxChurn,
    MaxCoverage,
    MinCoverage,
    MinRecall,
    adult_data,
    churn_sweep,
    fairness_sweep,
    fit_constrained,
    linear_svm,
    rate_table,
)
from engine.constraints.figures import (
    churn_tradeoff_figure,
    constraint_trace_figure,
    fairness_tradeoff_figure,
)
from engine.reporting import csv_bytes
from views.inputs import current_dataset
from views.state import md, memo, progress_callback

st.title("Constrained training")
st.caption("Goh, Cotter, Gupta & Friedlander (NIPS 2016): minimise the training error of a linear classifier "
           "subject to rate constraints on several data sets, with a ramp-loss majorization-minimization solver. "
           "The constraints hold for the randomised classifier P(positive) = ramp(f); deterministic f ≥ 0 "
           "decisions meet them approximately (both are reported).")


@st.cache_resource(show_spinner="Loading and encoding UCI Adult")
def adult():
    return adult_data()


source = st.radio("Data", ["UCI Adult (group: sex)", "Loaded data set (scores as features)"], horizontal=True,
                  key="cons_source", bind="query-params", persist_state="session")
if source.startswith("UCI"):
    data = adult()
    x_train, y_train, x_test, y_test = data.x_train, data.y_train, data.x_test, data.y_test
    g_train, g_test = data.female_train, data.female_test
    group_label, data_key = "female", ("adult",)
    st.caption(f"{x_train.shape[0]:,} training and {x_test.shape[0]:,} test rows, {x_train.shape[1]} features "
               "(numeric + one-hot). Protected group: women; reference: men. UCI Adult, CC BY 4.0.")
else:
    dataset = current_dataset()
    d = dataset.rated
    if d.groups is None:
        st.info(f"**{md(d.name)}** has no group column. Map one on the Data page (e.g. `region` in the synthetic "
                "sample) to state fairness constraints.")
        st.stop()
    values = sorted(set(d.groups))
    protected_value = st.selectbox("Protected group", values, key="cons_group")
    rng = np.random.default_rng(0)
    test_rows = rng.random(d.n_rated) < 0.3
    x_all, g_all = d.scores, d.groups == protected_value
    x_train, y_train, g_train = x_all[~test_rows], d.labels[~test_rows], g_all[~test_rows]
    x_test, y_test, g_test = x_all[test_rows], d.labels[test_rows], g_all[test_rows]
    group_label, data_key = md(protected_value), (*dataset.key, str(protected_value))
    st.caption(f"Features: {md(', '.join(d.score_names))}; labels: the ratings; 70 % train / 30 % test (seeded).")

st.subheader("Constraints")
c = st.columns(3)
dp_on = c[0].checkbox("Demographic parity ratio", value=True, key="dp_on")
dp_kappa = c[0].slider(f"positive rate({group_label}) ≥ κ × positive rate(others)", 0.0, 1.0, 0.8, 0.05,
                       key="dp_kappa", disabled=not dp_on)
eo_on = c[0].checkbox("Equal opportunity ratio", key="eo_on")
eo_kappa = c[0].slider("true positive rate ratio ≥ κ", 0.0, 1.0, 0.8, 0.05, key="eo_kappa", disabled=not eo_on)
cov_max_on = c[1].checkbox("Maximum coverage", key="cov_max_on")
cov_max = c[1].slider("share predicted positive ≤", 0.0, 1.0, 0.2, 0.01, key="cov_max", disabled=not cov_max_on)
cov_min_on = c[1].checkbox("Minimum coverage", key="cov_min_on")
cov_min = c[1].slider("share predicted positive ≥", 0.0, 1.0, 0.05, 0.01, key="cov_min", disabled=not cov_min_on)
rec_on = c[2].checkbox("Minimum recall", key="rec_on")
rec = c[2].slider("recall ≥", 0.0, 1.0, 0.6, 0.01, key="rec", disabled=not rec_on)
churn_on = c[2].checkbox("Maximum churn against a deployed model", key="churn_on",
                         help="The deployed model: a linear SVM on 10 % of the training rows and the first features.")
churn = c[2].slider("decisions changed ≤", 0.0, 0.5, 0.05, 0.01, key="churn", disabled=not churn_on)
lam = st.select_slider("Regularisation λ", [0.001, 0.003, 0.01, 0.03, 0.1], 0.01, key="cons_lam")


def deployed_model():
    part = np.random.default_rng(0).random(y_train.size) < 0.1
    few = slice(0, min(6, x_train.shape[1]))
    model = linear_svm(x_train[part][:, few], y_train[part], lam=lam)
    return model.predict(x_train[:, few]), model.predict(x_test[:, few])


constraints, spec = [], []
if dp_on:
    constraints.append(DemographicParity(g_train, ~g_train, dp_kappa))
    spec.append((f"demographic parity ratio ≥ {dp_kappa:g}", "demographic parity ratio", dp_kappa, False))
if eo_on:
    constraints.append(EqualOpportunity(g_train, ~g_train, eo_kappa))
    spec.append((f"equal opportunity ratio ≥ {eo_kappa:g}", "equal opportunity ratio", eo_kappa, False))
if cov_max_on:
    constraints.append(MaxCoverage(cov_max))
    spec.append((f"coverage ≤ {cov_max:g}", "coverage", cov_max, True))
if cov_min_on:
    constraints.append(MinCoverage(cov_min))
    spec.append((f"coverage ≥ {cov_min:g}", "coverage", cov_min, False))
if rec_on:
    constraints.append(MinRecall(rec))
    spec.append((f"recall ≥ {rec:g}", "recall", rec, False))
dep_train = dep_test = None
if churn_on:
    dep_train, dep_test = memo(("deployed", *data_key, lam), deployed_model)
    constraints.append(MaxChurn(dep_train, churn))
    spec.append((f"churn ≤ {churn:g}", "churn", churn, True))

run_key = (*data_key, tuple(spec), lam)
if st.button("Train", key="train_constrained", type="primary"):
    bar, update = progress_callback("Majorization-minimization")
    try:
        model = fit_constrained(x_train, y_train, constraints, lam=lam, progress=update)
        st.session_state["_cons_model"] = (run_key, model)
    except InfeasibleConstraintsError as exc:
        st.session_state["_cons_model"] = (run_key, str(exc))
    bar.empty()
stored = st.session_state.get("_cons_model")
if stored and stored[0] == run_key:
    model = stored[1]
    if isinstance(model, str):
        st.error(md(model))
    else:
        table = rate_table(model, spec, (x_train, y_train, g_train, dep_train), (x_test, y_test, g_test, dep_test))
        st.dataframe(table, hide_index=True)
        st.caption(f"Fitted in {model.fit_seconds:.1f} s, {len(model.trace_) - 1} MM iterations, "
                   f"{model.trace_[-1]['svm_solves']} inner solves.")
        st.plotly_chart(constraint_trace_figure(model), key="trace_chart")
        coef = pd.DataFrame({"feature": [f"x{i}" for i in range(model.coef_.size)], "coefficient": model.coef_})
        d1, d2 = st.columns(2)
        d1.download_button("Download coefficients (CSV)", csv_bytes(coef), file_name="coefficients.csv",
                           mime="text/csv", key="coef_csv")
        d2.download_button("Download results (JSON)", json.dumps({
            "intercept": model.intercept_, "coefficients": model.coef_.tolist(), "lambda": model.lam,
            "constraints": [{"name": n, "bound": b} for n, _, b, _ in spec], "results": table.to_dict(orient="records"),
            "trace": list(model.trace_)}, default=float).encode(), file_name="constrained_model.json",
            mime="application/json", key="results_json")

if source.startswith("UCI"):
    st.subheader("Trade-off curves on Adult")
    t = st.columns(2)
    if t[0].button("Fairness sweep (κ = 0.2 … 1.0)", key="run_fair_sweep"):
        bar, update = progress_callback("Training one constrained model per κ")
        st.session_state["_fair_sweep"] = fairness_sweep(data, progress=update)
        bar.empty()
    if t[1].button("Churn sweep (targets 1 % … 8 %)", key="run_churn_sweep"):
        bar, update = progress_callback("Training one constrained model per churn target")
        st.session_state["_churn_sweep"] = churn_sweep(data, progress=update)
        bar.empty()
    for column, (key, figure, name) in zip(t, (("_fair_sweep", fairness_tradeoff_figure, "fairness_sweep"),
                                                 ("_churn_sweep", churn_tradeoff_figure, "churn_sweep"))):
        if key in st.session_state:
            sweep = st.session_state[key]
            column.plotly_chart(figure(sweep), key=f"{name}_chart")
            column.dataframe(sweep, hide_index=True)
            column.download_button("Download (CSV)", csv_bytes(sweep), file_name=f"{name}.csv",
                                   mime="text/csv", key=f"{name}_csv")
