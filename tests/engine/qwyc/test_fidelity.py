"""Early exit with a fidelity promise on new rows (calibrated margins, fixed-sequence test)."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import InputError
from engine.qwyc._fidelity import calibrate_fidelity, fidelity_curve, fit_fidelity


def ensemble(n: int, seed: int, trees: int = 60):
    """Contributions of an additive model whose trees carry a shared signal plus noise."""
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=(n, 1))
    weights = rng.uniform(0.2, 1.0, trees)
    return signal * weights / trees * 8 + rng.normal(scale=0.15, size=(n, trees))


@pytest.mark.parametrize("d", [0.003, 0.01, 0.03])
def test_new_rows_stay_within_the_promise(d):
    fit = ensemble(12_000, 1)
    fresh = ensemble(60_000, 2)
    fitted = fit_fidelity(fit, max_disagreement=d, seed=0)
    assert fitted.certified and fitted.calibration_upper_bound <= d
    decision, n_eval = fitted.policy.predict(fresh)
    full = fresh.sum(axis=1) >= 0
    rate = np.mean(decision != full)
    assert rate <= d  # 60,000 fresh rows: sampling error far below the margins tested here
    assert n_eval.mean() < fresh.shape[1]  # and it still exits early


def test_a_looser_promise_evaluates_fewer_trees():
    fit = ensemble(10_000, 3)
    trees = [fit_fidelity(fit, max_disagreement=d).policy.predict(fit)[1].mean() for d in (0.002, 0.01, 0.05)]
    assert trees[0] >= trees[1] >= trees[2]


def test_too_few_rows_for_the_promise_means_no_early_exit():
    fit = ensemble(300, 4)  # 120 calibration rows cannot certify 0.1 % (the bound with no error is ~2.5 %)
    fitted = fit_fidelity(fit, max_disagreement=0.001)
    assert not fitted.certified
    _, n_eval = fitted.policy.predict(fit)
    assert (n_eval == fit.shape[1]).all()


def test_curve_has_both_methods_with_intervals():
    curve = fidelity_curve(
        ensemble(4000, 5),
        ensemble(4000, 6),
        disagreements=(0.01, 0.05),
        lightgbm_margins=(1.0, 3.0),
        lightgbm_freqs=(1, 10),
    )
    assert set(curve["method"]) == {"QWYC with fidelity promise", "LightGBM pred_early_stop"}
    assert len(curve) == 2 + 4
    assert (curve["interval low"] <= curve["test disagreement"]).all()
    assert (curve["test disagreement"] <= curve["interval high"]).all()
    # LightGBM's own early stopping promises nothing: nothing is certified for it
    assert curve.loc[curve["method"] == "LightGBM pred_early_stop", "certified"].isna().all()


def test_one_calibration_answers_every_promise_as_a_fresh_fit_does():
    fit = ensemble(6000, 7)
    calibration = calibrate_fidelity(fit, bias=0.1, seed=3)
    for d in (0.0005, 0.003, 0.01, 0.05):
        once, fresh = (
            calibration.promise(d, 0.9),
            fit_fidelity(fit, max_disagreement=d, level=0.9, bias=0.1, seed=3),
        )
        assert once.as_dict() == fresh.as_dict()
        for a, b in (
            (once.policy.order, fresh.policy.order),
            (once.policy.eps_minus, fresh.policy.eps_minus),
            (once.policy.eps_plus, fresh.policy.eps_plus),
        ):
            np.testing.assert_array_equal(a, b)
        assert once.policy.method == fresh.policy.method and once.policy.alpha == fresh.policy.alpha
    with pytest.raises(InputError, match="maximum disagreement D"):
        calibration.promise(1.5)


def test_the_curve_reuses_a_calibration_and_stays_the_same():
    fit, test = ensemble(4000, 8), ensemble(3000, 9)
    settings = dict(bias=0.2, disagreements=(0.005, 0.02), lightgbm_margins=(2.0,), lightgbm_freqs=(5,), seed=1)
    reused = fidelity_curve(fit, test, calibration=calibrate_fidelity(fit, bias=0.2, seed=1), **settings)
    pd.testing.assert_frame_equal(reused, fidelity_curve(fit, test, **settings))
