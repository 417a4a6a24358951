"""Text to numbers exactly, whatever pandas does."""

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from engine.io._numbers import to_floats


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=50))
def test_every_double_written_as_text_reads_back_exactly(values):
    text = pd.Series([repr(v) for v in values], dtype=object)
    assert to_floats(text).tolist() == values


def test_digits_pandas_before_3_1_rounded_wrongly_and_what_is_not_a_number():
    text = pd.Series([" 0.028469230769230768", "0.05203846153846154", "", None, "high", "1e3", "-inf"], dtype=object)
    out = to_floats(text)
    assert out[:2].tolist() == [0.028469230769230768, 0.05203846153846154]
    assert np.isnan(out[2:5]).all() and out[5] == 1000.0 and out[6] == -np.inf


def test_numeric_columns_pass_through():
    assert to_floats(pd.Series([1, 2, 3])).tolist() == [1.0, 2.0, 3.0]
    assert np.isnan(to_floats(pd.Series([1.5, None]))[1])


def test_an_object_column_mixing_numbers_bools_and_text_keeps_what_pandas_made_of_the_non_text():
    # a table built in Python: object column of floats, bools, None and text (broke on pandas < 3.1: str(False))
    mixed = pd.Series([0.0, None, False, True, "0.028469230769230768", 7, "x"], dtype=object)
    out = to_floats(mixed)
    assert out[[0, 2, 3, 4, 5]].tolist() == [0.0, 0.0, 1.0, 0.028469230769230768, 7.0]
    assert np.isnan(out[[1, 6]]).all()
