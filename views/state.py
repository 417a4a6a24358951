"""Session helpers shared by the pages: a session-scoped memo, Markdown escaping and progress bars.

Uploaded data never leaves the user's session: the raw bytes, the validated
inputs (``views/inputs.py``) and every derived result live in
``st.session_state`` (nothing is written to disk). Results are memoised under
keys built from the input's SHA-256 fingerprint, its column mapping and the
settings, so a slider move never re-parses a file or rebuilds a hull.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Callable

import streamlit as st

_MEMO_SIZE = 48

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md(text: object) -> str:
    """Escape user-supplied text (file and column names, data values in messages) for Markdown.

    Streamlit renders messages as Markdown: unescaped, a file name such as
    ``[x](http://...)`` would become a link and ``![x](...)`` would fetch an image.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def memo(key: tuple, compute: Callable[[], Any]) -> Any:
    """Session-scoped memo (LRU of ``_MEMO_SIZE`` entries) keyed by a tuple of digests and settings."""
    store: OrderedDict = st.session_state.setdefault("_memo", OrderedDict())
    if key in store:
        store.move_to_end(key)
        return store[key]
    value = compute()
    store[key] = value
    while len(store) > _MEMO_SIZE:
        store.popitem(last=False)
    return value


def progress_callback(label: str):
    """A progress bar and a ``(done, total)`` callback for long engine work."""
    label = md(label)
    bar = st.progress(0.0, text=label)

    def update(done: int, total: int) -> None:
        bar.progress(min(1.0, done / total), text=f"{label} ({done}/{total})")

    return bar, update
