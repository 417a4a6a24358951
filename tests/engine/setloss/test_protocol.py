"""The paper's batch protocol: threshold tuning, batches, per-batch losses."""

import numpy as np
import pytest

from engine.setloss import compare_baselines, get_loss, optimal_decision, train_probabilities
from engine.setloss._protocol import batch_indices, scored_split_from_arrays, tune_threshold


def test_logistic_probabilities_are_calibrated_on_breast_cancer():
    split = train_probabilities("breast_cancer")
    assert split.eta_val.size + split.eta_test.size == 569 - 284
    # calibration: mean predicted probability close to the observed rate; Brier score small
    assert abs(split.eta_test.mean() - split.y_test.mean()) < 0.08
    assert np.mean((split.eta_test - split.y_test) ** 2) < 0.06


def test_tuned_threshold_is_the_brute_force_minimiser():
    rng = np.random.default_rng(0)
    eta = rng.random(300)
    y = (rng.random(300) < eta).astype(int)
    loss = get_loss("f1")
    t = tune_threshold(eta, y, loss, 30, candidates=50)
    batches = batch_indices(300, 30, 0)

    def mean_loss(th):
        return np.mean(
            [
                loss(
                    ((eta[b] >= th) & (y[b] == 1)).sum(),
                    ((eta[b] >= th) & (y[b] == 0)).sum(),
                    ((eta[b] < th) & (y[b] == 1)).sum(),
                    ((eta[b] < th) & (y[b] == 0)).sum(),
                )
                for b in batches
            ]
        )

    grid = np.unique(np.r_[np.quantile(eta, np.linspace(0, 1, 50)), 0.5, 1.0 + 1e-12])
    assert mean_loss(t) == pytest.approx(min(mean_loss(g) for g in grid))


def test_compare_baselines_scores_each_batch_correctly():
    rng = np.random.default_rng(1)
    eta = rng.beta(0.5, 2, 2000)
    y = (rng.random(2000) < eta).astype(int)
    split = scored_split_from_arrays(eta, y, seed=2)
    result = compare_baselines(split, "jaccard", 50, seed=3)
    assert list(result.summary["method"])[0] == "threshold 0.5"
    assert (result.summary["batches"] == 20).all()
    # recompute one batch of the optimal method by hand
    batches = batch_indices(split.eta_test.size, 50, 4)
    b = batches[0]
    d = optimal_decision(split.eta_test[b], "jaccard")
    yb = split.y_test[b]
    expected = get_loss("jaccard")(
        (d.mask & (yb == 1)).sum(), (d.mask & (yb == 0)).sum(), (~d.mask & (yb == 1)).sum(), (~d.mask & (yb == 0)).sum()
    )
    row = result.per_batch.query("batch == 0 and method == 'expected-loss-optimal top-k'")
    assert float(row["loss"].iloc[0]) == pytest.approx(float(expected))
    # with calibrated probabilities the optimal decision beats thresholding at 0.5 on average
    means = dict(zip(result.summary["method"], result.summary["mean_test_loss"]))
    assert means["expected-loss-optimal top-k"] < means["threshold 0.5"]
