"""Operating point: one classifier, a target marginal precision, the threshold that meets it."""

from dataclasses import dataclass
from typing import Any

import streamlit as st

from engine.audit import AuditEstimate, audit_settings, recall_card, recall_sentence
from engine.backends import rated_row_ids, resampling_note
from engine.errors import InputError
from engine.monitor import capacity_per_day
from engine.plotting import SCREEN_POINTS
from engine.pn import (
    Bootstrap,
    Hull,
    allocate_capacity,
    allocate_target,
    bootstrap,
    cost_per_true_positive,
    marginal_precision_parts,
    operating_point,
    operating_point_cards,
    operating_point_report,
    operating_point_sentence,
    pn_figure_parts,
    point_marks,
    segment_curves,
    segment_intervals,
    segments_figure,
    sweep_table,
    target_marks,
    what_if_table,
)
from engine.presentation import format_value
from engine.record import new_item
from engine.reporting import csv_bytes
from views.audit_link import audit_at
from views.controls import TARGET_DEFAULT, Money, chosen_target, link_number, money_sentence, money_settings
from views.counted import count_caption, counted_hull
from views.inputs import input_picker
from views.navigation import current_link, routed
from views.propose import Proposal, propose_decision
from views.published import publish, withdraw
from views.record_button import add_to_record
from views.session_input import SessionInput
from views.state import background, background_result, hold_background, md, memo, on_click
from views.tables import show_table


@dataclass(frozen=True)
class Uncertainty:
    """Bootstrap settings: replicates, interval level, seed."""

    n_boot: int
    level: float
    seed: int


@dataclass(frozen=True)
class Curve:
    """One classifier's hull on the chosen data, and its bootstrap when the rows are in memory."""

    dataset: SessionInput
    classifier: str
    hull: Hull
    boot: Bootstrap | None  # None while it runs in the background (under ``boot_key``) or without rows in memory
    boot_key: tuple | None
    scores: Any  # the classifier's scores of the rated rows; None when they are not in memory
    uncertainty: Uncertainty
    rows_needed: str | None  # why bootstraps and segments are not offered (rows not in memory), else None


BOOTSTRAP_SCHEME = (
    "Poisson bootstrap: in each replicate every rated row counts a Poisson(1) number of times, "
    "drawn from a hash of its position in the file, the replicate and the seed. These are the "
    "replicates of opstudio sweep --bootstrap on every backend (memory, DuckDB, Spark), so the "
    "intervals here equal the command line's."
)


def uncertainty_settings(rows_needed: str | None) -> Uncertainty:
    with st.expander("Uncertainty settings"):
        u = st.columns(3)
        n_boot = u[0].number_input(
            "Bootstrap replicates", 20, 2000, 200, 20, key="n_boot", bind="query-params", persist_state="session"
        )
        level = u[1].select_slider(
            "Interval level", [0.8, 0.9, 0.95, 0.99], 0.95, key="level", bind="query-params", persist_state="session"
        )
        seed = u[2].number_input("Seed", 0, 2**31 - 1, 0, 1, key="seed", bind="query-params", persist_state="session")
        if rows_needed:
            st.caption(f"No bootstrap intervals on data counted on the server: {rows_needed}")
        else:
            st.caption(BOOTSTRAP_SCHEME)
    return Uncertainty(int(n_boot), float(level), int(seed))


def counted_curve(dataset: SessionInput, classifier: str, u: Uncertainty) -> Curve:
    """The hull counted where the rows are, and the bootstrap when they are in memory."""
    d = dataset.rated
    hull, stats = counted_hull(dataset, classifier)
    count_caption(stats, "distinct scores")
    rows_needed = resampling_note(d)
    if rows_needed:
        return Curve(dataset, classifier, hull, None, None, None, u, rows_needed)
    scores = d.column(classifier)
    key = ("bootstrap", "poisson", *dataset.key, classifier, u.n_boot, u.level, u.seed)
    boot = background(
        key,
        # hashed Poisson replicates of the rows' positions in the file: the CLI's (every backend's) intervals
        lambda progress: bootstrap(
            scores,
            d.labels,
            d.weights,
            n_boot=u.n_boot,
            level=u.level,
            seed=u.seed,
            resample="poisson",
            ids=rated_row_ids(d),
            progress=progress,
            curve=hull.curve,  # the page's, held once when the same (issue 34)
        ),
        label=f"Bootstrapping {classifier}: {u.n_boot} replicates of {d.n_rated:,} documents",
        work=d.n_rated * u.n_boot,
    )
    return Curve(dataset, classifier, hull, boot, key, scores, u, None)


def show_cards(curve: Curve, op, ci) -> None:
    level = None if curve.rows_needed else curve.uncertainty.level
    cards = operating_point_cards(op, ci, level=level)
    # two rows of three: six cards side by side cut "Marginal precision" at 1,280 px
    for column, card in zip([*st.columns(3), *st.columns(3)], cards):
        column.metric(card.label, card.value, help=card.help or None)
        if card.caption:
            column.caption(card.caption)


def audit_recall(curve: Curve, op) -> AuditEstimate | None:
    """Recall with its interval at the chosen threshold when an audit is paired with this data (Below the line)."""
    result = audit_at(curve.dataset, curve.classifier, curve.uncertainty.level)
    if result is not None:
        card = recall_card(result, float(op.threshold))
        column = st.columns(6)[0]
        column.metric(card.label, card.value, help=card.help)
        column.caption(card.caption)
    return result


def record_sentence(classifier: str, op, ci, audit: AuditEstimate | None) -> str:
    """The operating point's sentence, and recall at its threshold when an audit is paired."""
    sentence = operating_point_sentence(classifier, op, ci)
    return sentence if audit is None else f"{sentence} {recall_sentence(audit, float(op.threshold))}"


def show_report(curve: Curve, op, ci, second, table, figures, target: float, money: Money) -> None:
    st.subheader("Report")
    u, classifier = curve.uncertainty, curve.classifier
    settings = {
        "target": target,
        "bootstrap_replicates": u.n_boot,
        "interval_level": u.level,
        "seed": u.seed,
        "what_if_target": second.target if second else None,
        **money_settings(money),
    }
    report_key = (curve.dataset.key, classifier, tuple(sorted(settings.items())), ci is not None)
    built = on_click(
        "op_report",
        report_key,
        st.button("Build report", key="build_op_report", help="One HTML file (opens offline) and a JSON record."),
        lambda: operating_point_report(
            curve.dataset.rated,
            classifier,
            op,
            settings,
            ci=ci,
            what_if=second,
            sweep=table,
            figures=figures,
            economics=money.economics,
            currency=money.currency,
        ),
        spinner="Building the report",
    )
    if built is None:
        st.caption("Build the report to download it; it records the data set fingerprint and every setting above.")
        return
    r = st.columns(2)
    r[0].download_button(
        "Download report (HTML)",
        built[0].encode(),
        file_name=f"operating_point_{classifier}.html",
        mime="text/html",
        key="op_report_html",
    )
    r[1].download_button(
        "Download operating point (JSON)",
        built[1].encode(),
        file_name=f"operating_point_{classifier}.json",
        mime="application/json",
        key="op_report_json",
    )


_CHOSEN = "_op_chosen_target"  # the target of the operating point view, read by the segments view


@st.fragment
def operating_point_view(curve: Curve, table) -> None:
    """Everything that depends on the target: a slider move reruns only this part of the page."""
    hold_background()  # the bootstrap pauses while this part is redrawn, in the server and in the browser (issue 25)
    hull, classifier, d = curve.hull, curve.classifier, curve.dataset.rated
    # finished since the last full run: shown by this fragment's own rerun, the whole page is redrawn once it rests
    boot = curve.boot if curve.boot is not None or curve.boot_key is None else background_result(curve.boot_key)
    c = st.columns([3, 2])
    with c[0]:
        target, money = chosen_target("op")
        st.session_state[_CHOSEN] = (target, money)
    try:
        op, cost = operating_point(target=target, hull=hull), cost_per_true_positive(target)
    except InputError as exc:  # a target the URL or the money gave that no operating point has
        withdraw("operating-point")
        st.error(f"**No operating point for this target.** {md(exc)}")
        return
    # the page's current result, for the pages that quote it (Below the line), bound to its data and classifier
    publish("operating-point", curve.dataset.fingerprint, classifier, target=target, threshold=float(op.threshold))
    c[1].metric(
        "False positives paid per extra true positive",
        f"{cost:.3g}",
        help="c = (1 − m) / m: lowering the threshold is worth it while one more true positive costs "
        "fewer false positives than this.",
    )
    ci = boot.at(target) if boot is not None else None
    show_cards(curve, op, ci)
    in_money = money_sentence(op.tp, op.fp, op.mp_above, money)
    if in_money:
        st.markdown(md(in_money))
    audit = audit_recall(curve, op)

    second = None
    if st.toggle(
        "What-if: compare with a second target", key="what_if_on", bind="query-params", persist_state="session"
    ):
        target2 = st.slider(
            "Second target marginal precision",
            0.005,
            0.995,
            0.5,
            0.005,
            key="target2",
            bind="query-params",
            persist_state="session",
            format="percent",
        )
        second = operating_point(target=target2, hull=hull)
        show_table(what_if_table(op, second), row_kinds="quantity")

    figs = st.columns(2)
    # curves and band are built once per data, classifier and bootstrap; a step adds only its marks (issue 25)
    # half a screen wide: SCREEN_POINTS points per curve show every pixel column (reports draw more)
    pn_parts = memo(
        ("pn_parts", *curve.dataset.key, classifier),
        lambda: pn_figure_parts(hull.curve, hull, SCREEN_POINTS, f"PN curve of {classifier}"),
    )
    u = curve.uncertainty  # its fields, not the object: this script's classes are new on every full run
    mp_parts = memo(
        ("mp_parts", *curve.dataset.key, classifier, u.n_boot, u.level, u.seed, boot is not None),
        lambda: marginal_precision_parts(hull, boot, SCREEN_POINTS),
    )
    pn_fig = pn_parts.draw(**point_marks([("chosen", op)] + ([("what-if", second)] if second else [])))
    mp_fig = mp_parts.draw(**target_marks(target, op))
    figs[0].plotly_chart(pn_fig, key="pn_chart")
    figs[1].plotly_chart(mp_fig, key="mp_chart")
    show_report(curve, op, ci, second, table, [("PN curve", pn_fig), ("Marginal precision", mp_fig)], target, money)

    def record_item():
        return new_item(
            "operating point",
            f"Operating point of {classifier} at marginal precision {format_value(target, 'share')}",
            " ".join(filter(None, [record_sentence(classifier, op, ci, audit), in_money])),
            tables=[("Sweep of target marginal precisions", table)],
            figures=[("PN curve", pn_fig), ("Marginal precision", mp_fig)],
            data_fingerprint=d.fingerprint,
            settings={
                "classifier": classifier,
                "target": target,
                "bootstrap_replicates": curve.uncertainty.n_boot,
                **money_settings(money),
                **({"audit": audit_settings(audit, rated_sha256=d.fingerprint)} if audit else {}),
            },
            link=current_link({"classifier": classifier, "target": target}),
        )

    add_to_record(record_item, key="record_op")
    propose_decision(
        lambda: Proposal(
            "operating_point",
            classifier,
            float(op.threshold),
            target,
            op.tp,
            op.fp,
            {"bootstrap_replicates": curve.uncertainty.n_boot, **money_settings(money)},
        ),
        key="propose_op",
        record=record_item,
    )


def sweep_section(curve: Curve, table) -> None:
    """The sweep does not depend on the target: outside the fragment, it is not re-sent on every slider step."""
    st.subheader("Sweep of target marginal precisions")
    show_table(table)
    st.download_button(
        "Download the sweep (CSV)",
        memo(("sweep_csv", *curve.dataset.key, curve.classifier), lambda: csv_bytes(table)),
        file_name=f"sweep_{curve.classifier}.csv",
        mime="text/csv",
        key="sweep_csv",
    )


def allocation_of(curve: Curve, curves, by_capacity: bool, capacity: float, target: float):
    key = ("allocation", *curve.dataset.key, curve.classifier, by_capacity, capacity if by_capacity else target)
    return memo(key, lambda: allocate_capacity(curves, capacity) if by_capacity else allocate_target(curves, target))


def segment_table(allocation, classifier: str, by_capacity: bool):
    """The allocation's table, shown with its download."""
    table = allocation.table()
    show_table(table)
    st.download_button(
        "Download the segment table (CSV)",
        csv_bytes(table),
        file_name=f"segments_{classifier}_{'capacity' if by_capacity else 'target'}.csv",
        mime="text/csv",
        key="segments_csv",
    )
    return table


BUDGETS = ("Review capacity", "Reviewers", "Target marginal precision")


def budget_controls(c, total: float) -> tuple[bool, float, str] | None:
    """(by capacity, capacity in documents, the reviewers in words): a number of reviews, or R reviewers doing Q
    reviews a day over the D days the rated documents cover (capacity R·Q·D), or the target; None (said on the
    page) when the reviewers give no capacity."""
    budget = c[0].radio(
        "Budget", BUDGETS, key="segments_budget", horizontal=True, bind="query-params", persist_state="session"
    )
    if budget != "Reviewers":
        capacity = float(
            c[1].number_input(
                "Reviews available (documents flagged)",
                0.0,
                total,
                min(2000.0, total),
                step=100.0,
                format="%.0f",
                key="capacity",
                bind="query-params",
                persist_state="session",
                disabled=budget != "Review capacity",
            )
        )
        return budget == "Review capacity", capacity, ""
    with c[1]:
        link_number("op_reviewers", "number of reviewers", 0.5)
        link_number("op_reviews_per_day", "reviews per day", 1.0)
        link_number("op_rating_days", "days the ratings cover", 1, 100_000, whole=True)
        r = st.columns(3)
        reviewers = r[0].number_input(
            "Reviewers", 0.5, None, 2.0, 0.5, key="op_reviewers", bind="query-params", persist_state="session"
        )
        per_day = r[1].number_input(
            "Reviews per day each",
            1.0,
            None,
            40.0,
            5.0,
            key="op_reviews_per_day",
            bind="query-params",
            persist_state="session",
        )
        days = r[2].number_input(  # a float input: a link's 1e400 for an integer input fails inside Streamlit
            "Days the ratings cover",
            1.0,
            100_000.0,
            30.0,
            1.0,
            format="%.0f",
            key="op_rating_days",
            bind="query-params",
            persist_state="session",
            help="The rated documents were flagged over this many days.",
        )
    try:
        per = capacity_per_day(reviewers, per_day)
    except InputError as exc:
        c[1].error(f"**No capacity from these reviewers.** {md(exc)}")
        return None
    if not 1 <= days <= 100_000:  # NaN and infinity too
        c[1].error(f"**No capacity from these reviewers.** {days!r} is not a number of days from 1 to 100,000.")
        return None
    days = int(round(days))
    return (
        True,
        per * days,
        (
            f"Capacity: {reviewers:g} reviewers × {per_day:g} reviews a day × {days} days = "
            f"{per * days:,.0f} reviews ({per:,.0f} a day)."
        ),
    )


def budget_link_settings(capacity: float) -> dict:
    """The budget's widgets for the link that reopens the segments (the URL leaves out values at their default)."""
    budget = st.session_state.get("segments_budget")
    reviewers = ("op_reviewers", "op_reviews_per_day", "op_rating_days") if budget == "Reviewers" else ()
    return {
        "segments_budget": budget,
        **({"capacity": capacity} if budget == "Review capacity" else {}),
        **{k: st.session_state.get(k) for k in reviewers},
    }


@st.fragment
def segments_view(curve: Curve) -> None:
    """Per-segment thresholds for a review capacity or a target; reruns alone when the capacity moves."""
    st.subheader("Segments and capacity")
    d, classifier, key = curve.dataset.rated, curve.classifier, curve.dataset.key
    if curve.rows_needed:
        st.info(f"Per-segment thresholds are not computed on data counted on the server: {curve.rows_needed}")
        return
    if d.groups is None:
        st.info(
            "Map a group column (market, language, product surface …) on the Data page to give every "
            "segment its own threshold at one marginal precision."
        )
        return
    curves = memo(
        ("segments", *key, classifier),
        # the page's hull of the rows in memory is the pooled one, bit for bit: held once (issue 34)
        lambda: segment_curves(
            curve.scores, d.labels, d.groups, d.weights, unrated_groups=d.unrated_groups, pooled=curve.hull
        ),
    )
    c = st.columns([2, 2, 3])
    budget = budget_controls(c, curves.total_flagged)
    if budget is None:
        return
    by_capacity, capacity, reviewers = budget
    target, money = st.session_state.get(_CHOSEN, (TARGET_DEFAULT, Money(None, "")))
    try:
        allocation = allocation_of(curve, curves, by_capacity, capacity, target)
    except InputError as exc:  # reviewers x reviews x days beyond any number, a target no point has (a crafted link)
        c[2].error(f"**No allocation for these settings.** {md(exc)}")
        return
    c[2].markdown(allocation.sentence())
    mu = allocation.common_marginal_precision if by_capacity else target
    in_money = money_sentence(allocation.total["tp"], allocation.total["fp"], mu, money)
    if reviewers or in_money:
        c[2].markdown(md(" ".join(filter(None, [reviewers, in_money]))))
    if allocation.note:
        c[2].caption(allocation.note)
    table = segment_table(allocation, classifier, by_capacity)
    figure = segments_figure(curves, allocation)
    st.plotly_chart(figure, key="segments_chart")

    def record_item():
        return new_item(
            "segments",
            f"Per-segment thresholds of {classifier} by {d.mapping.group_col}",
            " ".join(filter(None, [allocation.sentence(), reviewers, in_money])),
            tables=[("Segments", table)],
            figures=[("Segment hulls", figure)],
            data_fingerprint=d.fingerprint,
            settings={
                "classifier": classifier,
                "segment": d.mapping.group_col,
                **({"capacity": capacity} if by_capacity else {"target": target}),
                **money_settings(money),
            },
            link=current_link({"classifier": classifier, "target": target, **budget_link_settings(capacity)}),
        )

    add_to_record(record_item, key="record_segments")
    propose_decision(
        lambda: Proposal(
            "segment_thresholds",
            classifier,
            {p.segment: p.threshold for p in allocation.segments},
            None if by_capacity else target,
            allocation.total["tp"],
            allocation.total["fp"],
            {
                "segment": d.mapping.group_col,
                **({"capacity": capacity} if by_capacity else {}),
                **money_settings(money),
            },
        ),
        key="propose_segments",
        record=record_item,
    )
    st.caption(f"Segments by {d.mapping.group_col}; {allocation.method or 'each segment at the target'}.")
    intervals = on_click(
        "_segment_ci",
        (key, classifier),
        st.button("Bootstrap intervals per segment (100 replicates)", key="segment_boot"),
        lambda: (
            mu,
            segment_intervals(
                curve.scores, d.labels, d.groups, d.weights, target=min(max(mu, 0.005), 0.995), n_boot=100
            ),
        ),
    )
    if intervals is not None:
        st.caption(
            f"Each segment's operating point at marginal precision {format_value(intervals[0], 'share')}, 95 % intervals."
        )
        show_table(intervals[1])


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Operating point")
dataset = input_picker("rated", key="op_rated", label="Rated data")
classifier = st.selectbox(
    "Classifier", dataset.rated.score_names, key="classifier", bind="query-params", persist_state="session"
)
curve = counted_curve(dataset, classifier, uncertainty_settings(resampling_note(dataset.rated)))
table = memo(("sweep", *dataset.key, classifier), lambda: sweep_table(curve.hull))
operating_point_view(curve, table)
sweep_section(curve, table)
segments_view(curve)
