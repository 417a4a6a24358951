"""Widgets shared by several pages."""

import streamlit as st

TARGET_MIN, TARGET_MAX, TARGET_STEP, TARGET_DEFAULT = 0.005, 0.995, 0.005, 0.3


def _typed_target_to_slider() -> None:
    """A typed value moves the slider (snapped to its step); the box empties again and shows the value."""
    typed = st.session_state.get("target_input")
    if typed is not None:
        steps = round((typed - TARGET_MIN) / TARGET_STEP)
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
    target = c1.slider("Target marginal precision", TARGET_MIN, TARGET_MAX, default, TARGET_STEP,
                       key="target", bind="query-params", persist_state="session", format="%.3f",
                       help="Share of true positives among the documents added by lowering the threshold at the "
                            "operating point.")
    c2.number_input("Exact value", TARGET_MIN, TARGET_MAX, value=None, step=TARGET_STEP, format="%.3f",
                    placeholder=f"{target:.3f}", key="target_input", on_change=_typed_target_to_slider,
                    help="Type a target and press Enter: the slider moves there.")
    return float(target)
