"""The input-kind registry: every kind well formed, a shipped sample per tabular kind, and an upload's kind guessed."""

import pandas as pd
import pytest

from engine.io import INPUT_KINDS, SAMPLES, Table, guess_kind, read_table, sample_path


@pytest.mark.parametrize("key", list(INPUT_KINDS))
def test_every_kind_is_well_formed(key):
    kind = INPUT_KINDS[key]
    assert kind.key == key
    assert all(isinstance(v, str) and v for v in (kind.title, kind.what, kind.example))
    assert isinstance(kind.tabular, bool)


def test_every_sample_is_of_a_known_kind_and_its_companion_is_rated_data():
    for sample in SAMPLES.values():
        assert sample.kind is None or sample.kind in INPUT_KINDS
        assert sample.companion is None or SAMPLES[sample.companion].kind == "rated"
    assert SAMPLES["satimage_audit"].companion == "satimage_rated"


def table_of(frame: pd.DataFrame, name: str = "upload.csv") -> Table:
    return Table(frame, name, "", "csv")


def csv_guess(text: str) -> str:
    raw = text.encode()
    return guess_kind(raw, read_table(raw, name="upload.csv"))


@pytest.mark.parametrize("key", [k for k, s in SAMPLES.items() if s.kind is not None])
def test_the_shipped_samples_are_guessed_as_their_kind(key):
    raw = sample_path(key).read_bytes()
    table = read_table(raw, name=sample_path(key).name) if INPUT_KINDS[SAMPLES[key].kind].tabular else None
    # a population whose labels are all known (the satimage sample's known_label) has a verdict column: ambiguous,
    # taken for rated data (the user chooses the kind); every other sample is guessed as what it is
    expected = "rated" if key == "satimage_population" else SAMPLES[key].kind
    assert guess_kind(raw, table) == expected


@pytest.mark.parametrize(
    "text,kind",
    [
        # a plain scored population, as users export one: every document, no verdict
        ("doc_id,fraud_score\n1,0.91\n2,0.12\n3,0.47\n4,0.03\n", "population"),
        ("account_id,risk,prior\nA1,0.5,0.4\nA2,0.1,0.05\nA3,0.9,0.8\n", "population"),
        ("id;score\n17;0,83\n942;0,02\n", "population"),  # a semicolon file with decimal commas
        ("doc_id,score,probability\n1,0.9,0.7\n2,0.1,0.05\n", "population"),  # a probability beside a score: a prior
        # dated ratings: a verdict and the day it was given
        ("doc_id,rated_on,fraud_score,verdict\n1,2025-01-06,0.9,yes\n2,2025-01-07,0.4,no\n3,,0.3,\n", "dated"),
        ("id,date,score,label,region\n1,2025-01-06 10:00,0.9,1,north\n2,2025-01-06T11:00:00Z,0.2,0,south\n", "dated"),
        # rated data: a day of the month is not a date, a free-text note is not a training table
        ("row,score,label,day\n1,0.9,1,5\n2,0.4,0,6\n", "rated"),
        ("doc_id,score_a,score_b,label,note\n1,0.9,0.2,tp,checked\n2,0.4,0.8,fp,\n", "rated"),
        ("score,label\n0.9,1\n0.4,0\n", "rated"),
        # probability batches, with or without a label
        ("item_id,batch,probability\nA-17,mon,0.91\nA-18,mon,0.12\n", "batches"),
        ("t1,t2,tp,fp\n0.1,0.1,120,4000\n0.5,0.5,41,310\n", "counts"),
        # a training table: categories and a label
        (
            "age,workclass,education,occupation,label\n39,State-gov,Bachelors,Adm-clerical,0\n50,Private,HS,Exec,1\n",
            "training_table",
        ),
    ],
)
def test_files_shaped_like_users_files_are_guessed_right(text, kind):
    assert csv_guess(text) == kind


def test_a_date_typed_column_makes_dated_ratings():
    frame = pd.DataFrame(
        {"rated_at": pd.to_datetime(["2025-01-06", "2025-01-07"]), "score": [0.9, 0.2], "label": [1, 0]}
    )
    assert guess_kind(b"", table_of(frame)) == "dated"
    assert guess_kind(b"", table_of(frame.drop(columns="label"))) == "rated"  # no verdict: not ratings at all
