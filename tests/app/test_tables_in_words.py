"""Every page's tables read in words: no snake_case header, no None / NaN cell (engine.presentation)."""

import pytest
from streamlit.testing.v1 import AppTest

from engine.io import SAMPLES, read_table, sample_path
from engine.pages import PAGES
from engine.presentation import is_raw_name
from tests.app.conftest import APP

#: buttons that bring more tables onto a page (clicked in order when the page has them)
CLICKS = {
    "pages/operating_point.py": ["segment_boot"],
    "pages/batch_decisions.py": ["run_all_batches", "run_baselines"],
    "pages/early_exit.py": ["time_qwyc"],
    "pages/constraints.py": ["train_constrained"],
}
#: settings that keep a page quick (a small model on the early-exit page)
QUERY = {"pages/early_exit.py": {"qwyc_trees": "60", "qwyc_depth": "3"}}
#: the columns of the shipped inputs: a table of only these is a preview of the user's rows (their own names,
#: empty cells shown as a dash by the placeholder), not an engine table
USER_COLUMNS = {
    str(c)
    for key, s in SAMPLES.items()
    if s.kind is not None and s.file.endswith((".csv", ".csv.gz"))
    for c in read_table(str(sample_path(key))).frame.columns
}

MISSING = {"None", "none", "nan", "NaN", "<NA>", "NaT", "null"}


def tables_of(at):
    return [element.value for element in at.dataframe]


def problems(frame) -> list[str]:
    found = [f"header {c!r} is snake_case" for c in frame.columns if is_raw_name(str(c))]
    for column in frame.columns:
        for cell in frame[column].tolist():
            if cell is None or (isinstance(cell, float) and cell != cell) or str(cell).strip() in MISSING:
                found.append(f"column {column!r} has a {cell!r} cell")
                break
    return found


@pytest.mark.slow
@pytest.mark.parametrize("page", [p.script for p in PAGES if p.script != "pages/home.py"])
def test_no_page_table_shows_snake_case_or_none(page):
    at = AppTest.from_file(APP, default_timeout=600)  # pages that train a model take a while on a busy machine
    at.run()
    for k, v in QUERY.get(page, {}).items():
        at.query_params[k] = v
    at.switch_page(page).run()
    assert not at.exception, at.exception
    for key in CLICKS.get(page, []):
        buttons = [b for b in at.button if b.key == key]
        if buttons:
            buttons[0].click().run()
            assert not at.exception, at.exception
    shown = tables_of(at)
    if page in CLICKS:
        assert shown, f"{page} shows no table"
    found = [
        f"{page} table {i}: {p}"
        for i, frame in enumerate(shown)
        if not {str(c) for c in frame.columns} <= USER_COLUMNS
        for p in problems(frame)
    ]
    assert not found, "\n".join(found)
