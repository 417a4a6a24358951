"""Batch decisions page: train on a public set, decide a batch, compare with baselines, Monte Carlo."""

import io

import numpy as np
import pandas as pd

from engine.io import load_rated, sample_path
from engine.setloss import optimal_decision
from tests.app.conftest import download_buttons, shown

PAGE = "views/batch_decisions.py"


def cards(at):
    return {m.label: m.value for m in at.main.metric}


def test_train_decide_and_compare(app, served):
    at = app(query={"batch_dataset": "breast_cancer"}, page=PAGE)
    assert "Train the model" in shown(at.info)
    at.button(key="train_batch_model").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    decisions = pd.read_csv(io.BytesIO(served(download_buttons(at)["Download the decisions (CSV)"])))
    k = int(cards(at)["Items to flag (k)"].split(" of ")[0])
    assert decisions["flag"].sum() == k
    # the flagged items are the k most probable, and the decision is the engine's
    assert decisions["probability"].iloc[:k].min() >= decisions["probability"].iloc[k:].max()
    assert optimal_decision(decisions["probability"].to_numpy(), "f1").k == k
    at.button(key="run_baselines").click().run()
    assert not at.exception
    summary = at.dataframe[-1].value
    assert list(summary["method"])[-1] == "expected-loss-optimal top-k"
    assert len(at.get("plotly_chart")) == 3


def test_loaded_column_with_a_named_loss_from_the_url(app):
    at = app(query={"batch_source": "A column of the loaded data set", "batch_column": "score_text",
                    "loss": "jaccard", "batch_size": "200", "batch_index": "3"}, page=PAGE)
    assert not at.exception
    data = load_rated(sample_path("synthetic"))
    perm = np.random.default_rng(0).permutation(data.n_rated)
    eta = data.column("score_text")[perm[400:600]]
    d = optimal_decision(eta, "jaccard")
    assert cards(at)["Items to flag (k)"] == f"{d.k:,} of 200"
    at.button(key="run_mc").click().run()
    assert "consistent" in " ".join(m.value for m in at.markdown)


def test_custom_linear_fractional_loss_equals_f1_by_default(app):
    at = app(query={"batch_source": "A column of the loaded data set"}, page=PAGE)
    f1 = cards(at)["Items to flag (k)"]
    at.selectbox(key="loss").set_value("custom").run()
    assert cards(at)["Items to flag (k)"] == f1
    at.number_input(key="den_TP").set_value(0.0).run()
    at.number_input(key="den_FP").set_value(0.0).run()
    at.number_input(key="den_FN").set_value(0.0).run()
    assert "non-zero coefficient" in shown(at.error)
    assert not at.exception


def test_scores_outside_zero_one_are_refused(app):
    at = app(page="views/data.py")
    at.radio(key="data_source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("raw.csv", b"margin,label\n-2.5,0\n1.5,1\n0.3,0\n", "text/csv")).run()
    at.switch_page(PAGE).run()
    at.radio(key="batch_source").set_value("A column of the loaded data set").run()
    assert not at.exception
    assert "outside [0, 1]" in shown(at.error)
