"""Every page's tables read in words and show whole (engine.presentation, views.tables): no snake_case header, no
None / NaN cell, no share written as a fraction, no count without its separators, and every column as wide as its
label (the grid draws a label on one line and cuts what does not fit: "Test erro…", "marginal precision b…")."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from engine.io import SAMPLES, read_table, sample_path
from engine.pages import PAGES
from engine.presentation import is_raw_name
from tests.app.conftest import APP

#: widgets that bring more tables onto a page (set in order when the page has them): buttons are clicked,
#: toggles switched on
CLICKS = {
    "pages/operating_point.py": ["what_if_on", "segment_boot"],
    "pages/monitoring.py": ["mon_reviewers_on"],
    "pages/ensemble_paths.py": ["boot_paths"],
    "pages/batch_decisions.py": ["run_all_batches", "run_baselines"],
    "pages/early_exit.py": ["time_qwyc"],
    "pages/constraints.py": ["train_constrained", "run_fair_sweep", "run_churn_sweep"],
}
#: settings that keep a page quick (a small model on the early-exit page)
QUERY = {
    "pages/early_exit.py": {"qwyc_trees": "60", "qwyc_depth": "3"},
    "pages/ensemble_paths.py": {"boot_paths_n": "10"},
}
#: the columns of the shipped inputs: a table of only these is a preview of the user's rows (their own names,
#: empty cells shown as a dash by the placeholder), not an engine table
USER_COLUMNS = {
    str(c)
    for key, s in SAMPLES.items()
    if s.kind is not None and s.file.endswith((".csv", ".csv.gz"))
    for c in read_table(str(sample_path(key))).frame.columns
}

MISSING = {"None", "none", "nan", "NaN", "<NA>", "NaT", "null", "inf", "-inf", "False", "True"}
#: words of a label that make its column a share (shown as a percentage)
SHARE_WORDS = ("precision", "recall", "share", "coverage", "rate", "prevalence", "probability", "accuracy")
#: the narrowest a column may be for its label to show whole: the grid's 14 px semibold Source Sans takes 5.8 to
#: 6.6 px a character (measured in Chromium: "Rating floor (lowest rated score)", 33 characters, 192 px; "Target m",
#: 53 px), plus the cell's padding (an estimate of its own, not views.tables'; the browser test sees the rest)
PX_PER_CHAR, HEADER_ROOM = 5.6, 16


def tables_of(at):
    return list(at.dataframe)


def problems(element) -> list[str]:
    frame = element.value
    found = [f"header {c!r} is snake_case" for c in frame.columns if is_raw_name(str(c))]
    for column in frame.columns:
        cells = frame[column].tolist()
        for cell in cells:
            if cell is None or (isinstance(cell, float) and cell != cell) or str(cell).strip() in MISSING:
                found.append(f"column {column!r} has a {cell!r} cell")
                break
        text = [str(c) for c in cells]
        if any(re.fullmatch(r"−?\d{5,}(\.\d+)?", c) for c in text):
            found.append(f"column {column!r} has a number without thousands separators ({text[0]!r})")
        words = set(re.findall(r"[a-z]+", str(column).lower()))
        if words & set(SHARE_WORDS) and any(re.fullmatch(r"0\.\d+", c) for c in text):
            found.append(f"column {column!r} writes a share as a fraction ({text[0]!r})")
    import json

    config = json.loads(element.proto.columns or "{}")
    for column in frame.columns:
        width = (config.get(str(column)) or {}).get("width")
        needed = PX_PER_CHAR * len(str(column)) + HEADER_ROOM
        if not isinstance(width, int) or width < needed:
            found.append(f"column {column!r} is {width} px wide, its label needs {needed:.0f} px")
    return found


def walk(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)  # pages that train a model take a while on a busy machine
    at.run()
    for k, v in QUERY.get(page, {}).items():
        at.query_params[k] = v
    at.switch_page(page).run()
    assert not at.exception, at.exception
    for key in CLICKS.get(page, []):
        toggles = [t for t in at.toggle if t.key == key]
        if toggles:
            toggles[0].set_value(True).run()
        buttons = [b for b in at.button if b.key == key]
        if buttons:
            buttons[0].click().run()
        assert toggles or buttons, f"{page} has no {key}"
        assert not at.exception, at.exception
    return at


#: pages whose tables need what a fresh session lacks (record items, decisions): their own tests check them
WITHOUT_TABLES = ("pages/home.py", "pages/record.py", "pages/decisions.py")


@pytest.mark.slow
@pytest.mark.parametrize("page", [p.script for p in PAGES if p.script not in WITHOUT_TABLES])
def test_every_table_of_every_page_reads_in_words_and_shows_whole(page):
    at = walk(page)
    shown = tables_of(at)
    assert shown, f"{page} shows no table"
    found = [
        f"{page} table {i}: {p}"
        for i, element in enumerate(shown)
        if not {str(c) for c in element.value.columns} <= USER_COLUMNS
        for p in problems(element)
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_a_cut_label_a_fraction_and_a_raw_count():
    import pandas as pd
    import streamlit as st

    class Element:  # a dataframe as st.dataframe would hold it without the presentation layer
        value = pd.DataFrame({"marginal precision below": ["0.4546"], "documents": ["13253"], "x_y": [None]})

        class proto:
            columns = '{"marginal precision below": {"width": 120}}'

    found = " ".join(problems(Element))
    assert "snake_case" in found and "None" in found and "fraction" in found and "separators" in found
    assert "px wide" in found
    assert st  # streamlit imports (the check runs beside AppTest)
