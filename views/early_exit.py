"""Early exit (QWYC): evaluate big ensembles faster with an optimised order and exit thresholds."""

import json

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.qwyc import fit_qwyc, time_early_exit, tradeoff_curves, train_adult_gbt
from engine.qwyc.deployment import FittedPolicy, apply_policy, decisions_frame, model_rows, policy_json
from engine.qwyc.fidelity import fidelity_curve, fit_fidelity, measured_row
from engine.qwyc.figures import (
    fidelity_figure,
    models_histogram_figure,
    thresholds_figure,
    tradeoff_figure,
)
from engine.reporting import csv_bytes
from engine.record import new_item
from views.inputs import input_picker
from views.navigation import current_link
from views.record_button import add_to_record
from views.state import md, memo, progress_callback

st.title("Early exit for ensembles (QWYC)")
st.caption("Quit When You Can (Wang, Gupta et al.): choose the order of the base models and, after each one, "
           "thresholds on the running score so that most examples stop early while at most a share α of "
           "decisions differ from the full ensemble. No labels are needed to fit.")


@st.cache_resource(show_spinner=False)
def adult_model(max_iter: int, max_depth: int):
    """Public data and a deterministic model: shared by every session."""
    bar = st.progress(0.0, text=f"Training {max_iter} trees of depth {max_depth} on UCI Adult")
    trained = train_adult_gbt(max_iter=max_iter, max_depth=max_depth,
                              progress=lambda done, total: bar.progress(done / total,
                                                                        text=f"Training trees ({done}/{total})"))
    bar.progress(1.0, text="Extracting every tree's contribution")
    f_fit = trained.ensemble.contributions(trained.x_train)
    f_test = trained.ensemble.contributions(trained.x_test)
    bar.empty()
    return trained, f_fit, f_test


ADULT, MATRIX, MODEL = ("UCI Adult: gradient boosted trees trained here", "A score matrix from the Data page",
                        "Your model file and a feature table")
source = st.radio("Ensemble", [ADULT, MATRIX, MODEL], horizontal=True, key="qwyc_source", bind="query-params",
                  persist_state="session")
trained = model = None
if source == MODEL:
    c = st.columns(2)
    with c[0]:
        model_input = input_picker("model_file", key="qwyc_model", label="Model file")
    with c[1]:
        table_input = input_picker("feature_table", key="qwyc_table", label="Feature table")
    if model_input is None or table_input is None:
        st.stop()
    model = model_input.value
    try:
        rows = memo(("model_rows", model.fingerprint, table_input.key),
                    lambda: model_rows(model, table_input.value.frame, label=table_input.mapping))
    except InputError as exc:
        st.error(f"**{md(model.name)} cannot run on {md(table_input.name)}.** {md(exc)}")
        st.stop()
    f_fit, f_test, labels_fit, labels_test, bias = (rows.f_fit, rows.f_test, rows.labels_fit, rows.labels_test,
                                                    model.ensemble.bias)
    data_key = ("model", model.fingerprint, table_input.key)
    st.caption(f"{model.file_format} model with {model.n_trees:,} trees; {f_fit.shape[0]:,} fit rows and "
               f"{f_test.shape[0]:,} test rows (a seeded 70/30 split of {md(table_input.name)}).")
elif source == ADULT:
    c = st.columns(2)
    max_iter = c[0].select_slider("Trees", [100, 200, 300, 500], 500, key="qwyc_trees", bind="query-params",
                                  persist_state="session")
    max_depth = c[1].select_slider("Depth", [3, 4, 5, 6], 5, key="qwyc_depth", bind="query-params",
                                   persist_state="session")
    trained, f_fit, f_test = adult_model(int(max_iter), int(max_depth))
    labels_fit, labels_test, bias = trained.y_train, trained.y_test, trained.ensemble.bias
    data_key = ("adult", int(max_iter), int(max_depth))
    st.caption(f"HistGradientBoostingClassifier, {max_iter} trees of depth {max_depth} (early_stopping=False), "
               f"trained in {trained.fit_seconds:.1f} s; fit rows = Adult train ({f_fit.shape[0]:,}), test rows = "
               f"Adult test ({f_test.shape[0]:,}). UCI Adult, CC BY 4.0.")
else:
    matrix_input = input_picker("score_matrix", key="qwyc_matrix", label="Score matrix")
    if matrix_input is None:
        st.stop()
    matrix = matrix_input.value
    f_fit, f_test = matrix.f_fit, matrix.f_test
    labels_fit, labels_test, bias = matrix.labels_fit, matrix.labels_test, matrix.bias
    data_key = ("upload", matrix_input.fingerprint)
    st.caption(f"{f_fit.shape[1]} base models; {f_fit.shape[0]:,} fit rows, {f_test.shape[0]:,} test rows.")

t_count = f_fit.shape[1]
c = st.columns([3, 1, 1])
alpha_pct = c[0].slider("α: allowed % of fit decisions differing from the full ensemble", 0.0, 5.0, 0.5, 0.05,
                        key="alpha_pct", bind="query-params", persist_state="session", format="%.2f %%")
neg_only = c[1].toggle("Negative exits only", key="neg_only", bind="query-params", persist_state="session",
                       help="Filter then score: only early rejections; positives always get the full score.")
budget = c[2].radio("Budget", ["greedy", "rationed"], key="budget", bind="query-params", persist_state="session",
                    help="Greedy spends the mistakes as soon as they buy exits; rationed spreads them over the steps.")
alpha = alpha_pct / 100


def fit_policy():
    bar, update = progress_callback(f"Fitting QWYC* over {t_count} base models")
    policy = fit_qwyc(f_fit, alpha=alpha, bias=bias, neg_only=neg_only, budget=budget, progress=update)
    bar.empty()
    return policy


policy = memo(("qwyc", *data_key, alpha, neg_only, budget), fit_policy)
fit_metrics = policy.evaluate(f_fit, labels_fit)
test_metrics = policy.evaluate(f_test, labels_test)
m = st.columns(5)
m[0].metric("Mean # models (test)", f"{test_metrics['mean_models']:.1f} of {t_count}",
            help=f"fit data: {fit_metrics['mean_models']:.1f}")
m[1].metric("Test decisions differing", f"{test_metrics['disagreement_pct']:.2f} %",
            help=f"fit data: {fit_metrics['disagreement_pct']:.2f} % (≤ α = {alpha_pct:.2f} % by construction)")
if "accuracy" in test_metrics:
    m[2].metric("Test accuracy", f"{test_metrics['accuracy']:.4f}",
                help=f"full ensemble: {test_metrics['full_accuracy']:.4f}")
m[3].metric("Speed-up in # models", f"{t_count / test_metrics['mean_models']:.1f}×")
m[4].metric("Fit time", f"{policy.fit_seconds:.1f} s")

_, n_eval = policy.predict(f_test)
add_to_record(lambda: new_item(
    "early-exit policy", f"Early exit for a {t_count}-model ensemble (α = {alpha_pct:.2f} %)",
    f"Evaluate {test_metrics['mean_models']:.1f} of {t_count} models per row on average "
    f"({t_count / test_metrics['mean_models']:.1f}× fewer); {test_metrics['disagreement_pct']:.2f} % of test rows "
    "decide unlike the full ensemble.", tables=[("Policy", pd.DataFrame([{**fit_metrics, "part": "fit"},
                                                                          {**test_metrics, "part": "test"}]))],
    figures=[("Models evaluated per row", models_histogram_figure(n_eval, t_count))],
    data_fingerprint=str(data_key[1]) if len(data_key) > 1 else "", settings={"alpha": alpha, "neg_only": neg_only,
                                                                               "budget": budget},
    link=current_link()), key="record_qwyc")
figs = st.columns(2)
figs[0].plotly_chart(models_histogram_figure(n_eval, t_count), key="models_hist")
figs[1].plotly_chart(thresholds_figure(policy), key="thresholds_chart")

st.subheader("Timing: full evaluation against early exit")
if trained is None:
    st.caption("Wall-clock timing needs the trees themselves; an uploaded score matrix has only their outputs.")
elif st.button("Time it on the test rows", key="time_qwyc"):
    with st.spinner("Timing"):
        timing = time_early_exit(trained.ensemble, policy, trained.x_test, reference=trained.model.decision_function)
    st.session_state["_qwyc_timing"] = (data_key, alpha, neg_only, budget, timing)
stored = st.session_state.get("_qwyc_timing")
if trained is not None and stored and stored[:4] == (data_key, alpha, neg_only, budget):
    timing = stored[4]
    st.dataframe(pd.DataFrame({
        "evaluation": ["all trees (this engine)", "early exit (this engine, only undecided rows)",
                       "scikit-learn decision_function (compiled, all trees)"],
        "seconds": [timing.full_seconds, timing.early_seconds, timing.reference_seconds],
        "mean # trees": [t_count, timing.mean_models, t_count],
        "speed-up of early exit": [timing.full_seconds / timing.early_seconds, 1.0,
                                   timing.reference_seconds / timing.early_seconds],
    }), hide_index=True)
    st.caption(f"{timing.rows:,} test rows; best of 3 runs. Early-exit decisions equal the policy's: "
               f"{timing.decisions_match_policy}.")

st.subheader("Trade-off curves")
st.caption("QWYC* and each fixed order (natural, random, individual MSE, greedy MSE) with Algorithm 2 thresholds "
           "over α; Fan et al. (2002) over the confidence γ; smaller ensembles (first k trees) over k.")
if st.button("Compute the trade-off curves", key="run_curves"):
    bar, update = progress_callback("Sweeping α, γ and k")
    st.session_state["_qwyc_curves"] = (data_key, neg_only, tradeoff_curves(
        f_fit, f_test, labels_fit=labels_fit, labels_test=labels_test, bias=bias, neg_only=neg_only,
        alphas=(0.0, 0.001, 0.0025, 0.005, 0.01, 0.02), progress=update))
    bar.empty()
curves = st.session_state.get("_qwyc_curves")
if curves and curves[:2] == (data_key, neg_only):
    table = curves[2]
    figs = st.columns(2)
    figs[0].plotly_chart(tradeoff_figure(table), key="tradeoff_disagreement")
    if "test_accuracy" in table:
        figs[1].plotly_chart(tradeoff_figure(table, y="test_accuracy", title="Accuracy against speed"),
                             key="tradeoff_accuracy")
    st.dataframe(table, hide_index=True)
    st.download_button("Download the curves (CSV)", csv_bytes(table), file_name="qwyc_tradeoff.csv",
                       mime="text/csv", key="curves_csv")

st.subheader("A promise on new rows")
st.caption("α holds on the fit rows only. Here you state the share D of new rows that may decide unlike the full "
           "model: QWYC* is fitted on 60 % of the fit rows and its exit thresholds are widened on the other 40 % "
           "until a 95 % upper confidence bound on their disagreement is at most D (a fixed-sequence test).")
p = st.columns([1, 1, 2])
promise_pct = p[0].number_input("D: new rows allowed to differ (%)", 0.01, 10.0, 0.3, 0.05, format="%.2f",
                                key="promise_pct")
if p[1].button("Fit with this promise", key="fit_promise"):
    bar, update = progress_callback(f"QWYC* on 60 % of the fit rows, margins calibrated for D = {promise_pct:.2f} %")
    fitted = fit_fidelity(f_fit, max_disagreement=promise_pct / 100, bias=bias, progress=update)
    bar.empty()
    st.session_state["_promise"] = ((data_key, promise_pct), fitted,
                                    measured_row("QWYC with fidelity promise", f"D = {promise_pct:.2f} %",
                                                 fitted.policy, f_test, bias, promise_pct / 100, fitted.certified))
stored = st.session_state.get("_promise")
if stored and stored[0] == (data_key, promise_pct):
    fitted, row = stored[1], stored[2]
    if fitted.certified:
        p[2].success(f"Certified: {row['mean trees (test)']:.1f} trees on average; test rows differing "
                     f"{100 * row['test disagreement']:.3f} % (95 % interval {100 * row['interval low']:.3f} – "
                     f"{100 * row['interval high']:.3f} %); calibration bound "
                     f"{100 * fitted.calibration_upper_bound:.3f} % ≤ D.")
    else:
        p[2].warning(f"{fitted.calibration_rows:,} calibration rows cannot certify D = {promise_pct:.2f} %: every "
                     "tree is evaluated. Use more fit rows or a larger D.")
    if model is not None:  # the promised policy is a production policy too
        p[2].download_button("Download this policy (JSON)", policy_json(
            FittedPolicy(fitted.policy, {"fidelity": fitted.as_dict(), "test": row}), model).encode(),
            file_name=f"qwyc_policy_D{promise_pct:.2f}pct.json", mime="application/json", key="promise_json")
if st.button("Compare with LightGBM's own early stopping (D from 0.05 % to 2 %)", key="run_fidelity_curve"):
    bar, update = progress_callback("Fitting one promise per D")
    st.session_state["_fidelity_curve"] = (data_key, fidelity_curve(f_fit, f_test, bias=bias, progress=update))
    bar.empty()
stored = st.session_state.get("_fidelity_curve")
if stored and stored[0] == data_key:
    st.plotly_chart(fidelity_figure(stored[1]), key="fidelity_chart")
    st.dataframe(stored[1], hide_index=True)
    st.download_button("Download the comparison (CSV)", csv_bytes(stored[1]), file_name="qwyc_vs_lightgbm.csv",
                       mime="text/csv", key="fidelity_csv")

st.subheader("Take the policy to production")
if model is not None:
    st.caption("The policy file names the model by its SHA-256; `opstudio qwyc apply MODEL DATA --policy "
               "policy.json --out decisions.csv` applies it, evaluating only the trees each row needs.")
    record = policy_json(FittedPolicy(policy, {"fit": fit_metrics, "test": test_metrics}), model)
    decision, n_evaluated = memo(("qwyc_apply", *data_key, alpha, neg_only, budget),
                                 lambda: apply_policy(policy, model, table_input.value.frame))
    d = st.columns(2)
    d[1].download_button("Download the decisions of every table row (CSV)",
                         csv_bytes(decisions_frame(decision, n_evaluated)),
                         file_name=f"qwyc_decisions_{table_input.name}.csv", mime="text/csv", key="qwyc_decisions")
else:
    record = json.dumps({**policy.as_dict(), "neg_only": bool(neg_only), "budget": budget, "fit": fit_metrics,
                         "test": test_metrics}, indent=1)
    d = st.columns(2)
d[0].download_button("Download the policy (JSON)", record.encode(), file_name="qwyc_policy.json",
                     mime="application/json", key="policy_json")
