"""Each page's current result, published for the other pages to quote, bound to the SHA-256 of its data.

A page that quotes another's result (Below the line quotes "the Operating point page's threshold")
reads it from here, for the same data and classifier, or does not quote it: it never recomputes
another page's result from that page's widget keys, which may hold a slider's value while the
page's result came from money, or belong to other data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st

_PUBLISHED = "_published_results"  # page URL path -> Published


@dataclass(frozen=True)
class Published:
    """A page's current result: the page, the SHA-256 of the data it was computed on, the classifier, its values."""

    page: str
    data_sha256: str
    classifier: str
    values: dict[str, Any] = field(default_factory=dict)


def publish(page: str, data_sha256: str, classifier: str, **values: Any) -> None:
    """Make ``values`` the current result of ``page`` for this data and classifier (replacing its earlier one)."""
    st.session_state.setdefault(_PUBLISHED, {})[page] = Published(page, data_sha256, classifier, dict(values))


def withdraw(page: str) -> None:
    """The page has no current result (its settings are invalid): nothing of it is quoted."""
    st.session_state.setdefault(_PUBLISHED, {}).pop(page, None)


def published(page: str, data_sha256: str, classifier: str) -> dict[str, Any] | None:
    """The current result of ``page`` if it was computed on this data and classifier, else None."""
    result = st.session_state.get(_PUBLISHED, {}).get(page)
    if result is None or result.data_sha256 != data_sha256 or result.classifier != classifier:
        return None
    return dict(result.values)
