"""The compiled early-exit evaluator against each library's own predict and the policy on F."""

import numpy as np
import pandas as pd
import pytest

from engine.qwyc import fit_qwyc, lightgbm_early_stop_policy
from engine.qwyc.evaluator import flatten_ensemble
from engine.qwyc.models import load_model

lightgbm = pytest.importorskip("lightgbm")
xgboost = pytest.importorskip("xgboost")
skops_io = pytest.importorskip("skops.io")

FEATURES = [f"feature_{j}" for j in range(5)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1500, 5))
    x[rng.random(x.shape) < 0.08] = np.nan
    x[rng.random(x.shape) < 0.05] = 0.0
    y = (np.nan_to_num(x[:, 0]) - np.nan_to_num(x[:, 1]) + rng.normal(size=1500) > 0).astype(int)
    return pd.DataFrame(x, columns=FEATURES), y


def lightgbm_file(frame, y, **options):
    model = lightgbm.LGBMClassifier(n_estimators=60, max_depth=4, verbose=-1, **options).fit(frame, y)
    return model.booster_, model.booster_.model_to_string().encode()


def models(frame, y):
    from sklearn.ensemble import HistGradientBoostingClassifier

    for options in ({}, {"zero_as_missing": True}, {"use_missing": False}):
        booster, raw = lightgbm_file(frame, y, **options)
        yield f"lightgbm {options}", raw, lambda x, b=booster: b.predict(x, raw_score=True)
    xgb = xgboost.XGBClassifier(n_estimators=50, max_depth=4).fit(frame, y).get_booster()
    yield "xgboost", bytes(xgb.save_raw("json")), None
    hist = HistGradientBoostingClassifier(max_iter=40, early_stopping=False).fit(frame, y)
    yield "skops", skops_io.dumps(hist), lambda x, m=hist: m.decision_function(pd.DataFrame(x, columns=FEATURES))


def test_all_trees_equal_the_traversal_and_the_librarys_own_predict(data):
    frame, y = data
    for name, raw, own in models(frame, y):
        loaded = load_model(raw, name=name)
        x = loaded.features(frame)
        flat = flatten_ensemble(loaded.ensemble)
        score = flat.decision_function(x)
        # the same additions in the same order as the NumPy traversal: equal to the bit
        np.testing.assert_array_equal(score, loaded.ensemble.decision_function(x), err_msg=name)
        if own is not None:
            np.testing.assert_allclose(score, own(x), rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("alpha", [0.0, 0.02])
def test_early_exit_follows_the_policy_and_equals_the_full_model_where_no_exit(data, alpha):
    frame, y = data
    for name, raw, _ in models(frame, y):
        loaded = load_model(raw, name=name)
        x = loaded.features(frame)
        f = loaded.ensemble.contributions(x)
        policy = fit_qwyc(f[:1000], alpha=alpha, bias=loaded.ensemble.bias)
        decision, n_eval, score = flatten_ensemble(loaded.ensemble).early_exit(policy, x)
        expected = policy.predict(f)
        assert np.array_equal(decision, expected[0]) and np.array_equal(n_eval, expected[1]), name
        full = loaded.ensemble.decision_function(x)
        last = n_eval == loaded.n_trees
        np.testing.assert_array_equal(score[last], full[last])
        assert np.array_equal(decision[last], full[last] >= policy.threshold)
        step = n_eval[~last] - 1  # rows that exited: the rule of the step they stopped at
        assert np.array_equal(decision[~last], score[~last] > policy.eps_plus[step])
        assert np.all(decision[~last] | (score[~last] < policy.eps_minus[step]))
        assert np.array_equal(policy.predict_lazy(loaded.ensemble, x)[0], decision)


@pytest.mark.parametrize("freq, margin", [(1, 2.0), (5, 3.0), (10, 1.0)])
def test_lightgbm_rule_equals_lightgbms_own_pred_early_stop(data, freq, margin):
    frame, y = data
    booster, raw = lightgbm_file(frame, y)
    loaded = load_model(raw, name="m.txt")
    x = loaded.features(frame)
    policy = lightgbm_early_stop_policy(loaded.n_trees, freq, margin, bias=loaded.ensemble.bias)
    decision, n_eval, score = flatten_ensemble(loaded.ensemble).early_exit(policy, x)
    own = booster.predict(x, raw_score=True, pred_early_stop=True, pred_early_stop_freq=freq,
                          pred_early_stop_margin=margin)
    np.testing.assert_allclose(score, own, rtol=0, atol=1e-12)
    assert np.array_equal(decision, own >= 0) or np.all((decision == (own >= 0)) | (np.abs(own) < 1e-12))
    assert (n_eval < loaded.n_trees).any()


def test_ensembles_of_other_base_models_keep_the_numpy_evaluator():
    from engine.qwyc.ensembles import AdditiveEnsemble

    class Constant:
        def predict(self, x):
            return np.ones(x.shape[0])

    assert flatten_ensemble(AdditiveEnsemble((Constant(),), 0.0)) is None


@pytest.mark.parametrize("rows", [1, 255, 256, 257, 1500, 3333])
def test_contributions_equal_each_trees_own_traversal_across_row_blocks(data, rows):
    frame, y = data
    for name, raw, _ in models(frame, y):
        loaded = load_model(raw, name=name)
        x = np.resize(loaded.features(frame), (rows, len(FEATURES)))  # the rows repeated past the 1,500
        expected = np.column_stack([t.predict(x) for t in loaded.ensemble.trees])
        flat = flatten_ensemble(loaded.ensemble)
        for workers in (1, 2, 3):  # blocks dealt to threads in turn; fewer blocks than threads at small sizes
            np.testing.assert_array_equal(flat.contributions(x, workers=workers), expected, err_msg=name)
