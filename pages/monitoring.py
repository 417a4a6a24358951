"""Monitoring: the deployed threshold period by period, its alerts, its money and the reviewers' backlog."""

import math
from dataclasses import dataclass
from typing import Any

import streamlit as st

from engine.errors import InputError
from engine.monitor import (
    PERIODS,
    DatedRated,
    Monitoring,
    backlog_figure,
    baseline_threshold,
    capacity_segments,
    flagged_per_day,
    flagged_per_day_figure,
    marginal_precision_over_time_figure,
    money_over_time_figure,
    monitor,
    monitoring_headline,
    monitoring_sentence,
    reviewer_plan,
    threshold_over_time_figure,
)
from engine.record import new_item
from engine.reporting import csv_bytes
from views.controls import Money, link_number, money_controls, money_settings
from views.deployed import follow_decision, store_alerts
from views.inputs import input_picker
from views.navigation import current_link, routed
from views.record_button import add_to_record
from views.session_input import SessionInput
from views.state import md, memo
from views.tables import show_table

LEVELS = [0.9, 0.95, 0.99]


@dataclass(frozen=True)
class Settings:
    """What the user chose: period, target (or the money behind it), deployed threshold, level."""

    period: str
    target: float
    money: Money
    threshold: float
    level: float
    decision: Any = None  # the deployed decision followed (engine.workspace.Decision), or None


#: the periods table's columns shown on screen (about 800 px wide at 1,280 px a window)
SCREEN_COLUMNS = (
    "period start",
    "rated",
    "true positives",
    "false positives",
    "marginal precision at T",
    "re-solved threshold",
    "alert",
    "net value per day",
)


def deployed_default(dataset: SessionInput, baseline: float) -> None:
    """Another input starts at its own first quarter's threshold (a threshold typed for one file is not another's)."""
    previous = st.session_state.get("_mon_threshold_for")
    if previous is not None and previous != dataset.key:
        st.session_state["mon_threshold"] = round(baseline, 6)
    st.session_state["_mon_threshold_for"] = dataset.key


def settings(dataset: SessionInput) -> Settings:
    c = st.columns([1, 3])
    period = c[0].selectbox(
        "Period", PERIODS, index=PERIODS.index("week"), key="mon_period", bind="query-params", persist_state="session"
    )
    dated: DatedRated = dataset.value
    with c[1]:
        followed = follow_decision(dated.classifier, key="mon_decision")
        money = money_controls("mon") if followed is None else Money(None, "")
    if followed is not None:
        target = followed.target
        st.caption(f"Decision {followed.id} sets the threshold and the target (m = {target:.4g}).")
    elif money.economics is None:
        target = st.slider(
            "Target marginal precision",
            0.005,
            0.995,
            0.3,
            0.005,
            key="mon_target",
            bind="query-params",
            persist_state="session",
            format="percent",
            help="The marginal precision the deployed threshold was chosen for.",
        )
    else:
        target = money.economics.target
    baseline = memo(("mon_baseline", *dataset.key, target), lambda: baseline_threshold(dated, target))
    if not math.isfinite(baseline):  # the first quarter flags nothing at this target: start at the highest score
        baseline = float(dated.scores.max())
    deployed_default(dataset, baseline)
    if followed is not None:
        st.session_state["mon_threshold"] = float(followed.threshold)
    else:
        link_number("mon_threshold", "deployed threshold")
    c = st.columns([1, 1, 2])
    threshold = c[0].number_input(
        "Deployed threshold T",
        value=round(baseline, 6),
        step=0.001,
        format="%.4f",
        key="mon_threshold",
        bind="query-params",
        persist_state="session",
        help="Documents with score >= T are flagged for review.",
        disabled=followed is not None,
    )
    level = c[1].select_slider(
        "Level",
        LEVELS,
        0.95,
        key="mon_level",
        bind="query-params",
        persist_state="session",
        help="Level of every interval; false alarms stay below 1 - level however many periods are checked.",
    )
    c[2].caption(
        f"The threshold chosen once: the operating point for the target on the first quarter of the data is "
        f"{baseline:.4g} (the default of T)."
    )
    c[2].button(
        "Use the first quarter's threshold",
        key="mon_use_baseline",
        on_click=st.session_state.__setitem__,
        args=("mon_threshold", round(baseline, 6)),
        disabled=followed is not None,
    )
    return Settings(period, float(target), money, float(threshold), float(level), followed)


def monitoring_of(dataset: SessionInput, s: Settings) -> Monitoring:
    dated: DatedRated = dataset.value
    counts = memo(("mon_counts", *dataset.key, s.period), lambda: dated.counts(s.period))
    return memo(
        ("monitor", *dataset.key, s.period, s.target, s.money.economics, s.threshold, s.level),
        lambda: monitor(
            counts, s.threshold, None if s.money.economics else s.target, economics=s.money.economics, level=s.level
        ),
    )


def alerts_section(result: Monitoring) -> None:
    alerts = result.alerts
    c = st.columns(4)
    c[0].metric("Periods", f"{len(result.periods)}")
    c[1].metric("Alerts", f"{len(alerts)}")
    c[2].metric("First alert", alerts[0]["period"] if alerts else "none")
    flagged = sum(p.tp + p.fp for p in result.periods) / sum(p.days for p in result.periods)
    c[3].metric("Flagged per day", f"{flagged:,.1f}")
    if alerts:
        st.error(md(f"Alert from the {result.period} of {alerts[0]['period']}: {alerts[0]['reason']}"))
        with st.expander(f"All {len(alerts)} alerts"):
            show_table([{"period start": a["period"], "reason": a["reason"]} for a in alerts])
    else:
        st.success(
            f"No alert: the evidence never said that T stopped meeting the target (false alarms at most "
            f"{1 - result.level:.0%} however many periods are checked)."
        )


def reviewers_section(dated: DatedRated, threshold: float) -> tuple[str, list] | None:
    """Reviewers per day against the flagged documents per day: the backlog T builds, the threshold that fits."""
    if not st.toggle(
        "Reviewers: the backlog this threshold builds",
        key="mon_reviewers_on",
        bind="query-params",
        persist_state="session",
    ):
        return None
    link_number("mon_reviewers", "number of reviewers", 0.5)
    link_number("mon_reviews_per_day", "reviews per reviewer per day", 1.0)
    c = st.columns(2)
    reviewers = c[0].number_input(
        "Reviewers", 0.5, None, 2.0, 0.5, key="mon_reviewers", bind="query-params", persist_state="session"
    )
    per_day = c[1].number_input(
        "Reviews per reviewer per day",
        1.0,
        None,
        40.0,
        5.0,
        key="mon_reviews_per_day",
        bind="query-params",
        persist_state="session",
    )
    try:
        team = reviewer_plan(
            dated.scores, dated.data.labels, dated.dates, threshold, reviewers=reviewers, reviews_per_day=per_day
        )
    except InputError as exc:
        st.error(f"**No capacity from these reviewers.** {md(exc)}")
        return None
    capacity, queue, sentence = team.capacity, team.queue, team.sentence()
    st.markdown(md(sentence))
    load = memo(
        ("mon_flagged_per_day", dated.data.fingerprint, dated.mapping),
        lambda: flagged_per_day(dated.scores, dated.dates),
    )
    figures = [
        ("Review backlog", backlog_figure(queue)),
        ("Flagged per day at every threshold", flagged_per_day_figure(load, capacity=capacity, threshold=threshold)),
    ]
    charts = st.columns(2)
    charts[0].plotly_chart(figures[0][1], key="mon_backlog_chart")
    charts[1].plotly_chart(figures[1][1], key="mon_flagged_chart")
    if dated.data.groups is not None:
        allocation = memo(
            ("mon_segments", dated.data.fingerprint, dated.mapping, capacity),
            lambda: capacity_segments(
                dated.scores,
                dated.data.labels,
                dated.dates,
                dated.data.groups,
                reviewers=reviewers,
                reviews_per_day=per_day,
                unrated_groups=dated.data.unrated_groups,
            ),
        )
        st.caption(
            f"The same capacity spent with one threshold per {dated.mapping.group_col} (all the days of the data):"
        )
        show_table(allocation.table())
        st.markdown(md(allocation.sentence()))
        if allocation.note:
            st.caption(md(allocation.note))
        sentence += " " + allocation.sentence()
    return sentence, figures


def results(dataset: SessionInput, s: Settings) -> None:
    dated: DatedRated = dataset.value
    result = monitoring_of(dataset, s)
    alerts_section(result)
    if s.decision is not None:
        store_alerts(s.decision, dataset, result)
    sentence = monitoring_sentence(result, dated.classifier, s.money.currency)
    st.markdown(f"**{md(monitoring_headline(result, dated.classifier, s.money.currency))}**")
    st.text(sentence)
    figs = st.columns(2)
    mp_fig, th_fig = marginal_precision_over_time_figure(result), threshold_over_time_figure(result)
    figs[0].plotly_chart(th_fig, key="mon_threshold_chart")
    figs[1].plotly_chart(mp_fig, key="mon_mp_chart")
    figures = [("Re-solved threshold", th_fig), ("Marginal precision at T", mp_fig)]
    if s.money.economics is not None:
        figures.append(("Net value per day", money_over_time_figure(result, s.money.currency)))
        st.plotly_chart(figures[-1][1], key="mon_money_chart")
    st.subheader("Periods")
    table = result.table()
    # on screen the columns a meeting reads (intervals are in the charts); the CSV keeps every column
    show_table(table[[c for c in SCREEN_COLUMNS if c in table.columns]])
    st.caption(
        "The CSV adds the intervals, precision, flagged documents per day, the evidence (e-value), the "
        "per-period test alone and, with money, the value per period."
    )
    st.download_button(
        "Download the periods (CSV)",
        csv_bytes(table),
        file_name=f"monitoring_{dated.classifier}.csv",
        mime="text/csv",
        key="mon_csv",
    )
    st.subheader("Reviewers")
    reviewers = reviewers_section(dated, s.threshold)
    if reviewers is not None:
        sentence, figures = f"{sentence} {reviewers[0]}", figures + reviewers[1]
    add_to_record(
        lambda: new_item(
            "monitoring",
            f"Monitoring of {dated.classifier} ≥ {s.threshold:.4g} by {s.period}",
            monitoring_headline(result, dated.classifier, s.money.currency),
            details=sentence,
            tables=[("Periods", table)],
            figures=figures,
            data_fingerprint=dated.data.fingerprint,
            settings={
                "classifier": dated.classifier,
                "period": s.period,
                "threshold": s.threshold,
                "target": s.target,
                "level": s.level,
                **money_settings(s.money),
            },
            link=current_link({"mon_threshold": s.threshold}),
        ),
        key="record_monitoring",
    )


routed()  # a page Streamlit ran without app.py runs again through it (views.navigation.routed)
st.title("Monitoring")
st.caption(
    "The threshold chosen once, followed as rated documents keep arriving: its marginal precision each period "
    "with intervals, the threshold the target would choose now, and alerts that stay trustworthy however "
    "often you look."
)
dataset = input_picker("dated", key="mon_dated", label="Dated ratings")
if dataset is not None:
    try:
        results(dataset, settings(dataset))
    except InputError as exc:
        st.error(f"**The deployed threshold cannot be followed on this input.** {md(exc)}")
