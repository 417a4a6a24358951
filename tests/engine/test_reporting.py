"""CSV exports: formula-like text neutralised in every kind of column, numbers left alone, no dtype crashes."""

import csv
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.reporting import csv_bytes, neutralise_formulas

STARTS = ("=", "+", "-", "@", "\t", "\r")


def expected_cell(value) -> str:
    """What the export must hold for one cell: an apostrophe before formula-like text, the value otherwise."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, str):
        return "'" + value if value.startswith(STARTS) else value
    return str(value)


def exported(frame: pd.DataFrame) -> list[list[str]]:
    return list(csv.reader(io.StringIO(csv_bytes(frame).decode(), newline="")))


TEXT = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\ry", "plain", "a=b", " =not"]


@pytest.mark.parametrize("dtype", ["object", "category", "string", "str"])
def test_text_columns_of_every_dtype_are_neutralised(dtype):
    values = pd.Series(TEXT + [None], dtype=dtype)
    rows = exported(pd.DataFrame({"col": values}))
    assert rows[0] == ["col"]
    assert [r[0] for r in rows[1:]] == [expected_cell(v) for v in TEXT] + [""]


def test_numbers_booleans_nullable_and_dates_are_left_alone():
    frame = pd.DataFrame(
        {
            "f": [-1.5, np.nan, 2.0],
            "i": [-1, 0, 3],
            "b": [True, False, True],
            "nb": pd.array([True, None, False], dtype="boolean"),
            "ni": pd.array([-4, None, 2], dtype="Int64"),
            "t": pd.to_datetime(["2020-01-01", None, "2021-02-03"]),
        }
    )
    assert csv_bytes(frame) == frame.to_csv(index=False).encode()
    out = neutralise_formulas(frame)
    pd.testing.assert_frame_equal(out, frame)


def test_mixed_object_columns_and_column_names():
    frame = pd.DataFrame({"=name": ["-x", 3, None, -2.5, True], "ok": ["a", "b", "c", "d", "e"]})
    rows = exported(frame)
    assert rows[0] == ["'=name", "ok"]
    assert [r[0] for r in rows[1:]] == ["'-x", "3", "", "-2.5", "True"]
    assert frame.columns[0] == "=name" and frame.iloc[0, 0] == "-x"  # the input is not modified


def test_duplicate_column_names_and_a_categorical_keep_their_other_cells():
    frame = pd.DataFrame([["=a", "b"], ["c", "@d"]], columns=["x", "x"]).astype("category")
    assert [r for r in exported(frame)[1:]] == [["'=a", "b"], ["c", "'@d"]]
    untouched = pd.DataFrame({"c": pd.Categorical(["a", "b"])})
    assert isinstance(neutralise_formulas(untouched)["c"].dtype, pd.CategoricalDtype)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.none(), st.text(alphabet=st.sampled_from('=+-@\t\rab1 ,"'), max_size=6)), min_size=1, max_size=12
    ),
    st.sampled_from(["object", "category", "string"]),
)
def test_every_cell_of_a_text_column_against_the_cell_by_cell_rule(values, dtype):
    rows = exported(pd.DataFrame({"v": pd.Series(values, dtype=dtype)}))
    got = [r[0] if r else "" for r in rows[1:]]
    assert got == [expected_cell(v) for v in values]  # csv writes an empty string and a missing value alike


def test_a_carriage_return_inside_a_cell_cannot_start_a_new_row():
    # unquoted, "a\r=cmd" would be read by a spreadsheet as the row "a" and a new row "=cmd"
    frame = pd.DataFrame({"note": ["a\r=cmd", "ok"], "n": [1, 2]})
    raw = csv_bytes(frame)
    assert raw == b'note,n\r\n"a\r=cmd",1\r\nok,2\r\n'
    assert exported(frame) == [["note", "n"], ["a\r=cmd", "1"], ["ok", "2"]]
    assert csv_bytes(frame.iloc[1:]) == b"note,n\nok,2\n"  # without one, lines end with \n as before


# --- settings in words, links a report may hold (issue 26) ---

from engine.presentation import value_in_words  # noqa: E402
from engine.reporting import safe_href  # noqa: E402


def test_settings_read_in_words():
    assert value_in_words(["score_image", "score_text"]) == "score_image, score_text"
    assert value_in_words(None) == "not set" and value_in_words(False) == "no" and value_in_words(2000.0) == "2,000"
    assert value_in_words({"a_b": 1}) == "A b: 1" and value_in_words(0.0522876) == "0.05229"
    assert value_in_words(float("inf")) == "not bounded" and value_in_words([]) == "none"


@pytest.mark.parametrize(
    "url, kept",
    [
        ("http://localhost:8501/operating-point?target=0.3", True),
        ("https://studio.example/x", True),
        ("/batch-decisions?beta=2", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("//evil.example/x", False),
        ("data:text/html,x", False),
        ("http://a/b c", False),
        ("http://a/'x", False),
        ("http:///nohost", False),
        ("", False),
        (None, False),
        (["http://a"], False),
        ("/x\n", False),
    ],
)
def test_safe_href(url, kept):
    assert safe_href(url) == (url if kept else "")
