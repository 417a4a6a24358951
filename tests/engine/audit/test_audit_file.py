"""Reading a reviewed audit: the plan's columns, labels, unreviewed documents and every refusal."""

import io

import numpy as np
import pandas as pd
import pytest

from engine.audit import load_audit
from engine.audit._audit_file import audit_from_frame
from engine.errors import InputError


def reviewed_plan():
    return pd.DataFrame(
        {
            "id": [1, 2, 3, 4, 5, 6],
            "score": [0.05, 0.08, 0.2, 0.25, 0.4, 0.45],
            "stratum": [1, 1, 2, 2, 3, 3],
            "stratum_lower": [0.0, 0.0, 0.1, 0.1, 0.3, 0.3],
            "stratum_upper": [0.1, 0.1, 0.3, 0.3, 0.5, 0.5],
            "stratum_documents": [1000, 1000, 300, 300, 40, 40],
            "stratum_sample": [2, 2, 2, 2, 2, 2],
            "inclusion_probability": [0.002, 0.002, 2 / 300, 2 / 300, 0.05, 0.05],
            "weight": [500, 500, 150, 150, 20, 20],
            "label": ["no", "0", "tp", "", "1", "YES"],
        }
    )


def test_a_reviewed_plan_is_read_with_its_design():
    audit = audit_from_frame(reviewed_plan(), name="audit.csv")
    assert audit.review_threshold == 0.5
    assert audit.documents.tolist() == [1000, 300, 40] and audit.planned.tolist() == [2, 2, 2]
    assert audit.reviewed.tolist() == [2, 1, 2] and audit.positives.tolist() == [0, 1, 2]
    w = audit.weights
    assert w[2] == 300 and np.isnan(w[3]) and w[0] == 500
    assert len(audit.warnings) == 1 and "Stratum 2" in audit.warnings[0] and "not reviewed" in audit.warnings[0]


def test_extra_columns_and_column_order_do_not_matter_and_csv_bytes_load():
    frame = reviewed_plan()
    frame = frame[frame.columns[::-1]].assign(note="checked")
    audit = load_audit(frame.to_csv(index=False).encode())
    assert audit.positives.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda f: f.drop(columns="weight"), "no column 'weight'"),
        (lambda f: f.assign(label=["no", "0", "maybe", "", "1", "1"]), "unknown label values"),
        (lambda f: f.assign(id=[1, 1, 3, 4, 5, 6]), "ids repeated"),
        (lambda f: f.assign(score=[0.05, 0.08, 0.2, 0.25, 0.4, 0.55]), "outside their stratum"),
        (lambda f: f.assign(stratum_documents=[1000, 999, 300, 300, 40, 40]), "differs within a stratum"),
        (lambda f: f.assign(stratum_sample=[1, 1, 2, 2, 2, 2]), "'inclusion_probability' of 'audit.csv' at rows 1, 2"),
        (
            lambda f: f.assign(
                stratum_sample=[1, 1, 2, 2, 2, 2],
                inclusion_probability=[1e-3] * 2 + [2 / 300] * 2 + [0.05] * 2,
                weight=[1000] * 2 + [150] * 2 + [20] * 2,
            ),
            "lists 2 documents but its plan drew 1",
        ),
        (lambda f: f.assign(weight=[500, 500, 150, 150, 20, 21]), "Column 'weight' of 'audit.csv' at row 6"),
        (lambda f: f.assign(stratum=[10, 10, 20, 20, 30, 30]), "strata are numbered 10, 20, 30"),
        (lambda f: f.assign(stratum=[3, 3, 2, 2, 1, 1]), "stratum 3 holds the lowest scores"),
        (lambda f: f.assign(stratum=[1, 1, 3, 3, 4, 4]), "stratum 2 has no row"),
        (lambda f: f.assign(stratum_upper=[0.1, 0.1, 0.35, 0.35, 0.5, 0.5]), "stratum 2 spans"),
        (lambda f: f.assign(stratum_documents=[1.5] * 2 + [300] * 2 + [40] * 2), "not whole numbers"),
        (
            lambda f: f.assign(stratum_documents=[9e18] * 2 + [300] * 2 + [40] * 2),
            r"not whole numbers from 1 to 2\*\*53",
        ),
        (lambda f: f.assign(label=["", "", "tp", "", "1", "1"]), "stratum 1 has no reviewed document"),
        (lambda f: f.assign(stratum_lower=["0", "0", "x", "x", "0.3", "0.3"]), "non-numeric"),
        (lambda f: f.iloc[:0], "no audited documents"),
    ],
)
def test_a_broken_audit_is_refused_with_the_column_and_the_fix(edit, message):
    with pytest.raises(InputError, match=message):
        audit_from_frame(edit(reviewed_plan()), name="audit.csv")


def test_rows_removed_from_the_file_are_reported_as_unreviewed():
    audit = audit_from_frame(reviewed_plan().drop(index=3))
    assert audit.reviewed.tolist() == [2, 1, 2]
    assert "1 rows removed from the file" in audit.warnings[0]


def test_a_file_that_is_not_a_table_is_an_input_error():
    with pytest.raises(InputError):
        load_audit(io.BytesIO(b"\x00\x01\x02 not a table"))
