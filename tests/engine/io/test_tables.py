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


# --- the fast layout and read against the reading before it (issue: reading 10^6-row CSVs faster) -----------------

import gzip  # noqa: E402
import warnings  # noqa: E402

from engine.errors import RatedDataError  # noqa: E402
from engine.io._numbers import EXACT_READ_CSV  # noqa: E402
from engine.io._tables import (  # noqa: E402
    _MAX_BLANK_CANDIDATES,
    _check_shape,
    _decimal,
    _decode,
    _field_counts,
    _Layout,
    _refuse_other_formats,
    sniff_delimiter,
)


def layout_before(text: str, delimiter: str, name: str = "table") -> _Layout:
    """``_layout`` as it was before the fast path (the oracle)."""
    data = np.frombuffer(text.encode("ascii"), np.uint8) if text.isascii() else None
    if (
        data is not None
        and delimiter != "\t"
        and not (data == ord('"')).any()
        and not ((data == 13) | ((data >= 11) & (data <= 12)) | ((data >= 28) & (data <= 30))).any()
    ):
        breaks = np.flatnonzero(data == 10)
        starts, ends = np.r_[0, breaks + 1], np.r_[breaks, data.size]
        counts = np.bincount(np.searchsorted(breaks, np.flatnonzero(data == ord(delimiter))), minlength=starts.size) + 1
        candidates = np.flatnonzero(counts == 1)
        if candidates.size <= _MAX_BLANK_CANDIDATES:
            blank = [i for i in candidates if not text[starts[i] : ends[i]].strip()]
            kept = np.delete(np.arange(starts.size), blank)
            head = [text[starts[i] : ends[i]] for i in kept[:201]]
            trailing_newline_only = blank == [starts.size - 1] and starts[-1] == data.size
            body = text if not blank or trailing_newline_only else "\n".join(text[starts[i] : ends[i]] for i in kept)
            return _Layout(head, counts[kept], body)
    lines = [line for line in text.splitlines() if line.strip()]
    return _Layout(lines[:201], _field_counts(lines, delimiter, name), "\n".join(lines))


def read_before(raw: bytes, header: bool, name: str = "t.csv") -> pd.DataFrame:
    """The CSV part of ``read_table`` as it was before (StringIO of the body, ``layout_before``): the oracle."""
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if not raw.strip():
        raise RatedDataError(
            f"'{name}' is empty. Upload a CSV or Parquet file with a header row and one row per rated document."
        )
    _refuse_other_formats(raw, name)
    text = _decode(raw, name)
    first = [part for piece in text.split("\n", 1000)[:1000] for part in piece.splitlines() if part.strip()][:200]
    if not first:
        raise RatedDataError(f"'{name}' is empty. Upload a file with a header row and data rows.")
    delimiter = sniff_delimiter("\n".join(first))
    layout = layout_before(text, delimiter, name)
    _check_shape(layout, delimiter, name, header)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                io.StringIO(layout.body),
                sep=delimiter,
                header=0 if header else None,
                index_col=False,
                skipinitialspace=True,
                low_memory=False,
                decimal=_decimal(layout.head, delimiter),
                **EXACT_READ_CSV,
            )
    except (pd.errors.ParserError, pd.errors.ParserWarning, csv.Error) as exc:
        raise RatedDataError(
            f"'{name}' could not be parsed as '{delimiter}'-delimited text ({exc}). "
            "Check that every row has the same number of fields."
        ) from None
    if header:
        frame.columns = [str(c).strip() for c in frame.columns]
    if len(frame) == 0:
        raise RatedDataError(f"'{name}' has a header but no data rows. Add one row per rated document.")
    return frame


PLAIN_FIELDS = ["0.5", "1", "0", "-2", "", " ", "x", "a b", "north", "1e-3", "0,5"]
ODD_FIELDS = ['"a,b"', '"q""q"', '"', "\t", "é", "x\x0cy", "\x1d", "naïve", " 1 "]
BLANKS = ["", " ", "\t", "  \t "]


@st.composite
def csv_texts(draw):
    """Texts mostly shaped like tables (as many fields per line as the header), some with blanks or odd lines."""
    delimiter = draw(st.sampled_from([",", ";", "|", "\t"]))
    k = draw(st.integers(1, 4))
    fields = st.sampled_from(PLAIN_FIELDS + (ODD_FIELDS if draw(st.booleans()) else []))
    row = st.lists(fields, min_size=k, max_size=k)
    if draw(st.booleans()):  # lines with too few / too many fields, blank lines among the rows
        row = st.one_of(
            row, row, st.lists(fields, min_size=0, max_size=k + 2), st.sampled_from(BLANKS).map(lambda b: [b])
        )
    lines = [delimiter.join(r) for r in draw(st.lists(row, min_size=1, max_size=12))]
    lead = draw(st.lists(st.sampled_from(BLANKS), max_size=2))
    trail = draw(st.lists(st.sampled_from(BLANKS), max_size=2))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    end = draw(st.sampled_from(["", newline]))  # a last line without newline, or with one
    return newline.join(lead + lines + trail) + end, delimiter


@settings(max_examples=400, deadline=None)
@given(csv_texts())
def test_the_fast_layout_gives_the_layout_of_the_line_by_line_reading_and_the_one_before(case):
    text, delimiter = case
    kept = [line for line in text.splitlines() if line.strip()]
    before = layout_before(text, delimiter)
    encodings = [None, text.encode("ascii")] if text.isascii() else [None]
    for encoded in encodings:
        layout = _layout(text, delimiter, "t.csv", encoded)
        assert layout.head == before.head == kept[:201]
        assert layout.counts.dtype == before.counts.dtype
        assert layout.counts.tolist() == before.counts.tolist()
        if not any('"' in line for line in kept):  # quoted fields are counted by csv (and may be refused)
            assert layout.counts.tolist() == _field_counts(kept, delimiter, "t.csv").tolist()
        assert layout.body == before.body and layout.body in (text, "\n".join(kept))


def outcome(read):
    try:
        return read()
    except RatedDataError as exc:
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=300, deadline=None)
@given(csv_texts(), st.booleans(), st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16", "gzip"]))
def test_read_table_gives_the_frame_or_the_message_it_gave_before(case, header, encoding):
    text, _ = case
    try:
        raw = gzip.compress(text.encode()) if encoding == "gzip" else text.encode(encoding)
    except UnicodeEncodeError:
        return
    new = outcome(lambda: read_table(raw, header=header, name="t.csv").frame)
    old = outcome(lambda: read_before(raw, header))
    if isinstance(old, str):
        assert new == old
    else:
        assert not isinstance(new, str), new
        pd.testing.assert_frame_equal(new, old, check_exact=True)


@pytest.mark.parametrize(
    "text",
    [
        "score\n" + "0.5\n" * (_MAX_BLANK_CANDIDATES + 5),  # one column: every line a blank candidate
        "score,label\n" + "0.5,1\n\n" * (_MAX_BLANK_CANDIDATES + 5),  # more blank lines than are checked one by one
        "score,label\n" + "0.5,1\n" * 3000 + "0.5,1,2\n0.5\n" + "0.5,1\n" * 3000,  # one too many, one too few
        "score,label\n" + "0.5,1\n" * 3000 + "0.5;1\n0,5,1\n" + "0.5,1\n" * 3000 + "\n\n",  # as many delimiters in all
        "\n\nscore,label\n" + "0.5,1\n" * 3000,  # blank lines before the header
    ],
    ids=["one-column", "many-blank-lines", "few-and-many-fields", "delimiters-add-up", "leading-blank-lines"],
)
def test_long_texts_read_as_before(text):
    new, old = _layout(text, ","), layout_before(text, ",")
    assert (new.head, new.counts.tolist(), new.body) == (old.head, old.counts.tolist(), old.body)
    raw = text.encode()
    read_new, read_old = outcome(lambda: read_table(raw, name="t.csv").frame), outcome(lambda: read_before(raw, True))
    if isinstance(read_old, str):
        assert read_new == read_old
    else:
        pd.testing.assert_frame_equal(read_new, read_old, check_exact=True)
