"""Tree extraction reproduces scikit-learn exactly; the lazy evaluator skips work, not decisions."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

from engine.qwyc import fit_qwyc, time_early_exit
from engine.qwyc._ensembles import from_sklearn


@pytest.fixture(scope="module")
def data():
    x, y = make_classification(3000, 12, n_informative=6, random_state=0)
    x[::17, 3] = np.nan  # missing values follow each node's learned direction
    return x, y


@pytest.mark.slow
def test_hist_gradient_boosting_reconstruction(data):
    x, y = data
    model = HistGradientBoostingClassifier(max_iter=60, max_depth=4, early_stopping=False, random_state=0).fit(x, y)
    ens = from_sklearn(model)
    f = ens.contributions(x)
    assert f.shape == (3000, 60)
    np.testing.assert_allclose(ens.bias + f.sum(1), model.decision_function(x), atol=1e-10, rtol=0)


def test_gradient_boosting_reconstruction(data):
    x, y = data
    x = np.nan_to_num(x)
    model = GradientBoostingClassifier(n_estimators=40, max_depth=3, learning_rate=0.2, random_state=0).fit(x, y)
    ens = from_sklearn(model)
    np.testing.assert_allclose(ens.bias + ens.contributions(x).sum(1), model.decision_function(x), atol=1e-10, rtol=0)


def test_unsupported_models_are_refused(data):
    x, y = data
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(TypeError, match="unsupported model"):
        from_sklearn(LogisticRegression().fit(np.nan_to_num(x), y))
    cat = HistGradientBoostingClassifier(max_iter=5, categorical_features=[0], early_stopping=False)
    xc = np.nan_to_num(x).copy()
    xc[:, 0] = (xc[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="categorical"):
        from_sklearn(cat.fit(xc, y))


@pytest.mark.slow
def test_lazy_evaluation_gives_the_policys_decisions(data):
    x, y = data
    model = HistGradientBoostingClassifier(max_iter=80, max_depth=3, early_stopping=False, random_state=0).fit(x, y)
    ens = from_sklearn(model)
    f = ens.contributions(x)
    policy = fit_qwyc(f, alpha=0.01, bias=ens.bias)
    lazy_decisions, lazy_eval = policy.predict_lazy(ens, x)
    decisions, n_eval = policy.predict(f)
    np.testing.assert_array_equal(lazy_decisions, decisions)
    np.testing.assert_array_equal(lazy_eval, n_eval)
    timing = time_early_exit(ens, policy, x, reference=model.decision_function, repeat=1)
    assert timing.decisions_match_policy and timing.mean_models == n_eval.mean()
    assert timing.rows == 3000 and timing.full_seconds > 0 and timing.early_seconds > 0


@pytest.mark.slow
def test_lightgbm_pred_early_stop_is_reproduced_on_f(data):
    import lightgbm as lgb

    from engine.qwyc._ensembles import from_lightgbm
    from engine.qwyc._policy import lightgbm_early_stop_policy

    x, y = data
    model = lgb.LGBMClassifier(n_estimators=60, num_leaves=15, learning_rate=0.1, verbose=-1).fit(x, y)
    ens = from_lightgbm(model)
    f = ens.contributions(x)
    np.testing.assert_allclose(f.sum(1), model.booster_.predict(x, raw_score=True), atol=1e-10)
    for freq, margin in ((5, 2.0), (10, 4.0), (1, 1.0)):
        raw = model.booster_.predict(
            x, raw_score=True, pred_early_stop=True, pred_early_stop_freq=freq, pred_early_stop_margin=margin
        )
        policy = lightgbm_early_stop_policy(f.shape[1], freq, margin)
        _, n_eval = policy.predict(f)
        simulated = np.cumsum(f, axis=1)[np.arange(f.shape[0]), n_eval - 1]
        np.testing.assert_allclose(simulated, raw, atol=1e-10)
        assert n_eval.mean() < f.shape[1]


def test_tree_depth_against_a_recursive_walk_on_random_child_arrays():
    """Oracle: a plain recursive walk from the root that fails on a child out of range or a node met twice."""
    from engine.qwyc._ensembles import tree_depth

    def walk(left, right, is_leaf):
        seen = set()

        def go(node, d):
            if not 0 <= node < len(is_leaf) or node in seen:
                raise ValueError
            seen.add(node)
            return d if is_leaf[node] else max(go(int(left[node]), d + 1), go(int(right[node]), d + 1))

        depth = go(0, 0)
        if len(seen) != len(is_leaf):
            raise ValueError
        return depth

    rng = np.random.default_rng(5)
    outcomes = set()
    for _ in range(3000):
        n = int(rng.integers(1, 9))
        is_leaf = rng.random(n) < 0.5
        left, right = rng.integers(-1, n + 1, n), rng.integers(-1, n + 1, n)
        if rng.random() < 0.3:  # a well-formed tree now and then: children numbered after their parent
            is_leaf = np.ones(n, bool)
            for i in range(1, n, 2):
                parent = int(rng.integers(0, i)) if i > 1 else 0
                if is_leaf[parent] and i + 1 < n:
                    is_leaf[parent], left[parent], right[parent] = False, i, i + 1
        try:
            expected = walk(left, right, is_leaf)
        except (ValueError, RecursionError):
            expected = None
        try:
            got = tree_depth(left, right, is_leaf)
        except ValueError:
            got = None
        assert got == expected, (left, right, is_leaf)
        outcomes.add(expected is None)
    assert outcomes == {True, False}


@pytest.mark.slow
def test_shipped_adult_model_is_train_adult_gbt_and_its_prefixes_are_the_shorter_models():
    from engine.qwyc import ADULT_GBT, adult_gbt_sample, train_adult_gbt

    shipped = adult_gbt_sample(50)  # read through the skops reader, like a user's file
    trained = train_adult_gbt(max_iter=50, max_depth=ADULT_GBT["max_depth"])  # the oracle: sklearn itself
    assert shipped.ensemble.n_models == 50 and shipped.fit_seconds == 0
    np.testing.assert_array_equal(shipped.x_test, trained.x_test)
    np.testing.assert_array_equal(shipped.y_train, trained.y_train)
    assert shipped.ensemble.bias == trained.ensemble.bias
    np.testing.assert_array_equal(
        shipped.ensemble.contributions(shipped.x_test), trained.ensemble.contributions(trained.x_test)
    )
    np.testing.assert_allclose(
        shipped.decision_function(shipped.x_test), trained.model.decision_function(trained.x_test), atol=1e-10, rtol=0
    )
    assert adult_gbt_sample().ensemble.n_models == ADULT_GBT["max_iter"]
    with pytest.raises(ValueError, match="max_iter"):
        adult_gbt_sample(501)


def test_ordinal_codes_are_scikit_learns_ordinal_encoder():
    import pandas as pd
    from sklearn.preprocessing import OrdinalEncoder

    from engine.io._public_data import load_public_dataset
    from engine.qwyc._ensembles import encoded_adult, ordinal_codes

    train = pd.Series(["b", np.nan, "a", "c", "a", np.nan, "B", "é"], dtype=object)
    other = pd.Series(["a", "zz", np.nan, "é", "B", "c"], dtype=object)
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(train.to_frame())
    got_train, got_other = ordinal_codes(train, other)
    np.testing.assert_array_equal(got_train, enc.transform(train.to_frame())[:, 0])
    np.testing.assert_array_equal(got_other, enc.transform(other.to_frame())[:, 0])
    adult = load_public_dataset("adult")  # the encoding of the shipped model's data, against the encoder it replaced
    cats = [c for c in adult.x.columns if not pd.api.types.is_numeric_dtype(adult.x[c])]
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(adult.x[cats])
    x_train, _, x_test, _ = encoded_adult()
    where = [list(adult.x.columns).index(c) for c in cats]
    np.testing.assert_array_equal(x_train[:, where], enc.transform(adult.x[cats]))
    np.testing.assert_array_equal(x_test[:, where], enc.transform(adult.x_test[cats]))
