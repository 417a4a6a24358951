"""Batch decisions: flag the expected-loss-optimal top k of every batch for a set metric."""

from dataclasses import dataclass

import streamlit as st

from engine.errors import InputError
from engine.io import PUBLIC_DATASETS, ProbabilityBatches
from engine.record import data_sha256, new_item
from engine.reporting import csv_bytes
from engine.setloss import (
    LOSSES,
    SetLoss,
    baselines_figure,
    batch_items_figure,
    batches_from_split,
    compare_baselines,
    decide_batch,
    decide_batches,
    decided_items,
    expected_loss_figure,
    get_loss,
    labelled_split,
    monte_carlo_check,
    train_probabilities,
)
from views.inputs import input_picker, sidebar_note
from views.navigation import current_link, routed
from views.propose import Proposal, propose_decision
from views.record_button import add_to_record
from views.state import md, memo, on_click, server_memo
from views.tables import show_table

#: the custom metric starts as F1 = 2TP / (2TP + FP + FN)
DEFAULT_METRIC = get_loss("custom").fractional
OWN, TRAINED = "Probability batches (your file or the shipped sample)", "A model trained here on a public data set"


@dataclass(frozen=True)
class Probabilities:
    """The batches the page decides, their identity in memo keys, and the labelled split of a model trained here."""

    key: tuple
    batches: ProbabilityBatches
    split: object | None  # the labelled split of a model trained here (engine.setloss.train_probabilities)
    source: str
    fingerprint: str | None = None  # the SHA-256 of the user's file (None: batches of a model trained here)


def _fmt(value: float) -> str:
    """Four decimals; rounding noise around zero (|x| < 1e-12) shown as 0."""
    return f"{0.0 if abs(value) < 1e-12 else value:.4f}"


def pick_loss(column) -> SetLoss | None:
    """The loss chosen (β or the coefficients of a custom metric below it); None after showing what is wrong."""
    key = column.selectbox(
        "Loss",
        list(LOSSES),
        format_func=lambda k: LOSSES[k].title,
        key="loss",
        bind="query-params",
        persist_state="session",
    )
    if LOSSES[key].parameter:
        beta = st.number_input("β", 0.05, 20.0, 2.0, 0.05, key="beta", bind="query-params", persist_state="session")
        return get_loss(key, beta=float(beta))
    if LOSSES[key].coefficients:
        st.markdown(
            "Metric = (c0 + c_TP·TP + c_FP·FP + c_FN·FN + c_TN·TN) / (d0 + d_TP·TP + d_FP·FP + d_FN·FN + "
            "d_TN·TN); the loss is 1 − metric. The defaults spell out F1 = 2TP / (2TP + FP + FN)."
        )
        terms = ["constant", "TP", "FP", "FN", "TN"]
        nums, dens = st.columns(5), st.columns(5)
        num = [
            nums[i].number_input(f"numerator {t}", value=DEFAULT_METRIC.numerator[i], key=f"num_{t}")
            for i, t in enumerate(terms)
        ]
        den = [
            dens[i].number_input(f"denominator {t}", value=DEFAULT_METRIC.denominator[i], key=f"den_{t}")
            for i, t in enumerate(terms)
        ]
        try:
            return get_loss(key, numerator=num, denominator=den)
        except InputError as exc:
            st.error(md(exc))
            return None
    return get_loss(key)


def loss_parameters() -> dict:
    """β of the chosen loss when it takes one (for the record's settings and its link)."""
    chosen = LOSSES.get(st.session_state.get("loss"))
    return (
        {"beta": float(st.session_state["beta"])}
        if chosen is not None and chosen.parameter and "beta" in st.session_state
        else {}
    )


def own_batches() -> Probabilities:
    chosen = input_picker("batches", key="batches_input", label="Probability batches")
    if chosen is None:
        st.stop()
    # the record names the file
    return Probabilities(("input", *chosen.key), chosen.value, None, chosen.name, chosen.fingerprint)


def shared_split(name: str):
    """A public data set's splits and the logistic regression's probabilities, once per server (deterministic)."""
    return server_memo(("public split", name), lambda: train_probabilities(name))


def trained_batches() -> Probabilities:
    """Batches of a public data set's test items, scored by a logistic regression trained here."""
    name = st.selectbox(
        "Public data set",
        list(PUBLIC_DATASETS),
        format_func=PUBLIC_DATASETS.get,
        key="batch_dataset",
        bind="query-params",
        persist_state="session",
    )
    sidebar_note(PUBLIC_DATASETS[name], "A logistic regression trained here; its test items in batches")
    trained = st.session_state.get("_batch_trained", set())
    if name not in trained and not st.button(
        "Train a logistic regression",
        key="train_batch_model",
        type="primary",
        help="Trains on the training split; probabilities on validation and test splits.",
    ):
        st.info("Train the model to get calibrated probabilities for the test items.")
        st.stop()
    with st.spinner(f"Training a logistic regression on {PUBLIC_DATASETS[name]}"):
        split = shared_split(name)
    st.session_state["_batch_trained"] = trained | {name}
    n_test = split.eta_test.size
    size = int(
        st.number_input(
            "Batch size (items decided together)",
            1,
            min(n_test, 10_000),
            min(500, n_test),
            key="batch_size",
            bind="query-params",
            persist_state="session",
        )
    )
    st.caption(
        f"{split.eta_val.size:,} validation and {n_test:,} test items; logistic regression (calibrated: "
        "it minimises the log loss); test items shuffled and cut into batches of this size."
    )
    batches = memo(("trained_batches", name, size), lambda: batches_from_split(split, size))
    return Probabilities(
        ("trained", name, size), batches, split, f"{PUBLIC_DATASETS[name]}, scored by a model trained here"
    )


def decision_cards(outcome, n_items: int) -> None:
    decision = outcome.decision
    m = st.columns(4)
    m[0].metric("Items to flag (k)", f"{decision.k:,} of {n_items:,}")
    m[1].metric("Expected loss at k", _fmt(decision.value))
    m[2].metric(
        "Expected loss flagging η ≥ 0.5",
        _fmt(outcome.loss_threshold_half),
        help=f"Top-k with k = {outcome.k_threshold_half}, the number of items with probability ≥ 0.5.",
    )
    m[3].metric(
        "Paper's early stop",
        f"k = {outcome.early.k}",
        help="First k with L_k ≤ L_{k+1}; not exact in general.",
        delta=None if outcome.early.k == decision.k else f"{outcome.early.value - decision.value:+.4f} worse",
        delta_color="inverse",
    )


def decided_items_section(src: Probabilities, loss: SetLoss, batch: str, eta, outcome) -> None:
    decision, batches = outcome.decision, src.batches
    figs = st.columns(2)
    figs[0].plotly_chart(expected_loss_figure(decision, outcome.early), key="expected_loss_chart")
    figs[1].plotly_chart(batch_items_figure(eta, decision), key="batch_items_chart")

    def record_item():
        return new_item(
            "batch decision",
            f"{loss.name}-optimal decision of {batch} ({eta.size:,} items)",
            outcome.sentence(batch),
            tables=[("Decided items (most probable first)", decided_items(batches, batch, decision))],
            figures=[("Expected loss of flagging the top k", expected_loss_figure(decision, outcome.early))],
            data_fingerprint=src.fingerprint or data_sha256(src.batches.probabilities, src.batches.batch_ids),
            settings={"loss": loss.name, **loss_parameters(), "batch": batch, "source": src.source},
            link=current_link({"batch_name": batch, "loss": st.session_state.get("loss"), **loss_parameters()}),
        )

    add_to_record(record_item, key="record_batch")
    propose_decision(
        lambda: Proposal(
            "batch_rule",
            batches.mapping.probability_col if src.fingerprint else src.source,
            {"loss": loss.name, **loss_parameters(), "batch": batch, "k": int(decision.k)},
            settings={"source": src.source, "items": int(eta.size)},
        ),
        key="propose_batch",
        record=record_item,
    )
    st.subheader("Decided items")
    table = decided_items(batches, batch, decision)
    show_table(table, height=260)
    st.download_button(
        "Download this batch's decisions (CSV)",
        csv_bytes(table),
        file_name=f"decisions_{batch}.csv",
        mime="text/csv",
        key="decisions_csv",
    )
    with st.expander("Monte Carlo check of the expected loss"):
        draws = st.number_input("Simulated label vectors", 1_000, 200_000, 20_000, 1_000, key="mc_draws")
        check = on_click(
            "_mc_result",
            (src.key, loss, batch),
            st.button("Simulate", key="run_mc"),
            lambda: monte_carlo_check(eta, decision, loss, draws=int(draws)),
        )
        if check is not None:
            st.write(check.sentence)


def every_batch_section(src: Probabilities, loss: SetLoss) -> None:
    batches = src.batches
    st.subheader("Every batch")
    st.caption(
        "Each batch decided on its own; the file has one row per input row, in input order, with its batch, "
        "decision (0/1) and the batch's k."
    )
    result = on_click(
        "_all_batches",
        (src.key, loss),
        st.button(f"Decide all {len(batches.batch_names):,} batches", key="run_all_batches", type="primary"),
        lambda progress: decide_batches(batches, loss, progress=progress),
        progress="Deciding batches",
    )
    if result is None:
        return
    show_table(result.summary, height=260)
    d = st.columns(2)
    d[0].download_button(
        "Download every decision (CSV)",
        csv_bytes(result.decisions),
        file_name=f"{batches.name}_{loss.name}_decisions.csv".replace(" ", "_"),
        mime="text/csv",
        key="all_decisions_csv",
    )
    d[1].download_button(
        "Download the per-batch summary (CSV)",
        csv_bytes(result.summary),
        file_name=f"{batches.name}_{loss.name}_summary.csv".replace(" ", "_"),
        mime="text/csv",
        key="batch_summary_csv",
    )


def baselines_section(src: Probabilities, loss: SetLoss, batch_size: int) -> None:
    st.subheader("Baselines on labelled batches")
    if src.split is None and src.batches.n_labelled < 2:
        st.caption("The baselines need true labels: map a label column on the Data page.")
        return
    st.caption(
        "The paper's protocol: labelled items are split into validation and test halves; the test items are "
        "cut into batches; each batch is decided by (a) threshold 0.5, (b) one threshold tuned on validation "
        "batches for this loss, (c) the expected-loss-optimal top k, and scored against the true labels."
    )
    split = (
        src.split
        if src.split is not None
        else memo(("batch_split_input", *src.key), lambda: labelled_split(src.batches))
    )
    size = int(min(batch_size, split.eta_test.size))
    comparison = on_click(
        "_baselines",
        (src.key, loss, size),
        st.button(f"Compare with the baselines (batches of {size:,})", key="run_baselines"),
        lambda progress: compare_baselines(split, loss, size, progress=progress),
        progress="Deciding test batches",
    )
    if comparison is None:
        return
    b = st.columns([2, 3])
    show_table(comparison.summary, where=b[0])
    b[0].download_button(
        "Download per-batch losses (CSV)",
        csv_bytes(comparison.per_batch),
        file_name="baselines_per_batch.csv",
        mime="text/csv",
        key="baselines_csv",
    )
    b[1].plotly_chart(baselines_figure(comparison.summary), key="baselines_chart")


@st.fragment
def decisions_view(src: Probabilities) -> None:
    """The loss, the batch and everything decided with them: changing either reruns only this part."""
    c = st.columns([2, 2, 3])
    loss = pick_loss(c[0])
    if loss is None:
        return
    c[0].caption(f"Loss = {md(loss.formula)}")
    names = src.batches.batch_names
    batch = c[1].selectbox(f"Batch (of {len(names):,})", names, key="batch_name", bind="query-params")
    items = src.batches.rows_of(batch)
    eta = src.batches.probabilities[items]
    c[2].caption(f"**{md(batch)}**: {items.size:,} items, mean probability {eta.mean():.3f}.")
    outcome = memo(("batch_outcome", *src.key, loss, batch), lambda: decide_batch(eta, loss))
    decision_cards(outcome, eta.size)
    decided_items_section(src, loss, batch, eta, outcome)
    every_batch_section(src, loss)
    baselines_section(src, loss, items.size)


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Batch decisions")
st.caption(
    "For a batch of items with calibrated probabilities, the decision that minimises the expected set "
    "loss flags the k most probable items (Natarajan et al., ICML 2016). Independent labels assumed."
)
source = st.radio(
    "Probabilities from",
    [OWN, TRAINED],
    horizontal=True,
    key="batch_source",
    bind="query-params",
    persist_state="session",
)
decisions_view(own_batches() if source == OWN else trained_batches())
