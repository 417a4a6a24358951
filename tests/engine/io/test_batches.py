"""Probability batches: detection, validation messages, the shipped sample."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import BatchDataError, InputError
from engine.io import BatchMapping, batches_from_frame, detect_batch_columns, load_batches, sample_path
from engine.io._batches import MAX_BATCH_SIZE


def test_detects_probability_batch_item_and_label_columns():
    frame = pd.DataFrame(
        {
            "client_id": ["a", "b", "c"],
            "day": ["mon", "mon", "tue"],
            "p_fraud": [0.1, 0.9, 0.4],
            "outcome": ["yes", "no", ""],
        }
    )
    m = detect_batch_columns(frame)
    assert m == BatchMapping("p_fraud", "day", "client_id", "outcome")
    b = batches_from_frame(frame, m)
    assert b.batch_names == ("mon", "tue")
    assert list(b.rows_of("mon")) == [0, 1]
    assert list(b.labels) == [1, 0, -1]
    assert b.n_labelled == 2 and "1 items have no label" in b.warnings[0]


def test_a_zero_one_label_column_is_not_taken_for_the_probability():
    frame = pd.DataFrame({"y": [1, 0, 1], "eta": [0.2, 0.3, 0.9]})
    assert detect_batch_columns(frame).probability_col == "eta"
    frame = pd.DataFrame({"hit": [1, 0, 1], "model_score": [0.2, 0.3, 0.9]})
    m = detect_batch_columns(frame)
    assert (m.probability_col, m.label_col) == ("model_score", "hit")


def test_no_batch_column_is_one_batch():
    b = batches_from_frame(pd.DataFrame({"prob": [0.5, 0.2]}))
    assert b.batch_names == ("all",) and b.labels is None


@pytest.mark.parametrize("values, rows", [([0.2, 1.5, -0.1], "rows 2, 3"), ([0.2, None, 0.4], "row 2")])
def test_bad_probabilities_name_column_and_rows(values, rows):
    with pytest.raises(BatchDataError, match=f"Probability column 'prob'.*{rows}"):
        batches_from_frame(pd.DataFrame({"prob": values}))


def test_text_probability_names_the_values():
    with pytest.raises(InputError, match="non-numeric values 'high'"):
        batches_from_frame(pd.DataFrame({"prob": ["0.2", "high"]}), BatchMapping("prob"))


def test_missing_batch_ids_and_unknown_columns():
    with pytest.raises(BatchDataError, match="Batch column 'batch': no batch id at row 2"):
        batches_from_frame(pd.DataFrame({"prob": [0.1, 0.2], "batch": ["a", " "]}))
    with pytest.raises(BatchDataError, match="No column named 'nope' for the batch"):
        detect_batch_columns(pd.DataFrame({"prob": [0.1]}), batch_col="nope")
    with pytest.raises(BatchDataError, match="No column holds probabilities"):
        detect_batch_columns(pd.DataFrame({"x": [3.0, 4.0]}))


def test_too_large_batch_asks_for_a_batch_column():
    frame = pd.DataFrame({"prob": np.full(MAX_BATCH_SIZE + 1, 0.5)})
    with pytest.raises(BatchDataError, match="no batch column: one batch.*batch column"):
        batches_from_frame(frame)


def test_shipped_sample():
    b = load_batches(sample_path("bank_batches"))
    assert b.n_items == 11_303 and len(b.batch_names) == 23 and b.n_labelled == 11_303
    assert b.mapping == BatchMapping("probability", "batch", "client_id", "subscribed")
    assert b.probabilities.min() > 0 and b.probabilities.max() < 1
