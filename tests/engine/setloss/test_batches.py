"""Deciding probability batches: per-batch optimality, input order, the threshold-0.5 comparison."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.io import batches_from_frame
from engine.setloss import (
    THRESHOLD_HALF,
    batches_from_split,
    decide_batch,
    decide_batches,
    decided_items,
    expected_losses,
    get_loss,
    labelled_split,
    monte_carlo_check,
    optimal_decision,
    scored_split_from_arrays,
)


@pytest.fixture
def batches():
    rng = np.random.default_rng(3)
    n = 90
    frame = pd.DataFrame({"id": [f"i{i}" for i in range(n)], "batch": rng.choice(["b", "a", "c"], n),
                          "prob": rng.random(n).round(3), "y": np.where(rng.random(n) < 0.4, "1", "0")})
    frame.loc[[3, 7], "y"] = ""
    return batches_from_frame(frame)


def test_each_batch_gets_its_own_optimal_k_in_input_order(batches):
    result = decide_batches(batches, "jaccard")
    assert len(result.decisions) == batches.n_items
    assert list(result.decisions["id"]) == list(batches.item_ids)
    for name in batches.batch_names:
        rows = batches.rows_of(name)
        best = optimal_decision(batches.probabilities[rows], "jaccard")
        assert (result.decisions["decision"].to_numpy()[rows] == best.mask).all()
        assert set(result.decisions["k"].to_numpy()[rows]) == {best.k}
    assert list(result.summary["batch"]) == list(pd.unique(batches.batch_ids))  # order of first appearance


def test_threshold_half_and_realised_losses(batches):
    loss = get_loss("f1")
    summary = decide_batches(batches, loss).summary.set_index("batch")
    for name in batches.batch_names:
        rows = batches.rows_of(name)
        eta, y = batches.probabilities[rows], batches.labels[rows]
        k_half = int((eta >= THRESHOLD_HALF).sum())
        assert summary.loc[name, "k at η ≥ 0.5"] == k_half
        assert summary.loc[name, "expected loss at η ≥ 0.5"] == pytest.approx(expected_losses(eta, loss)[k_half])
        flag = eta >= THRESHOLD_HALF
        known = y >= 0
        tp = int((flag & (y == 1) & known).sum())
        fp = int((flag & (y == 0) & known).sum())
        fn = int((~flag & (y == 1) & known).sum())
        assert summary.loc[name, "realised loss at η ≥ 0.5"] == pytest.approx(1 - 2 * tp / (2 * tp + fp + fn))
        assert summary.loc[name, "expected loss"] <= summary.loc[name, "expected loss at η ≥ 0.5"] + 1e-12


def test_outcome_early_stop_matches_the_recomputed_one():
    eta = np.array([0.96, 0.43, 0.41])
    outcome = decide_batch(eta, "f1")
    assert outcome.decision.k == 3 and outcome.early.k == optimal_decision(eta, "f1", early_stop=True).k == 1
    assert outcome.saving == pytest.approx(outcome.loss_threshold_half - outcome.decision.value)


def test_decided_items_are_sorted_and_flagged(batches):
    d = optimal_decision(batches.probabilities[batches.rows_of("a")], "am")
    table = decided_items(batches, "a", d)
    assert table["probability"].is_monotonic_decreasing
    assert table["flag"].sum() == d.k and table["flag"].iloc[:d.k].all()


def test_monte_carlo_check_is_consistent_and_detects_a_wrong_exact_value():
    eta = np.random.default_rng(1).random(40)
    d = optimal_decision(eta, "gmean")
    assert monte_carlo_check(eta, d, "gmean", draws=20_000).consistent
    wrong = type(d)(d.k, d.mask, d.order, d.losses, d.value + 0.05, d.loss_name, False)
    check = monte_carlo_check(eta, wrong, "gmean", draws=20_000)
    assert not check.consistent and check.sentence.endswith("inconsistent.")


def test_split_batches_and_labelled_split(batches):
    split = scored_split_from_arrays(np.linspace(0, 1, 25), np.arange(25) % 2)
    b = batches_from_split(split, 4)
    assert b.n_items == 12 and len(b.batch_names) == 3
    with pytest.raises(InputError):
        batches_from_split(split, 100)
    s = labelled_split(batches)
    assert s.eta_val.size + s.eta_test.size == batches.n_labelled == 88
    no_labels = batches_from_frame(pd.DataFrame({"prob": [0.1, 0.2]}))
    with pytest.raises(InputError, match="0 labelled items"):
        labelled_split(no_labels)
