"""Tables on screen: every engine table is shown in words (engine.presentation), the downloads keep full precision."""

import streamlit as st

from engine.presentation import WIDE_COLUMNS, present_table

#: a table with more columns than this uses the short labels (TP, FP, m just above …) to fit 1,280 px
COMPACT_COLUMNS = 6


def show_table(frame, *, height=None, row_kinds=None, transpose_on=None, key=None, where=None, **present) -> None:
    """Show an engine table as people read it: labels in words, percentages, separators, a dash for no value.

    A table wider than :data:`WIDE_COLUMNS` columns with a ``transpose_on`` column is shown one
    quantity per row, so that no column hides behind a horizontal scroll; one wider than
    :data:`COMPACT_COLUMNS` uses the short labels (TP, FP, m just above …). ``where`` is the
    container to show it in (a column; the page by default).
    """
    wide = transpose_on is not None and frame.shape[1] > WIDE_COLUMNS
    present.setdefault("compact", frame.shape[1] > COMPACT_COLUMNS and not wide)
    shown = present_table(frame, row_kinds=row_kinds, transpose_on=transpose_on if wide else None, **present)
    (where or st).dataframe(shown, hide_index=True, height=height or "auto", key=key)
    short = [label for label in ("TP", "FP", "m just above", "Target m") if label in shown.columns]
    if short:
        (where or st).caption(
            "TP, FP: true and false positives; m: marginal precision (the share of positives among "
            "the documents added by lowering the threshold)."
            if any(label.startswith(("m ", "Target m")) for label in short)
            else "TP, FP: true and false positives."
        )
