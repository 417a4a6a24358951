"""engine.io._tables: the vectorised reading of plain text agrees with the line-by-line reading."""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.io._tables import _layout


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["0.5,1", "0.25,0", "", "   ", " \t", "x", "1,2,3", "a,b", ",", " , "]), min_size=1, max_size=12
    ),
    st.booleans(),
    st.sampled_from([",", ";"]),
)
def test_vectorised_layout_equals_the_line_by_line_reading(lines, trailing_newline, delimiter):
    text = "\n".join(line.replace(",", delimiter) for line in lines) + ("\n" if trailing_newline else "")
    kept = [line for line in text.splitlines() if line.strip()]
    layout = _layout(text, delimiter)
    assert layout.head == kept[:201]
    assert layout.counts.tolist() == [line.count(delimiter) + 1 for line in kept]
    assert [line for line in layout.body.splitlines() if line.strip()] == kept
    assert all(line.strip() for line in layout.body.rstrip("\n").split("\n")) or not kept


# --- fields over the csv module's limit, Parquet categoricals --------------------------------------------------------

import csv  # noqa: E402
import io  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from engine.errors import InputError  # noqa: E402
from engine.io import load_rated, read_table  # noqa: E402

LIMIT = csv.field_size_limit()


@pytest.mark.parametrize(
    "raw, line",
    [
        (b"x" * (1 << 20), 1),  # a 1 MB single-line file
        (b'score,label\n0.5,1\n0.1,"' + b"y" * (LIMIT + 1) + b'"\n', 3),  # a quoted field over the limit
        (b'"' + b"h" * (LIMIT + 1) + b'",label\n0.5,1\n', 1),  # in the header
        (b'score;label\n0,5;1\n0,1;"' + b"y" * (LIMIT + 1) + b'"\n', 3),  # semicolon, decimal comma
    ],
)
def test_a_field_over_the_csv_limit_is_an_input_error_naming_the_file_and_the_line(raw, line, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(raw)
    for load in (lambda: read_table(raw, name="wide.csv"), lambda: load_rated(path)):
        with pytest.raises(InputError) as caught:
            load()
        message = str(caught.value)
        assert message.startswith("'wide.csv': line ") and f"line {line} " in message
        assert f"longer than {LIMIT:,} characters" in message and "close the quote, or shorten or drop" in message


def test_an_unquoted_long_text_field_is_read_as_it_is():
    raw = b"score,label,note\n0.5,1," + b"z" * (LIMIT + 10) + b"\n0.2,0,short\n"
    assert read_table(raw).frame["note"].str.len().tolist() == [LIMIT + 10, 5]


def parquet(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


def test_parquet_categoricals_come_back_as_the_plain_values_a_csv_gives():
    frame = pd.DataFrame(
        {
            "score": [0.9, 0.7, 0.5, 0.3],
            "label": [1, 0, 1, 0],
            "note": pd.Categorical(["=1+1", "a", None, "=1+1"]),
            "region": pd.Categorical(["north", "south", "north", "west"]),
        }
    )
    read = read_table(parquet(frame)).frame
    as_csv = read_table(frame.astype({"note": object, "region": object}).to_csv(index=False).encode()).frame
    assert not any(isinstance(t, pd.CategoricalDtype) for t in read.dtypes)
    pd.testing.assert_frame_equal(read, as_csv)
    read.loc[1, "note"] = "'=x"  # writable like any text column
    assert load_rated(parquet(frame), group_col="region").groups.tolist() == ["north", "south", "north", "west"]


def test_parquet_numeric_columns_keep_their_dtype():
    frame = pd.DataFrame({"score": np.array([0.5, 0.25]), "n": np.array([1, 2]), "label": [1, 0]})
    pd.testing.assert_frame_equal(read_table(parquet(frame)).frame, frame)
