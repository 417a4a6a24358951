"""Results counted where the rows are (memory, DuckDB or Spark): one engine call each, a status box while it runs.

The pages ask :mod:`engine.backends` for a result (:func:`~engine.backends.pn_hull`,
:func:`~engine.backends.joint_grid`); the data-source registry decides how the rows are
counted. Nothing here names a backend.
"""

from __future__ import annotations

import streamlit as st

from engine.backends import data_source, joint_grid, pn_hull, scan_sentence
from engine.errors import InputError
from views.session_input import SessionInput
from views.state import md, scan


def _counted(key: tuple, compute, label: str, failure: str):
    try:
        return scan(key, compute, label=label)
    except InputError as exc:
        st.error(f"**{md(failure)}** {md(exc)}")
        st.stop()


def counted_hull(inp: SessionInput, classifier: str):
    """(Hull, ScanStats) of one classifier of a rated input, counted once per session and mapping."""
    d = inp.rated
    where = data_source(d).counted_where
    return _counted(
        ("hull", *inp.key, classifier),
        lambda progress: pn_hull(d, classifier, progress=progress),
        f"Counting the PN curve of {classifier} {where} over {d.n_read:,} rows",
        f"Could not count {classifier} in {d.name} {where}.",
    )


def counted_grid(inp: SessionInput, classifiers: tuple, *, bins: int, rule: str, spacing: str):
    """(ThresholdGrid, ScanStats) of a rated input, counted once per session and settings."""
    d = inp.rated
    where = data_source(d).counted_where
    return _counted(
        ("grid", *inp.key, classifiers, rule, int(bins), spacing),
        lambda progress: joint_grid(d, classifiers, bins=int(bins), rule=rule, spacing=spacing, progress=progress),
        f"Counting the {' × '.join([str(int(bins))] * len(classifiers))} grid {where} over {d.n_read:,} rows",
        f"Could not count the grid of {d.name} {where}.",
    )


def count_caption(stats, what: str) -> None:
    """Says where the page's counts were made when the rows are not in memory (rows scanned, seconds)."""
    sentence = scan_sentence(stats, what)
    if sentence:
        st.caption(sentence)
