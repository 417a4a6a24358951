"""Early exit (QWYC): evaluate big ensembles faster with an optimised order and exit thresholds."""

import json
from dataclasses import astuple, dataclass

import pandas as pd
import streamlit as st

from engine.errors import InputError
from engine.io import ScoreMatrix
from engine.qwyc import (
    ADULT_GBT,
    EarlyExitPolicy,
    FidelityCalibration,
    FittedPolicy,
    ModelFile,
    PolicySummary,
    TrainedEnsemble,
    adult_gbt_sample,
    apply_policy,
    blank_figure,
    calibrate_fidelity,
    decisions_frame,
    fidelity_curve,
    fidelity_figure,
    fit_qwyc,
    full_decisions,
    measured_row,
    model_rows,
    policy_json,
    qwyc_start,
    start_alpha,
    summarise_policy,
    time_early_exit,
    timing_table,
    tradeoff_curves,
    tradeoff_figure,
    train_adult_gbt,
)
from engine.record import data_sha256, new_item
from engine.reporting import csv_bytes
from views.inputs import input_picker, sidebar_note
from views.navigation import current_link, routed
from views.propose import Proposal, propose_decision
from views.record_button import add_to_record
from views.session_input import SessionInput
from views.state import md, memo, on_click, progress_callback, server_memo
from views.tables import show_table

ADULT, MATRIX, MODEL = (
    "UCI Adult: gradient boosted trees (shipped sample)",
    "A score matrix from the Data page",
    "Your model file and a feature table",
)


@dataclass(frozen=True)
class Ensemble:
    """The base models' contributions the page fits on, and where they came from."""

    rows: ScoreMatrix  # contributions, labels and bias of the fit and test rows
    key: tuple  # identity of the data in memo keys
    trained: TrainedEnsemble | None = None  # trained here: the trees themselves, for wall-clock timing
    model: ModelFile | None = None  # a user's model file: the production downloads
    table: SessionInput | None = None  # the feature table the model file runs on

    @property
    def n_models(self) -> int:
        return self.rows.f_fit.shape[1]


@dataclass(frozen=True)
class Settings:
    """How the policy is fitted: α in percent, negative exits only, the budget rule."""

    alpha_pct: float
    neg_only: bool
    budget: str

    @property
    def alpha(self) -> float:
        return self.alpha_pct / 100


def ensemble_sha256(ens: Ensemble) -> str:
    """SHA-256 of the data the policy was fitted on: the uploaded file, the feature table, or the Adult rows."""
    if ens.table is not None:
        return ens.table.fingerprint
    if ens.trained is not None:
        t = ens.trained
        return data_sha256(t.x_train, t.y_train, t.x_test, t.y_test)
    return str(ens.key[1]) if ens.key[0] == "upload" else data_sha256(ens.rows.f_fit, ens.rows.f_test)


def tree_names(n: int) -> tuple[str, ...]:
    return tuple(f"tree {t}" for t in range(n))


def read_or_train(max_iter: int, max_depth: int):
    """The shipped model file's first ``max_iter`` trees at its depth (nothing trained); other depths trained here;
    every tree's contribution on Adult's fit and test rows, with a progress bar."""
    if max_depth == ADULT_GBT["max_depth"] and max_iter <= ADULT_GBT["max_iter"]:
        bar = st.progress(0.0, text="Reading the shipped model file")
        trained = adult_gbt_sample(max_iter)
    else:
        bar = st.progress(0.0, text=f"Training {max_iter} trees of depth {max_depth} on UCI Adult")
        trained = train_adult_gbt(
            max_iter=max_iter,
            max_depth=max_depth,
            progress=lambda done, total: bar.progress(done / total, text=f"Training trees ({done}/{total})"),
        )
    bar.progress(1.0, text="Extracting every tree's contribution")
    f_fit = trained.ensemble.contributions(trained.x_train)
    f_test = trained.ensemble.contributions(trained.x_test)
    bar.empty()
    return trained, f_fit, f_test


def adult_model(max_iter: int, max_depth: int):
    """Public data and a deterministic model: shared by every session, held in the server's byte-budgeted cache
    (each (trees, depth) holds every tree's contribution on Adult's 48,842 rows: 195 MB at 500 trees)."""
    return server_memo(("early exit model", max_iter, max_depth), lambda: read_or_train(max_iter, max_depth))


def shared_result(key: tuple, compute):
    """The shipped sample's fits, curves and comparisons, once per server (public data, deterministic)."""
    return server_memo(("early exit", *key), compute)


def shared(ens: "Ensemble", key: tuple, compute):
    """``compute()`` once per server for the shipped sample; once per session for a user's own data."""
    if ens.key[0] == "adult":
        return shared_result((*ens.key, *key), compute)
    return memo((*key, *ens.key), compute)


def adult_ensemble() -> Ensemble:
    c = st.columns(2)
    max_iter = c[0].select_slider(
        "Trees", [100, 200, 300, 500], 500, key="qwyc_trees", bind="query-params", persist_state="session"
    )
    max_depth = c[1].select_slider(
        "Depth", [3, 4, 5, 6], 5, key="qwyc_depth", bind="query-params", persist_state="session"
    )
    sidebar_note("UCI Adult", f"A boosted model of {max_iter} trees of depth {max_depth}, its train and test rows")
    trained, f_fit, f_test = adult_model(int(max_iter), int(max_depth))
    how = (
        f"the first {max_iter} of the shipped sample's {ADULT_GBT['max_iter']} (adult_gbt.skops)"
        if trained.fit_seconds == 0
        else f"trained here in {trained.fit_seconds:.1f} s"
    )
    st.caption(
        f"HistGradientBoostingClassifier, {max_iter} trees of depth {max_depth} (early_stopping=False), "
        f"{how}; fit rows = Adult train ({f_fit.shape[0]:,}), test rows = "
        f"Adult test ({f_test.shape[0]:,}). UCI Adult, CC BY 4.0."
    )
    rows = ScoreMatrix(
        f_fit, f_test, trained.y_train, trained.y_test, trained.ensemble.bias, tree_names(f_fit.shape[1])
    )
    return Ensemble(rows, ("adult", int(max_iter), int(max_depth)), trained=trained)


def matrix_ensemble() -> Ensemble | None:
    matrix_input = input_picker("score_matrix", key="qwyc_matrix", label="Score matrix")
    if matrix_input is None:
        return None
    matrix = matrix_input.value
    st.caption(
        f"{matrix.f_fit.shape[1]} base models; {matrix.f_fit.shape[0]:,} fit rows, {matrix.f_test.shape[0]:,} "
        "test rows."
    )
    return Ensemble(matrix, ("upload", matrix_input.fingerprint))


def model_ensemble() -> Ensemble | None:
    c = st.columns(2)
    with c[0]:
        model_input = input_picker("model_file", key="qwyc_model", label="Model file")
    with c[1]:
        table_input = input_picker("feature_table", key="qwyc_table", label="Feature table")
    if model_input is None or table_input is None:
        return None
    model = model_input.value
    try:
        rows = memo(
            ("model_rows", model.fingerprint, table_input.key),
            lambda: model_rows(model, table_input.value.frame, label=table_input.mapping),
        )
    except InputError as exc:
        st.error(f"**{md(model.name)} cannot run on {md(table_input.name)}.** {md(exc)}")
        return None
    st.caption(
        f"{model.file_format} model with {model.n_trees:,} trees; {rows.f_fit.shape[0]:,} fit rows and "
        f"{rows.f_test.shape[0]:,} test rows (a seeded 70/30 split of {md(table_input.name)})."
    )
    matrix = ScoreMatrix(
        rows.f_fit, rows.f_test, rows.labels_fit, rows.labels_test, model.ensemble.bias, tree_names(model.n_trees)
    )
    return Ensemble(matrix, ("model", model.fingerprint, table_input.key), model=model, table=table_input)


def policy_controls() -> Settings:
    c = st.columns([3, 2, 2])  # room for "Negative exits only" and its help at 1,280 px
    alpha_pct = c[0].slider(
        "α: allowed % of fit decisions differing from the full ensemble",
        0.0,
        5.0,
        0.5,
        0.05,
        key="alpha_pct",
        bind="query-params",
        persist_state="session",
        format="%.2f %%",
    )
    neg_only = c[1].toggle(
        "Negative exits only",
        key="neg_only",
        bind="query-params",
        persist_state="session",
        help="Filter then score: only early rejections; positives always get the full score.",
    )
    budget = c[2].radio(
        "Budget",
        ["greedy", "rationed"],
        key="budget",
        bind="query-params",
        persist_state="session",
        help="Greedy spends the mistakes as soon as they buy exits; rationed spreads them over the steps.",
    )
    return Settings(alpha_pct, neg_only, budget)


def full_fit_test_decisions(ens: Ensemble, threshold: float):
    """The full ensemble's decisions on the fit and test rows: the same for every policy of this ensemble."""
    r = ens.rows
    return shared(
        ens,
        ("full decisions", float(threshold)),
        lambda: tuple(full_decisions(f, r.bias, threshold) for f in (r.f_fit, r.f_test)),
    )


def fit_start(ens: Ensemble, alpha: float):
    """QWYC*'s first step for every α up to the tier of ``alpha``, counted once and shared by the fits at each α."""
    tier, r = start_alpha(alpha), ens.rows
    return (
        None
        if tier is None
        else shared(ens, ("qwyc start", tier), lambda: qwyc_start(r.f_fit, bias=r.bias, max_alpha=tier))
    )


def fitted_policy(ens: Ensemble, settings: Settings) -> PolicySummary:
    def fit() -> PolicySummary:
        start = fit_start(ens, settings.alpha)
        bar, update = progress_callback(f"Fitting QWYC* over {ens.n_models} base models")
        r = ens.rows
        policy = fit_qwyc(
            r.f_fit,
            alpha=settings.alpha,
            bias=r.bias,
            neg_only=settings.neg_only,
            budget=settings.budget,
            progress=update,
            start=start,
        )
        bar.empty()
        full_fit, full_test = full_fit_test_decisions(ens, policy.threshold)
        return summarise_policy(
            policy,
            r.f_fit,
            r.f_test,
            labels_fit=r.labels_fit,
            labels_test=r.labels_test,
            full_fit=full_fit,
            full_test=full_test,
            model=ens.model,
            fitted_with={"neg_only": bool(settings.neg_only), "budget": settings.budget},
        )

    return shared(ens, ("qwyc", settings.alpha, settings.neg_only, settings.budget), fit)


def metric_cards(ens: Ensemble, settings: Settings, policy: EarlyExitPolicy, fit: dict, test: dict) -> None:
    t_count = ens.n_models
    m = st.columns(4)
    m[0].metric(
        "Mean # models (test)", f"{test['mean_models']:.1f} of {t_count}", help=f"fit data: {fit['mean_models']:.1f}"
    )
    m[1].metric(
        "Disagreement (test)",
        f"{test['disagreement_pct']:.2f} %",
        help=f"fit data: {fit['disagreement_pct']:.2f} % (≤ α = {settings.alpha_pct:.2f} % by construction)",
    )
    if "accuracy" in test:
        m[2].metric(
            "Test accuracy",
            f"{100 * test['accuracy']:.1f} %",
            help=f"full ensemble: {100 * test['full_accuracy']:.2f} %; early exit: {100 * test['accuracy']:.2f} %",
        )
    m[3].metric("Speed-up in # models", f"{t_count / test['mean_models']:.1f}×")
    st.caption(f"The policy was fitted in {policy.fit_seconds:.1f} s.")  # the machine's number, not the decision


def record_button(ens: Ensemble, settings: Settings, result: PolicySummary) -> None:
    t_count, fit, test = ens.n_models, result.fit, result.test

    def record_item():
        return new_item(
            "early-exit policy",
            f"Early exit for a {t_count}-model ensemble (α = {settings.alpha_pct:.2f} %)",
            f"Evaluate {test['mean_models']:.1f} of {t_count} models per row on average "
            f"({t_count / test['mean_models']:.1f}× fewer); {test['disagreement_pct']:.2f} % of test rows "
            "decide unlike the full ensemble.",
            tables=[("Policy", pd.DataFrame([{**fit, "part": "fit"}, {**test, "part": "test"}]))],
            figures=[("Models evaluated per row", result.histogram)],
            data_fingerprint=ensemble_sha256(ens),
            settings={"alpha": settings.alpha, "neg_only": settings.neg_only, "budget": settings.budget},
            link=current_link(
                {"alpha_pct": settings.alpha_pct, "neg_only": settings.neg_only, "budget": settings.budget}
            ),
        )

    add_to_record(record_item, key="record_qwyc")
    propose_decision(
        lambda: Proposal(
            "early_exit_policy",
            f"{t_count}-model ensemble",
            json.loads(result.policy_file),
            settings={"alpha": settings.alpha, "neg_only": settings.neg_only, "budget": settings.budget},
        ),
        key="propose_qwyc",
        record=record_item,
    )


def timing_section(ens: Ensemble, settings: Settings, policy: EarlyExitPolicy) -> None:
    st.subheader("Timing: full evaluation against early exit")
    if ens.trained is None:
        st.caption("Wall-clock timing needs the trees themselves; an uploaded score matrix has only their outputs.")
        return
    trained = ens.trained
    timing = on_click(
        "_qwyc_timing",
        (ens.key, astuple(settings)),
        st.button("Time it on the test rows", key="time_qwyc"),
        lambda: time_early_exit(trained.ensemble, policy, trained.x_test, reference=trained.decision_function),
        spinner="Timing",
    )
    if timing is not None:
        show_table(timing_table(timing, ens.n_models))
        st.caption(
            f"{timing.rows:,} test rows; best of 3 runs. Early-exit decisions equal the policy's: "
            f"{timing.decisions_match_policy}."
        )


def tradeoff_section(ens: Ensemble, settings: Settings) -> None:
    st.subheader("Trade-off curves")
    st.caption(
        "QWYC* and each fixed order (natural, random, individual MSE, greedy MSE) with Algorithm 2 thresholds "
        "over α; Fan et al. (2002) over the confidence γ; smaller ensembles (first k trees) over k."
    )
    r = ens.rows
    table = on_click(
        "_qwyc_curves",
        (ens.key, settings.neg_only),
        st.button("Compute the trade-off curves", key="run_curves"),
        lambda progress: shared(
            ens,
            ("curves", settings.neg_only),
            lambda: tradeoff_curves(
                r.f_fit,
                r.f_test,
                labels_fit=r.labels_fit,
                labels_test=r.labels_test,
                bias=r.bias,
                neg_only=settings.neg_only,
                alphas=(0.0, 0.001, 0.0025, 0.005, 0.01, 0.02),
                progress=progress,
            ),
        ),
        progress="Sweeping α, γ and k",
    )
    if table is None:
        return
    figs = st.columns(2)
    figs[0].plotly_chart(tradeoff_figure(table), key="tradeoff_disagreement")
    if "test_accuracy" in table:
        figs[1].plotly_chart(
            tradeoff_figure(table, y="test_accuracy", title="Accuracy against speed"), key="tradeoff_accuracy"
        )
    show_table(table)
    st.download_button(
        "Download the curves (CSV)", csv_bytes(table), file_name="qwyc_tradeoff.csv", mime="text/csv", key="curves_csv"
    )


def production_section(ens: Ensemble, settings: Settings, policy: EarlyExitPolicy, policy_file: bytes) -> None:
    st.subheader("Take the policy to production")
    if ens.model is not None:
        st.caption(
            "The policy file names the model by its SHA-256; `opstudio qwyc apply MODEL DATA --policy "
            "policy.json --out decisions.csv` applies it, evaluating only the trees each row needs."
        )
    d = st.columns(2)
    d[0].download_button(
        "Download the policy (JSON)",
        policy_file,
        file_name="qwyc_policy.json",
        mime="application/json",
        key="policy_json",
    )
    if ens.model is not None:
        model, table = ens.model, ens.table
        decision, n_evaluated = memo(
            ("qwyc_apply", *ens.key, settings.alpha, settings.neg_only, settings.budget),
            lambda: apply_policy(policy, model, table.value.frame),
        )
        d[1].download_button(
            "Download the decisions of every table row (CSV)",
            csv_bytes(decisions_frame(decision, n_evaluated)),
            file_name=f"qwyc_decisions_{table.name}.csv",
            mime="text/csv",
            key="qwyc_decisions",
        )


@st.fragment
def policy_view(ens: Ensemble) -> None:
    """α, the exits and the budget, and everything fitted with them: moving a control reruns only this part."""
    settings = policy_controls()
    result = fitted_policy(ens, settings)
    policy, fit, test = result.policy, result.fit, result.test
    metric_cards(ens, settings, policy, fit, test)
    record_button(ens, settings, result)
    figs = st.columns(2)
    figs[0].plotly_chart(result.histogram, key="models_hist")
    figs[1].plotly_chart(result.thresholds, key="thresholds_chart")
    timing_section(ens, settings, policy)
    tradeoff_section(ens, settings)
    production_section(ens, settings, policy, result.policy_file)


def fidelity_calibration(ens: Ensemble) -> FidelityCalibration:
    """QWYC* on 60 % of the fit rows and its disagreement at every margin: fitted once, shared by every D and by the
    comparison with LightGBM (a progress bar while it is fitted)."""
    r = ens.rows

    def calibrate() -> FidelityCalibration:
        bar, update = progress_callback("QWYC* on 60 % of the fit rows, margins measured on the other 40 %")
        calibration = calibrate_fidelity(r.f_fit, bias=r.bias, progress=update)
        bar.empty()
        return calibration

    return shared(ens, ("fidelity calibration",), calibrate)


def promised_policy(ens: Ensemble, promise_pct: float):
    r = ens.rows
    calibration = fidelity_calibration(ens)

    def promise():
        fitted = calibration.promise(promise_pct / 100)
        return fitted, measured_row(
            "QWYC with fidelity promise",
            f"D = {promise_pct:.2f} %",
            fitted.policy,
            r.f_test,
            r.bias,
            promise_pct / 100,
            fitted.certified,
        )

    return shared(ens, ("promise", promise_pct), promise)


def show_promise(column, ens: Ensemble, promise_pct: float, fitted, row: dict) -> None:
    if fitted.certified:
        column.success(
            f"Certified: {row['mean trees (test)']:.1f} trees on average; test rows differing "
            f"{100 * row['test disagreement']:.3f} % (95 % interval {100 * row['interval low']:.3f} – "
            f"{100 * row['interval high']:.3f} %); calibration bound "
            f"{100 * fitted.calibration_upper_bound:.3f} % ≤ D."
        )
    else:
        column.warning(
            f"{fitted.calibration_rows:,} calibration rows cannot certify D = {promise_pct:.2f} %: every "
            "tree is evaluated. Use more fit rows or a larger D."
        )
    if ens.model is not None:  # the promised policy is a production policy too
        column.download_button(
            "Download this policy (JSON)",
            policy_json(FittedPolicy(fitted.policy, {"fidelity": fitted.as_dict(), "test": row}), ens.model).encode(),
            file_name=f"qwyc_policy_D{promise_pct:.2f}pct.json",
            mime="application/json",
            key="promise_json",
        )


def compared(ens: Ensemble, calibration: FidelityCalibration, progress):
    r = ens.rows
    return shared(
        ens,
        ("fidelity curve",),
        lambda: fidelity_curve(r.f_fit, r.f_test, bias=r.bias, calibration=calibration, progress=progress),
    )


@st.fragment
def promise_view(ens: Ensemble) -> None:
    """A promise D on new rows, and the comparison with LightGBM's early stopping: reruns alone."""
    st.subheader("A promise on new rows")
    st.caption(
        "α holds on the fit rows only. Here you state the share D of new rows that may decide unlike the full "
        "model: QWYC* is fitted on 60 % of the fit rows and its exit thresholds are widened on the other 40 % "
        "until a 95 % upper confidence bound on their disagreement is at most D (a fixed-sequence test)."
    )
    p = st.columns([1, 1, 2])
    promise_pct = p[0].number_input(
        "D: new rows allowed to differ (%)", 0.01, 10.0, 0.3, 0.05, format="%.2f", key="promise_pct"
    )
    promised = on_click(
        "_promise",
        (ens.key, promise_pct),
        p[1].button("Fit with this promise", key="fit_promise"),
        lambda: promised_policy(ens, promise_pct),
    )
    if promised is not None:
        show_promise(p[2], ens, promise_pct, *promised)
    curve = on_click(
        "_fidelity_curve",
        ens.key,
        st.button("Compare with LightGBM's own early stopping (D from 0.05 % to 2 %)", key="run_fidelity_curve"),
        lambda progress: compared(ens, fidelity_calibration(ens), progress),
        progress="Fitting one promise per D",
    )
    if curve is not None:
        st.plotly_chart(fidelity_figure(curve), key="fidelity_chart")
        show_table(
            curve,
            kinds={"interval low": "share", "interval high": "share"},
            labels={
                "interval low": "Disagreement, 95 % interval low",
                "interval high": "Disagreement, 95 % interval high",
            },
        )
        st.download_button(
            "Download the comparison (CSV)",
            csv_bytes(curve),
            file_name="qwyc_vs_lightgbm.csv",
            mime="text/csv",
            key="fidelity_csv",
        )


def load_plotly_meanwhile():
    """On the session's first run of this page, an invisible chart first: the browser fetches and starts its Plotly
    library (1-2 s) while the server reads the model and fits, instead of after; removed with :func:`st.empty`'s
    slot once the policy is drawn. Returns the slot, or None on later runs."""
    if st.session_state.get("_qwyc_plotly_loaded"):
        return None
    st.session_state["_qwyc_plotly_loaded"] = True
    slot = st.empty()
    slot.plotly_chart(blank_figure(), key="qwyc_plotly_loading", config={"staticPlot": True, "displayModeBar": False})
    return slot


ENSEMBLES = {ADULT: adult_ensemble, MATRIX: matrix_ensemble, MODEL: model_ensemble}

routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Early exit for ensembles (QWYC)")
st.caption(
    "Quit When You Can (Wang, Gupta et al.): choose the order of the base models and, after each one, "
    "thresholds on the running score so that most examples stop early while at most a share α of "
    "decisions differ from the full ensemble. No labels are needed to fit."
)
source = st.radio(
    "Ensemble", list(ENSEMBLES), horizontal=True, key="qwyc_source", bind="query-params", persist_state="session"
)
loading = load_plotly_meanwhile()
ensemble = ENSEMBLES[source]()
if ensemble is None:
    st.stop()
policy_view(ensemble)
if loading is not None:
    loading.empty()
promise_view(ensemble)
