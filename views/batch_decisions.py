"""Batch decisions: flag the expected-loss-optimal top k of a batch for a set metric."""

import numpy as np
import pandas as pd
import streamlit as st

from engine.io.public_data import PUBLIC_DATASETS as DATASETS
from engine.reporting import csv_bytes
from engine.setloss import (
    compare_baselines,
    fbeta,
    get_loss,
    linear_fractional,
    monte_carlo_loss,
    optimal_decision,
    scored_split_from_arrays,
    train_probabilities,
)
from engine.setloss.figures import (
    baselines_figure,
    batch_items_figure,
    expected_loss_figure,
)
from views.inputs import current_dataset
from views.state import md, memo, progress_callback


def _fmt(value: float) -> str:
    """Four decimals; rounding noise around zero (|x| < 1e-12) shown as 0."""
    return f"{0.0 if abs(value) < 1e-12 else value:.4f}"


st.title("Batch decisions")
st.caption("For a batch of items with calibrated probabilities, the decision that minimises the expected set "
           "loss flags the k most probable items (Natarajan et al., ICML 2016). Independent labels assumed.")
dataset = current_dataset()
d = dataset.rated

source = st.radio("Probabilities from", ["A trained model on a public data set", "A column of the loaded data set"],
                  horizontal=True, key="batch_source", bind="query-params", persist_state="session")
if source.startswith("A trained"):
    name = st.selectbox("Public data set", list(DATASETS), format_func=DATASETS.get, key="batch_dataset",
                        bind="query-params", persist_state="session")
    trained = st.session_state.get("_batch_trained", set())
    if name not in trained and not st.button("Train a logistic regression", key="train_batch_model", type="primary",
                                             help="Trains on the training split; probabilities on validation and "
                                                  "test splits."):
        st.info("Train the model to get calibrated probabilities for the test items.")
        st.stop()
    with st.spinner(f"Training a logistic regression on {DATASETS[name]}"):
        split = memo(("batch_split", name), lambda: train_probabilities(name))
    st.session_state["_batch_trained"] = trained | {name}
    source_key = ("trained", name)
    eta_all, y_all = split.eta_test, split.y_test
    st.caption(f"{split.eta_val.size:,} validation and {split.eta_test.size:,} test items; logistic regression "
               "(calibrated: it minimises the log loss).")
else:
    column = st.selectbox("Probability column", d.score_names, key="batch_column", bind="query-params",
                          persist_state="session")
    eta_all = d.column(column)
    if eta_all.min() < 0 or eta_all.max() > 1:
        st.error(f"Column {md(column)} holds scores outside [0, 1] (from {eta_all.min():.4g} to {eta_all.max():.4g}). "
                 "Batch decisions need calibrated probabilities: choose a probability column or calibrate the "
                 "scores first.")
        st.stop()
    y_all = d.labels
    split = memo(("batch_split_loaded", *dataset.key, column),
                 lambda: scored_split_from_arrays(eta_all, y_all, name=column))
    source_key = ("loaded", *dataset.key, column)
    st.caption(f"{eta_all.size:,} rated items of **{md(d.name)}**; their ratings serve as labels for the baselines.")

c = st.columns([2, 1, 2, 2])
loss_key = c[0].selectbox("Loss", ["f1", "fbeta", "jaccard", "am", "gmean", "hmean", "gtppr", "auc", "custom"],
                          format_func=lambda k: {"f1": "F1", "fbeta": "F-beta", "jaccard": "Jaccard",
                                                 "am": "AM (balanced error)", "gmean": "G-mean", "hmean": "H-mean",
                                                 "gtppr": "G-TP/PR", "auc": "binary AUC",
                                                 "custom": "Custom linear-fractional"}[k],
                          key="loss", bind="query-params", persist_state="session")
if loss_key == "fbeta":
    beta = c[1].number_input("β", 0.05, 20.0, 2.0, 0.05, key="beta", bind="query-params", persist_state="session")
    loss = fbeta(float(beta))
elif loss_key == "custom":
    st.markdown("Metric = (c0 + c_TP·TP + c_FP·FP + c_FN·FN + c_TN·TN) / (d0 + d_TP·TP + d_FP·FP + d_FN·FN + "
                "d_TN·TN); the loss is 1 − metric. The defaults spell out F1 = 2TP / (2TP + FP + FN).")
    terms = ["constant", "TP", "FP", "FN", "TN"]
    f1_num, f1_den = (0.0, 2.0, 0.0, 0.0, 0.0), (0.0, 2.0, 1.0, 1.0, 0.0)
    nums, dens = st.columns(5), st.columns(5)
    num = [nums[i].number_input(f"numerator {t}", value=f1_num[i], key=f"num_{t}") for i, t in enumerate(terms)]
    den = [dens[i].number_input(f"denominator {t}", value=f1_den[i], key=f"den_{t}") for i, t in enumerate(terms)]
    try:
        loss = linear_fractional(num, den)
    except ValueError as exc:
        st.error(md(exc))
        st.stop()
else:
    loss = get_loss(loss_key)
c[0].caption(f"Loss = {md(loss.formula)}")

n_items = eta_all.size
batch_size = int(c[2].number_input("Batch size (items decided together)", 1, int(min(n_items, 10_000)),
                                   int(min(500, max(10, n_items // 10), n_items)), key="batch_size",
                                   bind="query-params", persist_state="session"))
n_batches = max(1, n_items // batch_size)
batch_index = int(c[3].number_input(f"Batch (of {n_batches:,})", 1, n_batches, 1, key="batch_index",
                                    bind="query-params", persist_state="session")) - 1
perm = memo(("batch_perm", *source_key), lambda: np.random.default_rng(0).permutation(n_items))
items = perm[batch_index * batch_size:(batch_index + 1) * batch_size]
eta = eta_all[items]

decision = memo(("decision", *source_key, loss, batch_size, batch_index), lambda: optimal_decision(eta, loss))
early = memo(("decision_early", *source_key, loss, batch_size, batch_index),
             lambda: optimal_decision(eta, loss, early_stop=True))
m = st.columns(4)
m[0].metric("Items to flag (k)", f"{decision.k:,} of {eta.size:,}")
m[1].metric("Expected loss at k", _fmt(decision.value))
m[2].metric("Expected loss flagging η ≥ 0.5", _fmt(decision.losses[int((eta >= 0.5).sum())]),
            help="Top-k with k = number of items with probability ≥ 0.5.")
m[3].metric("Paper's early stop", f"k = {early.k}", help="First k with L_k ≤ L_{k+1}; not exact in general.",
            delta=None if early.k == decision.k else f"{early.value - decision.value:+.4f} worse",
            delta_color="inverse")

figs = st.columns(2)
figs[0].plotly_chart(expected_loss_figure(decision, early), key="expected_loss_chart")
figs[1].plotly_chart(batch_items_figure(eta, decision), key="batch_items_chart")

st.subheader("Decided items")
table = pd.DataFrame({"item (row of the source)": items + 1, "probability": eta, "flag": decision.mask})
table = table.iloc[decision.order].reset_index(drop=True)
st.dataframe(table, hide_index=True, height=260)
st.download_button("Download the decisions (CSV)", csv_bytes(table), file_name="batch_decisions.csv",
                   mime="text/csv", key="decisions_csv")

with st.expander("Monte Carlo check of the expected loss"):
    draws = st.number_input("Simulated label vectors", 1_000, 200_000, 20_000, 1_000, key="mc_draws")
    if st.button("Simulate", key="run_mc"):
        mean, se = monte_carlo_loss(eta, decision.mask, loss, draws=int(draws), seed=0)
        st.session_state["_mc_result"] = (decision.losses.tobytes(), mean, se)
    result = st.session_state.get("_mc_result")
    if result and result[0] == decision.losses.tobytes():
        _, mean, se = result
        st.write(f"Simulated mean loss {mean:.5f} ± {1.96 * se:.5f} (95 %), exact {_fmt(decision.value)}: "
                 f"{'consistent' if abs(mean - decision.value) <= max(3 * se, 1e-9) else 'inconsistent'}.")

st.subheader("Baselines on labelled batches")
st.caption("The paper's protocol: the test items are cut into batches of the size above; each batch is decided by "
           "(a) threshold 0.5, (b) one threshold tuned on validation batches for this loss, (c) the expected-loss-"
           "optimal top k, and scored against the true labels.")
if st.button("Compare with the baselines", key="run_baselines"):
    bar, update = progress_callback("Deciding test batches")
    st.session_state["_baselines"] = ((source_key, loss, batch_size),
                                      compare_baselines(split, loss, batch_size, progress=update))
    bar.empty()
stored = st.session_state.get("_baselines")
if stored and stored[0] == (source_key, loss, batch_size):
    comparison = stored[1]
    b = st.columns([2, 3])
    b[0].dataframe(comparison.summary, hide_index=True)
    b[0].download_button("Download per-batch losses (CSV)", csv_bytes(comparison.per_batch),
                         file_name="baselines_per_batch.csv", mime="text/csv", key="baselines_csv")
    b[1].plotly_chart(baselines_figure(comparison.summary), key="baselines_chart")
