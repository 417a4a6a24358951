"""The operating point report: the decision in money when the target came from money."""

import json

import numpy as np
import pytest

from engine.io import rated_from_frame
from engine.pn import Economics, operating_point
from engine.pn.display import operating_point_report


@pytest.fixture
def data():
    import pandas as pd

    rng = np.random.default_rng(5)
    score = rng.uniform(size=3000).round(3)
    return rated_from_frame(
        pd.DataFrame({"score": score, "label": (rng.uniform(size=score.size) < score).astype(int)}), name="r.csv"
    )


def test_money_states_the_decision_in_money(data):
    e = Economics(3.0, 10.0, 1.0)
    op = operating_point(data.column("score"), data.labels, e.target)
    html, text = operating_point_report(data, "score", op, {"target": e.target}, economics=e, currency="€")
    money = json.loads(text)["money"]
    # the oracle: value caught, review cost and false-positive cost counted by hand
    assert money["target"] == pytest.approx(4 / 11)
    assert money["value_caught"] == pytest.approx(10 * op.tp)
    assert money["net_value"] == pytest.approx(10 * op.tp - 3 * (op.tp + op.fp) - 1 * op.fp)
    assert money["last_document_value"] == pytest.approx(op.mp_above * 10 - 3 - (1 - op.mp_above) * 1)
    assert "break-even marginal precision" in html and f"€{10 * op.tp:,.0f}" in html


def test_without_money_the_record_has_no_money(data):
    op = operating_point(data.column("score"), data.labels, 0.3)
    _, text = operating_point_report(data, "score", op, {"target": 0.3})
    assert "money" not in json.loads(text)
