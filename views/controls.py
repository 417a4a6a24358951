"""Widgets shared by several pages."""

import streamlit as st

TARGET_MIN, TARGET_MAX, TARGET_STEP, TARGET_DEFAULT = 0.005, 0.995, 0.005, 0.3


def _slider_to_input() -> None:
    st.session_state["target_input"] = st.session_state["target"]


def _input_to_slider() -> None:
    # the slider moves in steps: snap the typed value to the nearest step
    steps = round((st.session_state["target_input"] - TARGET_MIN) / TARGET_STEP)
    st.session_state["target"] = round(TARGET_MIN + steps * TARGET_STEP, 6)


def target_controls() -> float:
    """Target marginal precision as a slider (bound to the URL) and a number input kept in step."""
    c1, c2 = st.columns([3, 1])
    target = c1.slider("Target marginal precision", TARGET_MIN, TARGET_MAX, TARGET_DEFAULT, TARGET_STEP,
                       key="target", bind="query-params", persist_state="session", format="%.3f",
                       on_change=_slider_to_input,
                       help="Share of true positives among the documents added by lowering the threshold at the "
                            "operating point.")
    if st.session_state.get("target_input") != target:
        st.session_state["target_input"] = target
    c2.number_input("Exact value", TARGET_MIN, TARGET_MAX, step=TARGET_STEP, format="%.3f", key="target_input",
                    on_change=_input_to_slider)
    return float(target)
