"""Guessing a population's columns, and an audit plan recognised as a reviewed audit among uploads."""

import pandas as pd
import pytest

from engine.audit import PLAN_COLUMNS, PopulationColumns, detect_population_columns
from engine.errors import InputError
from engine.io import Table, guess_kind, sample_path


@pytest.mark.parametrize(
    "columns,expected",
    [
        (["doc_id", "score", "known_label"], PopulationColumns("doc_id", "score")),
        (["id", "model_score", "prior"], PopulationColumns("id", "model_score", "prior")),
        (["label", "account_id", "value"], PopulationColumns("account_id", "value")),  # a label is never the score
        (["customer_id", "prob", "risk_score"], PopulationColumns("customer_id", "risk_score", "prob")),
    ],
)
def test_the_id_score_and_prior_are_found_by_name(columns, expected):
    frame = pd.DataFrame({c: [1, 2, 3] if c.endswith("id") else [0.1, 0.5, 0.2] for c in columns})
    assert detect_population_columns(frame) == expected


def test_the_score_is_the_first_numeric_column_when_none_is_named_so():
    frame = pd.DataFrame({"doc": ["a", "b"], "region": ["n", "s"], "p_model": [0.3, 0.1]})
    assert detect_population_columns(frame) == PopulationColumns("doc", "p_model")


def test_given_columns_are_kept_and_checked():
    frame = pd.DataFrame({"doc_id": [1], "a": [0.2], "b": [0.5]})
    assert detect_population_columns(frame, score="b", prior="b") == PopulationColumns("doc_id", "b", "b")
    with pytest.raises(InputError, match="The score column 'c' is not in the file. Columns are: doc_id, a, b"):
        detect_population_columns(frame, score="c")


@pytest.mark.parametrize(
    "frame,message",
    [
        (pd.DataFrame({"score": [0.1], "x": [1]}), "No id column found"),
        (pd.DataFrame({"doc_id": [1], "label": [1], "name": ["x"]}), "No score column found"),
    ],
)
def test_missing_roles_are_input_errors(frame, message):
    with pytest.raises(InputError, match=message):
        detect_population_columns(frame)


def test_the_shipped_population_is_detected():
    frame = pd.read_csv(sample_path("satimage_population"))
    assert detect_population_columns(frame) == PopulationColumns("doc_id", "score")


def test_an_upload_with_the_plan_columns_is_guessed_as_a_reviewed_audit():
    raw = sample_path("satimage_audit").read_bytes()
    frame = pd.read_csv(sample_path("satimage_audit"))
    assert list(frame.columns) == list(PLAN_COLUMNS)
    assert guess_kind(raw, Table(frame, "a.csv", "", "csv")) == "audit"
    population = pd.read_csv(sample_path("satimage_population"))
    assert guess_kind(b"", Table(population, "p.csv", "", "csv")) == "rated"  # no guess: the user chooses
