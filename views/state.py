"""Session state shared by the pages: the loaded data set and a session-scoped memo.

Uploaded data never leaves the user's session: the raw table, the validated
data and every derived result live in ``st.session_state`` (nothing is written
to disk). Results are memoised under keys built from the data set's SHA-256
fingerprint, its column mapping and the settings, so a slider move never
re-parses a file or rebuilds a hull.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

from engine.io import SAMPLES, ColumnMapping, RatedData, Table, detect_columns, rated_from_frame, read_table, sample_path

#: samples that are rated data (the counts file is the aggregated format)
RATED_SAMPLES = {"synthetic": "Synthetic rare events (2 classifiers, 0.1 % prevalence)",
                 "bank": "UCI Bank Marketing (2 models, CC BY 4.0)"}
DEFAULT_SAMPLE = "synthetic"
_MEMO_SIZE = 48


@dataclass(frozen=True)
class Dataset:
    """The loaded data set: where it came from, its parsed table and the validated rated data."""

    source: str  # "sample" or "upload"
    sample_key: str | None
    table: Table
    rated: RatedData

    @property
    def key(self) -> tuple:
        """Identity of the data for memo keys: bytes digest + column mapping."""
        return (self.table.fingerprint, self.rated.mapping)


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


def parse_bytes(raw: bytes, name: str) -> Table:
    """Parse an upload once per distinct content (keyed by the bytes' SHA-256)."""
    import hashlib

    digest = hashlib.sha256(raw).hexdigest()
    table = memo(("table", digest), lambda: read_table(raw))
    return Table(table.frame, name, table.fingerprint, table.file_format)


def validate(table: Table, mapping: ColumnMapping) -> RatedData:
    return memo(("rated", table.fingerprint, mapping),
                lambda: rated_from_frame(table.frame, mapping, name=table.name, fingerprint=table.fingerprint))


def load_sample(key: str) -> Dataset:
    path = sample_path(key)
    table = parse_bytes(path.read_bytes(), path.name)
    rated = validate(table, detect_columns(table.frame))
    dataset = Dataset("sample", key, table, rated)
    set_dataset(dataset)
    return dataset


def set_dataset(dataset: Dataset) -> None:
    st.session_state["dataset"] = dataset
    if dataset.source == "sample":
        st.query_params["sample"] = dataset.sample_key
    elif "sample" in st.query_params:
        del st.query_params["sample"]


def current_dataset() -> Dataset | None:
    """The loaded data set; on first open the sample named in the URL (or the synthetic one) is loaded."""
    dataset = st.session_state.get("dataset")
    if dataset is None:
        wanted = st.query_params.get("sample", DEFAULT_SAMPLE)
        dataset = load_sample(wanted if wanted in RATED_SAMPLES else DEFAULT_SAMPLE)
    return dataset


def progress_callback(label: str):
    """A progress bar and a ``(done, total)`` callback for long engine work."""
    label = md(label)
    bar = st.progress(0.0, text=label)

    def update(done: int, total: int) -> None:
        bar.progress(min(1.0, done / total), text=f"{label} ({done}/{total})")

    return bar, update


def sample_description(key: str) -> str:
    return SAMPLES[key][1]
