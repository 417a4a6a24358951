"""Below the line: plan a random audit of the unflagged documents, then estimate how many positives the line misses."""

import math
from dataclasses import astuple, dataclass

import streamlit as st

from engine.audit import (
    ALLOCATIONS,
    MAX_STRATA,
    AuditEstimate,
    AuditPlan,
    audit_headlines,
    audit_pn_figure,
    audit_pr_figure,
    audit_sentence,
    audit_settings,
    design_json,
    design_record,
    extended_curve,
    half_width_after,
    plan,
    plan_table,
    strata_figure,
    strata_table,
    thresholds_table,
)
from engine.errors import InputError
from engine.plotting import SCREEN_POINTS
from engine.record import new_item
from views.audit_link import audit_estimate, companion_sample, offer_companion, remember_audit, remember_design
from views.audit_population import choose_population
from views.inputs import chosen_input, input_picker
from views.navigation import current_link, routed
from views.published import published
from views.record_button import add_to_record
from views.session_input import SessionInput
from views.state import md, memo
from views.tables import show_table

AUTOMATIC = "automatic"


@dataclass(frozen=True)
class PlanSettings:
    """What the plan step asks for (the plan is memoised under its fields)."""

    below: float
    budget: int | None
    half_width: float | None
    strata: int
    allocation: str | None
    seed: int
    pilot: bool


def plan_settings(audit: SessionInput | None, has_prior: bool) -> PlanSettings:
    line = audit.value.review_threshold if audit is not None else 0.5
    c = st.columns(4)
    below = c[0].number_input(
        "Review line (documents scoring below it are audited)",
        value=float(line),
        format="%.6g",
        key="audit_below",
        bind="query-params",
        persist_state="session",
    )
    by_budget = (
        c[1].radio(
            "Size the audit by",
            ["Budget", "Half-width"],
            key="audit_size_by",
            horizontal=True,
            bind="query-params",
            persist_state="session",
        )
        == "Budget"
    )
    budget = c[2].number_input(
        "Documents to review",
        2,
        1_000_000,
        300,
        10,
        key="audit_budget",
        disabled=not by_budget,
        bind="query-params",
        persist_state="session",
    )
    width = c[3].number_input(
        "Wanted half-width (missed positives)",
        0.1,
        1e9,
        25.0,
        1.0,
        key="audit_half_width",
        disabled=by_budget,
        bind="query-params",
        persist_state="session",
        help="The smallest budget expected to give an interval of ±this many positives "
        "(needs a prior column or a pilot audit).",
    )
    d = st.columns(3)
    strata = d[0].number_input(
        "Score strata", 1, MAX_STRATA, 6, 1, key="audit_strata", bind="query-params", persist_state="session"
    )
    allocation = d[1].selectbox(
        "Allocation",
        [AUTOMATIC, *ALLOCATIONS],
        key="audit_allocation",
        bind="query-params",
        persist_state="session",
        help="Automatic: Neyman with a prior column or a pilot audit, else proportional.",
    )
    seed = d[2].number_input(
        "Seed",
        0,
        2**32 - 1,
        0,
        1,
        key="audit_seed",
        bind="query-params",
        persist_state="session",
        help="The same seed selects the same documents on every backend.",
    )
    # on its own line: a quarter of the row cut its label at 1,280 px
    pilot = st.toggle(
        "Use the reviewed audit below as a pilot",
        key="audit_pilot",
        disabled=audit is None or has_prior,
        help="Its prevalence in each stratum anticipates the new audit's (Neyman allocation). Not "
        "with a prior probability column, which anticipates them already.",
    )
    return PlanSettings(
        float(below),
        int(budget) if by_budget else None,
        None if by_budget else float(width),
        int(strata),
        None if allocation == AUTOMATIC else allocation,
        int(seed),
        bool(pilot and audit is not None and not has_prior),
    )


def show_plan(planned: AuditPlan, design: dict, design_file: bytes, population: SessionInput) -> None:
    st.markdown(md(planned.sentence()))
    m = st.columns(4)
    m[0].metric("Documents below the line", f"{planned.below:,}")
    m[1].metric("To review", f"{planned.budget:,}")
    m[2].metric(
        "Expected half-width",
        "–" if planned.expected_half_width is None else f"±{planned.expected_half_width:,.1f}",
        help="Of the interval of the missed positives, at this budget (needs a prior or a pilot).",
    )
    m[3].metric("Population", f"{planned.population:,}", help=f"{planned.above:,} documents at or above the line.")
    for warning in planned.warnings:
        st.warning(md(warning))
    show_table(plan_table(planned))
    remember_design(design)  # a reviewed copy of this plan is estimated with it in this session
    c = st.columns(2)
    c[0].download_button(
        "Download the plan (plan.csv)",
        planned.csv(),
        file_name="plan.csv",
        mime="text/csv",
        key="plan_csv",
        help="One row per document to review; the reviewers fill in 'label' (1/0, yes/no ...).",
    )
    c[1].download_button(
        "Download its design (plan.json)",
        design_file,
        file_name="plan.json",
        mime="application/json",
        key="plan_json",
        help="What the plan was made for (the population's fingerprint, the review line, the seed, the strata): "
        "upload it with the reviewed plan on the Data page; the estimate refuses a plan or rated data it does "
        "not describe.",
    )
    with st.expander(f"The {planned.budget:,} documents to review"):
        show_table(planned.table().head(1000), height=300)
    add_to_record(
        lambda: new_item(
            "audit plan",
            f"Audit plan below the line {planned.review_threshold:.6g}",
            planned.sentence(),
            tables=[("Strata", plan_table(planned))],
            data_fingerprint=population.fingerprint,
            settings={
                **planned.as_dict(),
                "population": population.name,
                "population_sha256": design["population"]["fingerprint"]["sha256"],
                "plan_rows_sha256": design["rows_sha256"],
            },
            link=current_link({"audit_below": planned.review_threshold}),
        ),
        key="record_plan",
    )


def plan_step(population: SessionInput | None, audit: SessionInput | None) -> AuditPlan | None:
    """Settings, the design and the download of the documents to review; None until a plan is valid."""
    if population is None:
        return None
    s = plan_settings(audit, population.mapping.prior is not None)
    pilot = audit.value if s.pilot else None
    key = (*population.key, *astuple(s), audit.fingerprint if s.pilot else None)
    try:
        with st.spinner("Planning the audit" + (" with DuckDB" if population.source == "server" else "")):
            planned = memo(
                ("audit_plan", *key),
                lambda: plan(
                    population.value,
                    below=s.below,
                    budget=s.budget,
                    half_width=s.half_width,
                    strata=s.strata,
                    allocation=s.allocation,
                    pilot=pilot,
                    prior_column=population.mapping.prior,
                    seed=s.seed,
                ),
            )
            design = memo(("audit_design", *key), lambda: design_record(planned))
            design_file = memo(("audit_design_json", *key), lambda: design_json(design))
    except InputError as exc:
        st.error(f"**No plan.** {md(exc)}")
        return None
    show_plan(planned, design, design_file, population)
    return planned


def estimate_settings(rated: SessionInput) -> tuple[str, float, float]:
    c = st.columns(3)
    classifier = c[0].selectbox(
        "Classifier (the score the audit was planned on)",
        rated.rated.score_names,
        key="audit_classifier",
        bind="query-params",
        persist_state="session",
    )
    level = c[1].select_slider(
        "Interval level", [0.8, 0.9, 0.95, 0.99], 0.95, key="audit_level", bind="query-params", persist_state="session"
    )
    threshold = c[2].number_input(
        "Also at threshold",
        value=0.5,
        format="%.6g",
        key="audit_threshold",
        bind="query-params",
        persist_state="session",
        help="Any threshold, above or below the review line.",
    )
    return classifier, float(level), float(threshold)


def operating_threshold(rated: SessionInput, classifier: str) -> dict | None:
    """The Operating point page's current target and threshold when it shows this rated data and classifier."""
    return published("operating-point", rated.fingerprint, classifier)


def thresholds_caption(quoted: dict | None, threshold: float) -> str:
    """Which thresholds the table shows: the Operating point page's own (quoted as it shows it) and the one asked."""
    if quoted is None:
        return (
            f"At {threshold:.6g} (the Operating point page's threshold shows here too while that page shows this "
            "rated data and classifier):"
        )
    op = quoted["threshold"]
    shown = f"{op:.6g}" if math.isfinite(op) else "flag nothing"
    target = quoted["target"]
    return (
        f"At the Operating point page's threshold ({shown}, target marginal precision {target:.3g}) and at "
        f"{threshold:.6g}:"
    )


def show_estimate(result: AuditEstimate) -> None:
    st.markdown(md(audit_sentence(result)))
    m = st.columns(4)
    for column, headline in zip(m, audit_headlines(result)):  # intervals where the data cannot pin a point down
        column.metric(headline.label, headline.value, help=headline.help)
        column.caption(md(headline.caption))
    for warning in result.warnings:
        st.warning(md(warning))


def follow_up(result: AuditEstimate) -> None:
    left = result.documents_below - result.audited
    extra = st.number_input("More audited documents", 0, max(left, 0), min(result.audited, left), 10, key="audit_more")
    try:
        st.markdown(md(half_width_after(result, int(extra)).sentence()))
    except InputError as exc:
        st.error(md(exc))


def estimate_step(audit: SessionInput | None, rated: SessionInput | None) -> None:
    """Missed positives and recall with intervals, at the line, the operating point and any threshold."""
    if audit is None or rated is None:
        return
    if rated.source == "server":
        st.info("The audit's estimate needs the rated rows in memory: upload them (or pick a sample).")
        return
    classifier, level, threshold = estimate_settings(rated)
    quoted = operating_threshold(rated, classifier)
    asked = tuple(t for t in ((quoted["threshold"],) if quoted else ()) + (threshold,) if math.isfinite(t))
    try:
        result = audit_estimate(rated, audit, classifier, level, asked)
    except InputError as exc:
        st.error(f"**No estimate.** {md(exc)}")
        return
    remember_audit(rated, classifier, audit)
    show_estimate(result)
    st.caption(thresholds_caption(quoted, threshold))
    table = thresholds_table(result)
    show_table(table, transpose_on="threshold")  # one quantity per row: 14 columns do not fit 1,280 px
    curve = memo(
        ("audit_curve", audit.fingerprint, *rated.key, classifier, level),
        lambda: extended_curve(result, points=SCREEN_POINTS // 8),
    )
    figures = [
        ("PN curve below the line", audit_pn_figure(result, curve)),
        ("Precision and recall", audit_pr_figure(result, curve)),
        ("Strata", strata_figure(result)),
    ]
    c = st.columns(2)
    c[0].plotly_chart(figures[0][1], key="audit_pn_chart")
    c[1].plotly_chart(figures[1][1], key="audit_pr_chart")
    st.plotly_chart(figures[2][1], key="audit_strata_chart")
    strata = strata_table(result)
    show_table(strata)
    follow_up(result)
    add_to_record(
        lambda: new_item(
            "audit",
            f"Below-the-line audit of {classifier} (review line {result.review_threshold:.6g})",
            audit_sentence(result),
            tables=[("Strata", strata), ("Thresholds", table)],
            figures=figures,
            data_fingerprint=audit.fingerprint,
            settings=audit_settings(result, rated_sha256=rated.fingerprint),
            link=current_link({"audit_classifier": classifier}),
        ),
        key="record_audit",
    )


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Below the line")
st.caption(
    "How many positives does the review line miss? Plan a random sample of the unflagged documents, "
    "stratified by score; the reviewers label it; the audit then estimates the missed positives and recall "
    "with intervals (design-based, honest when an audit finds few or no positives)."
)
st.header("1. Plan the audit")
population = choose_population()
plan_step(population, chosen_input("audit", key="audit_reviewed"))  # the pilot and the line: this page's audit
st.header("2. Estimate from the reviewed audit")
audit = input_picker("audit", key="audit_reviewed", label="Reviewed audit (the plan with 'label' filled in)")
# a shipped audit opens with its shipped rated data on this page (no other page's rated data changes)
rated = input_picker("rated", key="audit_rated", label="Rated data above the line", prefer=companion_sample(audit))
offer_companion(audit, rated)
estimate_step(audit, rated)
