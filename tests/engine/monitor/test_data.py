"""Reading rated data with dates: detection, parsing, and every bad date named by its row."""

import io

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError, RatedDataError
from engine.io._rated import detect_date_column, parse_dates
from engine.monitor import DatedMapping, baseline_threshold, dated_from_frame, detect_dated, load_dated


def _csv(text: str) -> bytes:
    return text.strip().encode() + b"\n"


def test_load_dated_keeps_the_dates_of_rated_rows():
    data = load_dated(
        _csv("""
doc_id,date,score,label
1,2025-01-06,0.9,1
2,2025-01-07 10:30,0.4,
3,2025-01-08T23:59:00Z,0.2,0
""")
    )
    assert data.classifier == "score" and data.date_col == "date"
    assert data.dates.tolist() == [np.datetime64("2025-01-06"), np.datetime64("2025-01-08")]
    assert data.data.n_unrated == 1 and data.days == 3
    assert data.counts("day").n_periods == 3


def test_bad_and_missing_dates_are_named_by_row():
    with pytest.raises(RatedDataError, match=r"not dates '06/01/2025', '2025-13-01' at rows 2, 3 .*YYYY-MM-DD"):
        load_dated(_csv("date,score,label\n2025-01-06,0.5,1\n06/01/2025,0.4,0\n2025-13-01,0.3,1"))
    with pytest.raises(RatedDataError, match="missing dates on rated row 2"):
        load_dated(_csv("date,score,label\n2025-01-06,0.5,1\n,0.4,0\n,0.3,"))
    with pytest.raises(RatedDataError, match="holds numbers, not dates"):
        parse_dates(pd.Series([20250106, 20250107]), "day")
    with pytest.raises(RatedDataError, match="No date column"):
        load_dated(_csv("when,score,label\n2025-01-06,0.5,1"))
    with pytest.raises(RatedDataError, match="looks like a weight"):
        load_dated(_csv("date,score,label,weight\n2025-01-06,0.5,1,2"))


def test_date_columns_are_detected_by_type_then_name():
    frame = pd.DataFrame({"score": [0.1], "rated_at": ["2025-01-06"], "label": [1]})
    assert detect_date_column(frame) == "rated_at"
    frame["stamp"] = pd.to_datetime(["2025-01-06"])
    assert detect_date_column(frame) == "stamp"
    with pytest.raises(RatedDataError, match="'nope' is not in the file"):
        detect_date_column(frame, "nope")


def test_parquet_timestamps_and_time_zones():
    frame = pd.DataFrame(
        {
            "score": [0.9, 0.1],
            "label": [1, 0],
            "date": pd.to_datetime(["2025-01-06 23:30", "2025-01-07 01:00"])
            .tz_localize("UTC")
            .tz_convert("America/New_York"),
        }
    )
    buf = io.BytesIO()
    frame.to_parquet(buf)
    data = load_dated(buf.getvalue(), classifier="score")
    assert data.dates.tolist() == [np.datetime64("2025-01-06"), np.datetime64("2025-01-07")]  # days in UTC


@pytest.mark.slow
def test_hostile_files_give_a_result_or_an_input_error():
    """The fuzz corpus (tests/fuzz/corpus.py), each file also with a date column added where it parses as a table."""
    from engine.errors import InputError
    from engine.io import read_table
    from tests.fuzz.corpus import corpus

    for name, raw in corpus().items():
        try:
            load_dated(raw)
        except InputError as exc:
            assert str(exc) and "Traceback" not in str(exc), name
        try:
            frame = read_table(raw, name=name).frame
        except InputError:
            continue
        frame = frame.assign(date=["2025-01-06", "garbage"][: len(frame)] + ["2025-01-07"] * max(0, len(frame) - 2))
        buf = io.BytesIO()
        frame.astype(str).to_csv(buf, index=False)
        try:
            load_dated(buf.getvalue())
        except InputError as exc:
            assert str(exc), name


def test_a_mapping_given_for_a_frame_reads_the_same_as_the_file():
    raw = _csv(
        "rated_on,model,other,verdict,shop\n2025-01-06,0.9,0.1,yes,a\n2025-01-07,0.4,0.2,no,b\n2025-01-09,0.3,0.3,,a"
    )
    frame = pd.read_csv(io.BytesIO(raw))
    mapping = DatedMapping("other", "rated_on", "verdict", "shop")
    data = dated_from_frame(frame, mapping, name="x.csv")
    assert data.mapping == mapping and data.classifier == "other"
    assert data.scores.tolist() == [0.1, 0.2] and data.dates.tolist() == [
        np.datetime64("2025-01-06"),
        np.datetime64("2025-01-07"),
    ]
    assert detect_dated(frame, classifier="other", date_col="rated_on", group_col="shop") == mapping
    same = load_dated(raw, classifier="other", date_col="rated_on", group_col="shop")
    assert same.scores.tolist() == data.scores.tolist() and same.mapping == mapping
    with pytest.raises(RatedDataError, match="both the date and another role"):
        dated_from_frame(frame, DatedMapping("model", "verdict", "verdict"))


def test_baseline_threshold_is_the_operating_point_of_the_first_days():
    rng = np.random.default_rng(3)
    days = np.datetime64("2025-01-01") + rng.integers(0, 200, 5000).astype("timedelta64[D]")
    scores = rng.uniform(size=days.size).round(3)
    labels = (rng.uniform(size=days.size) < scores).astype(int)
    frame = pd.DataFrame({"date": days.astype(str), "score": scores, "label": labels})
    data = dated_from_frame(frame)
    first = days < np.datetime64("2025-01-01") + np.timedelta64(91, "D")
    # the oracle: the highest threshold whose TP − λ·FP is largest, by brute force over the distinct scores
    lam = 0.3 / 0.7
    s, y = scores[first], labels[first]
    candidates = np.unique(s)
    value = [(y[s >= t] - lam * (1 - y[s >= t])).sum() for t in candidates]
    best = candidates[np.flatnonzero(np.isclose(value, max(value)))].max()
    assert baseline_threshold(data, 0.3) == pytest.approx(best)
    with pytest.raises(InputError, match="days must be a whole number >= 1, got 0"):
        baseline_threshold(data, 0.3, days=0)
