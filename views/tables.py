"""Tables on screen: every engine table is shown in words (engine.presentation), the downloads keep full precision.

Every column gets a width that shows its whole label and its widest cell: the grid draws a header on one line and
cuts what does not fit ("Test erro…"), so a width left to the grid's own guess (the first rows' cells) cut labels
longer than the numbers under them.
"""

import pandas as pd
import streamlit as st

from engine.presentation import WIDE_COLUMNS, present_table

#: a table with more columns than this uses the short labels (TP, FP, m just above …) to fit 1,280 px
COMPACT_COLUMNS = 6
#: the grid's text size in pixels (Streamlit's theme: 14 px cells and headers)
GRID_FONT_PX = 14
#: room a column needs besides its text: the cell's padding, and in a header the sort arrow and the menu
CELL_PADDING, HEADER_PADDING = 18, 20
#: widest a column is made (a long text cell wraps in the cell's tooltip instead)
MAX_COLUMN_PX = 480
#: the room a table has on the page at 1,280 px a window with the sidebar open: a table wider than this scrolls
#: sideways, so its text columns give up width first (their long cells end in "…", whole in the cell's tooltip;
#: a label is never cut)
ROOM_PX = 800
#: narrowest a text column is made to give up room
MIN_TEXT_PX = 130

_NARROW, _WIDE = set("ijlft.,:;'|!()[] -/"), set("mwMW%—…")


def text_px(text: str, *, bold: bool = False) -> float:
    """Width of ``text`` in pixels at the grid's font (Source Sans, 14 px; semibold in headers), a few per cent on
    the safe side: measured in Chromium, "Marginal precision, lower bound" is 193 px semibold (estimated 201),
    "FP per extra TP" 90 px (estimated 100), "0.2373" 38 px (estimated 37)."""
    ems = sum(
        0.26 if c in _NARROW else 0.74 if c in _WIDE else 0.56 if c.isupper() else 0.52 if c.isdigit() else 0.48
        for c in str(text)
    )
    return ems * GRID_FONT_PX * (1.05 if bold else 1.0)


def column_widths(shown: pd.DataFrame, room: float = ROOM_PX) -> dict[str, int]:
    """Pixels for each column of a table of text: its label on one line and its widest cell (first 500 rows).

    When they add up to more than ``room``, the widest text columns (cells with letters) give up width, down
    to their label's width and at least :data:`MIN_TEXT_PX`, until the table fits or nothing more can go.
    """
    widths, floors = {}, {}
    for j, label in enumerate(shown.columns):
        cells = shown.iloc[:500, j].astype(str).tolist()
        header = text_px(str(label), bold=True) + HEADER_PADDING
        body = max((text_px(c) for c in cells), default=0.0) + CELL_PADDING
        widths[str(label)] = min(max(header, body, 48.0), MAX_COLUMN_PX)
        texty = sum(any(ch.isalpha() for ch in c) for c in cells) > len(cells) / 2
        floors[str(label)] = max(header, MIN_TEXT_PX) if texty else widths[str(label)]
    excess = sum(widths.values()) - room
    for label in sorted(widths, key=lambda k: widths[k] - floors[k], reverse=True):
        if excess <= 0:
            break
        give = min(max(widths[label] - floors[label], 0.0), excess)
        widths[label] -= give
        excess -= give
    return {label: int(round(w)) for label, w in widths.items()}


def show_table(frame, *, height=None, row_kinds=None, transpose_on=None, key=None, where=None, **present) -> None:
    """Show an engine table as people read it: labels in words, percentages, separators, a dash for no value.

    A table wider than :data:`WIDE_COLUMNS` columns with a ``transpose_on`` column is shown one
    quantity per row, so that no column hides behind a horizontal scroll; one wider than
    :data:`COMPACT_COLUMNS` uses the short labels (TP, FP, m just above …). Every column is as
    wide as its label and its widest cell (:func:`column_widths`). ``where`` is the container to
    show it in (a column; the page by default). ``frame`` may be a list of records.
    """
    frame = frame if isinstance(frame, pd.DataFrame) else pd.DataFrame(list(frame))
    wide = transpose_on is not None and frame.shape[1] > WIDE_COLUMNS
    present.setdefault("compact", frame.shape[1] > COMPACT_COLUMNS and not wide)
    shown = present_table(frame, row_kinds=row_kinds, transpose_on=transpose_on if wide else None, **present)
    config = {label: st.column_config.Column(width=w) for label, w in column_widths(shown).items()}
    (where or st).dataframe(shown, hide_index=True, height=height or "auto", key=key, column_config=config)
    short = [label for label in ("TP", "FP", "m just above", "Target m") if any(c.startswith(label) for c in shown)]
    if short:
        (where or st).caption(
            "TP, FP: true and false positives; m: marginal precision (the share of positives among "
            "the documents added by lowering the threshold)."
            if any(label.startswith(("m ", "Target m")) for label in short)
            else "TP, FP: true and false positives."
        )
