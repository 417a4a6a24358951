"""Widgets shared by several pages."""

import math
from dataclasses import dataclass

import streamlit as st

from engine.errors import InputError
from engine.pn import MAX_AMOUNT, Economics, money_statement, target_text
from views.state import md

TARGET_MIN, TARGET_MAX, TARGET_STEP, TARGET_DEFAULT = 0.005, 0.995, 0.005, 0.3


def _typed_target_to_slider() -> None:
    """A typed value moves the slider (snapped to its step); the box empties again and shows the value."""
    typed = st.session_state.get("target_input")
    if typed is not None:  # typed in percent, like the slider shows it
        steps = round((typed / 100 - TARGET_MIN) / TARGET_STEP)
        st.session_state["target"] = round(TARGET_MIN + steps * TARGET_STEP, 6)
    st.session_state["target_input"] = None


def target_controls() -> float:
    """Target marginal precision as a slider (bound to the URL) and a box to type an exact value.

    Only the slider holds the value. The box stays empty (its placeholder shows the
    value) and writes the slider's key only when the user types, so moving the slider
    with the arrow keys never receives a stale value back from the box.
    """
    c1, c2 = st.columns([3, 1])
    # the default only for a new session: once the key is in Session State (the box writes it) a default as well
    # makes Streamlit log a warning with a stack trace; the value is not part of the slider's identity
    default = None if "target" in st.session_state else TARGET_DEFAULT
    target = c1.slider(
        "Target marginal precision",
        TARGET_MIN,
        TARGET_MAX,
        default,
        TARGET_STEP,
        key="target",
        bind="query-params",
        persist_state="session",
        format="percent",
        help="Share of true positives among the documents added by lowering the threshold at the operating point.",
    )
    c2.number_input(
        "Exact value (%)",
        100 * TARGET_MIN,
        100 * TARGET_MAX,
        value=None,
        step=100 * TARGET_STEP,
        format="%.1f",
        placeholder=f"{100 * target:.1f}",
        key="target_input",
        on_change=_typed_target_to_slider,
        help="Type a target in percent and press Enter: the slider moves there.",
    )
    return float(target)


def link_number(key: str, label: str, low: float | None = None, high: float | None = None, whole: bool = False) -> None:
    """Check a link's value for the number input ``key`` before the input is drawn; drop it, with an error naming it,
    unless it is a finite number in [low, high] (whole when ``whole``).

    Streamlit would ignore such a value without a word (text, a negative amount, ``inf``) or fail inside the widget
    (``1e400`` for a whole number); a crafted link then shows the default and says so.
    """
    raw = st.query_params.get(key)
    if raw is None:
        return
    try:
        x = float(raw)
    except (TypeError, ValueError):
        x = math.nan
    ok = (
        math.isfinite(x) and (low is None or x >= low) and (high is None or x <= high) and (not whole or x.is_integer())
    )
    if not ok:
        del st.query_params[key]
        bounds = f" from {low:g}" if low is not None else ""
        bounds += f" to {high:g}" if high is not None else ""
        st.error(
            md(
                f"The link's {label} ({str(raw)[:40]!r}) is not a {'whole ' if whole else ''}number{bounds}: the "
                "default is used instead."
            )
        )


@dataclass(frozen=True)
class Money:
    """The stakeholders' units chosen on a page: costs and values (None: the target is chosen directly)."""

    economics: Economics | None
    currency: str


def money_controls(key: str) -> Money:
    """A toggle that derives the target from money: cost per review C, value per caught positive V, cost per false
    positive F; the target is their break-even marginal precision (C + F) / (V + F) (engine.pn.Economics)."""
    on = st.toggle(
        "Set the target from money",
        key=f"{key}_money",
        bind="query-params",
        persist_state="session",
        help="Flag a document while its expected value exceeds its cost: the target marginal precision is "
        "the break-even m = (C + F) / (V + F).",
    )
    if not on:
        return Money(None, "")
    for name, label in (("review_cost", "cost per review"), ("value_per_positive", "value per caught positive")):
        link_number(f"{key}_{name}", label, 0.0, MAX_AMOUNT)
    link_number(f"{key}_cost_per_fp", "cost per false positive", 0.0, MAX_AMOUNT)
    c = st.columns(4)
    cost = c[0].number_input(
        "Cost per review (C)",
        0.0,
        MAX_AMOUNT,
        3.0,
        0.5,
        key=f"{key}_review_cost",
        bind="query-params",
        persist_state="session",
        help="What reviewing one flagged document costs.",
    )
    value = c[1].number_input(
        "Value per caught positive (V)",
        0.0,
        MAX_AMOUNT,
        10.0,
        1.0,
        key=f"{key}_value_per_positive",
        bind="query-params",
        persist_state="session",
        help="What one true positive caught is worth.",
    )
    fp_cost = c[2].number_input(
        "Cost per false positive (F)",
        0.0,
        MAX_AMOUNT,
        0.0,
        0.5,
        key=f"{key}_cost_per_fp",
        bind="query-params",
        persist_state="session",
        help="What a false positive costs beyond its review (an annoyed customer ...).",
    )
    currency = c[3].text_input("Currency", "$", max_chars=4, key=f"{key}_currency", help="Written before every amount.")
    try:
        economics = Economics(cost, value, fp_cost)
    except InputError as exc:
        st.error(f"**No target from these amounts.** {md(exc)}")
        st.stop()
    st.caption(md(f"Target marginal precision from money: {economics.formula()}."))
    return Money(economics, currency)


def chosen_target(key: str) -> tuple[float, Money]:
    """The target: from the slider, or the break-even marginal precision of the money entered."""
    money = money_controls(key)
    if money.economics is None:
        return target_controls(), money
    st.metric(
        "Target marginal precision (break-even)", target_text(money.economics.target, percent=True).replace("%", " %")
    )
    return money.economics.target, money


def money_sentence(tp: float, fp: float, marginal_precision: float, money: Money) -> str:
    """TP and FP flagged in money ('' without money): value caught, review cost, net, the last document's value."""
    if money.economics is None:
        return ""
    statement = money_statement(tp, fp, money.economics, marginal_precision=marginal_precision)
    return "In money: " + statement.sentence(money.currency)


def money_settings(money: Money) -> dict:
    """The amounts behind the target, for a record item's settings (empty without money)."""
    e = money.economics
    if e is None:
        return {}
    return {
        "review_cost": e.review_cost,
        "value_per_positive": e.value_per_positive,
        "cost_per_false_positive": e.cost_per_false_positive,
        "currency": money.currency,
    }
