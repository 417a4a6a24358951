"""Deciding probability batches: per-batch optimality, input order, the threshold-0.5 comparison."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.io import batches_from_frame
from engine.setloss import (
    batches_from_split,
    decide_batch,
    decide_batches,
    expected_losses,
    get_loss,
    labelled_split,
    monte_carlo_check,
    optimal_decision,
)
from engine.setloss._batches import THRESHOLD_HALF
from engine.setloss._protocol import scored_split_from_arrays
from engine.setloss.display import decided_items


@pytest.fixture
def batches():
    rng = np.random.default_rng(3)
    n = 90
    frame = pd.DataFrame(
        {
            "id": [f"i{i}" for i in range(n)],
            "batch": rng.choice(["b", "a", "c"], n),
            "prob": rng.random(n).round(3),
            "y": np.where(rng.random(n) < 0.4, "1", "0"),
        }
    )
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
    assert table["flag"].sum() == d.k and table["flag"].iloc[: d.k].all()


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


# --- many small batches, decided all at once ------------------------------------------------------------------------

from engine.setloss._batches import SMALL_BATCH, small_batch_losses  # noqa: E402
from engine.setloss._expected import expected_losses_reference  # noqa: E402
from tests.engine.setloss.test_expected import NAMES, brute_force  # noqa: E402


@pytest.mark.parametrize("name", NAMES + ["custom"])
def test_small_batch_losses_equal_enumeration_and_the_per_batch_path(name):
    from engine.setloss import linear_fractional

    loss = linear_fractional((0, 1, 0, 0, 1), (1, 1, 1, 1, 1)) if name == "custom" else get_loss(name)
    rng = np.random.default_rng(NAMES.index(name) if name in NAMES else 99)
    for n in (1, 2, 3, 6, 9):
        with_ends = np.r_[rng.random(n), 0.0, 1.0][-n:]  # certain items (0 and 1) once there are two or more
        many = np.vstack([np.sort(with_ends)[::-1], np.sort(rng.random(n))[::-1], np.full(n, 0.5)])
        got = small_batch_losses(many, loss)
        for row, values in zip(many, got):
            np.testing.assert_allclose(values, brute_force(row, loss), atol=1e-12, rtol=0)
            np.testing.assert_allclose(values, expected_losses(row, loss), atol=1e-12, rtol=0)
            np.testing.assert_allclose(values, expected_losses_reference(row, loss), atol=1e-12, rtol=0)


def per_batch_oracle(batches, loss):
    """The per-batch path as it was: one optimal_decision per batch, realised losses counted batch by batch."""
    out = {}
    for name in batches.batch_names:
        rows = batches.rows_of(name)
        eta = batches.probabilities[rows]
        best = optimal_decision(eta, loss)
        k_half = int((eta >= THRESHOLD_HALF).sum())
        realised = []
        for mask in (best.mask, eta >= THRESHOLD_HALF):
            y, known = batches.labels[rows], batches.labels[rows] >= 0
            realised.append(
                float(
                    loss(
                        ((y == 1) & mask & known).sum(),
                        ((y == 0) & mask & known).sum(),
                        ((y == 1) & ~mask & known).sum(),
                        ((y == 0) & ~mask & known).sum(),
                    )
                )
                if known.any()
                else np.nan
            )
        out[name] = (rows, best, k_half, best.losses[k_half], realised)
    return out


@pytest.mark.parametrize("loss_name", ["f1", "fbeta:2", "jaccard", "am", "gmean", "auc"])
def test_vectorised_batches_equal_the_per_batch_path_on_random_inputs(loss_name):
    rng = np.random.default_rng(len(loss_name))
    sizes = np.r_[rng.integers(1, 6, 150), rng.integers(6, SMALL_BATCH + 1, 20), [SMALL_BATCH + 1, 45]]
    ids = np.repeat([f"b{i}" for i in range(sizes.size)], sizes)
    order = rng.permutation(ids.size)  # batches interleaved in the file
    frame = pd.DataFrame(
        {
            "batch": ids[order],
            "prob": rng.random(ids.size),
            "y": rng.choice(["1", "0", ""], ids.size, p=[0.3, 0.6, 0.1]),
        }
    )
    frame.loc[frame["batch"] == "b0", "y"] = ""  # a batch without any label
    batches = batches_from_frame(frame)
    loss = get_loss(loss_name)
    result = decide_batches(batches, loss)
    summary = result.summary.set_index("batch")
    decision, k_column = result.decisions["decision"].to_numpy(), result.decisions["k"].to_numpy()
    for name, (rows, best, k_half, loss_half, realised) in per_batch_oracle(batches, loss).items():
        row = summary.loc[name]
        assert row["k"] == best.k and (k_column[rows] == best.k).all()
        np.testing.assert_array_equal(decision[rows], best.mask.astype(np.int8))
        assert row["expected loss"] == pytest.approx(best.value, abs=1e-12)
        assert row["k at η ≥ 0.5"] == k_half
        assert row["expected loss at η ≥ 0.5"] == pytest.approx(loss_half, abs=1e-12)
        np.testing.assert_array_equal([row["realised loss"], row["realised loss at η ≥ 0.5"]], realised)
        outcome = decide_batch(batches.probabilities[rows], loss)  # the page's single-batch call agrees exactly
        assert outcome.decision.k == row["k"] and outcome.decision.value == row["expected loss"]
    assert list(summary.index) == list(batches.batch_names) and list(summary["items"]) == [
        batches.rows_of(n).size for n in batches.batch_names
    ]


def test_fifty_thousand_one_item_batches():
    """F1 on one item: flagging it costs 1 - eta in expectation, not flagging it eta; flag iff eta > 1/2."""
    rng = np.random.default_rng(0)
    n = 50_000
    eta = rng.random(n)
    eta[:3] = [0.5, 0.0, 1.0]
    frame = pd.DataFrame({"batch": np.arange(n).astype(str), "prob": eta, "y": rng.choice(["1", "0"], n)})
    result = decide_batches(batches_from_frame(frame), "f1")
    np.testing.assert_array_equal(result.decisions["decision"], (eta > 0.5).astype(np.int8))
    np.testing.assert_allclose(result.summary["expected loss"], np.minimum(eta, 1 - eta), atol=1e-15, rtol=0)
    y = (frame["y"] == "1").to_numpy()
    flagged = eta > 0.5
    np.testing.assert_array_equal(result.summary["realised loss"], np.where(flagged == y, 0.0, 1.0))
