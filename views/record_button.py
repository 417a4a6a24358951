"""'Add to decision record' for any page: the page builds the item, this keeps it in the session."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from engine.record import RecordItem
from views.propose import with_view_link
from views.state import md

_RECORD = "_decision_record"


def record_items() -> list[RecordItem]:
    """The items of this session's decision record, in order."""
    return st.session_state.setdefault(_RECORD, [])


def set_record_items(items: list[RecordItem]) -> None:
    st.session_state[_RECORD] = list(items)


def add_to_record(build: Callable[[], RecordItem], *, key: str) -> None:
    """A button that adds the page's current result (built only when clicked) to the decision record."""
    if st.button(
        "Add to decision record",
        key=key,
        icon=":material/playlist_add:",
        help="Collect this result with the others of the meeting; export them together on the Decision record page.",
    ):
        item = with_view_link(build())  # "Reopen this view": a saved view when this identity may save one
        record_items().append(item)
        n = len(record_items())
        st.toast(
            f"Added to the decision record: {md(item.title)}. The record now holds {n:,} "
            f"{'decision' if n == 1 else 'decisions'}."
        )
