"""Constrained training page: constraints from the form, results table, infeasibility, Adult."""

import json

import numpy as np
import pytest

from engine.constraints import goal_values
from tests.app.conftest import download_buttons, shown

PAGE = "views/constraints.py"
LOADED = {"cons_source": "Loaded data set (scores as features)"}


def results(at):
    return at.dataframe[0].value


def test_loaded_data_with_group_constraints(app, served):
    at = app(query=LOADED, page=PAGE)
    at.checkbox(key="cov_max_on").check().run()
    at.slider(key="cov_max").set_value(0.05).run()
    at.button(key="train_constrained").click().run()
    assert not at.exception and not at.error
    table = results(at)
    randomised = table[table["predictions"] == "randomised (expected)"]
    assert randomised.dropna(subset=["met on train"])["met on train"].all()
    record = json.loads(served(download_buttons(at)["Download results (JSON)"]))
    assert len(record["coefficients"]) == 2 and record["trace"]
    objectives = [row["objective"] for row in record["trace"]]
    assert all(b <= a + 1e-12 for a, b in zip(objectives, objectives[1:]))
    assert len(at.get("plotly_chart")) == 1


def test_infeasible_constraints_show_the_message(app):
    at = app(query=LOADED, page=PAGE)
    for key in ("cov_max_on", "cov_min_on"):
        at.checkbox(key=key).check().run()
    at.slider(key="cov_max").set_value(0.05).run()
    at.slider(key="cov_min").set_value(0.5).run()
    at.button(key="train_constrained").click().run()
    assert not at.exception
    assert "No feasible starting point" in shown(at.error)


def test_data_without_groups_explains_what_is_needed(app):
    at = app(page="views/data.py")
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("x.csv", b"s,label\n0.1,1\n0.5,0\n0.3,1\n", "text/csv")).run()
    at.query_params["cons_source"] = LOADED["cons_source"]
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "no group column" in shown(at.info)


def test_adult_demographic_parity(app):
    at = app(page=PAGE)
    at.button(key="train_constrained").click().run()
    assert not at.exception and not at.error
    table = results(at)
    rows = table[(table["predictions"] == "randomised (expected)") & table["goal"].str.startswith("demographic")]
    assert rows["train"].iloc[0] >= 0.8 - 1e-6


def test_goal_values_for_decisions_and_probabilities():
    y = np.array([1, 0, 1, 0])
    g = np.array([True, True, False, False])
    d = np.array([1.0, 0.0, 1.0, 1.0])
    assert goal_values("demographic parity ratio", d, y, g) == pytest.approx(0.5)
    assert goal_values("churn", d, y, deployed=np.array([1, 1, 0, 0])) == pytest.approx(0.75)
    p = np.array([0.5, 0.5, 0.5, 0.5])
    assert goal_values("error", p, y) == pytest.approx(0.5)
