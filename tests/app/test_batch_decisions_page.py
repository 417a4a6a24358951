"""Batch decisions page: the shipped probability batches, a user's file, a model trained here, baselines."""

import io

import pandas as pd
import pytest

import engine.setloss
from engine.io import load_batches, sample_path
from engine.setloss import decide_batches, optimal_decision
from tests.app.conftest import download_buttons, shown, upload_input

PAGE = "pages/batch_decisions.py"
TRAINED = "A model trained here on a public data set"


def cards(at):
    return {m.label: m.value for m in at.main.metric}


@pytest.mark.slow
def test_shipped_batches_by_default_and_every_batch_downloaded(app, served):
    at = app(page=PAGE)
    batches = load_batches(sample_path("bank_batches"))
    first = batches.rows_of(batches.batch_names[0])
    k = optimal_decision(batches.probabilities[first], "f1").k
    assert cards(at)["Items to flag (k)"] == f"{k:,} of {first.size:,}"
    at.button(key="run_all_batches").click().run()
    assert not at.exception
    got = pd.read_csv(io.BytesIO(served(download_buttons(at)["Download every decision (CSV)"])))
    expected = decide_batches(batches, "f1").decisions
    assert len(got) == batches.n_items == 11_303
    assert list(got["client_id"]) == list(expected["client_id"])  # input order
    assert (got["decision"].to_numpy() == expected["decision"].to_numpy()).all()
    assert got.groupby("batch")["decision"].sum().equals(got.groupby("batch")["k"].first())


def test_monte_carlo_check_says_consistent(app):
    at = app(query={"loss": "jaccard"}, page=PAGE)
    at.button(key="run_mc").click().run()
    sentence = " ".join(m.value for m in at.markdown if "Simulated mean loss" in m.value)
    assert sentence.endswith(": consistent.")


def test_a_rerun_hits_the_memo_for_every_named_loss(app, monkeypatch, fresh_server_cache):
    calls = []
    original = engine.setloss.decide_batch

    def counting(eta, loss):
        calls.append(loss.name)
        return original(eta, loss)

    monkeypatch.setattr(engine.setloss, "decide_batch", counting)
    at = app(page=PAGE)
    assert calls == ["F1"]
    at.run()
    at.selectbox(key="loss").set_value("am").run()
    at.selectbox(key="loss").set_value("f1").run()
    at.selectbox(key="loss").set_value("am").run()
    assert not at.exception
    assert calls == ["F1", "AM"]


def test_own_file_without_batch_column_is_one_batch_with_labels(app, served):
    rows = "\n".join(
        f"{i},{p:.3f},{y}"
        for i, (p, y) in enumerate(
            [(0.9, "yes"), (0.8, "no"), (0.45, "yes"), (0.3, ""), (0.2, "no"), (0.65, "yes")] * 5
        )
    )
    at = upload_input(app(), "mine.csv", f"id,prob,outcome\n{rows}\n".encode(), kind="batches")
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception
    assert cards(at)["Items to flag (k)"].endswith("of 30")
    at.button(key="run_baselines").click().run()
    assert not at.exception
    assert list(at.dataframe[-1].value["Method"])[-1] == "expected-loss-optimal top-k"


def test_probabilities_outside_zero_one_are_refused_with_rows(app):
    at = upload_input(app(), "raw.csv", b"probability,batch\n-2.5,a\n1.5,a\n0.3,b\n", kind="batches")
    assert not at.exception
    text = shown(at.error)
    assert "Probability column 'probability'" in text and "rows 1, 2" in text


def test_trained_model_batches_and_baselines(app, served):
    at = app(query={"batch_source": TRAINED, "batch_dataset": "breast_cancer"}, page=PAGE)
    assert "Train the model" in shown(at.info)
    at.button(key="train_batch_model").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    decisions = pd.read_csv(io.BytesIO(served(download_buttons(at)["Download this batch's decisions (CSV)"])))
    k = int(cards(at)["Items to flag (k)"].split(" of ")[0])
    assert decisions["flag"].sum() == k
    assert decisions["probability"].iloc[:k].min() >= decisions["probability"].iloc[k:].max()
    assert optimal_decision(decisions["probability"].to_numpy(), "f1").k == k
    at.button(key="run_baselines").click().run()
    assert not at.exception
    assert list(at.dataframe[-1].value["Method"])[-1] == "expected-loss-optimal top-k"
    assert len(at.get("plotly_chart")) == 3


def test_custom_linear_fractional_loss_equals_f1_by_default(app):
    at = app(page=PAGE)
    f1 = cards(at)["Items to flag (k)"]
    at.selectbox(key="loss").set_value("custom").run()
    assert cards(at)["Items to flag (k)"] == f1
    at.number_input(key="den_constant").set_value(-1.0).run()  # 2TP / (2TP + FP + FN - 1) is 2 / 1 at TP = 1
    assert "is not a score between 0 and 1: it is 2 / 1 for a batch of one item that is a TP" in shown(at.error)
    assert not at.exception
    at.number_input(key="den_constant").set_value(0.0).run()
    for term in ("TP", "FP", "FN"):
        at.number_input(key=f"den_{term}").set_value(0.0).run()
    assert "non-zero coefficient" in shown(at.error)
    assert not at.exception
