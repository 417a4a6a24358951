"""Tables on screen: every engine table is shown in words (engine.presentation), the downloads keep full precision."""

import streamlit as st

from engine.presentation import WIDE_COLUMNS, present_table


def show_table(frame, *, height=None, row_kinds=None, transpose_on=None, key=None, where=None, **present) -> None:
    """Show an engine table as people read it: labels in words, percentages, separators, a dash for no value.

    A table wider than :data:`WIDE_COLUMNS` columns with a ``transpose_on`` column is shown one
    quantity per row, so that no column hides behind a horizontal scroll. ``where`` is the
    container to show it in (a column; the page by default).
    """
    wide = transpose_on is not None and frame.shape[1] > WIDE_COLUMNS
    shown = present_table(frame, row_kinds=row_kinds, transpose_on=transpose_on if wide else None, **present)
    (where or st).dataframe(shown, hide_index=True, height=height or "auto", key=key)
